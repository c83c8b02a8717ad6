"""The stateless rules API: every endpoint of docs/api.md, good input and bad."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.rules import CATALOG, PARAMS
from service.engine.violations import CODES

PROBLEM = "application/problem+json"


def post(client, path: str, body: Any, **kw: Any):
    return client.post(path, json=body, **kw)


def assert_problem(resp, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.data
    assert resp.mimetype == PROBLEM
    body = resp.get_json(force=True)
    assert body["code"] == code
    assert body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    assert body["type"].endswith("/problems/" + code)
    return body


# -- rule sets and violations ----------------------------------------------------------

def test_catalog_lists_the_five_rule_sets(client) -> None:
    body = client.get("/v1/rulesets").get_json()
    assert [r["name"] for r in body["rulesets"]] == ["kaluki-51", "kaluki-hunt", "kaluki-uk", "kalooki-40",
                                                     "kalooki-jamaica"]


@pytest.mark.parametrize("name", list(CATALOG))
def test_ruleset_gives_every_parameter_with_a_description(client, name: str) -> None:
    body = client.get(f"/v1/rulesets/{name}").get_json()
    assert set(body["parameters"]) == {p.name for p in PARAMS}
    assert set(body["descriptions"]) == {p.name for p in PARAMS}
    assert all(body["descriptions"].values())
    assert body["source"]


def test_catalog_values_fixed_by_the_spec(client) -> None:
    p = {n: client.get(f"/v1/rulesets/{n}").get_json()["parameters"] for n in CATALOG}
    assert (p["kaluki-51"]["opening_min_points"], p["kaluki-51"]["joker_opening_value"]) == (51, 25)
    assert p["kaluki-51"]["run_min"] == 4 and p["kaluki-51"]["special_flat"] == 25
    assert p["kaluki-hunt"]["out_bonus"] == 20 and p["kaluki-hunt"]["special_bonus"] == 40
    assert p["kaluki-uk"]["ace"] == "high" and p["kaluki-uk"]["players_max"] == 5
    assert p["kaluki-uk"]["card_values"] == {"ace": 11, "face": 10, "joker": 15}
    assert p["kalooki-40"]["ace_low_value"] == 1 and p["kalooki-40"]["discard_pickup"] == "meld_same_turn"
    for name in CATALOG:
        # docs/api.md#cards: 106 cards for the four British and online sets
        if p[name]["contracts"] is None:
            assert p[name]["decks"] * 52 + p[name]["jokers"] == 106
    # docs/api.md#contract-rule-sets: the contract rule set sizes its deck by the seats;
    # decks/jokers are its first row
    assert p["kalooki-jamaica"]["deck_by_players"][0] == {"players_max": 4, "decks": 2, "jokers": 4}
    assert (p["kalooki-jamaica"]["decks"], p["kalooki-jamaica"]["jokers"]) == (2, 4)


def test_unknown_ruleset_is_404(client) -> None:
    assert_problem(client.get("/v1/rulesets/gin"), 404, "unknown-ruleset")


def test_violations_are_published(client) -> None:
    body = client.get("/v1/violations").get_json()
    codes = {v["code"] for v in body["violations"]}
    assert codes == set(CODES)
    assert {"run-too-short", "duplicate-suit", "ace-wraparound", "opening-below-threshold",
            "joker-not-releasable", "build-before-opening"} <= codes
    assert all(v["message"]["en"] and v["message"]["nl"] for v in body["violations"])


# -- melds -----------------------------------------------------------------------------

def test_validate_spec_example(client) -> None:
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-hunt", "cards": ["Jd", "JK", "Kd"]}).get_json()
    assert body == {"valid": True, "meld": {"kind": "run", "suit": "d", "cards": ["Jd", "JK=Qd", "Kd"],
                                            "points": 30, "jokers": [{"index": 1, "as": "Qd"}],
                                            "closed": False},
                    "alternatives": [], "violations": []}


def test_validate_violation_has_code_and_message(client) -> None:
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-51", "cards": ["4c", "4c", "4d"]}).get_json()
    assert body["valid"] is False
    assert body["violations"][0]["code"] == "duplicate-suit"
    assert "suit" in body["violations"][0]["message"]


def test_messages_in_dutch(client) -> None:
    resp = post(client, "/v1/melds/validate", {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "Jc"]},
                headers={"Accept-Language": "nl-NL,nl;q=0.9,en;q=0.5"})
    assert resp.get_json()["violations"][0]["message"].startswith("Een reeks heeft minstens 4")


def test_validate_set_reading_with_kind(client) -> None:
    body = post(client, "/v1/melds/validate",
                {"ruleset": "kaluki-hunt", "cards": ["JK", "JK", "7h"], "kind": "set"}).get_json()
    assert body["meld"]["kind"] == "set" and body["meld"]["rank"] == "7"
    assert body["meld"]["jokers"] == [{"index": 0, "as": "7"}, {"index": 1, "as": "7"}]


def test_validate_lists_alternatives(client) -> None:
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-hunt", "cards": ["JK", "JK", "7h"]}).get_json()
    assert body["meld"]["cards"] == ["7h", "JK=8h", "JK=9h"]
    assert sorted(a["kind"] for a in body["alternatives"]) == ["run", "set"]


def test_closed_set(client) -> None:
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-51", "cards": ["7c", "7d", "7h", "JK"]}).get_json()
    assert body["meld"]["closed"] is True


def test_opening(client) -> None:
    body = post(client, "/v1/melds/opening", {"ruleset": "kaluki-51",
                                               "melds": [["Kh", "Ks", "JK"], ["9c", "Tc", "Jc", "Qc"]]}).get_json()
    assert (body["valid"], body["points"], body["threshold"]) == (True, 84, 51)
    assert len(body["melds"]) == 2
    body = post(client, "/v1/melds/opening", {"ruleset": "kaluki-51", "melds": [["9c", "Tc", "Jc", "Qc"]]}).get_json()
    assert body["valid"] is False and body["violations"][0]["code"] == "opening-below-threshold"


def test_opening_with_kinds_and_bad_meld(client) -> None:
    body = post(client, "/v1/melds/opening", {"ruleset": "kaluki-hunt", "melds": [
        {"cards": ["JK", "JK", "7h"], "kind": "set"}, ["2c", "3d", "4c"]]}).get_json()
    assert body["melds"][0]["kind"] == "set" and body["melds"][1] is None
    assert body["violations"][0]["meld"] == 1


def test_build(client) -> None:
    body = post(client, "/v1/melds/build", {"ruleset": "kaluki-hunt", "meld": ["5h", "6h", "7h"],
                                             "cards": ["8h", {"card": "JK", "end": "low"}]}).get_json()
    assert body["valid"] and body["meld"]["cards"] == ["JK=4h", "5h", "6h", "7h", "8h"]
    body = post(client, "/v1/melds/build", {"ruleset": "kaluki-51", "meld": ["5h", "6h", "7h", "8h"],
                                             "cards": ["9h"], "opened": False}).get_json()
    assert not body["valid"] and body["violations"][0]["code"] == "build-before-opening"


def test_build_on_an_illegal_table_meld_is_422(client) -> None:
    resp = post(client, "/v1/melds/build", {"ruleset": "kaluki-hunt", "meld": ["5h", "7h"], "cards": ["6h"]})
    assert_problem(resp, 422, "invalid-meld")


def test_release(client) -> None:
    body = post(client, "/v1/jokers/release", {"ruleset": "kaluki-hunt", "meld": ["7c", "7d", "JK"],
                                                "cards": ["7h", "7s"]}).get_json()
    assert body == {"legal": True, "released": 1, "meld": body["meld"], "closed": False,
                    "must_use": "any_meld", "violations": []}
    assert body["meld"]["cards"] == ["7c", "7d", "7h", "7s"]
    body = post(client, "/v1/jokers/release", {"ruleset": "kaluki-uk", "meld": ["5h", "6h", "JK", "8h"],
                                                "cards": ["7h"], "opened": False}).get_json()
    assert not body["legal"] and body["violations"][0]["code"] == "release-before-opening"
    assert body["must_use"] == "new_meld"


# -- scoring ---------------------------------------------------------------------------

def test_score_spec_example(client) -> None:
    body = post(client, "/v1/hands/score", {"ruleset": "kaluki-hunt", "winner": "kim", "finish": "out",
                                             "players": [{"id": "kim", "cards": []},
                                                         {"id": "lou", "cards": ["Qs", "4d"]}]}).get_json()
    assert body == {"special": False, "scores": [{"id": "kim", "hand_value": 0, "points": 20, "penalty": 0},
                                                 {"id": "lou", "hand_value": 14, "points": 0, "penalty": 14}]}


def test_score_invalid_card_spec_example(client) -> None:
    body = assert_problem(post(client, "/v1/hands/score", {
        "ruleset": "kaluki-hunt", "winner": "kim", "finish": "out",
        "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qz"]}]}), 422, "invalid-card")
    assert "'Qz' is not a card" in body["detail"]
    assert "players.1.cards.0" in body["errors"]


@pytest.mark.parametrize("players,winner,code", [
    ([{"id": "kim", "cards": ["2c"]}, {"id": "lou", "cards": []}], "kim", "winner-holds-cards"),
    ([{"id": "kim", "cards": []}], "kim", "player-count"),
    ([{"id": "kim", "cards": []}, {"id": "kim", "cards": []}], "kim", "duplicate-player"),
    ([{"id": "kim", "cards": []}, {"id": "lou", "cards": []}], "max", "unknown-winner"),
    ([{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs", "Qs", "Qs"]}], "kim", "impossible-cards"),
])
def test_score_bad_hands(client, players, winner, code) -> None:
    assert_problem(post(client, "/v1/hands/score", {"ruleset": "kaluki-hunt", "winner": winner,
                                                    "finish": "out", "players": players}), 422, code)


# -- bad input everywhere --------------------------------------------------------------

VALID_BODIES = {
    "/v1/melds/validate": {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "Jc", "Qc"]},
    "/v1/melds/opening": {"ruleset": "kaluki-51", "melds": [["9c", "Tc", "Jc", "Qc"]]},
    "/v1/melds/build": {"ruleset": "kaluki-51", "meld": ["9c", "Tc", "Jc", "Qc"], "cards": ["Kc"]},
    "/v1/jokers/release": {"ruleset": "kaluki-51", "meld": ["9c", "Tc", "JK", "Qc"], "cards": ["Jc"]},
    "/v1/hands/score": {"ruleset": "kaluki-51", "winner": "a", "finish": "out",
                        "players": [{"id": "a", "cards": []}, {"id": "b", "cards": ["2c"]}]},
    "/v1/hands/analyze": {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc", "2d", "2s"]},
}
ENDPOINTS = list(VALID_BODIES)


@pytest.mark.parametrize("path", ENDPOINTS)
def test_valid_body_is_200(client, path: str) -> None:
    assert post(client, path, VALID_BODIES[path]).status_code == 200


@pytest.mark.parametrize("path", ENDPOINTS)
def test_unknown_ruleset_is_422(client, path: str) -> None:
    body = assert_problem(post(client, path, {**VALID_BODIES[path], "ruleset": "gin-rummy"}),
                          422, "unknown-ruleset")
    assert "ruleset" in body["errors"]


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("ruleset,code", [
    ({"base": "kaluki-51", "overrides": {"wild_twos": True}}, "unknown-parameter"),
    ({"base": "kaluki-51", "overrides": {"run_min": 1}}, "invalid-parameter"),
    ({"base": "kaluki-51", "overrides": {"ace": "sideways"}}, "invalid-parameter"),
    ({"base": "kaluki-51", "overrides": {"run_min": "4"}}, "invalid-parameter"),
    ({"base": "kaluki-51", "overrides": {"set_distinct_suits": 1}}, "invalid-parameter"),
    ({"base": "kaluki-51", "overrides": {"card_values": {"queen": 3}}}, "invalid-parameter"),
    ({"base": "nope"}, "unknown-ruleset"),
    ({"overrides": {}}, "invalid-ruleset"),
    ({"base": "kaluki-51", "colour": "red"}, "invalid-ruleset"),
])
def test_bad_ruleset_is_422_naming_it(client, path: str, ruleset: Any, code: str) -> None:
    assert_problem(post(client, path, {**VALID_BODIES[path], "ruleset": ruleset}), 422, code)


def test_overrides_apply(client) -> None:
    body = post(client, "/v1/melds/validate", {
        "ruleset": {"base": "kaluki-51", "overrides": {"run_min": 3}}, "cards": ["9c", "Tc", "Jc"]}).get_json()
    assert body["valid"] is True


@pytest.mark.parametrize("path", ENDPOINTS)
def test_malformed_json_is_400(client, path: str) -> None:
    assert_problem(client.post(path, data=b'{"ruleset": ', content_type="application/json"),
                   400, "malformed-json")


@pytest.mark.parametrize("path", ENDPOINTS)
def test_other_media_type_is_415(client, path: str) -> None:
    assert_problem(client.post(path, data=json.dumps(VALID_BODIES[path]), content_type="text/plain"),
                   415, "unsupported-media-type")


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("body", [b"", b" ", b"\r\n"])
def test_empty_body_is_400_malformed_json(client, path: str, body: bytes) -> None:
    """docs/api.md#errors-and-codes (issue 19 item 3): an empty body is malformed JSON (400), as a
    body of one space already was, never a 422 naming the fields as missing."""
    assert_problem(client.post(path, data=body, content_type="application/json"), 400,
                   "malformed-json")


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"])
def test_a_body_that_is_not_utf8_is_400_malformed_json(client, path: str, bad: bytes) -> None:
    """docs/api.md#errors-and-codes (issue 19 item 3; RFC 8259 §8.1: JSON text is UTF-8): a valid
    body with one invalid byte (a stray byte, a cut sequence, an encoded surrogate, an overlong
    form) in a string is 400 ``malformed-json``, not a 422 naming ``ruleset`` and ``cards`` as
    missing. The fast path (every body here would take it) steps aside and the full path answers."""
    body = json.dumps(VALID_BODIES[path]).encode()
    at = body.index(b'"ruleset"') + 2
    bad_body = body[:at] + bad + body[at:]
    assert_problem(client.post(path, data=bad_body, content_type="application/json"), 400,
                   "malformed-json")
    assert client.post(path, data=body, content_type="application/json").status_code == 200


@pytest.mark.parametrize("path", ENDPOINTS)
def test_huge_body_is_413(client, path: str) -> None:
    huge = {**VALID_BODIES[path], "padding": "x" * (300 * 1024)}
    assert_problem(post(client, path, huge), 413, "payload-too-large")


@pytest.mark.parametrize("path", ENDPOINTS)
def test_wrong_types_are_422_with_errors(client, path: str) -> None:
    bad = {k: 12 for k in VALID_BODIES[path]}
    body = assert_problem(post(client, path, bad), 422, "validation-error")
    assert body["errors"]


@pytest.mark.parametrize("path", ENDPOINTS)
def test_unknown_field_is_422(client, path: str) -> None:
    body = assert_problem(post(client, path, {**VALID_BODIES[path], "colour": "red"}), 422,
                          "validation-error")
    assert "colour" in body["errors"]


@pytest.mark.parametrize("path", ["/v1/melds/validate", "/v1/melds/build", "/v1/jokers/release",
                                  "/v1/hands/analyze"])
def test_unknown_card_is_422(client, path: str) -> None:
    body = {**VALID_BODIES[path], "cards": ["Zz"]}
    assert_problem(post(client, path, body), 422, "invalid-card")


def test_impossible_cards_across_a_request(client) -> None:
    assert_problem(post(client, "/v1/melds/validate", {"ruleset": "kaluki-51", "cards": ["JK", "JK", "JK", "7h"]}),
                   422, "impossible-cards")
    assert_problem(post(client, "/v1/melds/opening", {"ruleset": "kaluki-hunt",
                                                      "melds": [["7h", "7c", "7d"], ["7h", "7c", "7s"],
                                                                ["5h", "6h", "7h"]]}),
                   422, "impossible-cards")


def test_not_found_and_method_not_allowed(client) -> None:
    assert_problem(client.get("/v1/nothing"), 404, "not-found")
    resp = client.get("/v1/melds/validate")
    assert_problem(resp, 405, "method-not-allowed")
    assert "POST" in resp.headers["Allow"]


def test_problem_in_dutch(client) -> None:
    body = client.get("/v1/nothing", headers={"Accept-Language": "nl"}).get_json(force=True)
    assert body["title"] == "Niet gevonden"


def test_health_docs_and_spec(client) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    docs = client.get("/docs")
    assert docs.status_code == 200 and b"/docs/assets/swagger-ui-bundle.js" in docs.data
    assert b"//cdn" not in docs.data and b"https://" not in docs.data
    assert b"<script>" not in docs.data  # the initializer is a static file (CSP)
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/docs/assets/VERSION").data.startswith(b"v5.")  # Swagger UI 5 reads 3.1
    spec = client.get("/openapi.json").get_json()
    for path in ENDPOINTS:
        assert path in spec["paths"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@pytest.mark.parametrize("path", ENDPOINTS)
@given(data=st.data())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_input_gives_a_500(client, path: str, data: st.DataObject) -> None:
    """Fuzz each endpoint with arbitrary JSON mixed into a valid body: never a 500."""
    body = dict(VALID_BODIES[path])
    for key in data.draw(st.lists(st.sampled_from(list(body) + ["extra"]), max_size=3)):
        body[key] = data.draw(json_values)
    resp = client.post(path, data=json.dumps(body), content_type="application/json")
    assert resp.status_code < 500, resp.data
    if resp.status_code >= 400:
        assert resp.mimetype == PROBLEM


def test_metrics_are_exposed() -> None:
    from service.app import create_app

    client = create_app().test_client()
    client.post("/v1/melds/validate", json=VALID_BODIES["/v1/melds/validate"])
    text = client.get("/metrics").data.decode()
    assert "kaluki_http_request_duration_seconds" in text
    assert "/v1/melds/validate" in text


@pytest.mark.parametrize("body,code", [
    ({**VALID_BODIES["/v1/melds/validate"], "ruleset": {"base": "kaluki-51", "overrides": {"x": 1}}},
     "unknown-parameter"),
    ({**VALID_BODIES["/v1/melds/validate"], "ruleset": "gin"}, "unknown-ruleset"),
])
def test_rule_set_problems_in_dutch(client, body, code) -> None:
    resp = post(client, "/v1/melds/validate", body, headers={"Accept-Language": "nl"})
    problem = assert_problem(resp, 422, code)
    assert problem["detail"].startswith("Onbekende")
    assert resp.headers["Content-Language"] == "nl"


def test_analyze(client) -> None:
    """docs/api.md#analyzing-a-hand: the best arrangement, exactly; S0: 51 to open with a joker
    counting 25."""
    body = post(client, "/v1/hands/analyze", {"ruleset": "kaluki-51", "cards": [
        "9c", "Tc", "Jc", "Qc", "Kh", "Ks", "JK", "2d", "5s", "Ah", "2h", "3h", "4h", "8d"]}).get_json()
    assert body["deadwood_value"] == 15 and sorted(body["deadwood"]) == ["2d", "5s", "8d"]
    assert body["melded_count"] == 11
    assert (body["can_open"], body["can_go_out"], body["can_special"]) == (True, False, False)
    assert {"kind": "set", "cards": ["Kh", "Ks", "JK=K"], "rank": "K", "points": 45,
            "jokers": [{"index": 2, "as": "K"}], "closed": False} in body["melds"]


def test_analyze_going_out_needs_the_opening_unless_opened(client) -> None:
    """S0/pagat: the melds that go out are the opening when the player has not opened."""
    hand = ["2c", "3c", "4c", "5d", "6d", "7d", "9s"]
    closed = post(client, "/v1/hands/analyze", {"ruleset": "kaluki-uk", "cards": hand}).get_json()
    opened = post(client, "/v1/hands/analyze", {"ruleset": "kaluki-uk", "cards": hand,
                                                 "opened": True}).get_json()
    assert closed["can_go_out"] is False and closed["can_special"] is False
    assert opened["can_go_out"] is True and opened["can_special"] is False


def test_analyze_caps_the_hand(client) -> None:
    cards = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac", "2d", "3d"]
    assert_problem(post(client, "/v1/hands/analyze", {"ruleset": "kaluki-51", "cards": cards}),
                   422, "hand-too-large")


def test_cors_for_browsers(client) -> None:
    """Browser frontends (with Origin) get CORS headers, preflights included."""
    resp = post(client, "/v1/melds/validate", VALID_BODIES["/v1/melds/validate"],
                headers={"Origin": "https://table.example"})
    assert resp.headers["Access-Control-Allow-Origin"] in ("*", "https://table.example")
    pre = client.options("/v1/hands/score", headers={
        "Origin": "https://table.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Content-Type"})
    assert pre.status_code == 200 and "POST" in pre.headers["Access-Control-Allow-Methods"]
    plain = post(client, "/v1/melds/validate", VALID_BODIES["/v1/melds/validate"])
    assert "Access-Control-Allow-Origin" not in plain.headers


def test_problem_types_resolve(client) -> None:
    """RFC 9457: a problem's type URI names a document that explains it."""
    problem = post(client, "/v1/hands/score", {**VALID_BODIES["/v1/hands/score"], "ruleset": "gin"})
    doc = client.get(problem.get_json()["type"]).get_json()
    assert doc["code"] == "unknown-ruleset" and doc["title"]["en"] == "Unknown rule set"
    assert_problem(client.get("/problems/no-such-thing"), 404, "not-found")


