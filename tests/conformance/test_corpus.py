"""The published conformance corpus (docs/corpus.md#the-conformance-corpus, issue 25): this service
agrees with it, it covers every code, rule set and endpoint, and it is versioned and well formed."""

from __future__ import annotations

import json
import re

import pytest
from jsonschema import Draft202012Validator

from service.app import create_app
from service.conformance import corpus as cp
from service.conformance.generate import (
    UNREACHABLE,
    Service,
    problem_targets,
    required_problem_codes,
    targets,
)
from service.conformance.runner import FlaskTransport, run

REGENERATE = ("the engine's rulings no longer match the committed corpus (corpus/). Either the "
              "engine is wrong (fix it), or the ruling changed on purpose: bump corpus/VERSION, "
              "add a line to corpus/CHANGELOG.md saying which ruling changed and why, and run "
              "`make corpus`.")


@pytest.fixture(scope="module")
def live(app) -> dict:
    return targets(Service(app))


def test_the_service_agrees_with_the_committed_corpus(app, cases):
    result = run(FlaskTransport(app), cases, jobs=1)
    assert result.total == len(cases) > 0
    assert result.ok, f"{REGENERATE}\n\n{result.report()[-6000:]}"


def test_every_violation_code_has_a_case(cases, live):
    cited = {c for case in cases for c in cp.violation_codes(case)}
    missing = sorted(set(live["violations"]) - cited)
    assert not missing, (f"violation codes of GET /v1/violations with no case in the corpus: "
                         f"{missing}; run `make corpus` (bump corpus/VERSION, add a changelog line)")


def test_every_422_code_of_the_stateless_endpoints_and_the_referee_has_a_case(cases, live):
    answered = {cp.problem_code(c) for c in cases}
    required = required_problem_codes(live["problems"])
    assert {"invalid-card", "impossible-cards", "unknown-ruleset", "invalid-record",
            "hand-too-large", "search-too-large", "winner-holds-cards"} <= required
    missing = sorted(required - answered)
    assert not missing, (f"422 codes the stateless endpoints or the referee can answer with no "
                         f"case in the corpus: {missing}; run `make corpus` (bump corpus/VERSION, "
                         "add a changelog line)")


