"""POST /v1/turns/options (docs/api.md#legal-next-plays): the answer's shape, its agreement
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
    # docs/api.md#checking-one-turn: a table meld may be {"cards", "closed": true} when its history
    # closed it
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
    # a hand holds at most hand_size + 1 cards (docs/api.md#legal-next-plays)
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
        # docs/api.md#contract-rule-sets: round, players, down, calls_made as /turns/check
        if s.round is not None:
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


# -- contract rule sets (docs/api.md#contract-rule-sets): round, players, down, calls_made -----

ANN = ["7h", "7s", "7c", "9d", "9d", "JK", "Kc", "Kh", "Ks"]
JAM = {"ruleset": "kalooki-jamaica", "round": 1, "hand": ANN, "discard_top": "2s",
       "players": ["ann", "bob", "cy"]}
BIG = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac", "2d", "3d",
       "4d"]


def _both(client, body):
    """The same body to /turns/options and /turns/check (with a discard to end its turn)."""
    a = client.post("/v1/turns/options", json=body)
    turn = {"draw": {"from": "stock", "card": "5d"}, **body.get("turn", {}), "discard": "5d"}
    b = client.post("/v1/turns/check", json={**body, "turn": turn})
    return a, b


@pytest.mark.parametrize(("change", "code", "field"), [
    ({"round": None}, "round-required", None),
    ({"round": 10}, "invalid-round", None),
    ({"round": 0}, "invalid-round", None),
    ({"hand": BIG}, "hand-too-large", "hand"),
    ({"down": ["zed"]}, "unknown-player", "down.zed"),
    ({"calls_made": {"zed": 1}}, "unknown-player", "calls_made.zed"),
    ({"calls_made": {"bob": "2"}}, "validation-error", "calls_made.bob"),
    ({"players": ["ann", "ann"]}, None, None),
])
def test_contract_bodies_are_refused_as_turns_check_refuses_them(client, change, code,
                                                                field) -> None:
    body = {k: v for k, v in {**JAM, **change}.items() if v is not None}
    a, b = _both(client, body)
    assert a.status_code == b.status_code == 422, (a.get_json(), b.get_json())
    assert a.get_json()["code"] == b.get_json()["code"]
    if code is not None:
        assert a.get_json()["code"] == code
    if field is not None:
        assert field in a.get_json()["errors"]
    assert a.get_json()["errors"] == b.get_json()["errors"]


def test_a_round_in_a_classic_body_is_invalid_round(client) -> None:
    r = client.post("/v1/turns/options", json={**HUNT, "round": 1})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-round"
    assert "callers" not in _post(client, HUNT)


def test_callers_and_a_call_in_the_turn_so_far(client) -> None:
    # docs/api.md#contract-rule-sets: bob may call (cy discarded the 2s: call-own-discard); a
    # granted call leaves the stock draw, a refused one the discard
    a = _post(client, {**JAM, "turn": {}})
    assert a["phase"] == "draw" and a["callers"] == ["bob"]
    granted = _post(client, {**JAM, "turn": {"call": {"player": "bob", "granted": True,
                                                       "penalty": ["Ad"]}}})
    assert granted["legal"] and granted["phase"] == "draw" and granted["callers"] == []
    assert granted["options"] == [{"draw": {"from": "stock"}}]
    refused = _post(client, {**JAM, "turn": {"call": {"player": "bob", "granted": False}}})
    assert refused["options"] == [{"draw": {"from": "discard"}}]
    bad = _post(client, {**JAM, "turn": {"call": {"player": "cy", "granted": True,
                                                   "penalty": ["Ad"]}}})
    assert bad["legal"] is False and bad["violations"][0]["code"] == "call-own-discard"
    r = client.post("/v1/turns/options", json={**JAM, "turn": {"call": {"player": "bob",
                                                                      "granted": True}}})
    assert r.status_code == 422 and r.get_json()["code"] == "missing-card"
    assert list(r.get_json()["errors"]) == ["turn.call.penalty"]
    # the turn is the first seat's: another player's turn is out-of-turn, as /turns/check says
    other = _post(client, {**JAM, "turn": {"player": "bob"}})
    assert other["legal"] is False and other["violations"][0]["code"] == "out-of-turn"
    assert _post(client, {**JAM, "turn": {"player": "bob", "draw": {
        "from": "stock", "card": "5d"}, "discard": "5d"}}, "/v1/turns/check")[
        "violations"][0]["code"] == "out-of-turn"


def test_the_lay_then_down_and_out(client) -> None:
    # docs/api.md#legal-next-plays: one lay, the most cards; after it a down player's
    # last card may end the hand
    a = _post(client, {**JAM, "turn": {"draw": {"from": "stock", "card": "Kd"}}})
    assert a["callers"] == [] and a["can_end"]
    lays = [o for o in a["options"] if "lay" in o]
    assert lays == [{"lay": [["7c", "7h", "7s"], ["9d", "9d", "JK=9"],
                             ["Kc", "Kd", "Kh", "Ks"]]}]
    assert not any("meld" in o or "build" in o for o in a["options"])
    assert {"discard": "JK"} not in a["options"]  # joker_discard false
    assert a["hint"]["can_go_out"] is True
    done = _post(client, {**JAM, "turn": {"draw": {"from": "stock", "card": "Kd"},
                                          "plays": lays}})
    assert done["legal"] and done["phase"] == "ended" and done["options"] == []
    checked = _post(client, {**JAM, "turn": {"draw": {"from": "stock", "card": "Kd"},
                                             "plays": lays}}, "/v1/turns/check")
    assert checked["legal"] and checked["finish"] == "special"


def test_contract_options_agree_with_check_in_the_draw_phase(client) -> None:
    """Self-play states before the draw (with a call or not): each listed draw appended
    is legal, and each listed caller's call is legal for /turns/options."""
    rng = random.Random(23)
    seen = 0
    for _ in range(12):
        s = state_from_selfplay("kalooki-jamaica", rng.randint(0, 10_000), rng.random(), 0.0)
        if s is None or s.draw is not None:
            continue
        body = {"ruleset": "kalooki-jamaica", "round": s.round, "players": s.seats,
                "down": list(s.down), "calls_made": s.calls_made, "opened": s.opened,
                "table": [{"cards": [c.text for c in x.cards], "closed": x.locked}
                          for x in s.table],
                "hand": [str(c) for c in s.hand], "discard_top": str(s.top) if s.top else None}
        a = _post(client, {**body, "turn": {}})
        assert a["legal"] and a["phase"] == "draw"
        unseen = str(s.game().state.unseen[0])  # a card still in the stock
        for caller in a["callers"]:
            turns = [{"call": {"player": caller, "granted": g}} for g in (True, False)]
            turns[0]["call"]["penalty"] = [unseen]
            assert any(_post(client, {**body, "turn": t})["legal"] for t in turns), caller
        for o in a["options"]:
            after = _post(client, {**body, "turn": {"draw": {
                **o["draw"], "card": str(s.top) if o["draw"]["from"] == "discard" else unseen}}})
            assert after["legal"], (o, after["violations"])
        seen += 1
    assert seen


