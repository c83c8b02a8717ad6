"""Hostile input (issue 14): bounded work, and 4xx problems where there used to be 500s."""

from __future__ import annotations

import tempfile
import time

import pytest
import requests

from service.engine.rules import CATALOG
from service.engine.selfplay import play_hand
from tests.engine.test_budget import AMPLIFICATION, AMPLIFICATION_CARDS
from tests.ledger.backends import append_hand, create_match
from tests.ledger.servers import Gunicorn

NFC, NFD = "ren\u00e9", "rene\u0301"
AMPLIFICATION_BODY = {"ruleset": AMPLIFICATION, "cards": AMPLIFICATION_CARDS}


def problem(r, status: int, code: str) -> dict:
    assert r.status_code == status, (r.status_code, r.get_data()[:300])
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["code"] == code, body
    return body


def test_the_amplification_body_is_refused(match_client):
    body = problem(match_client.post("/v1/hands/analyze", json=AMPLIFICATION_BODY), 422,
                   "search-too-large")
    assert body["budget"] > 0 and body["title"] == "Search too large"
    nl = match_client.post("/v1/hands/analyze", json=AMPLIFICATION_BODY, headers={"Accept-Language": "nl"})
    assert "werk" in problem(nl, 422, "search-too-large")["detail"]


def test_amplification_is_answered_fast_by_gunicorn():
    """Liveness against a real server: the body is refused well within 250 ms."""
    with tempfile.TemporaryDirectory() as data:
        server = Gunicorn(None, workers=1, threads=2,
                          extra_env={"KALUKI_DATA_DIR": data, "RATELIMIT_ENABLED": "false"})
        try:
            server.wait()
            session = requests.Session()
            session.post(server.base + "/v1/hands/analyze", json=AMPLIFICATION_BODY, timeout=5)
            walls = []
            for _ in range(5):
                start = time.monotonic()
                r = session.post(server.base + "/v1/hands/analyze", json=AMPLIFICATION_BODY,
                                 timeout=5)
                walls.append(time.monotonic() - start)
                assert r.status_code == 422 and r.json()["code"] == "search-too-large"
            # the fastest of five: the 250 ms, robust to a busy two-core machine
            # (before the work budget the body cost 0.7 to 2.3 CPU-seconds, every time)
            assert min(walls) < 0.25, walls
        finally:
            server.stop()


def _unfinished_record() -> dict:
    data = play_hand(CATALOG["kaluki-hunt"], ["kim", "lou"], seed=3)
    return {k: v for k, v in data.items() if k != "ruleset"} | {"turns": data["turns"][:2]}


@pytest.mark.parametrize("change,code", [
    ({"deal": {"kim": [""] * 13, "lou": ["2c"] * 13}}, "invalid-card"),
    ({"deal": {"kim": ["2c"] * 13, "lou": ["2c"] * 13}}, "impossible-cards"),
    ({"players": ["kim", "kim"]}, "duplicate-player"),
])
def test_a_malformed_record_is_422_not_500(match_client, change, code):
    mid, token, _ = create_match(match_client)
    problem(append_hand(match_client, mid, token, {"record": _unfinished_record() | change}), 422, code)


def test_an_unfinished_record_is_not_appended(match_client):
    mid, token, _ = create_match(match_client)
    body = problem(append_hand(match_client, mid, token, {"record": _unfinished_record()}), 422,
                   "hand-not-finished")
    assert any(k.startswith("record.turns") for k in body["errors"])
    assert match_client.get(f"/v1/matches/{mid}").get_json()["hands_played"] == 0


@pytest.mark.parametrize("seq", [2**31, 2**63, 2**64, 10**30])
def test_huge_entry_numbers_are_404(match_client, seq):
    mid, _, _ = create_match(match_client)
    problem(match_client.get(f"/v1/matches/{mid}/hands/{seq}"), 404, "entry-not-found")
    problem(match_client.get(f"/v1/matches/nosuchmatch0/hands/{seq}"), 404, "match-not-found")


