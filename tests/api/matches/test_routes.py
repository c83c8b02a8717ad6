"""/v1/matches (docs/api.md#match-ledgers) against every backend: embedded Redis and, when
configured, a real one."""

from __future__ import annotations

import hashlib
import json

import pytest

from service.app import create_app
from service.ledger.chain import GENESIS
from service.ledger.store import keys
from tests.ledger.backends import (
    append_hand,
    auth,
    create_match,
    export_match,
    raw_client,
    score,
)
from tests.support import free_port


def scored(winner, finish="out", **held):
    """A hand's body: ``{"score": ...}``."""
    return {"score": score(winner, finish, **held)}


KIM_WINS = scored("kim", kim=[], lou=["Qs", "4d"])


# -- create / read ---------------------------------------------------------------------

def test_create_and_get(client):
    mid, token, r = create_match(client)
    assert r.headers["Location"] == f"/v1/matches/{mid}"
    assert len(token) >= 43  # 256 bits, url-safe base64
    m = r.get_json()["match"]
    assert m["status"] == "in_progress" and m["winner"] is None and m["version"] == 0
    assert m["head"] == GENESIS and m["hands_played"] == 0
    assert m["standings"][0] == {"player": "kim", "points": 0, "penalty": 0, "eliminated": False,
                                 "hands_won": 0, "buy_ins": 0}
    assert m["match_end"]["match_end"] == "hands" and m["match_end"]["match_hands"] == 10
    g = client.get(f"/v1/matches/{mid}")
    assert g.status_code == 200 and g.get_json() == m
    assert g.headers["ETag"] == r.headers["ETag"]
    assert client.get(f"/v1/matches/{mid}", headers={"If-None-Match": g.headers["ETag"]}
                      ).status_code == 304


def test_token_stored_only_as_hash(client, redis_url):
    mid, token, _ = create_match(client)
    r = raw_client(redis_url, decode_responses=True)
    stored = r.hgetall(keys(mid)[0])
    assert token not in json.dumps(stored)
    assert stored["token"] == hashlib.sha256(token.encode()).hexdigest()
    assert all(f"{{match:{mid}}}" in k for k in keys(mid))
    assert 0 < r.pttl(keys(mid)[0]) <= 3600 * 1000


@pytest.mark.parametrize("body,code", [
    ({"ruleset": "nope", "players": ["a", "b"]}, "unknown-ruleset"),
    ({"ruleset": "kaluki-hunt", "players": ["a"]}, "player-count"),
    ({"ruleset": "kaluki-hunt", "players": ["a", "a"]}, "duplicate-player"),
    ({"ruleset": "kaluki-hunt", "players": ["a", "b"], "match_end": "never"}, "validation-error"),
    ({"ruleset": "kaluki-hunt", "players": ["a", "b"], "goal_points": 0}, "validation-error"),
    ({"ruleset": "kaluki-hunt", "players": ["a", "b"], "buy_ins": "yes"}, "validation-error"),
])
def test_create_rejects(client, body, code):
    r = client.post("/v1/matches", json=body)
    assert r.status_code == 422 and r.get_json()["code"] == code
    assert r.mimetype == "application/problem+json"


def test_match_end_fields_are_the_rule_set_parameters():
    """The schema's match-end settings are the rule-set parameters, with their ranges
    (one definition: engine.rules): the bounds are accepted, one past them refused."""
    from marshmallow import ValidationError

    from service.api.matches.schemas import MatchEndFields
    from service.engine.rules import MATCH_END_PARAMS, PARAMS_BY_NAME, Boolean, Choice, Integer

    schema = MatchEndFields()
    assert set(schema.fields) == set(MATCH_END_PARAMS)
    for name in MATCH_END_PARAMS:
        kind = PARAMS_BY_NAME[name].kind
        if isinstance(kind, Integer):
            assert schema.load({name: kind.minimum}) == {name: kind.minimum}
            assert schema.load({name: kind.maximum}) == {name: kind.maximum}
            for bad in (kind.minimum - 1, kind.maximum + 1):
                with pytest.raises(ValidationError):
                    schema.load({name: bad})
        elif isinstance(kind, Boolean):
            assert schema.load({name: False}) == {name: False}
            with pytest.raises(ValidationError):
                schema.load({name: 1})
        else:
            assert isinstance(kind, Choice)
            assert [schema.load({name: c})[name] for c in kind.choices] == list(kind.choices)
            with pytest.raises(ValidationError):
                schema.load({name: "never"})