def test_contract_answers_and_records_match_the_openapi_schemas(client) -> None:
    """The Option and Play components hold the lay and the shift, Turn the call and the
    hand record its round (docs/api.md#contract-rule-sets), so a client generated from the document
    reads them."""
    from jsonschema import ValidationError

    from tests.api.test_contract_referee import RECORD
    from tests.docs.test_contract import _validator

    spec = client.get("/openapi.json").get_json()
    answer = spec["components"]["schemas"]["TurnOptionsResponse"]
    table = [["5h", "JK", "7h", "8h"], ["Kc", "Kh", "Ks"]]
    for body in ({**JAM, "turn": {"draw": {"from": "stock", "card": "Kd"}}}, {**JAM, "turn": {}},
                 {**JAM, "table": table, "opened": True, "hand": ["6h", "2c", "4h"],
                  "turn": {"draw": {"from": "stock", "card": "Kd"}}}):
        a = _post(client, body)
        kinds = {next(iter(o)) for o in a["options"]}
        assert kinds & {"lay", "shift", "draw"}, kinds
        _validator(spec, answer).validate(a)
    _validator(spec, {"$ref": "#/components/schemas/HandRecord"}).validate(RECORD)
    play = {"$ref": "#/components/schemas/Play"}
    _validator(spec, play).validate({"shift": {"meld": 0, "card": "6h", "end": "low"}})
    with pytest.raises(ValidationError):
        _validator(spec, play).validate({"shift": {"card": "6h"}})


def test_every_step_of_a_jamaican_record_asks_as_the_console_does(client) -> None:
    """The console's panel (console.js renderOptions) builds a /turns/options body from a
    step's state: the seats from the player to move, `down` without them, `calls_made`.
    Every step of a legal Jamaican self-play hand so asked is legal, before the draw and
    after the draw the record makes next."""
    from service.engine.selfplay import Bot

    rules = CATALOG["kalooki-jamaica"]
    asked = 0
    for seed in (3, 11):
        data = Bot(rules, ["ann", "bob", "cy", "dee"], seed=seed).play()
        data["turns"] = data["turns"][:12]
        steps = client.post("/v1/hands/adjudicate?steps=true", json=data).get_json()["steps"]
        for k, step in enumerate(steps[:-1]):
            s = step["state"]
            me = s["next_player"]
            hand = next(x for x in s["hands"] if x["id"] == me)
            ids = [x["id"] for x in s["hands"]]
            at = ids.index(me)
            body = {"ruleset": "kalooki-jamaica", "hand": hand["cards"],
                    "opened": me in s["opened"], "discard_top": s["discard_top"],
                    "table": [{"cards": x["cards"], "closed": True} if x["closed"]
                              else x["cards"] for x in s["table"]],
                    "round": s["round"], "players": ids[at:] + ids[:at],
                    "down": [p for p in s["down"] if p != me], "calls_made": s["calls_made"]}
            a = _post(client, {**body, "turn": {}})
            assert a["legal"] and a["phase"] == "draw", a["violations"]
            played = steps[k + 1]["played"]
            if played.get("call") is None and "card" in played["draw"]:
                b = _post(client, {**body, "turn": {"draw": played["draw"]}})
                assert b["legal"] and b["phase"] == "play", b["violations"]
            asked += 1
    assert asked >= 20