def test_every_problem_code_has_titles() -> None:
    """Each code the service can answer with has an English and a Dutch title."""
    import re
    from pathlib import Path

    from service.api.problems import TITLES

    root = Path(__file__).resolve().parents[2] / "service"
    src = "\n".join(p.read_text() for p in root.rglob("*.py"))
    codes = set(re.findall(r'Problem\(\d+, "([a-z-]+)"', src))
    codes |= set(re.findall(r'(?:MatchError|RecordError|ScoringError)\(\s*"([a-z-]+)"', src))
    assert codes and codes <= set(TITLES), sorted(codes - set(TITLES))


# -- kalooki-jamaica (docs/api.md#contract-rule-sets) ------------------------------------------

JAM = "kalooki-jamaica"


def test_jamaica_ruleset_is_published(client) -> None:
    body = client.get(f"/v1/rulesets/{JAM}").get_json()
    p = body["parameters"]
    assert p["contracts"][0] == "333" and p["contracts"][-1] == "4444" and p["set_max"] is None
    assert p["card_values"] == {"ace": 15, "face": 10, "joker": 50, "ace_red": 1}
    assert "Caribbean Kalooki" in body["source"] and "Wikipedia" in body["source"]
    assert body["descriptions"]["joker_shift"].endswith("one of none, run_end")


