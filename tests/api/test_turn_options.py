"""POST /v1/turns/options (SPEC §5 "Legal next plays"): the answer's shape, its agreement
with /turns/check over HTTP on self-play states, closed table melds, and its bounds."""

from __future__ import annotations

import random

import pytest

from service.engine.record import turn_to_data
from service.engine.rules import CATALOG
from tests.engine.test_options import state_from_selfplay

HUNT = {"ruleset": "kaluki-hunt", "table": [["5h", "6h", "7h"]],
        "hand": ["Kh", "Ks", "Kd", "8h", "2c", "9d"], "opened": True, "discard_top": "3d"}


def _post(client, body, path="/v1/turns/options"):
    r = client.post(path, json=body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_draw_phase(client) -> None:
    a = _post(client, {**HUNT, "turn": {}})
    assert a["legal"] and a["phase"] == "draw" and a["can_end"] is False
    assert a["options"] == [{"draw": {"from": "stock"}}, {"draw": {"from": "discard"}}]
    assert a["hint"]["deadwood"] and a["hint"]["can_go_out"] is False
    assert _post(client, {k: v for k, v in HUNT.items()})["phase"] == "draw"  # turn left out


def test_play_phase_lists_each_kind_once(client) -> None:
    a = _post(client, {**HUNT, "turn": {"draw": {"from": "stock", "card": "Qs"}}})
    assert a["legal"] and a["phase"] == "play" and a["can_end"]
    opts = a["options"]
    assert {"meld": ["Kd", "Kh", "Ks"]} in opts and {"build": {"meld": 0, "cards": ["8h"]}} in opts
    assert {"discard": "Qs"} in opts and len({repr(o) for o in opts}) == len(opts)
    assert [m["cards"] for m in a["hint"]["melds"]] == [["Kd", "Kh", "Ks"]]


def test_ended_phase_and_an_illegal_turn(client) -> None:
    done = _post(client, {**HUNT, "turn": {"draw": {"from": "stock", "card": "Qs"},
                                           "discard": "2c"}})
    assert done["legal"] and done["phase"] == "ended" and done["options"] == [] and done["can_end"]
    bad = _post(client, {**HUNT, "turn": {"draw": {"from": "stock", "card": "Qs"},
                                          "plays": [{"meld": ["2c", "8h", "9d"]}]}})
    assert bad["legal"] is False and bad["options"] == [] and bad["can_end"] is False
    assert bad["violations"][0]["code"] == "not-a-meld" and bad["hint"] is None
    # plays before the draw: the turn so far is already wrong
    early = _post(client, {**HUNT, "turn": {"plays": [{"meld": ["Kh", "Ks", "Kd"]}]}})
    assert early["legal"] is False and early["violations"][0]["code"] == "draw-missing"


def test_a_closed_table_meld_frees_no_joker_in_both_endpoints(client) -> None:
    # SPEC §5: a table meld may be {"cards", "closed": true} when its history closed it
    base = {"ruleset": "kaluki-hunt", "hand": ["7h", "7s", "2c", "9d"], "opened": True,
            "discard_top": None}
    release = {"draw": {"from": "stock", "card": "Qs"},
               "plays": [{"release": {"meld": 0, "cards": ["7h", "7s"]}}]}
    open_set = {**base, "table": [["7c", "7d", "JK"]]}
    closed = {**base, "table": [{"cards": ["7c", "7d", "JK"], "closed": True}]}
    assert _post(client, {**open_set, "turn": release})["legal"]
    assert _post(client, {**open_set, "turn": {"draw": release["draw"]}})["options"].count(
        {"release": {"meld": 0, "cards": ["7h", "7s"]}}) == 1
    refused = _post(client, {**closed, "turn": release})
    assert refused["legal"] is False and refused["violations"][0]["code"] == "joker-not-releasable"
    checked = _post(client, {**closed, "turn": {**release, "plays": [
        *release["plays"], {"meld": ["JK", "Qs", "9d"]}], "discard": "2c"}}, "/v1/turns/check")
    assert checked["legal"] is False and checked["table"][0]["closed"] is True
    assert _post(client, {**base, "table": [{"cards": ["7c", "7d", "JK"], "closed": False}],
                          "turn": release})["legal"]


@pytest.mark.parametrize("table, field", [
    ([{"cards": ["7c", "7d", "JK"], "closed": "yes"}], "table.0"),
    ([{"cards": ["7c", "7d", "JK"], "open": True}], "table.0"),
    ([{"closed": True}], "table.0"),
])
def test_bad_table_melds_are_validation_errors(client, table, field) -> None:
    r = client.post("/v1/turns/options", json={**HUNT, "table": table})
    assert r.status_code == 422 and r.get_json()["code"] == "validation-error"
    assert field in r.get_json()["errors"]


def test_bounds(client) -> None:
    # a hand holds at most hand_size + 1 cards (SPEC §5)
    r = client.post("/v1/turns/options", json={**HUNT, "hand": ["2c"] * 2 + ["3c"] * 2 + [
        r + s for r in "456789TJQ" for s in "c"] + ["Kd", "Kh", "Ks"]})
    assert r.status_code == 422 and r.get_json()["code"] == "hand-too-large"
    # a search past the solver's budget is 422 search-too-large, not a long wait
    wide = {"base": "kaluki-hunt", "overrides": {"hand_size": 16, "jokers": 8, "decks": 4,
                                                 "run_min": 2, "set_min": 2, "ace": "around"}}
    r = client.post("/v1/turns/options", json={
        "ruleset": wide, "table": [], "opened": True, "hand": ["JK"] * 6 + [
            r + "h" for r in "A23456789T"], "turn": {"draw": {"from": "stock", "card": "2c"}}})
    assert r.status_code == 422 and r.get_json()["code"] == "search-too-large"


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_options_agree_with_check_over_http(client, name) -> None:
    """Each listed play appended is legal for /turns/options; each listed discard ends a
    turn /turns/check rules legal (a few self-play states per rule set)."""
    rng = random.Random(name)
    for _ in range(6):
        s = state_from_selfplay(name, rng.randint(0, 10_000), rng.random(), rng.random())
        if s is None or s.draw is None:
            continue
        body = {"ruleset": name, "table": [[c.text for c in x.cards] for x in s.table],
                "hand": [str(c) for c in s.hand], "opened": s.opened,
                "laid_before": s.laid_before,
                "discard_top": str(s.top) if s.top else None}
        if s.round is not None:  # SPEC §5: round, players, down, calls_made as /turns/check
            body.update(round=s.round, players=s.seats, down=list(s.down),
                        calls_made=s.calls_made)
        turn = turn_to_data(s.turn())
        turn.pop("player")
        table_closed = [x.locked for x in s.table]
        body["table"] = [{"cards": cards, "closed": True} if closed else cards
                         for cards, closed in zip(body["table"], table_closed, strict=True)]
        a = _post(client, {**body, "turn": turn})
        assert a["legal"], a["violations"]
        assert ("callers" in a) == (s.round is not None)
        for o in a["options"]:
            if "discard" in o:
                checked = _post(client, {**body, "turn": {**turn, "discard": o["discard"]}},
                                "/v1/turns/check")
                assert checked["legal"], (o, checked["violations"])
            else:
                after = _post(client, {**body, "turn": {**turn, "plays": [*turn["plays"], o]}})
                assert after["legal"], (o, after["violations"])


def test_the_hostile_worst_cases_are_bounded(client) -> None:
    """bench/hostile.py's issue-23 bodies (17 cards, many jokers, ~100 table melds) are
    refused as search-too-large, never a long wait or a 5xx (their CPU is in bench/)."""
    from bench.hostile import options_worst

    for body in (options_worst(), options_worst(2, "A23456789TJQKA"), {**options_worst(),
                                                                          "turn": {}}):
        r = client.post("/v1/turns/options", json=body)
        assert r.status_code == 422 and r.get_json()["code"] == "search-too-large"
