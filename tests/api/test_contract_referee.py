"""POST /v1/hands/adjudicate and POST /v1/turns/check under kalooki-jamaica
(docs/api.md#contract-rule-sets): records carry round; /turns/check takes round, players, down and
calls_made; the state says round, contract, down and calls_made."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.engine.notation import MEDIA_TYPE, data_to_text

ANN = ["7h", "7s", "7c", "9d", "9d", "JK", "Kc", "Kh", "Ks"]
BOB = ["2c", "3c", "4c", "5c", "6c", "8h", "8s", "Td", "Jd"]
CY = ["2h", "3h", "4h", "5h", "6d", "6s", "Qc", "Qd", "4s"]
LAY = {"lay": [["7h", "7s", "7c"], ["9d", "9d", "JK"], ["Kc", "Kh", "Ks"]]}
RECORD = {"ruleset": "kalooki-jamaica", "round": 1, "players": ["ann", "bob", "cy"],
          "deal": {"ann": ANN, "bob": BOB, "cy": CY}, "discard": ["2s"],
          "turns": [{"player": "ann", "call": {"player": "cy", "granted": True, "penalty": ["As"]},
                     "draw": {"from": "stock", "card": "3s"}, "plays": [LAY], "discard": "3s"}]}


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING_NO_METRICS": True}).test_client()


def test_a_jamaican_record_is_adjudicated(client) -> None:
    """docs/api.md#contract-rule-sets: a granted call, the lay, down-and-out; penalty scoring with a
    black ace 15."""
    r = client.post("/v1/hands/adjudicate?steps=true", json=RECORD)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["legal"] is True
    assert body["result"]["finish"] == "special" and body["result"]["winner"] == "ann"
    # cy: 50 in the deal, 2s from the call, As (black ace, 15) as the penalty card
    assert [s["penalty"] for s in body["result"]["scores"]] == [0, 56, 67]
    state = body["state"]
    assert (state["round"], state["contract"], state["down"]) == (1, "333", ["ann"])
    assert state["calls_made"] == {"ann": 0, "bob": 0, "cy": 1}
    assert [s["state"]["round"] for s in body["steps"]] == [1, 1]
    assert body["steps"][1]["played"]["call"] == {"player": "cy", "granted": True,
                                                   "penalty": ["As"]}


def test_the_notation_says_the_same(client) -> None:
    text = data_to_text(RECORD)
    assert "round 1" in text and "call cy granted As" in text and "lay 7h 7s 7c | " in text
    r = client.post("/v1/hands/adjudicate", data=text.encode(), content_type=MEDIA_TYPE)
    assert r.status_code == 200 and r.get_json()["result"]["finish"] == "special"


def test_a_classic_state_has_no_contract_fields(client) -> None:
    from tests.api.test_referee import HUNT
    state = client.post("/v1/hands/adjudicate", json=HUNT).get_json()["state"]
    assert not {"round", "contract", "down", "calls_made"} & set(state)


@pytest.mark.parametrize(("change", "code"), [
    ({"round": None}, "round-required"), ({"round": 10}, "invalid-round"),
    ({"round": 0}, "invalid-round"), ({"round": 2}, "deal-size")])
def test_round_problems(client, change, code) -> None:
    """docs/api.md#contract-rule-sets: round-required, invalid-round; the deal size follows the
    round (deal-size)."""
    body = {k: v for k, v in {**RECORD, **change}.items() if v is not None}
    r = client.post("/v1/hands/adjudicate", json=body)
    assert r.status_code == 422 and r.get_json()["code"] == code


def test_a_round_in_a_classic_record_is_invalid_round(client) -> None:
    from tests.api.test_referee import HUNT
    r = client.post("/v1/hands/adjudicate", json={**HUNT, "round": 1})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-round"


def test_a_violation_in_a_jamaican_record(client) -> None:
    """docs/api.md#contract-rule-sets: a joker may not be discarded."""
    bad = {**RECORD, "turns": [{"player": "ann", "draw": {"from": "stock", "card": "Ad"},
                                "discard": "JK"}]}
    body = client.post("/v1/hands/adjudicate", json=bad).get_json()
    v = body["violations"][0]
    assert (v["code"], v["turn"], v["play"]) == ("joker-discard", 0, None)
    assert body["state"]["down"] == []


def _check(client, **over):
    body = {"ruleset": "kalooki-jamaica", "round": 1, "hand": ANN, "discard_top": "2s",
            "players": ["ann", "bob", "cy"],
            "turn": {"call": {"player": "bob", "granted": True, "penalty": ["Ad"]},
                     "draw": {"from": "stock", "card": "3s"}, "plays": [LAY], "discard": "3s"}}
    body.update(over)
    return client.post("/v1/turns/check", json={k: v for k, v in body.items() if v is not None})


def test_turns_check_with_a_call(client) -> None:
    """docs/api.md#contract-rule-sets: players (from the player to move), down, calls_made; granted
    calls count."""
    r = _check(client)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["legal"] is True and body["finish"] == "special" and body["opened"] is True
    assert _check(client, calls_made={"bob": 3}).get_json()["violations"][0]["code"] == "call-limit"
    assert _check(client, down=["bob"]).get_json()["violations"][0]["code"] == "call-after-down"
    # the last seat discarded discard_top
    own = _check(client, players=["ann", "cy", "bob"]).get_json()["violations"][0]
    assert own["code"] == "call-own-discard"


def test_turns_check_problems(client) -> None:
    """docs/api.md#contract-rule-sets: round-required; without players no call is possible; the
    hand-size cap."""
    assert _check(client, round=None).get_json()["code"] == "round-required"
    r = _check(client, players=None)
    assert r.status_code == 422 and r.get_json()["code"] == "unknown-player"
    assert list(r.get_json()["errors"]) == ["turn.call.player"]
    r = _check(client, turn={"call": {"player": "bob", "granted": True},
                             "draw": {"from": "stock", "card": "3s"}, "discard": "3s"})
    assert r.status_code == 422 and r.get_json()["code"] == "missing-card"  # no stock here
    assert list(r.get_json()["errors"]) == ["turn.call.penalty"]
    big = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac", "2d", "3d", "4d"]
    r = _check(client, hand=big, turn={"draw": {"from": "stock", "card": "5d"}, "discard": "5d"})
    assert r.status_code == 422 and r.get_json()["code"] == "hand-too-large"
    r = _check(client, down=["zed"])
    assert r.status_code == 422 and r.get_json()["code"] == "unknown-player"


@pytest.mark.parametrize("count", [-1, "2", True, 1.5, 101])
def test_calls_made_counts_are_integers(client, count) -> None:
    r = _check(client, calls_made={"bob": count})
    assert r.status_code == 422 and r.get_json()["code"] == "validation-error"
    assert list(r.get_json()["errors"]) == ["calls_made.bob"]
