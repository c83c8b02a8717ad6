"""Scorekeeping (docs/api.md#scorekeeping): names and metadata, stakes, corrections, the sheet,
settlement."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import pytest

from service.ledger.chain import verify
from tests.ledger.backends import auth, create_match, score


def create(client, ruleset="kaluki-hunt", players=("kim", "lou"), **extra):
    """A match: its id, its token and its state."""
    mid, token, r = create_match(client, ruleset, players, **extra)
    return mid, token, r.get_json()["match"]


def append(client, mid, token, body, key=None):
    r = client.post(f"/v1/matches/{mid}/hands", json={"score": body}, headers=auth(token, key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def correct(client, mid, token, seq, body, key=None, **headers):
    return client.post(f"/v1/matches/{mid}/hands/{seq}/corrections", json=body,
                       headers=auth(token, key, **headers))


def problem(r, status, code):
    assert r.status_code == status, r.get_json()
    assert r.get_json()["code"] == code, r.get_json()
    return r.get_json()


# -- names and metadata (docs/api.md#scorekeeping) ----------------------------------------

def test_title_names_and_stakes_come_back_normalised(client):
    mid, token, m = create(client, title="Cafe\u0301 night", names={"kim": "Kim \u00c5", "lou": "=Lou"},
                           stakes={"currency": "EUR", "stake": "5", "per_point": "0.05"})
    assert m["title"] == "Caf\u00e9 night"  # NFC
    assert m["names"] == {"kim": "Kim \u00c5", "lou": "=Lou"}
    assert m["stakes"] == {"currency": "EUR", "stake": "5.00", "per_point": "0.05"}
    assert client.get(f"/v1/matches/{mid}").get_json()["title"] == "Caf\u00e9 night"
    ex = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    doc = ex.get_json()
    assert (doc["title"], doc["names"], doc["stakes"]) == (m["title"], m["names"], m["stakes"])


def test_a_match_without_metadata_shows_nulls(client):
    _, _, m = create(client)
    assert (m["title"], m["names"], m["stakes"]) == (None, {}, None)


@pytest.mark.parametrize("extra,where", [
    ({"title": ""}, "title"), ({"title": "x" * 201}, "title"), ({"title": " \u3000 "}, "title"),
    ({"title": "a\u0007b"}, "title"), ({"title": "a\nb"}, "title"), ({"title": 5}, "title"),
    ({"names": {"zed": "Zed"}}, "names.zed"), ({"names": {"kim": "k" * 65}}, "names.kim.value"),
    ({"names": {"kim": "\t"}}, "names.kim.value"),
])
def test_bad_text_is_a_validation_error(client, extra, where):
    r = client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                         **extra})
    body = problem(r, 422, "validation-error")
    assert any(k.startswith(where.split(".")[0]) for k in body["errors"]), body


def test_length_counts_code_points_after_nfc(client):
    # 200 'e' + combining acute: 400 code points as sent, 200 after NFC
    _, _, m = create(client, title="e\u0301" * 200, names={"kim": "\U0001F0CF" * 64})
    assert len(m["title"]) == 200 and len(m["names"]["kim"]) == 64


@pytest.mark.parametrize("stakes,status,code", [
    ({"currency": "XYZ"}, 422, "invalid-currency"),
    ({"currency": "eur"}, 422, "invalid-currency"),
    ({"currency": "EUR", "stake": 5}, 422, "validation-error"),  # a JSON number
    ({"currency": "EUR", "stake": "5.001"}, 422, "validation-error"),
    ({"currency": "EUR", "stake": "-1"}, 422, "validation-error"),
    ({"currency": "EUR", "stake": "1e3"}, 422, "validation-error"),
    ({"currency": "JPY", "stake": "5.0"}, 422, "validation-error"),  # JPY has no minor digits
    ({"currency": "EUR", "bonus": "1"}, 422, "validation-error"),
    ({"stake": "1"}, 422, "validation-error"),
])
def test_bad_stakes(client, stakes, status, code):
    r = client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                         "stakes": stakes})
    problem(r, status, code)


def test_amounts_written_to_the_minor_unit(client):
    _, _, m = create(client, stakes={"currency": "KWD", "stake": "1.5", "buy_in": "0"})
    assert m["stakes"] == {"currency": "KWD", "stake": "1.500", "buy_in": "0.000"}
    _, _, m = create(client, stakes={"currency": "JPY", "per_hand": "100"})
    assert m["stakes"] == {"currency": "JPY", "per_hand": "100"}


# -- corrections (docs/api.md#scorekeeping) ---------------------------------------------------

KIM_WINS = score("kim", kim=[], lou=["Qs", "4d"])  # kaluki-hunt: kim +20, lou penalty 14
LOU_WINS = score("lou", kim=["Kh"], lou=[])  # lou +20, kim penalty 10


def standings(m):
    return {s["player"]: (s["points"], s["penalty"]) for s in m["standings"]}


def test_a_correction_is_one_more_entry_and_refolds(client):
    mid, token, _ = create(client)
    append(client, mid, token, KIM_WINS)
    append(client, mid, token, KIM_WINS)
    r = correct(client, mid, token, 0, {"reason": "lou won that one", "score": LOU_WINS})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["seq"] == 2 and body["type"] == "correction" and body["corrects"] == 0
    assert body["reason"] == "lou won that one" and body["winner"] == "lou"
    assert [s["id"] for s in body["scores"]] == ["kim", "lou"]
    m = body["match"]
    assert m["version"] == 3 and m["hands_played"] == 2 and m["head"] == body["hash"]
    assert standings(m) == {"kim": (20, 10), "lou": (20, 14)}
    won = {s["player"]: s["hands_won"] for s in m["standings"]}
    assert won == {"kim": 1, "lou": 1}
    hand = client.get(f"/v1/matches/{mid}/hands/0").get_json()
    assert hand["corrected_by"] == 2
    assert "corrected_by" not in client.get(f"/v1/matches/{mid}/hands/1").get_json()
    items = client.get(f"/v1/matches/{mid}/hands").get_json()["items"]
    assert items[0]["corrected_by"] == 2 and items[2]["type"] == "correction"
    stored = [{k: v for k, v in e.items() if k != "corrected_by"} for e in items]
    assert verify(stored) == m["head"]  # corrected_by is not part of the hashed entry


def test_void_and_correction_of_a_correction(client):
    mid, token, _ = create(client)
    append(client, mid, token, KIM_WINS)
    append(client, mid, token, LOU_WINS)
    r = correct(client, mid, token, 1, {"reason": "not played", "void": True})
    assert r.status_code == 201 and r.get_json()["void"] is True
    m = r.get_json()["match"]
    assert m["hands_played"] == 1 and standings(m) == {"kim": (20, 0), "lou": (0, 14)}
    # correcting the correction (seq 2) corrects the latest version of hand 1
    r = correct(client, mid, token, 2, {"reason": "it was played after all", "score": KIM_WINS})
    assert r.status_code == 201 and r.get_json()["corrects"] == 1
    m = r.get_json()["match"]
    assert m["hands_played"] == 2 and standings(m) == {"kim": (40, 0), "lou": (0, 28)}
    assert client.get(f"/v1/matches/{mid}/hands/1").get_json()["corrected_by"] == 3


def test_correction_idempotency_and_if_match(client):
    mid, token, _ = create(client)
    append(client, mid, token, KIM_WINS)
    body = {"reason": "typo", "score": LOU_WINS}
    r1 = correct(client, mid, token, 0, body, key="fix-1")
    r2 = correct(client, mid, token, 0, body, key="fix-1")
    assert r2.status_code == 201 and r2.data == r1.data
    assert r2.headers["Idempotent-Replayed"] == "true"
    problem(correct(client, mid, token, 0, {**body, "reason": "other"}, key="fix-1"), 422,
            "idempotency-key-reused")
    problem(correct(client, mid, token, 0, body, **{"If-Match": '"1.0000000000000000"'}), 412,
            "precondition-failed")
    r = correct(client, mid, token, 0, body, **{"If-Match": r1.headers["ETag"]})
    assert r.status_code == 201
    problem(client.post(f"/v1/matches/{mid}/hands/0/corrections", json=body,
                        headers={"Idempotency-Key": "x"}), 401, "token-required")
    problem(correct(client, mid, "nope", 0, body), 403, "token-invalid")
    problem(correct(client, mid, token, 9, body), 404, "entry-not-found")


@pytest.mark.parametrize("body", [
    {"score": KIM_WINS}, {"reason": "x"}, {"reason": "x", "void": True, "score": KIM_WINS},
    {"reason": "", "void": True}, {"reason": "x" * 501, "void": True},
    {"reason": "x", "void": False}, {"reason": "x", "void": "true"},
])
def test_bad_correction_bodies(client, body):
    mid, token, _ = create(client)
    append(client, mid, token, KIM_WINS)
    problem(correct(client, mid, token, 0, body), 422, "validation-error")
    assert client.get(f"/v1/matches/{mid}").get_json()["version"] == 1


def test_correction_conflicts_change_nothing(client):
    # kaluki-hunt, goal 40: after two kim wins (20 each) the match ends; a correction that
    # makes hand 0 a Hunt (40) ends the match there and leaves hand 1 impossible
    mid, token, _ = create(client, match_end="goal", goal_points=40)
    append(client, mid, token, KIM_WINS)
    done = append(client, mid, token, KIM_WINS)["match"]
    assert done["status"] == "finished" and done["winner"] == "kim"
    big = score("lou", "special", kim=["Kh"], lou=[])  # lou +40: ends the match at hand 0
    before = client.get(f"/v1/matches/{mid}").get_json()
    problem(correct(client, mid, token, 0, {"reason": "x", "score": big}), 409,
            "correction-conflict")
    assert client.get(f"/v1/matches/{mid}").get_json() == before
    # a finished match may be corrected: voiding the last hand re-opens it
    r = correct(client, mid, token, 1, {"reason": "never played", "void": True})
    m = r.get_json()["match"]
    assert (m["status"], m["winner"], m["hands_played"]) == ("in_progress", None, 1)
    assert append(client, mid, token, LOU_WINS)["match"]["hands_played"] == 2


def test_correction_conflict_with_a_buy_in(client):
    # kaluki-uk, elimination over 20: cy goes out at hand 0 and buys in; a correction that
    # keeps cy in makes the buy-in impossible (docs/api.md#scorekeeping)
    players = ("ann", "bob", "cy", "dee")
    mid, token, _ = create(client, "kaluki-uk", players, elimination_over=20)
    out = score("ann", ann=[], bob=["2c"], cy=["Kh", "Qh", "Js"], dee=["3c"])
    append(client, mid, token, out)
    r = client.post(f"/v1/matches/{mid}/buy-ins", json={"player": "cy"}, headers=auth(token))
    assert r.status_code == 201, r.get_json()
    mild = score("ann", ann=[], bob=["2c"], cy=["3h"], dee=["3c"])
    problem(correct(client, mid, token, 0, {"reason": "cy held less", "score": mild}), 409,
            "correction-conflict")
    problem(correct(client, mid, token, 1, {"reason": "x", "void": True}), 422,
            "invalid-correction")  # a buy-in is not a hand
    # a correction that keeps cy eliminated re-enters cy at the penalty the re-fold gives
    worse = score("bob", ann=["4c"], bob=[], cy=["Kh", "Qh", "Js"], dee=["3c"])
    m = correct(client, mid, token, 0, {"reason": "bob went out", "score": worse}
                ).get_json()["match"]
    pen = {s["player"]: s["penalty"] for s in m["standings"]}
    assert pen["cy"] == max(pen[p] for p in ("ann", "bob", "dee"))


def test_export_import_carries_and_reverifies_corrections(client):
    mid, token, _ = create(client, title="Friday", names={"kim": "Kim"})
    append(client, mid, token, KIM_WINS)
    append(client, mid, token, LOU_WINS)
    correct(client, mid, token, 0, {"reason": "swap", "score": LOU_WINS})
    correct(client, mid, token, 1, {"reason": "void", "void": True})
    before = client.get(f"/v1/matches/{mid}").get_json()
    ex = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    doc = ex.get_json()
    assert [e["type"] for e in doc["entries"]] == ["hand", "hand", "correction", "correction"]
    assert client.delete(f"/v1/matches/{mid}", headers={"Authorization": f"Bearer {token}"}
                         ).status_code == 204
    r = client.post("/v1/matches/import", json=doc, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.get_json()
    after = client.get(f"/v1/matches/{mid}").get_json()
    assert after == before
    assert client.get(f"/v1/matches/{mid}/hands/1").get_json()["corrected_by"] == 3


# -- score sheet (docs/api.md#scorekeeping) --------------------------------------------------

def test_sheet_json_and_csv_with_corrections_and_formula_names(client):
    evil = "=HYPERLINK(\"http://x\",\"y\")"
    mid, token, _ = create(client, "kaluki-hunt", ("kim", "-lou"), title="=cmd|' /C calc'!A0",
                           names={"kim": evil})
    for body in (KIM_WINS, KIM_WINS, KIM_WINS):
        append(client, mid, token, {**body, "players": [
            {"id": "kim", "cards": []}, {"id": "-lou", "cards": ["Qs", "4d"]}]})
    lou = score("-lou", kim=["Kh"], **{"-lou": []})
    correct(client, mid, token, 1, {"reason": "-lou won", "score": lou})
    correct(client, mid, token, 2, {"reason": "not played", "void": True})
    doc = client.get(f"/v1/matches/{mid}/sheet").get_json()
    assert doc["players"] == [{"id": "kim", "name": evil}, {"id": "-lou", "name": "-lou"}]
    assert [(r["seq"], r["winner"], r["corrected"]) for r in doc["rows"]] == [
        (0, "kim", False), (1, "-lou", True)]  # hand 2 voided: left out
    assert "round" not in doc["rows"][0]  # kaluki-hunt has no rounds
    assert doc["rows"][1]["cells"] == {"kim": {"points": 0, "penalty": 10},
                                       "-lou": {"points": 20, "penalty": 0}}
    assert doc["totals"] == {"kim": {"points": 20, "penalty": 10},
                             "-lou": {"points": 20, "penalty": 14}}
    r = client.get(f"/v1/matches/{mid}/sheet", headers={"Accept": "text/csv"})
    assert r.status_code == 200 and r.mimetype == "text/csv"
    text = r.get_data(as_text=True)
    assert "\r\n" in text and "calc" not in text  # RFC 4180 line ends; no title line
    table = list(csv.reader(io.StringIO(text, newline="")))
    assert table[0] == ["seq", "winner", "finish", f"'{evil} points", f"'{evil} penalty",
                        "'-lou points", "'-lou penalty"]
    assert table[1] == ["0", f"'{evil}", "out", "20", "0", "0", "14"]
    assert table[2] == ["1", "'-lou", "out", "0", "10", "20", "0"]
    assert table[-1] == ["total", "", "", "20", "10", "20", "14"]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r"))
                   for row in table for cell in row if not cell.lstrip("-").isdigit())


def test_sheet_of_an_unknown_match_is_404(client):
    problem(client.get("/v1/matches/AAAAAAAAAAAAAAAA/sheet"), 404, "match-not-found")


# -- settlement (docs/api.md#scorekeeping) ----------------------------------------------------

def test_settlement_needs_stakes(client):
    mid, _, _ = create(client)
    problem(client.get(f"/v1/matches/{mid}/settlement"), 409, "no-stakes")


def test_settlement_in_progress_and_final(client):
    stakes = {"currency": "EUR", "stake": "5", "per_hand": "0.50", "per_point": "0.01"}
    mid, token, _ = create(client, "kaluki-hunt", ("kim", "lou", "max"), match_end="hands",
                           match_hands=2, stakes=stakes)
    three = score("kim", kim=[], lou=["Qs"], max=["4d"])
    append(client, mid, token, three)
    s = client.get(f"/v1/matches/{mid}/settlement").get_json()
    assert s["currency"] == "EUR" and s["final"] is False
    bal = {b["player"]: Decimal(b["amount"]) for b in s["balances"]}
    assert sum(bal.values()) == 0
    # kaluki-hunt (bonus_penalty): totals kim 20, lou -10, max -4; pool 15.00 to kim
    # kim: +10 pool, +1.00 per hand, +0.30 +0.24 per point; lou pays max 0.06 (-10 vs -4)
    assert bal == {"kim": Decimal("11.54"), "lou": Decimal("-5.86"), "max": Decimal("-5.68")}
    assert all(b["amount"].count(".") == 1 and len(b["amount"].split(".")[1]) == 2
               for b in s["balances"])
    assert len(s["transfers"]) == 2
    append(client, mid, token, three)
    s = client.get(f"/v1/matches/{mid}/settlement").get_json()
    assert s["final"] is True
    paid = {}
    for t in s["transfers"]:
        paid[t["from"]] = paid.get(t["from"], 0) - Decimal(t["amount"])
        paid[t["to"]] = paid.get(t["to"], 0) + Decimal(t["amount"])
    assert paid == {b["player"]: Decimal(b["amount"]) for b in s["balances"]
                    if Decimal(b["amount"]) != 0}


# -- live events, in-process (the cross-instance checks: tests/ledger/test_events.py) --------

def test_events_of_a_finished_match_then_finished_and_end(client):
    mid, token, _ = create(client, match_end="hands", match_hands=1)
    append(client, mid, token, KIM_WINS)
    correct(client, mid, token, 0, {"reason": "lou won", "score": LOU_WINS})  # after the finish
    r = client.get(f"/v1/matches/{mid}/events")
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["X-Accel-Buffering"] == "no" and r.headers["Cache-Control"] == "no-cache"
    blocks = [b for b in r.get_data(as_text=True).split("\n\n") if b.startswith("id:")]
    heads = [tuple(line.split(": ", 1)[1] for line in b.split("\n")[:2]) for b in blocks]
    assert heads == [("0", "hand"), ("1", "correction"), ("1", "finished")]
    r = client.get(f"/v1/matches/{mid}/events", headers={"Accept": "application/x-ndjson",
                                                          "Last-Event-ID": "0"})
    lines = [json.loads(x) for x in r.get_data(as_text=True).splitlines()]
    assert [(x["id"], x["event"]) for x in lines] == [(1, "correction"), (1, "finished")]
    assert lines[-1]["data"]["match"]["winner"] == "lou"
    r = client.get(f"/v1/matches/{mid}/events?after=0",
                   headers={"Accept": "application/x-ndjson", "Last-Event-ID": "1"})
    assert [json.loads(x)["event"] for x in r.get_data(as_text=True).splitlines()] == [
        "finished"]  # the header wins over ?after


def test_events_refusals(client, ledger_app):
    problem(client.get("/v1/matches/AAAAAAAAAAAAAAAA/events"), 404, "match-not-found")
    mid, _, _ = create(client)
    problem(client.get(f"/v1/matches/{mid}/events", headers={"Last-Event-ID": "x1"}), 422,
            "invalid-cursor")
    problem(client.get(f"/v1/matches/{mid}/events?after=-1"), 422, "invalid-cursor")
    hub = ledger_app.extensions["kaluki_events"]
    assert hub.open == 0  # the refused and the 404 streams gave their slots back
    hub.max_subscribers = 0
    r = client.get(f"/v1/matches/{mid}/events")
    problem(r, 503, "too-many-subscribers")
    assert r.headers["Retry-After"]


def test_console_match_page_is_served_with_its_script_and_words(client):
    r = client.get("/console/matches/AAAAAAAAAAAAAAAA")
    assert r.status_code == 200 and "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert b'src="/console/assets/match.js"' in r.data
    js = client.get("/console/assets/match.js").get_data(as_text=True)
    assert "EventSource" in js and "/corrections" in js and "/sheet" in js
    words = client.get("/console/assets/strings.js").get_data(as_text=True)
    assert "Corrigeer deze hand" in words and "Correct this hand" in words


# -- corrections in a contract match (wrong-round: docs/api.md#contract-rule-sets) ----------

def _jam(n, winner, **held):
    return {**score(winner, **held), "round": n}


def _append(client, mid, token, body):
    return client.post(f"/v1/matches/{mid}/hands", json={"score": body}, headers=auth(token))


def test_a_voided_contract_round_used_its_deal_and_a_correction_keeps_its_round(client):
    """docs/api.md#contract-rule-sets: each hand is the next round, voided ones included (a voided
    round used its deal and scored nothing); corrections keep the corrected hand's round; the match
    ends after the last round dealt."""
    mid, token, _ = create(client, "kalooki-jamaica", players=("ann", "bob", "cy"))
    for n in (1, 2):
        append(client, mid, token, _jam(n, "ann", ann=[], bob=["Kd"], cy=["2c"]))
    # void round 2: the next hand is still round 3
    assert correct(client, mid, token, 1, {"reason": "misdeal", "void": True}).status_code == 201
    assert client.get(f"/v1/matches/{mid}").get_json()["hands_played"] == 1
    problem(_append(client, mid, token, _jam(2, "bob", ann=["Kd"], bob=[], cy=["2c"])),
            422, "wrong-round")
    append(client, mid, token, _jam(3, "bob", ann=["Kd"], bob=[], cy=["2c"]))
    # a correction of round 1 without a round keeps round 1; another round is refused
    fix = score("cy", ann=["Kd"], bob=["Qd"], cy=[])
    problem(correct(client, mid, token, 0, {"reason": "wrong winner",
                                            "score": {**fix, "round": 3}}), 422, "wrong-round")
    r = correct(client, mid, token, 0, {"reason": "wrong winner", "score": fix})
    assert r.status_code == 201, r.get_json()
    assert {s["player"]: s["penalty"] for s in r.get_json()["match"]["standings"]} == {
        "ann": 20, "bob": 10, "cy": 2}
    for n in range(4, 10):  # rounds 4..9: the match ends after the ninth round dealt
        append(client, mid, token, _jam(n, "ann", ann=[], bob=["2d"], cy=["2c"]))
    m = client.get(f"/v1/matches/{mid}").get_json()
    assert (m["status"], m["hands_played"]) == ("finished", 8)
    ex = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    assert ex.status_code == 200
    # the export re-imports: its rounds, the void and the corrections re-verified
    assert client.delete(f"/v1/matches/{mid}", headers={"Authorization": f"Bearer {token}"}
                         ).status_code == 204
    r = client.post("/v1/matches/import", json=ex.get_json(),
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/v1/matches/{mid}").get_json()["standings"] == m["standings"]