@pytest.mark.parametrize("overrides,named", [
    ({"deal_sizes": [9, 10]}, "deal_sizes"),
    ({"contracts": ["3345"]}, "contracts"),
    ({"decks": 3}, "decks"),
    ({"deck_by_players": [{"players_max": 8, "decks": 1, "jokers": 4}]}, "deck_by_players"),
    ({"call_max": "3"}, "call_max"),
])
def test_jamaica_contradictions_are_422(client, overrides: dict, named: str) -> None:
    """docs/api.md#rule-sets-and-overrides, docs/api.md#contract-rule-sets: invalid-parameter naming
    the parameter the request sent."""
    body = assert_problem(post(client, "/v1/melds/validate", {
        "ruleset": {"base": JAM, "overrides": overrides}, "cards": ["7c", "7c", "7d"]}),
        422, "invalid-parameter")
    assert named in body["detail"]


def test_jamaica_melds_validate(client) -> None:
    """docs/api.md#contract-rule-sets: a three of repeated suits; no adjacent jokers in a four."""
    body = post(client, "/v1/melds/validate", {"ruleset": JAM, "cards": ["7c", "7c", "JK", "7c"]}).get_json()
    assert body["valid"] and body["meld"]["kind"] == "set" and body["meld"]["points"] == 28
    body = post(client, "/v1/melds/validate", {"ruleset": JAM, "cards": ["7c", "JK", "JK", "Tc"]}).get_json()
    assert not body["valid"] and body["violations"][0]["code"] == "adjacent-jokers"
    nl = post(client, "/v1/melds/validate", {"ruleset": JAM, "cards": ["7c", "JK", "JK", "Tc"]},
              headers={"Accept-Language": "nl"}).get_json()
    assert nl["violations"][0]["message"].startswith("Twee jokers")