def test_unknown_match_is_404(client):
    for r in (client.get("/v1/matches/nosuchmatch0"), client.get("/v1/matches/x"),
              client.get("/v1/matches/nosuchmatch0/export"),
              client.get("/v1/matches/nosuchmatch0/hands"),
              append_hand(client, "nosuchmatch0", "t", KIM_WINS)):
        assert r.status_code == 404, r.get_json()
        assert r.mimetype == "application/problem+json"


# -- appending hands -------------------------------------------------------------------

def test_append_scores_and_standings(client):
    mid, token, _ = create_match(client)
    r = append_hand(client, mid, token, KIM_WINS)
    assert r.status_code == 201, r.get_json()
    b = r.get_json()
    assert b["scores"] == [{"id": "kim", "hand_value": 0, "points": 20, "penalty": 0},
                           {"id": "lou", "hand_value": 14, "points": 0, "penalty": 14}]
    assert b["seq"] == 0 and b["hand"] == 1 and b["special"] is False
    assert b["match"]["standings"][1]["penalty"] == 14 and b["match"]["version"] == 1
    assert r.headers["Location"] == f"/v1/matches/{mid}/hands/0"
    assert r.headers["ETag"] == client.get(f"/v1/matches/{mid}").headers["ETag"]
    e = client.get(r.headers["Location"]).get_json()
    assert e["hash"] == b["hash"] == b["match"]["head"]
    assert e["input"] == KIM_WINS["score"] and e["source"] == "score"


def test_retry_same_key_returns_first_answer_and_changes_nothing(client):
    mid, token, _ = create_match(client)
    first = append_hand(client, mid, token, KIM_WINS, key="hand-1")
    again = append_hand(client, mid, token, KIM_WINS, key="hand-1")
    assert again.status_code == 201 and again.data == first.data
    assert again.headers["ETag"] == first.headers["ETag"]
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 1
    other = append_hand(client, mid, token, scored("lou", kim=["5h"], lou=[]), key="hand-1")
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency-key-reused"
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 1


