"""POST /v1/hands/adjudicate and POST /v1/turns/check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.app import create_app
from service.engine.notation import MEDIA_TYPE, data_to_text

ANN = ["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "2d", "3d", "4d", "5s", "6s", "7s", "8h"]
BOB = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9d", "Td", "Jd", "Qd", "Ad", "Ac"]
HUNT = {"ruleset": "kaluki-hunt", "players": ["ann", "bob"], "deal": {"ann": ANN, "bob": BOB},
        "turns": [{"player": "ann", "draw": {"from": "stock", "card": "Qc"},
                   "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc", "Qc"]},
                             {"meld": ["2d", "3d", "4d"]}, {"meld": ["5s", "6s", "7s"]}],
                   "discard": "8h"}]}
RECORDS = Path(__file__).parent.parent / "records"


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING_NO_METRICS": True}).test_client()


def test_adjudicate_legal_special(client) -> None:
    r = client.post("/v1/hands/adjudicate", json=HUNT)
    assert r.status_code == 200
    body = r.get_json()
    assert body["legal"] is True and body["violations"] == []
    assert body["result"] == {"winner": "ann", "finish": "special", "special": True, "scores": [
        {"id": "ann", "hand_value": 0, "points": 40, "penalty": 0},
        {"id": "bob", "hand_value": 96, "points": 0, "penalty": 192}]}
    state = body["state"]
    assert state["opened"] == ["ann"] and state["discard_top"] == "8h"
    assert state["table"][1]["cards"] == ["9c", "Tc", "Jc", "Qc"]
    assert state["hands"][0] == {"id": "ann", "cards": [], "count": 0}


def test_adjudicate_violation_in_dutch(client) -> None:
    bad = json.loads(json.dumps(HUNT))
    bad["turns"][0]["plays"][1] = {"meld": ["9c", "Tc", "Jc"]}
    bad["turns"][0]["discard"] = "Qc"
    bad["turns"][0]["plays"].append({"meld": ["8h"]})
    r = client.post("/v1/hands/adjudicate", json=bad, headers={"Accept-Language": "nl"})
    body = r.get_json()
    assert r.status_code == 200 and body["legal"] is False and body["result"] is None
    v = body["violations"][0]
    assert (v["code"], v["turn"], v["play"]) == ("set-too-short", 0, 4)
    assert "set" in v["message"] and "minstens" in v["message"]
    assert len(body["state"]["table"]) == 4


def test_adjudicate_notation(client) -> None:
    r = client.post("/v1/hands/adjudicate", data=data_to_text(HUNT), content_type=MEDIA_TYPE)
    assert r.status_code == 200 and r.get_json()["result"]["finish"] == "special"


def test_adjudicate_corpus_over_http(client) -> None:
    for path in sorted(RECORDS.glob("*.json"))[:12]:
        entry = json.loads(path.read_text())
        if "record" in entry:
            r = client.post("/v1/hands/adjudicate", json=entry["record"])
        else:
            r = client.post("/v1/hands/adjudicate", data=entry["notation"], content_type=MEDIA_TYPE)
        assert r.status_code == 200
        assert r.get_json()["legal"] == entry["expect"]["legal"], path.name


@pytest.mark.parametrize("kwargs, status, code", [
    ({"data": "{", "content_type": "application/json"}, 400, "malformed-json"),
    ({"data": "x", "content_type": "text/plain"}, 415, "unsupported-media-type"),
    ({"json": [1, 2]}, 422, "validation-error"),
    ({"json": {**HUNT, "players": ["ann"]}}, 422, "player-count"),
    ({"json": {**HUNT, "ruleset": "nope"}}, 422, "unknown-ruleset"),
    ({"json": {**HUNT, "deal": {"ann": ANN[:-1] + ["Qz"], "bob": BOB}}}, 422, "invalid-card"),
    ({"json": {**HUNT, "discard": ["Kh", "Kh"]}}, 422, "impossible-cards"),
    ({"json": {**HUNT, "deal": {"ann": ANN, "bob": BOB[:5]}}}, 422, "deal-size"),
    ({"json": {**HUNT, "turns": [{"player": "zed"}]}}, 422, "unknown-player"),
    ({"json": {k: v for k, v in HUNT.items() if k != "deal"}}, 422, "invalid-record"),
    ({"data": "ruleset kaluki-hunt\nbogus", "content_type": MEDIA_TYPE}, 422, "invalid-notation"),
    ({"data": b"\xff\xfe", "content_type": MEDIA_TYPE}, 422, "invalid-notation"),
])
def test_adjudicate_bad_input_is_a_problem(client, kwargs, status, code) -> None:
    r = client.post("/v1/hands/adjudicate", **kwargs)
    assert r.status_code == status
    assert r.mimetype == "application/problem+json"
    assert r.get_json()["code"] == code


def test_check_turn(client) -> None:
    body = {"ruleset": "kaluki-51", "table": [["5h", "6h", "7h", "8h"]], "hand": ANN,
            "opened": False, "discard_top": "9h",
            "turn": {"draw": {"from": "discard", "card": "9h"},
                     "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc"]},
                               {"build": {"meld": 0, "cards": ["9h"]}}],
                     "discard": "8h"}}
    r = client.post("/v1/turns/check", json=body)
    got = r.get_json()
    assert r.status_code == 200 and got["legal"] is False
    v = got["violations"][0]
    # 30 + 30 = 60 points would open under kaluki-51, but a run needs 4 cards there
    assert (v["code"], v["turn"], v["play"]) == ("run-too-short", 0, 1)
    body["turn"]["plays"][1] = {"meld": ["9c", "Tc", "Jc", "JK"]}
    body["hand"] = ANN[:-1] + ["JK"]
    body["turn"]["discard"] = "2d"
    got = client.post("/v1/turns/check", json=body).get_json()
    assert got["legal"] is True and got["opened"] is True and got["finished"] is False
    assert got["table"][0]["cards"] == ["5h", "6h", "7h", "8h", "9h"]
    assert got["hand"] == ["3d", "4d", "5s", "6s", "7s"]


@pytest.mark.parametrize("laid_before, finish", [(None, "special"), (False, "special"),
                                                 (True, "out")])
def test_check_turn_laid_before(client, laid_before, finish) -> None:
    """docs/api.md#special-wins: laying every card in one turn is special only with nothing laid
    before; ``laid_before`` (default false) says the player built or released earlier."""
    body = {"ruleset": "kaluki-hunt", "table": [["2c", "3c", "4c", "5c"]],
            "hand": ["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "2d", "3d", "4d", "5s", "6s", "7s"],
            "turn": {"draw": {"from": "stock", "card": "8d"},
                     "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc"]},
                               {"meld": ["2d", "3d", "4d"]}, {"meld": ["5s", "6s", "7s"]}],
                     "discard": "8d"}}
    if laid_before is not None:
        body["laid_before"] = laid_before
    got = client.post("/v1/turns/check", json=body).get_json()
    assert (got["legal"], got["finished"], got["finish"]) == (True, True, finish)


@pytest.mark.parametrize("body, code", [
    ({"ruleset": "kaluki-51", "hand": ["Kh"], "turn": {"draw": {"from": "stock"}}}, "missing-card"),
    ({"ruleset": "kaluki-51", "hand": ["Kz"], "turn": {}}, "invalid-card"),
    ({"ruleset": "kaluki-51", "hand": [], "table": [["Kh", "Qs"]], "turn": {}}, "invalid-meld"),
    ({"ruleset": "kaluki-51", "hand": ["Kh"], "turn": {"plays": [{"meld": 3}]}}, "invalid-record"),
    ({"ruleset": "kaluki-51", "hand": ["Kh", "Kh", "Kh"], "turn": {}}, "impossible-cards"),
    ({"ruleset": "kaluki-51", "turn": {}}, "validation-error"),
])
def test_check_turn_bad_input(client, body, code) -> None:
    r = client.post("/v1/turns/check", json=body)
    assert r.status_code == 422 and r.get_json()["code"] == code


def test_new_codes_are_published(client) -> None:
    codes = {c["code"] for c in client.get("/v1/violations").get_json()["violations"]}
    assert {"released-joker-unused", "out-of-turn", "discard-just-taken"} <= codes


def test_openapi_file_matches() -> None:
    from service.docs.openapi_dump import spec_text
    assert (Path(__file__).parent.parent.parent / "openapi" / "openapi.json").read_text() == spec_text()


def test_notation_only_where_it_is_read(client) -> None:
    r = client.post("/v1/melds/validate", data="ruleset x", content_type=MEDIA_TYPE)
    assert r.status_code == 415 and r.get_json()["code"] == "unsupported-media-type"


BUILD_ORDER_CASES = [
    # issue 19 item 1 (the oracle's cases) and item 4 (most points, then highest)
    ("kalooki-40", ["5h", "6h", "7h"], ["JK", "8h"], ["5h", "6h", "7h", "8h", "JK=9h"]),
    ("kaluki-uk", ["Qh", "Kh", "Ah"], ["JK", "Jh"], ["JK=Th", "Jh", "Qh", "Kh", "Ah"]),
    ("kaluki-hunt", ["5h", "6h", "7h"], [{"card": "JK", "end": "low"}, "4h"],
     ["JK=3h", "4h", "5h", "6h", "7h"]),
    ("kalooki-40", ["2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs"], ["As", "Ks"],
     ["2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As"]),
]


@pytest.mark.parametrize("rs, table, cards, result", BUILD_ORDER_CASES)
def test_a_build_is_the_same_in_every_order_on_every_endpoint(client, rs, table, cards, result) -> None:
    """Builds (docs/api.md#rulings-200-with-valid--legal; issue 19 items 1, 4): /v1/melds/build, a
    record's build (/v1/hands/adjudicate) and /v1/turns/check give the same meld in either order."""
    naturals = [c if isinstance(c, str) else c["card"] for c in cards]
    for order in (cards, cards[::-1]):
        got = client.post("/v1/melds/build", json={"ruleset": rs, "meld": table, "cards": order}).get_json()
        assert got["valid"] is True, got
        assert got["meld"]["cards"] == result
        hand = [*naturals, "2d", "9c"]
        body = {"ruleset": rs, "table": [table], "hand": hand, "opened": True,
                "turn": {"draw": {"from": "stock", "card": "3c"},
                         "plays": [{"build": {"meld": 0, "cards": order}}], "discard": "9c"}}
        got = client.post("/v1/turns/check", json=body).get_json()
        assert got["legal"] is True, got
        assert got["table"][0]["cards"] == result


def test_a_record_build_is_the_same_in_every_order(client) -> None:
    """Builds (docs/api.md#rulings-200-with-valid--legal; issue 19 item 1) in a hand record: ann
    lays 5-6-7 of hearts, then builds JK and 8h in either order: 5-6-7-8-JK=9h both times (the order
    once refused it)."""
    for order in (["JK", "8h"], ["8h", "JK"]):
        record = {"ruleset": "kaluki-hunt", "players": ["ann", "bob"],
                  "deal": {"ann": ["5h", "6h", "7h", "8h", "JK", "2c", "4d", "6s", "8c", "Td", "Qs",
                                   "Kc", "3d"],
                           "bob": ["2s", "3c", "4h", "5s", "6c", "7d", "8s", "9d", "Tc", "Jd", "Qc",
                                   "Kd", "Ad"]},
                  "turns": [{"player": "ann", "draw": {"from": "stock", "card": "9c"},
                             "plays": [{"meld": ["5h", "6h", "7h"]}], "discard": "9c"},
                            {"player": "bob", "draw": {"from": "stock", "card": "7c"}, "discard": "7c"},
                            {"player": "ann", "draw": {"from": "stock", "card": "7s"},
                             "plays": [{"build": {"meld": 0, "cards": order}}], "discard": "7s"}]}
        got = client.post("/v1/hands/adjudicate", json=record).get_json()
        assert got["legal"] is True, got
        assert got["state"]["table"][0]["cards"] == ["5h", "6h", "7h", "8h", "JK=9h"]
