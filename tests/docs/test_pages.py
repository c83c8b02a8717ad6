"""/problems/{code}: a page per problem and violation code, in English and Dutch.

Every code a client can meet has a page (HTML for browsers, JSON otherwise), each
page's example request really causes its code, violations in rulings link their
page, and the pages run under a strict CSP (no script, no inline style).
"""

from __future__ import annotations

import html
import json
import re

import pytest

from service.api.problems import TITLES
from service.docs.pages import PAGE_CSP, PROBLEM_DOCS, VIOLATION_EXAMPLES, describe
from service.engine import violations as v

ALL_CODES = sorted(set(TITLES) | set(v.CODES))
HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_every_error_code_has_a_description() -> None:
    assert set(TITLES) <= set(PROBLEM_DOCS)


@pytest.mark.parametrize("code", ALL_CODES)
def test_page_in_english_and_dutch(client, code: str) -> None:
    en = client.get(f"/problems/{code}", headers=HTML)
    nl = client.get(f"/problems/{code}", headers={**HTML, "Accept-Language": "nl"})
    assert en.status_code == nl.status_code == 200
    assert en.mimetype == "text/html" and en.headers["Content-Language"] == "en"
    assert nl.headers["Content-Language"] == "nl"
    assert en.headers["Content-Security-Policy"] == PAGE_CSP
    for page, words in ((en, ("What it means", "How to fix it")),
                        (nl, ("Wat het betekent", "Zo los je het op"))):
        text = page.get_data(as_text=True)
        assert f"<code>{code}</code>" in text
        assert all(w in text for w in words)
        assert "<script" not in text and "style=" not in text and "<style" not in text
    assert client.get(f"/problems/{code}?lang=nl", headers=HTML).headers[
        "Content-Language"] == "nl"


@pytest.mark.parametrize("code", ALL_CODES)
def test_json_stays_machine_readable(client, code: str) -> None:
    r = client.get(f"/problems/{code}", headers={"Accept": "application/json"})
    body = r.get_json()
    assert r.mimetype == "application/json"
    assert body["code"] == code and body["type"] == f"/problems/{code}"
    assert set(body["title"]) == set(body["description"]) == {"en", "nl"}
    assert body["description"]["en"] != body["description"]["nl"]
    assert client.get(f"/problems/{code}").get_json() == body  # no Accept: JSON


def test_unknown_code_is_a_problem(client) -> None:
    r = client.get("/problems/no-such-code", headers=HTML)
    assert r.status_code == 404 and r.mimetype == "application/problem+json"


def _request(example: str):
    head, _, rest = example.partition("\n")
    method, path = head.split(" ", 1)
    headers = {"Content-Type": "application/json"}
    if rest.startswith("Content-Type:"):
        line, _, rest = rest.partition("\n\n")
        headers["Content-Type"] = line.split(":", 1)[1].strip()
    return method, path, headers, rest


EXAMPLES = sorted((c, d.example) for c, d in PROBLEM_DOCS.items() if d.example
                  and "{id}" not in d.example and "…" not in d.example) + \
    sorted(VIOLATION_EXAMPLES.items())


@pytest.mark.parametrize("code,example", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_page_example_causes_its_code(client, code: str, example: str) -> None:
    method, path, headers, body = _request(example)
    r = client.open(path, method=method, data=body.encode() if body else None, headers=headers)
    answer = r.get_json(silent=True) or {}
    found = {answer.get("code")} | {x["code"] for x in answer.get("violations", [])}
    assert code in found, (code, r.status_code, answer)


def test_violations_link_their_page(client) -> None:
    r = client.post("/v1/melds/validate", json={"ruleset": "kaluki-51", "cards": ["9c", "Tc", "Jc"]})
    (violation,) = r.get_json()["violations"]
    assert violation["type"] == "/problems/run-too-short"
    assert client.get(violation["type"], headers=HTML).status_code == 200
    listed = client.get("/v1/violations").get_json()["violations"]
    assert all(x["type"] == f"/problems/{x['code']}" for x in listed)


def test_page_links_only_to_this_origin(client) -> None:
    text = client.get("/problems/invalid-card", headers=HTML).get_data(as_text=True)
    assert re.findall(r'(?:href|src)="(https?:)?//', text) == []
    assert client.get("/problems.css").mimetype == "text/css"
    assert json.loads(json.dumps(describe("invalid-card")))["status"] == 422


def test_every_violation_page_states_its_rule_in_dutch(client) -> None:
    from service.i18n import gettext
    for code, c in v.CODES.items():
        body = client.get(f"/problems/{code}").get_json()
        dutch = gettext("nl", c.rule, "rule")
        assert dutch != c.rule and dutch in body["description"]["nl"], code


def _sections(text: str) -> dict[str, str]:
    """A page's h1 and the prose under each h2, tags stripped."""
    strip = lambda s: re.sub(r"<[^>]+>", "", s)  # noqa: E731
    h1 = strip(re.search(r"<h1>(.*?)</h1>", text).group(1))
    parts = re.split(r"<h2>(.*?)</h2>", text.split("</h1>", 1)[1])
    return {"title": h1, **{strip(parts[i]): strip(parts[i + 1]) for i in range(1, len(parts) - 1, 2)}}


@pytest.mark.parametrize("code", ALL_CODES)
@pytest.mark.parametrize("lang,means,fix", [("en", "What it means", "How to fix it"),
                                            ("nl", "Wat het betekent", "Zo los je het op")])
def test_page_says_each_thing_once(client, code: str, lang: str, means: str, fix: str) -> None:
    """Issue 21 item 6: "What it means" does not repeat the title, "How to fix it" does not
    repeat "What it means", and a message template shows its fields by name, not as "…"."""
    text = client.get(f"/problems/{code}?lang={lang}", headers=HTML).get_data(as_text=True)
    s = _sections(text)
    title = html.unescape(s["title"])
    if code in v.CODES and code not in TITLES:  # the title is the rule: not said again
        prose = html.unescape(s[means]).split("“")[0]  # what the page says, not the message
        assert title.lower() not in prose.lower(), (code, s)
    assert html.unescape(s[means]).strip() != title, (code, s)
    assert s[fix] and s[fix] not in s[means], (code, s)
    assert "…" not in s[means] and "…" not in s[fix], (code, s)
    if code in v.CODES and "{" in v.CODES[code].message:
        assert "<var>" in text  # {card} is shown as its name, <var>card</var>


def test_page_links_the_catalog_and_the_api_description(client) -> None:
    for code, lang in (("card-not-in-hand", "en"), ("invalid-card", "nl")):
        text = client.get(f"/problems/{code}?lang={lang}", headers=HTML).get_data(as_text=True)
        more = re.search(r'<p class="more">(.*?)</p>', text).group(1)
        assert '<a href="/v1/violations">/v1/violations</a>' in more
        assert '<a href="/docs">/docs</a>' in more
        for href in re.findall(r'href="(/[^"]*)"', more):
            assert client.get(href).status_code == 200, href
