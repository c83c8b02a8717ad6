"""The referee console's server side: the page and its assets, ``?steps=true`` on
/v1/hands/adjudicate, and problems that name the notation line they are about.

The page itself is driven in a browser by ``tests/console/test_console_browser.py``.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from service.docs.console import CSP, STATIC
from service.engine.notation import parse_text
from service.engine.record import parse_record
from service.engine.referee import adjudicate

ROOT = Path(__file__).resolve().parents[2]
NOTATION = "text/vnd.kaluki.hand"
HUNT = (STATIC / "examples" / "hunt.hand").read_text(encoding="utf-8")


def _post(client, body: str, query: str = "?steps=true", lang: str | None = None):
    headers = {"Content-Type": NOTATION}
    if lang:
        headers["Accept-Language"] = lang
    return client.post(f"/v1/hands/adjudicate{query}", data=body, headers=headers)


# -- the page ------------------------------------------------------------------------------

def test_page_is_served_with_a_strict_csp(client) -> None:
    r = client.get("/console")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert '<textarea id="record" name="record"' in html and 'type="submit"' in html
    csp = r.headers["Content-Security-Policy"]
    assert csp == CSP
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
    # no inline script or style: every script and stylesheet is a file of our own
    assert re.findall(r"<script[^>]*>", html) == [
        '<script type="module" src="/console/assets/console.js">']
    assert "<style" not in html and " style=" not in html and "javascript:" not in html
    assert "http://" not in html and "https://" not in html


@pytest.mark.parametrize("name,mimetype", [
    ("console.js", "text/javascript"), ("cards.js", "text/javascript"),
    ("i18n.js", "text/javascript"), ("record.js", "text/javascript"),
    ("strings.js", "text/javascript"),
    ("console.css", "text/css"), ("icon.svg", "image/svg+xml")])
def test_assets_are_served(client, name: str, mimetype: str) -> None:
    r = client.get(f"/console/assets/{name}")
    assert r.status_code == 200 and r.mimetype == mimetype
    assert r.headers["Content-Security-Policy"] == CSP
    body = r.get_data(as_text=True)
    assert "http://" not in body.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in body


def test_no_asset_outside_the_static_folder(client) -> None:
    assert client.get("/console/assets/../console.py").status_code == 404
    assert client.get("/console/assets/nope.js").status_code == 404


def test_assets_ship_in_the_package() -> None:
    """package-data in pyproject.toml: an installed wheel carries the page."""
    static = resources.files("service.console") / "static"
    for name in ("index.html", "console.js", "cards.js", "i18n.js", "record.js", "console.css",
                 "examples/hunt.hand", "examples/illegal.hand"):
        assert (static / name).is_file(), name
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"service.console" = ["static/*", "static/examples/*"]' in pyproject


def test_console_is_not_in_the_api_document(client) -> None:
    paths = client.get("/openapi.json").get_json()["paths"]
    assert not any(p.startswith("/console") for p in paths)


def test_the_hunt_example_is_the_readme_record() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<<'END'\n", 1)[1].split("\nEND\n", 1)[0]
    assert HUNT.strip() == block.strip()


def test_the_illegal_example_is_ruled_card_not_in_hand() -> None:
    a = adjudicate(parse_text((STATIC / "examples" / "illegal.hand").read_text(encoding="utf-8")))
    assert not a.legal and a.violation is not None
    assert (a.violation.code, a.violation.where) == ("card-not-in-hand", {"turn": 0, "play": 2})


def test_the_json_example_is_a_legal_record() -> None:
    data = json.loads((STATIC / "examples" / "joker-release.json").read_text(encoding="utf-8"))
    assert adjudicate(parse_record(data)).legal


# -- ?steps=true ---------------------------------------------------------------------------

def test_steps_are_only_given_when_asked(client) -> None:
    assert "steps" not in _post(client, HUNT, query="").get_json()
    assert "steps" not in _post(client, HUNT, query="?steps=false").get_json()


def test_steps_of_a_legal_hand(client) -> None:
    body = _post(client, HUNT).get_json()
    plain = _post(client, HUNT, query="").get_json()
    assert {k: v for k, v in body.items() if k != "steps"} == plain
    deal, turn0 = body["steps"]
    assert deal["turn"] is None and deal["played"] is None
    assert deal["state"]["table"] == [] and deal["state"]["stock_count"] == 80
    assert [len(h["cards"]) for h in deal["state"]["hands"]] == [13, 13]
    assert turn0["turn"] == 0
    assert turn0["played"] == {"player": "ann", "draw": {"from": "stock", "card": "4c"},
                               "plays": [{"meld": ["4h", "5h", "6h", "7h", "8h", "9h", "Th"]},
                                         {"meld": ["Jh", "Qh", "Kh"]}, {"meld": ["2c", "3c", "4c"]}],
                               "discard": "Ah"}
    assert turn0["state"] == body["state"]  # the last step is the final state


def test_steps_of_an_illegal_hand_end_just_before_the_violation(client) -> None:
    body = _post(client, HUNT.replace("meld 2c 3c 4c", "meld 2c 3c 5c")).get_json()
    assert body["violations"][0]["code"] == "card-not-in-hand"
    steps = body["steps"]
    assert [s["turn"] for s in steps] == [None, 0]
    assert steps[-1]["state"] == body["state"]
    assert len(steps[-1]["state"]["table"]) == 2  # the two melds laid before play 2


def test_steps_of_a_longer_hand_follow_each_turn(client) -> None:
    record = json.loads((ROOT / "tests/records/008-k51-joker-release.json").read_text())["record"]
    body = client.post("/v1/hands/adjudicate?steps=true", json=record).get_json()
    steps = body["steps"]
    assert [s["turn"] for s in steps] == [None, 0, 1, 2]
    assert [s["state"]["turn"] for s in steps] == [0, 1, 2, 3]
    assert [len(s["state"]["table"]) for s in steps] == [0, 2, 4, 5]
    assert [s["state"]["stock_count"] for s in steps] == [80, 79, 78, 77]
    assert steps[-1]["state"] == body["state"] and body["legal"]


def test_steps_takes_only_true_or_false(client) -> None:
    r = _post(client, HUNT, query="?steps=yes")
    assert r.status_code == 422 and r.get_json()["code"] == "validation-error"
    assert "query.steps" in r.get_json()["errors"]


# -- problems about notation name their line ------------------------------------------------

@pytest.mark.parametrize("query", ["", "?steps=true"])
@pytest.mark.parametrize("edit,code,line", [
    (("draw stock 4c", "draw stok 4c"), "invalid-notation", 6),  # unparseable line
    (("Kh Ah 2c", "Kh Az 2c"), "invalid-card", 3),  # an unknown card in a deal
    (("meld Jh Qh Kh", "meld Jh Qz Kh"), "invalid-card", 8),  # in a play
    (("discard Ah", "discard A"), "invalid-card", 10),  # the discard
    (("players ann bob\n", ""), "invalid-record", None),  # no line to name: none is given
])
def test_a_notation_problem_names_its_line(client, query, edit, code, line) -> None:
    r = _post(client, HUNT.replace(*edit), query=query)
    problem = r.get_json()
    assert r.status_code == 422 and problem["code"] == code, problem
    assert problem.get("line") == line


def test_a_json_record_problem_names_its_field_not_a_line(client) -> None:
    record = json.loads((STATIC / "examples" / "joker-release.json").read_text())
    record["deal"]["ann"][10] = "9x"
    problem = client.post("/v1/hands/adjudicate", json=record).get_json()
    assert problem["code"] == "invalid-card" and "line" not in problem
    assert list(problem["errors"]) == ["deal.ann.10"]


def test_the_page_words_come_from_the_catalogs(client) -> None:
    """strings.js is generated from service/i18n: every key in every language it speaks."""
    import json

    from service.docs.console import STRINGS
    from service.i18n import LANGUAGES

    body = client.get("/console/assets/strings.js").get_data(as_text=True)
    tables = json.loads(body.split("export const STRINGS = ", 1)[1].split(";\n", 1)[0])
    langs = json.loads(body.split("export const LANGS = ", 1)[1].split(";", 1)[0])
    assert langs == list(LANGUAGES) and set(tables) == set(LANGUAGES)
    for lang, table in tables.items():
        assert set(table) == set(STRINGS), lang
    assert tables["en"]["submit"] == "Rule on this hand"
    assert tables["nl"]["submit"] == "Beoordeel deze hand"
    js = client.get("/console/assets/i18n.js").get_data(as_text=True)
    assert "Beoordeel" not in js and 'from "./strings.js"' in js

