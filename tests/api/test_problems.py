"""Problems (service/api/problems.py): one status per code, one handler for every engine and
ledger error, the detail in the client's language from the catalogs."""

from __future__ import annotations

import pytest
from flask import Flask

from service.api import problems
from service.api.problems import STATUS, TITLES, Problem, engine_problem, error_problem, install
from service.app import create_app
from service.engine.cards import parse_card
from service.engine.errors import EngineError
from service.engine.match import EntrySource, MatchError
from service.engine.rules import resolve
from service.ledger.errors import MatchNotFound


@pytest.fixture()
def bare() -> Flask:
    """A bare app with only the problem handlers: whatever a view raises is answered by them."""
    app = Flask(__name__)
    install(app)

    @app.route("/raise/<what>")
    def raise_(what: str) -> str:
        if what == "card":
            parse_card("Qz")
        if what == "ruleset":
            resolve({"base": "kaluki-51", "overrides": {"nope": 1}})
        if what == "finished":
            raise MatchError("match-finished", "the match is finished")
        if what == "ledger":
            raise MatchNotFound("No match 'x'.", id="x")
        if what == "enum-field":  # a field an enum names (a ledger entry's source)
            raise EngineError("the record is not finished", code="invalid-record",
                              field=EntrySource.RECORD)
        raise EngineError("something")

    return app


def test_every_code_with_a_status_has_a_title() -> None:
    assert set(STATUS) <= set(TITLES)
    assert all(400 <= s < 600 for s in STATUS.values())


@pytest.mark.parametrize(("what", "status", "code"), [
    ("card", 422, "invalid-card"), ("ruleset", 422, "unknown-parameter"),
    ("finished", 409, "match-finished"), ("ledger", 404, "match-not-found"),
    ("other", 400, "bad-request")])
def test_one_handler_answers_every_error_by_the_table(bare: Flask, what: str, status: int,
                                                      code: str) -> None:
    resp = bare.test_client().get(f"/raise/{what}")
    body = resp.get_json(force=True)
    assert (resp.status_code, body["code"], body["status"]) == (status, code, status)
    assert resp.mimetype == "application/problem+json"


def test_details_follow_the_catalog(bare: Flask) -> None:
    c = bare.test_client()
    en = c.get("/raise/card").get_json(force=True)
    nl = c.get("/raise/card", headers={"Accept-Language": "nl"}).get_json(force=True)
    assert en["detail"].startswith("'Qz' is not a card")
    assert nl["detail"] == "'Qz' is geen kaart: schrijf rang en kleur, zoals 'Qs' of '10h'."
    assert (en["title"], nl["title"]) == ("Invalid card", "Ongeldige kaart")
    nl_ledger = c.get("/raise/ledger", headers={"Accept-Language": "nl"}).get_json(force=True)
    assert nl_ledger["detail"] == "Geen partij 'x' (misschien verlopen; importeer de export)."


def test_a_translation_missing_a_fact_falls_back_to_english() -> None:
    # match-not-found's Dutch names {id}; raised without it, the English detail serves
    problem = error_problem(MatchNotFound("No match here."))
    assert problem.detail_in("nl") == "No match here."
    assert problem.to_dict("nl")["title"] == "Wedstrijd niet gevonden"


def test_an_error_says_where_when_the_api_knows() -> None:
    try:
        parse_card("Qz")
    except EngineError as exc:
        problem = engine_problem(exc, "players.1.cards.0")
    assert list(problem.errors or ()) == ["players.1.cards.0"]
    assert Problem("not-found", "x").status == 404
    assert "no-such-code-anywhere" not in STATUS
    assert Problem("no-such-code-anywhere", "x").status == 422  # a code not in the table is 422


# -- the documents' status tables (issue 21 item 21) -----------------------------------------

def _status_tables(text: str) -> list[tuple[int, list[str]]]:
    """Every row of every ``| status | when | codes |`` table: (status, the codes named)."""
    import re

    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.replace(" ", "") != "|status|when|codes|":
            continue
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip("|").split("|")]
            for status in re.findall(r"\d{3}", cells[0]):
                out.append((int(status), re.findall(r"`([a-z][a-z-]+)`", cells[2])))
    return out


def test_docs_api_status_table_is_the_generated_one():
    from pathlib import Path

    from service.docs import codes_doc

    doc = Path(codes_doc.DOC_PATH).read_text()
    assert codes_doc.document(doc) == doc, \
        "docs/api.md is stale: run python -m service.docs.codes_doc --write"
    listed = {code for _, codes in _status_tables(doc) for code in codes}
    assert listed == set(problems.TITLES)


def test_every_status_table_in_the_docs_agrees_with_the_code():
    """README.md and docs/*.md: a code listed under a status answers that status."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    checked = 0
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for status, codes in _status_tables(path.read_text()):
            for code in codes:
                assert code in problems.TITLES, f"{path.name}: {code} is no code"
                assert status in (problems.status_of(code),
                                  *problems.ALSO_STATUS.get(code, {})), \
                    f"{path.name}: {code} is not {status}"
                checked += 1
    assert checked > 60


def test_unknown_ruleset_is_404_as_the_resource_and_422_in_a_body():
    c = create_app({"TESTING_NO_METRICS": True}).test_client()
    r = c.get("/v1/rulesets/no-such-rules")
    assert r.status_code == 404 and r.get_json()["code"] == "unknown-ruleset"
    r = c.post("/v1/melds/validate", json={"ruleset": "no-such-rules", "cards": ["9c"]})
    assert r.status_code == 422 and r.get_json()["code"] == "unknown-ruleset"
    assert 404 in problems.ALSO_STATUS["unknown-ruleset"]


def test_a_field_named_by_an_enum_is_a_plain_key(bare: Flask) -> None:
    """An error located at an enum member (a ledger entry's ``source``) is answered keyed
    by the member's value, not a 500 (the JSON writer takes str keys only with
    OPT_NON_STR_KEYS)."""
    resp = bare.test_client().get("/raise/enum-field")
    assert resp.status_code == 422
    assert resp.get_json(force=True)["errors"] == {"record": ["the record is not finished"]}