def test_jamaica_opening_with_round(client) -> None:
    """docs/api.md#contract-rule-sets: /melds/opening with round answers threshold null and
    contract; without round round-required, with a round out of range or on a classic rule set
    invalid-round."""
    lay = [["7c", "7d", "7h"], ["8c", "8c", "JK"], ["As", "2s", "JK", "4s"]]
    body = post(client, "/v1/melds/opening", {"ruleset": JAM, "round": 2, "melds": lay}).get_json()
    assert (body["valid"], body["threshold"], body["contract"], body["points"]) == (True, None, "334", 69)
    body = post(client, "/v1/melds/opening", {"ruleset": JAM, "round": 1, "melds": lay}).get_json()
    v = body["violations"][0]
    assert not body["valid"] and v["code"] == "contract-not-met"
    assert (v["missing"], v["extra"]) == ("3", "4")
    dup = post(client, "/v1/melds/opening", {"ruleset": JAM, "round": 1, "melds": [
        ["7c", "7d", "7h"], ["7s", "7s", "JK"], ["9c", "9d", "9h"]]}).get_json()
    assert dup["violations"][0]["code"] == "contract-duplicate-rank"
    assert_problem(post(client, "/v1/melds/opening", {"ruleset": JAM, "melds": lay}), 422, "round-required")
    assert_problem(post(client, "/v1/melds/opening", {"ruleset": JAM, "round": 10, "melds": lay}),
                   422, "invalid-round")
    assert_problem(post(client, "/v1/melds/opening", {"ruleset": "kaluki-51", "round": 1, "melds": lay}),
                   422, "invalid-round")
    classic = post(client, "/v1/melds/opening", {"ruleset": "kaluki-51", "melds": [["Kh", "Ks", "JK"]]}).get_json()
    assert "contract" not in classic and classic["threshold"] == 51