def test_codes_left_out_are_really_unreachable(app):
    """A code the documentation lists but no request reaches (UNREACHABLE) is refused earlier,
    by the schema: if that ever changes, the code must get its case."""
    c = app.test_client()
    body = {"ruleset": "kaluki-hunt", "winner": "kim", "finish": "hunt",
            "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}
    assert set(UNREACHABLE) == set()  # invalid-finish is no longer listed for /hands/score
    assert c.post("/v1/hands/score", json=body).get_json()["code"] == "validation-error"


def test_every_catalog_rule_set_and_endpoint_has_cases(cases, live):
    named = {n for case in cases for n in cp.ruleset_names(case)}
    assert set(live["rulesets"]) <= named, sorted(set(live["rulesets"]) - named)
    endpoints = {cp.endpoint(c) for c in cases}
    for path in live["endpoints"]:
        assert f"POST {path}" in endpoints, f"no case for POST {path}: run `make corpus`"
    assert {"GET /v1/rulesets", "GET /v1/violations"} <= endpoints
    for name in live["rulesets"]:
        assert f"GET /v1/rulesets/{name}" in endpoints
        per = [c for c in cases if c.get("ruleset") == name]
        for path in live["endpoints"]:
            assert any(cp.endpoint(c) == f"POST {path}" for c in per), (name, path)


def test_the_corpus_holds_the_rulings_the_spec_names(cases):
    """Legal and illegal, special wins, releases, restocks, ambiguous melds, aces, overrides,
    the notation, other languages."""
    def some(pred) -> bool:
        return any(pred(c) for c in cases)

    body = lambda c: c["expected"]["body"] if isinstance(c["expected"]["body"], dict) else {}  # noqa: E731
    req = lambda c: c["request"].get("body") if isinstance(c["request"].get("body"), dict) else {}  # noqa: E731
    assert some(lambda c: body(c).get("legal") is True) and some(lambda c: body(c).get("legal") is False)
    assert some(lambda c: body(c).get("valid") is True) and some(lambda c: body(c).get("valid") is False)
    assert some(lambda c: (body(c).get("result") or {}).get("finish") == "special")
    assert some(lambda c: (body(c).get("result") or {}).get("finish") == "out")
    assert some(lambda c: body(c).get("released", 0) > 0)
    assert some(lambda c: any("restock" in t for t in req(c).get("turns", []) or []
                              if isinstance(t, dict)) and body(c).get("legal") is True)
    assert some(lambda c: bool(body(c).get("alternatives")))
    assert some(lambda c: "ace-wraparound" in cp.violation_codes(c))
    assert some(lambda c: (body(c).get("meld") or {}).get("cards", [""])[0][:1] == "A")
    assert sum(cp.has_overrides(c) for c in cases) >= 20
    assert some(lambda c: "text" in c["request"])
    assert some(lambda c: "steps=true" in c["request"]["path"])
    assert some(lambda c: (c["request"].get("headers") or {}).get("Accept-Language") == "nl")
    # the opening threshold's edge: exactly enough is enough (S0: "a minimum of 51 points")
    assert some(lambda c: body(c).get("valid") is True and body(c).get("threshold")
                and body(c).get("points") == body(c)["threshold"])
    assert some(lambda c: "opening-below-threshold" in cp.violation_codes(c)
                and body(c).get("points") == body(c).get("threshold", 0) - 1)


def test_case_files_follow_the_schema_and_the_version(cases):
    schema = json.loads((cp.CORPUS_DIR / "case.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    version = cp.version()
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version)
    for path in cp.case_files():
        doc = cp.read_file(path)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, f"{path.name}: {errors[0].message} at {list(errors[0].path)}"
        assert doc["corpus_version"] == version, (
            f"{path.name} was written for corpus {doc['corpus_version']}, VERSION says {version}: "
            "run `make corpus`")
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    changelog = (cp.CORPUS_DIR / "CHANGELOG.md").read_text()
    assert f"## {version}" in changelog, f"corpus/CHANGELOG.md has no line for {version}"


def test_the_corpus_stays_under_5_mb():
    size = sum(p.stat().st_size for p in cp.case_files())
    assert 0 < size < 5_000_000, size


def test_shrunk_cases_are_small(cases):
    """Cases were shrunk: an illegal record ends at its violating turn (or one turn later,
    where the next turn is what shows the fault: a turn without its discard is only
    unfinished until someone else plays)."""
    for c in cases:
        body, req = c["expected"]["body"], c["request"].get("body")
        if (cp.endpoint(c) == "POST /v1/hands/adjudicate" and isinstance(body, dict)
                and body.get("legal") is False and isinstance(req, dict)):
            assert body["violations"][0]["turn"] >= len(req["turns"]) - 2, c["id"]


def test_targets_degrade_without_an_endpoint():
    """The generator covers only what the app serves: no /turns/options route, no cases
    (and no codes required) for it; with it, its codes join."""
    routes = {("POST", "/v1/melds/validate"), ("POST", "/v1/hands/adjudicate")}
    t = problem_targets(routes)
    assert set(t) == {"/v1/melds/validate", "/v1/hands/adjudicate"}
    assert "invalid-notation" in t["/v1/hands/adjudicate"]
    assert "invalid-notation" not in t["/v1/melds/validate"]


def test_an_endpoint_the_app_gains_is_covered_from_then_on(live):
    """Once the app serves POST /v1/turns/options, the generator draws cases for it and the
    coverage test above requires them (the URL map is the list of endpoints)."""
    from service.conformance.generate import Generator

    if "/v1/turns/options" in live["endpoints"]:  # served: the corpus has its cases
        assert Generator(create_app({"TESTING": True, "TESTING_NO_METRICS": True,
                                     "RATELIMIT_ENABLED": False})).has_options
        assert any(c["request"]["path"] == "/v1/turns/options" for c in cp.load())
        return
    app = create_app({"TESTING": True, "TESTING_NO_METRICS": True, "RATELIMIT_ENABLED": False})
    app.add_url_rule("/v1/turns/options", "options_for_this_test", methods=["POST"],
                     view_func=lambda: {"legal": True, "violations": [], "phase": "draw",
                                        "options": [], "can_end": False})
    assert "/v1/turns/options" in targets(Service(app))["endpoints"]
    assert Generator(app).has_options


def test_contract_rule_sets_get_a_down_and_out_to_start_from():
    """For a contract rule set (docs/api.md#contract-rule-sets) the generator constructs a
    down-and-out: the round's contract laid as one play (threes of different ranks, fours of
    different suits) and one natural discarded, from a deal of the round's size."""
    import random
    from collections import Counter
    from types import SimpleNamespace

    from service.conformance.generate import contract_hand, deal_size

    rules = SimpleNamespace(contracts=["333", "334", "3344", "4444"], deal_sizes="contract",
                            decks=2, jokers=4, players_min=3)
    assert [deal_size(rules, r) for r in (1, 2, 3, 4)] == [9, 10, 14, 16]
    rng = random.Random(1)
    recs = [r for r in (contract_hand(rules, "kalooki-jamaica", rng) for _ in range(20)) if r]
    assert recs
    for rec in recs:
        contract = rules.contracts[rec["round"] - 1]
        (turn,) = rec["turns"]
        (play,) = turn["plays"]
        melds = play["lay"]
        assert "".join("3" if len({c[0] for c in m}) == 1 else "4" for m in melds) == contract
        threes = [m[0][0] for m in melds if len({c[0] for c in m}) == 1]
        fours = [m[0][1] for m in melds if len({c[0] for c in m}) > 1]
        assert len(set(threes)) == len(threes) and len(set(fours)) == len(fours)
        hand = Counter(rec["deal"]["ann"]) + Counter([turn["draw"]["card"]])
        assert hand == Counter([c for m in melds for c in m] + [turn["discard"]])
        assert turn["discard"] != "JK"
        assert all(len(cards) == deal_size(rules, rec["round"]) for cards in rec["deal"].values())