def test_auth_and_key_required(client):
    mid, token, _ = create_match(client)
    r = client.post(f"/v1/matches/{mid}/hands", json=KIM_WINS, headers={"Idempotency-Key": "k"})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    r = client.post(f"/v1/matches/{mid}/hands", json=KIM_WINS,
                    headers={"Idempotency-Key": "k", "Authorization": "Bearer wrong"})
    assert r.status_code == 403 and r.get_json()["code"] == "token-invalid"
    r = client.post(f"/v1/matches/{mid}/hands", json=KIM_WINS,
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400 and r.get_json()["code"] == "idempotency-key-required"
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 0


def test_if_match(client):
    mid, token, created = create_match(client)
    tag0 = created.headers["ETag"]
    r = append_hand(client, mid, token, KIM_WINS, **{"If-Match": tag0})
    assert r.status_code == 201
    stale = append_hand(client, mid, token, KIM_WINS, **{"If-Match": tag0})
    assert stale.status_code == 412 and stale.get_json()["code"] == "precondition-failed"
    assert append_hand(client, mid, token, KIM_WINS, **{"If-Match": r.headers["ETag"]}).status_code == 201
    assert append_hand(client, mid, token, KIM_WINS, **{"If-Match": "*"}).status_code == 201


@pytest.mark.parametrize("body,code", [
    ({"score": {**KIM_WINS["score"], "ruleset": "kaluki-51"}}, "validation-error"),
    ({**KIM_WINS, "record": {"players": []}}, "validation-error"),
    ({}, "validation-error"),
    (scored("kim", kim=[], lou=["Qz"]), "invalid-card"),
    (scored("kim", kim=["Qs"], lou=[]), "winner-holds-cards"),
    (scored("kim", kim=[], zed=["Qs"]), "hand-players"),
])
def test_append_rejects(client, body, code):
    mid, token, _ = create_match(client)
    r = append_hand(client, mid, token, body)
    assert r.status_code == 422 and r.get_json()["code"] == code, r.get_json()
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 0


def test_hands_match_end_and_finished_is_409(client):
    mid, token, _ = create_match(client, match_hands=2)
    append_hand(client, mid, token, KIM_WINS)
    r = append_hand(client, mid, token, scored("lou", "special", kim=["Kd", "JK"], lou=[]))
    m = r.get_json()["match"]
    # kaluki-hunt: bonus_penalty; kim 20, lou 40 (special); penalties kim 2*(10+25)=70
    assert (m["status"], m["winner"]) == ("finished", "lou")
    r = append_hand(client, mid, token, KIM_WINS)
    assert r.status_code == 409 and r.get_json()["code"] == "match-finished"


def test_goal_match_end(client):
    mid, token, _ = create_match(client, ruleset="kaluki-51", players=("a", "b", "c"), goal_points=30)
    r = append_hand(client, mid, token, scored("a", a=[], b=["Qs"], c=["5h"]))
    assert r.get_json()["match"]["status"] == "in_progress"  # 15 points
    r = append_hand(client, mid, token, scored("a", a=[], b=["Qs"], c=["5h"]))
    m = r.get_json()["match"]
    assert (m["status"], m["winner"], m["standings"][0]["points"]) == ("finished", "a", 30)


def test_elimination_and_buy_ins(client):
    mid, token, _ = create_match(client, ruleset="kaluki-uk", players=("a", "b", "c", "d"),
                           elimination_over=20)
    r = append_hand(client, mid, token, scored("a", a=[], b=["Qs", "Kd", "5h"], c=["9c"], d=["3d"]))
    m = r.get_json()["match"]
    assert [s["eliminated"] for s in m["standings"]] == [False, True, False, False]
    # b no longer plays
    r = append_hand(client, mid, token, scored("a", a=[], b=["2c"], c=["9c"], d=["3d"]))
    assert r.status_code == 422 and r.get_json()["code"] == "hand-players"
    url = f"/v1/matches/{mid}/buy-ins"
    r = client.post(url, json={"player": "c"}, headers=auth(token))
    assert r.status_code == 409 and r.get_json()["code"] == "player-not-eliminated"
    r = client.post(url, json={"player": "b"}, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 403
    r = client.post(url, json={"player": "b"}, headers=auth(token))
    assert r.status_code == 201, r.get_json()
    b = r.get_json()["match"]["standings"][1]
    assert (b["eliminated"], b["penalty"], b["buy_ins"]) == (False, 9, 1)
    r = append_hand(client, mid, token, scored("a", a=[], b=["Qs", "Kd"], c=["Qs", "Kd"], d=["3d"]))
    m = r.get_json()["match"]
    assert [s["eliminated"] for s in m["standings"]] == [False, True, True, False]
    # docs/api.md#match-ledgers buy_ins_max 1: b has had the one buy-in a player may make
    r = client.post(url, json={"player": "b"}, headers=auth(token))
    assert r.status_code == 409 and r.get_json()["code"] == "buy-ins-exhausted"
    # docs/api.md#match-ledgers buy_in_min_players 3 counts the one buying in: a, d and c make three
    r = client.post(url, json={"player": "c"}, headers=auth(token))
    assert r.status_code == 201, r.get_json()
    c = r.get_json()["match"]["standings"][2]
    assert (c["eliminated"], c["penalty"], c["buy_ins"]) == (False, 6, 1)
    r = append_hand(client, mid, token, scored("a", a=[], c=["Qs", "Kd"], d=["Qs", "Kd"]))
    m = r.get_json()["match"]
    assert (m["status"], m["winner"]) == ("finished", "a")


def test_three_player_uk_first_out_buys_back_in_once(client):
    """docs/api.md#match-ledgers (kaluki-uk: buy_ins_max 1, buy_in_min_players 3): in a three-player
    match the first player over 150 buys back in at the highest remaining penalty;
    a second buy-in by the same player is 409."""
    mid, token, _ = create_match(client, ruleset="kaluki-uk", players=("a", "b", "c"))
    url = f"/v1/matches/{mid}/buy-ins"
    over_150 = ["Ks", "Kd", "Kh", "Qs", "Qd", "Qh", "Js", "Jd", "Jh", "Ts", "Td", "Th",
                "9s", "9d", "9h", "8s"]  # 10*12 + 27 + 8 = 155
    r = append_hand(client, mid, token, scored("a", a=[], b=over_150, c=["Qs", "Kd", "4c"]))
    m = r.get_json()["match"]
    assert [s["eliminated"] for s in m["standings"]] == [False, True, False]
    r = client.post(url, json={"player": "b"}, headers=auth(token))
    assert r.status_code == 201, r.get_json()
    b = r.get_json()["match"]["standings"][1]
    assert (b["eliminated"], b["penalty"], b["buy_ins"]) == (False, 24, 1)
    r = append_hand(client, mid, token, scored("c", a=["2c"], b=over_150, c=[]))
    assert [s["eliminated"] for s in r.get_json()["match"]["standings"]] == [False, True, False]
    r = client.post(url, json={"player": "b"}, headers=auth(token))
    assert r.status_code == 409 and r.get_json()["code"] == "buy-ins-exhausted"


def test_buy_in_never_head_to_head(client):
    """docs/api.md#match-ledgers buy_in_min_players 3: with only two at the table counting the one
    buying in, no buy-in (here: a four-player match down to one player in would
    have ended; an override of buy_in_min_players 4 closes it at two in)."""
    mid, token, _ = create_match(client, ruleset="kaluki-uk", players=("a", "b", "c", "d"),
                           elimination_over=20, buy_in_min_players=4)
    url = f"/v1/matches/{mid}/buy-ins"
    append_hand(client, mid, token, scored("a", a=[], b=["Qs", "Kd", "5h"], c=["Qs", "Kd", "5h"],
                                     d=["3d"]))
    r = client.post(url, json={"player": "b"}, headers=auth(token))
    assert r.status_code == 409 and r.get_json()["code"] == "buy-ins-closed"


def test_buy_ins_not_allowed(client):
    mid, token, _ = create_match(client, ruleset="kalooki-40", players=("a", "b", "c"))
    r = client.post(f"/v1/matches/{mid}/buy-ins", json={"player": "a"}, headers=auth(token))
    assert r.status_code == 409 and r.get_json()["code"] == "buy-ins-not-allowed"


# -- pagination, export, import, delete ------------------------------------------------

def test_pagination(client):
    mid, token, _ = create_match(client, match_hands=20)
    for _ in range(5):
        append_hand(client, mid, token, KIM_WINS)
    seen, cursor, pages = [], None, 0
    while True:
        url = f"/v1/matches/{mid}/hands?limit=2" + (f"&cursor={cursor}" if cursor else "")
        r = client.get(url)
        assert r.status_code == 200
        page = r.get_json()
        seen += [e["seq"] for e in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            assert "Link" not in r.headers
            break
        assert 'rel="next"' in r.headers["Link"]
    assert seen == [0, 1, 2, 3, 4] and pages == 3
    assert client.get(f"/v1/matches/{mid}/hands?cursor=abc").status_code == 422
    r = client.get(f"/v1/matches/{mid}/hands?cursor=%C2%B3")  # "³": a digit to isdigit(), not to int()
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-cursor"
    assert client.get(f"/v1/matches/{mid}/hands?limit=0").status_code == 422
    assert client.get(f"/v1/matches/{mid}/hands?cursor=99").get_json() == {
        "items": [], "next_cursor": None}


def _played(client):
    mid, token, _ = create_match(client, ruleset="kaluki-uk", players=("a", "b", "c", "d"),
                           elimination_over=20)
    append_hand(client, mid, token, scored("a", a=[], b=["Qs", "Kd", "5h"], c=["9c"], d=["3d"]))
    client.post(f"/v1/matches/{mid}/buy-ins", json={"player": "b"}, headers=auth(token))
    append_hand(client, mid, token, scored("c", "special", a=["4s"], b=["2c"], c=[], d=["3d"]))
    return mid, token


def test_export_import_roundtrip(client):
    mid, token, = _played(client)
    before = client.get(f"/v1/matches/{mid}").get_json()
    ex = export_match(client, mid, token)
    assert ex["format"] == "kaluki-ledger/1" and len(ex["entries"]) == 3
    assert ex["head"] == before["head"] and "token" not in ex
    assert len(ex["signature"]) == 64 and [k["seq"] for k in ex["idempotency"]] == [0, 1, 2]
    hdr = {"Authorization": f"Bearer {token}"}
    r = client.post("/v1/matches/import", json=ex, headers=hdr)  # the id is live
    assert r.status_code == 409 and r.get_json()["code"] == "match-exists"
    assert client.delete(f"/v1/matches/{mid}", headers=hdr).status_code == 204
    assert client.get(f"/v1/matches/{mid}").status_code == 404
    r = client.post("/v1/matches/import", json=ex, headers=hdr)
    assert r.status_code == 201 and r.headers["Location"] == f"/v1/matches/{mid}"
    after = client.get(f"/v1/matches/{mid}").get_json()
    assert after == before
    # the original token still writes
    r = append_hand(client, mid, token, scored("a", a=[], b=["2c"], c=["4c"], d=["3d"]))
    assert r.status_code == 201


def test_export_needs_the_token(client):
    mid, token, _ = create_match(client)
    assert client.get(f"/v1/matches/{mid}/export").status_code == 401
    r = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 403 and r.get_json()["code"] == "token-invalid"
    r = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"


def test_entry_seq_beyond_any_ledger_is_404(client):
    mid, _, _ = create_match(client)
    for seq in (0, 2 ** 63, 10 ** 30):
        r = client.get(f"/v1/matches/{mid}/hands/{seq}")
        assert r.status_code == 404 and r.get_json()["code"] == "entry-not-found"


def test_delete(client):
    mid, token, _ = create_match(client)
    assert client.delete(f"/v1/matches/{mid}").status_code == 401
    assert client.delete(f"/v1/matches/{mid}",
                         headers={"Authorization": "Bearer nope"}).status_code == 403
    assert client.delete(f"/v1/matches/{mid}",
                         headers={"Authorization": f"Bearer {token}"}).status_code == 204
    assert client.delete(f"/v1/matches/{mid}",
                         headers={"Authorization": f"Bearer {token}"}).status_code == 404


def test_ttl_refreshed_on_write(client, redis_url):
    mid, token, _ = create_match(client)
    r = raw_client(redis_url)
    for k in keys(mid)[:1]:
        r.pexpire(k, 10_000)
    append_hand(client, mid, token, KIM_WINS)
    assert all(r.pttl(k) > 3_000_000 for k in keys(mid))


# -- hand records ---------------------------------------------------------------------

HUNT_DEAL = {"ann": ["4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "2c", "3c"],
             "bob": ["2d", "5d", "8d", "Jd", "3s", "6s", "9s", "Qs", "4c", "7c", "Tc", "Kc", "JK"]}
HUNT_RECORD = {"players": ["ann", "bob"], "deal": HUNT_DEAL,
               "turns": [{"player": "ann", "draw": {"from": "stock", "card": "4c"},
                          "plays": [{"meld": ["4h", "5h", "6h", "7h", "8h", "9h", "Th"]},
                                    {"meld": ["Jh", "Qh", "Kh"]},
                                    {"meld": ["2c", "3c", "4c"]}], "discard": "Ah"}]}


def test_record_entry(client):
    """A hand record is adjudicated first (S1: Hunt, all cards laid in one turn, 40 points)."""
    mid, token, _ = create_match(client, ruleset="kaluki-hunt", players=("ann", "bob"))
    record = HUNT_RECORD
    r = append_hand(client, mid, token, {"record": record})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["special"] is True
    assert [(x["id"], x["points"], x["penalty"]) for x in body["scores"]] == [
        ("ann", 40, 0), ("bob", 0, 2 * 109)]
    illegal = json.loads(json.dumps(record))
    illegal["turns"][0]["plays"][0]["meld"] = ["4h", "5h", "7h"]
    r = append_hand(client, mid, token, {"record": illegal})
    assert r.status_code == 422


# -- outages ---------------------------------------------------------------------------

def test_redis_down_is_503_and_stateless_endpoints_work():
    down = create_app({"TESTING_NO_METRICS": True,
                       "LEDGER_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
                       "REDIS_RETRIES": 1})
    c = down.test_client()
    r = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["a", "b"]})
    assert r.status_code == 503 and r.headers["Retry-After"]
    assert r.get_json()["code"] == "ledger-unavailable"
    assert c.get("/v1/matches/abcdefgh1234").status_code == 503
    assert c.post("/v1/hands/score", json={"ruleset": "kaluki-hunt", **KIM_WINS["score"]}
                  ).status_code == 200
    ready = c.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["status"] == "unavailable"
    assert c.get("/healthz").status_code == 200


# -- the record path, through the referee ------------------------------------------------

def test_record_path_errors_and_reimport(client):
    mid, token, _ = create_match(client, players=("ann", "bob"))
    r = append_hand(client, mid, token, {"record": HUNT_RECORD})
    assert r.status_code == 201, r.get_json()
    e = client.get(f"/v1/matches/{mid}/hands/0").get_json()
    assert e["source"] == "record" and e["input"] == HUNT_RECORD and e["winner"] == "ann"
    cheat = json.loads(json.dumps(HUNT_RECORD))
    cheat["turns"][0]["plays"][2]["meld"] = ["2c", "3c"]
    cheat["turns"][0]["discard"] = "4c"
    r = append_hand(client, mid, token, {"record": cheat})
    assert r.status_code == 422 and r.get_json()["code"] == "illegal-record"
    assert r.get_json()["violations"][0]["code"] == "run-too-short"
    r = append_hand(client, mid, token, {"record": {"deal": HUNT_DEAL}})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-record"
    assert "record.players" in r.get_json()["errors"]
    r = append_hand(client, mid, token, {"record": {**HUNT_RECORD, "ruleset": "kaluki-51"}})
    assert r.status_code == 422 and r.get_json()["code"] == "validation-error"
    unfinished = {**HUNT_RECORD, "turns": HUNT_RECORD["turns"][:0]}
    r = append_hand(client, mid, token, {"record": unfinished})
    assert r.status_code == 422 and r.get_json()["code"] == "hand-not-finished"
    # export/import re-adjudicates the record
    ex = export_match(client, mid, token)
    hdr = {"Authorization": f"Bearer {token}"}
    client.delete(f"/v1/matches/{mid}", headers=hdr)
    r = client.post("/v1/matches/import", json=ex, headers=hdr)
    assert r.status_code == 201 and r.get_json()["hands_played"] == 1
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 1


# -- contract matches (docs/api.md#contract-rule-sets: match_end contracts) --------------------

def _round(n, winner, **held):
    body = scored(winner, **held)
    body["score"]["round"] = n
    return body


def _alternate(client, mid, token, rounds, card):
    """Rounds 1..rounds: ann wins the odd ones, bob the even ones; the other of them and
    cy hold ``card``."""
    for n in rounds:
        w, other = ("ann", "bob") if n % 2 else ("bob", "ann")
        resp = append_hand(client, mid, token, _round(n, w, **{w: [], other: [card], "cy": [card]}))
        assert resp.status_code == 201, resp.get_json()


def _penalties(m):
    return {s["player"]: s["penalty"] for s in m["standings"]}


def test_a_jamaican_match_is_nine_rounds_lowest_total_wins(client):
    """docs/api.md#contract-rule-sets: each appended hand is the next round (wrong-round); the match
    ends after the last contract; the lowest total penalty wins (red ace 1, black ace 15)."""
    mid, token, r = create_match(client, "kalooki-jamaica", players=("ann", "bob", "cy"))
    end = r.get_json()["match"]["match_end"]
    assert (end["match_end"], end["rounds"]) == ("contracts", 9)
    wrong = append_hand(client, mid, token, _round(2, "ann", ann=[], bob=["Kd"], cy=["Qd"]))
    assert wrong.status_code == 422 and wrong.get_json()["code"] == "wrong-round"
    missing = append_hand(client, mid, token, scored("ann", ann=[], bob=["Kd"], cy=["Qd"]))
    assert missing.status_code == 422 and missing.get_json()["code"] == "round-required"
    _alternate(client, mid, token, range(1, 9), "Ah")  # red ace: 1
    m = client.get(f"/v1/matches/{mid}").get_json()
    assert m["status"] == "in_progress" and _penalties(m) == {"ann": 4, "bob": 4, "cy": 8}
    last = append_hand(client, mid, token, _round(9, "cy", cy=[], ann=["As"], bob=["Kd"]))
    assert last.status_code == 201
    m = client.get(f"/v1/matches/{mid}").get_json()
    assert _penalties(m) == {"ann": 19, "bob": 14, "cy": 8}
    assert (m["status"], m["winner"], m["co_winners"]) == ("finished", "cy", [])
    late = append_hand(client, mid, token, _round(10, "ann", ann=[], bob=["Kd"], cy=["Qd"]))
    assert late.status_code == 409


def test_a_tie_after_the_last_contract_is_shared(client):
    """docs/api.md#contract-rule-sets: on a tie winner is null and co_winners lists the tied
    players."""
    mid, token, _ = create_match(client, "kalooki-jamaica", players=("ann", "bob", "cy"))
    _alternate(client, mid, token, range(1, 9), "2c")  # ann 8, bob 8, cy 16
    assert append_hand(client, mid, token, _round(9, "cy", cy=[], ann=["2c"], bob=["2d"])).status_code == 201
    m = client.get(f"/v1/matches/{mid}").get_json()
    assert _penalties(m) == {"ann": 10, "bob": 10, "cy": 16}
    assert (m["status"], m["winner"], m["co_winners"]) == ("finished", None, ["ann", "bob"])


def test_contract_match_end_needs_a_contract_rule_set(client):
    r = client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["a", "b"],
                                         "match_end": "contracts"})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-parameter"
    r = client.post("/v1/matches", json={"ruleset": "kalooki-jamaica", "players": ["a", "b", "c"],
                                         "match_end": "hands"})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-parameter"
    mid, token, _ = create_match(client)  # a classic match takes no round
    bad = append_hand(client, mid, token, _round(1, "kim", kim=[], lou=["Qs"]))
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid-round"


@pytest.mark.parametrize("body", [b"", b'{"ruleset": "kaluki-hunt", "players": ["kim", "l\xffou"]}'])
def test_an_empty_or_non_utf8_body_is_malformed_json(client, body):
    """docs/api.md#errors-and-codes (issue 19 item 3; RFC 8259 §8.1): an empty body and a body that
    is not UTF-8 are 400 malformed-json on the match endpoints too (create and append)."""
    r = client.post("/v1/matches", data=body, content_type="application/json")
    assert (r.status_code, r.get_json()["code"]) == (400, "malformed-json")
    mid, token, _ = create_match(client)
    r = client.post(f"/v1/matches/{mid}/hands", data=body, content_type="application/json",
                    headers=auth(token))
    assert (r.status_code, r.get_json()["code"]) == (400, "malformed-json")