def test_jamaica_analyze_with_round(client) -> None:
    """docs/api.md#contract-rule-sets: the best lay; can_open/can_go_out/can_special;
    round-required; the cap."""
    hand = ["7c", "7d", "7h", "8c", "8c", "8s", "9d", "9d", "JK", "Ks"]
    body = post(client, "/v1/hands/analyze", {"ruleset": JAM, "round": 1, "cards": hand}).get_json()
    assert [m["cards"] for m in body["melds"]] == [["7c", "7d", "7h"], ["8c", "8c", "8s"], ["9d", "9d", "JK=9"]]
    assert body["deadwood"] == ["Ks"] and body["can_open"] and body["can_go_out"] and body["can_special"]
    body = post(client, "/v1/hands/analyze", {"ruleset": JAM, "round": 2, "cards": hand}).get_json()
    assert body["melds"] == [] and not body["can_open"] and body["deadwood_value"] == 123
    down = post(client, "/v1/hands/analyze", {"ruleset": JAM, "round": 1, "opened": True,
                                               "cards": ["7c", "7d", "7h", "2c"]}).get_json()
    assert down["melds"] == [] and not down["can_go_out"]
    assert_problem(post(client, "/v1/hands/analyze", {"ruleset": JAM, "cards": hand}), 422, "round-required")
    big = post(client, "/v1/hands/analyze", {"ruleset": JAM, "round": 1, "cards": hand + hand[:7]})
    assert assert_problem(big, 422, "hand-too-large")["errors"] == {"cards": ["at most 16 cards"]}