NOTATION = "text/vnd.kaluki.hand"


@pytest.mark.parametrize("text", [
    "ruleset {\"base\":" + "[" * 10_000 + "\nplayers a b\n",  # 10k deep (and too long)
    "ruleset {\"base\":" + "[" * 2_000 + "\nplayers a b\n",  # deep within the length cap
    "ruleset kaluki-hunt\nplayers ann bob\nturn \u00b2 ann\n",  # a digit int() refuses
    "ruleset kaluki-hunt\nplayers ann bob\nturn 0 ann\n  build " + "9" * 5000 + " 4h\n",
])
def test_bad_notation_is_422(match_client, text):
    r = match_client.post("/v1/hands/adjudicate", data=text.encode(), content_type=NOTATION)
    problem(r, 422, "invalid-notation")


@pytest.mark.parametrize("overrides", [
    {"card_values": {"ace": {"x": 1}}}, {"card_values": {"ace": [1]}}, {"jokers": [1]},
    {f"x{i}": i for i in range(2000)},
])
def test_odd_overrides_are_422(match_client, overrides):
    r = match_client.post("/v1/melds/validate", json={
        "ruleset": {"base": "kaluki-hunt", "overrides": overrides}, "cards": ["7h", "8h", "9h"]})
    assert r.status_code == 422 and r.get_json()["code"] in ("invalid-parameter", "unknown-parameter")


def test_turn_check_table_is_bounded(match_client):
    r = match_client.post("/v1/turns/check", json={
        "ruleset": "kaluki-hunt", "table": [["7h", "8h", "9h"]] * 109, "hand": ["2c"],
        "turn": {"draw": {"from": "stock", "card": "3c"}, "discard": "3c"}})
    assert "table" in problem(r, 422, "validation-error")["errors"]


def test_player_ids_are_normalised_everywhere(match_client):
    r = match_client.post("/v1/hands/score", json={
        "ruleset": "kaluki-hunt", "winner": NFD, "finish": "out",
        "players": [{"id": NFD, "cards": []}, {"id": "lou", "cards": ["Qs"]}]})
    assert r.status_code == 200 and r.get_json()["scores"][0]["id"] == NFC
    problem(match_client.post("/v1/hands/score", json={
        "ruleset": "kaluki-hunt", "winner": NFC, "finish": "out",
        "players": [{"id": NFC, "cards": []}, {"id": NFD, "cards": ["Qs"]}]}), 422,
        "duplicate-player")
    problem(match_client.post("/v1/hands/score", json={
        "ruleset": "kaluki-hunt", "winner": "ann\u202e", "finish": "out",
        "players": [{"id": "ann\u202e", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}), 422,
        "invalid-player-id")
    problem(match_client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": [NFC, NFD]}),
            422, "duplicate-player")
    problem(match_client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["  ", "lou"]}),
            422, "invalid-player-id")
    mid, token, r = create_match(match_client, players=(NFD, "lou"))
    assert [s["player"] for s in r.get_json()["match"]["standings"]] == [NFC, "lou"]
    hand = {"score": {"winner": NFD, "finish": "out",
                      "players": [{"id": NFD, "cards": []}, {"id": "lou", "cards": ["Qs"]}]}}
    r = append_hand(match_client, mid, token, hand)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["scores"][0]["id"] == NFC




def test_rule_set_descriptions_give_the_ranges(match_client):
    d = match_client.get("/v1/rulesets/kaluki-51").get_json()["descriptions"]
    # docs/api.md#contract-rule-sets: 4 decks + 10 jokers
    assert d["jokers"].endswith("an integer from 0 to 16")
    assert d["hand_size"].endswith("an integer from 1 to 20")
    assert d["ace"].endswith("one of high, low, high_or_low, around")
    assert match_client.get("/problems/search-too-large").get_json()["title"]["en"] == "Search too large"
