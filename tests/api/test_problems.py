"""Problems (service/api/problems.py): one status per code, one handler for every engine and
ledger error, the detail in the client's language from the catalogs."""

from __future__ import annotations

import pytest
from flask import Flask

from service.api.problems import STATUS, TITLES, Problem, engine_problem, error_problem, install
from service.engine.cards import parse_card
from service.engine.errors import EngineError
from service.engine.match import MatchError
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