def test_jamaica_score_with_round(client) -> None:
    """docs/api.md#contract-rule-sets: red ace 1, black ace 15, joker 50; down-and-out x
    special_multiplier (1)."""
    body = post(client, "/v1/hands/score", {"ruleset": JAM, "round": 3, "winner": "a", "finish": "special",
                                             "players": [{"id": "a", "cards": []},
                                                         {"id": "b", "cards": ["Ah", "As", "JK"]},
                                                         {"id": "c", "cards": ["Kd"]}]}).get_json()
    assert body["special"] and [s["penalty"] for s in body["scores"]] == [0, 66, 10]
    assert_problem(post(client, "/v1/hands/score", {"ruleset": "kaluki-51", "round": 1, "winner": "a",
                                                     "finish": "out", "players": [
                                                         {"id": "a", "cards": []}, {"id": "b", "cards": []}]}),
                   422, "invalid-round")


def test_jamaica_build_and_release(client) -> None:
    """docs/api.md#contract-rule-sets: a joker built next to a joker goes to the other end; jokers
    are never released."""
    body = post(client, "/v1/melds/build", {"ruleset": JAM, "meld": ["7c", "8c", "9c", "JK"],
                                             "cards": ["JK"]}).get_json()
    assert body["valid"] and body["meld"]["cards"] == ["JK=6c", "7c", "8c", "9c", "JK=Tc"]
    body = post(client, "/v1/jokers/release", {"ruleset": JAM, "meld": ["7c", "8c", "9c", "JK"],
                                                "cards": ["Tc"]}).get_json()
    assert not body["legal"] and body["closed"] and body["violations"][0]["code"] == "joker-not-releasable"


def test_a_deck_too_small_names_decks(client) -> None:
    """docs/api.md#rule-sets-and-overrides (issue 19 item 7): kaluki-uk with {"decks": 1} names the
    parameter sent, ruleset.overrides.decks, and says why (54 cards cannot deal 5 × 13 and leave a
    stock)."""
    body = assert_problem(post(client, "/v1/melds/validate", {
        "ruleset": {"base": "kaluki-uk", "overrides": {"decks": 1}}, "cards": ["4c", "4d", "4h"]}),
        422, "invalid-parameter")
    assert list(body["errors"]) == ["ruleset.overrides.decks"]
    assert "too small to deal players_max 5 × hand_size 13" in body["detail"]


def test_a_run_joker_naming_only_its_rank_takes_the_runs_suit(client) -> None:
    """docs/api.md#melds, docs/api.md#cards (issue 19 item 5): a joker in a run may name only its
    rank, JK=T; the run's suit is meant, and the answer writes it in full."""
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-hunt",
                                               "cards": ["9h", "JK=T", "Jh"]}).get_json()
    assert body["valid"] is True
    assert body["meld"]["cards"] == ["9h", "JK=Th", "Jh"]
    assert body["meld"]["jokers"] == [{"index": 1, "as": "Th"}]
    body = post(client, "/v1/melds/build", {"ruleset": "kaluki-hunt", "meld": ["9h", "Th", "Jh"],
                                            "cards": ["JK=Q"]}).get_json()
    assert body["valid"] is True and body["meld"]["cards"] == ["9h", "Th", "Jh", "JK=Qh"]
    body = post(client, "/v1/melds/validate", {"ruleset": "kaluki-hunt",
                                               "cards": ["9h", "JK=Td", "Jh"]}).get_json()
    assert body["valid"] is False and body["violations"][0]["code"] == "joker-mismatch"
