"""Ledger integrity against its own users (docs/api.md#export-and-import): signed exports,
tombstones, keys through a restore, caps that keep every export importable."""

from __future__ import annotations

import json
import os
import stat
import threading

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from service.app import create_app
from service.engine.rules import CATALOG
from service.engine.selfplay import play_hand
from service.ledger import signing
from service.ledger.chain import GENESIS, seal
from service.ledger.service import Limits
from service.ledger.store import keys, tomb_key
from tests.ledger.backends import (
    SIGNING_KEY,
    Tracker,
    append_hand,
    bearer,
    create_match,
    export_match,
    ledger_app_for,
    raw_client,
)

KEY = SIGNING_KEY.encode()


def make_client(redis_url, tracker, **config):
    c = ledger_app_for(redis_url, **config).test_client()
    c.tracker = tracker
    return c


def create(client, ruleset="kaluki-hunt", players=("kim", "lou"), **extra):
    """A match that takes 10,000 hands: its id and its token."""
    mid, token, _ = create_match(client, ruleset, players, match_hands=10_000, **extra)
    return mid, token


def hand(i=0):
    winner, loser = ("kim", "lou") if i % 2 else ("lou", "kim")
    return {"score": {"winner": winner, "finish": "out",
                      "players": [{"id": winner, "cards": []}, {"id": loser, "cards": ["Qs"]}]}}


def resign(doc):
    doc = json.loads(json.dumps(doc))
    doc["signature"] = signing.sign(KEY, doc)
    return doc


def rechain(entries):
    prev, out = GENESIS, []
    for e in entries:
        e = seal(e, prev)
        prev = e["hash"]
        out.append(e)
    return out, prev


def test_forged_and_unsigned_imports_are_refused(match_client):
    mid, token = create(match_client)
    append_hand(match_client, mid, token, hand(1))
    ex = export_match(match_client, mid, token)
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    forged = json.loads(json.dumps(ex))
    forged["standings"][0]["points"] += 100  # made-up standings, old signature
    unsigned = {k: v for k, v in ex.items() if k != "signature"}
    other_key = {**ex, "signature": signing.sign(b"not the service's key", ex)}
    odd = [{**ex, "signature": sig} for sig in ("0" * 64, "\u00e5" * 64, "\u00e5")]
    for doc in (forged, unsigned, other_key, *odd):  # a non-ASCII signature was a 500
        r = match_client.post("/v1/matches/import", json=doc, headers=bearer(token))
        assert r.status_code == 422 and r.get_json()["code"] == "signature-invalid", r.get_json()
    assert match_client.get(f"/v1/matches/{mid}").status_code == 404  # nothing restored
    # a signed export still needs the match's own token
    assert match_client.post("/v1/matches/import", json=ex).status_code == 401
    r = match_client.post("/v1/matches/import", json=ex, headers=bearer("someone-else"))
    assert r.status_code == 403 and r.get_json()["code"] == "token-invalid"
    assert match_client.post("/v1/matches/import", json=ex, headers=bearer(token)).status_code == 201


def test_squatting_a_deleted_or_expired_id_is_refused(match_client, redis_url):
    """Even an export signed under the service's key (a key holder, or a bug) cannot take a
    deleted or expired id for another token: the tombstone keeps the id's token hash."""
    mid, token = create(match_client)
    append_hand(match_client, mid, token, hand(1))
    ex = export_match(match_client, mid, token)
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    squat = resign({**ex, "token_sha256": signing.hashlib.sha256(b"mine").hexdigest()})
    r = match_client.post("/v1/matches/import", json=squat, headers=bearer("mine"))
    assert r.status_code == 403 and r.get_json()["code"] == "token-invalid", r.get_json()
    # expiry: the match's keys are gone, the tombstone (refreshed on every write) is not
    r = raw_client(redis_url)
    assert match_client.post("/v1/matches/import", json=ex, headers=bearer(token)).status_code == 201
    assert r.pttl(tomb_key(mid)) > r.pttl(keys(mid)[0]) > 0
    r.delete(*keys(mid))
    assert match_client.get(f"/v1/matches/{mid}").status_code == 404
    r2 = match_client.post("/v1/matches/import", json=squat, headers=bearer("mine"))
    assert r2.status_code == 403
    assert match_client.post("/v1/matches/import", json=ex, headers=bearer(token)).status_code == 201


def test_import_into_a_live_id_is_409(match_client):
    mid, token = create(match_client)
    ex = export_match(match_client, mid, token)
    r = match_client.post("/v1/matches/import", json=ex, headers=bearer(token))
    assert r.status_code == 409 and r.get_json()["code"] == "match-exists"


def test_signed_but_inconsistent_exports_are_refused(match_client):
    """The chain and the re-score hold even against a doc signed under the service's key."""
    mid, token = create(match_client, ruleset="kaluki-uk", players=("a", "b", "c"))
    append_hand(match_client, mid, token, {"score": {"winner": "a", "finish": "out", "players": [
        {"id": "a", "cards": []}, {"id": "b", "cards": ["Qs"]}, {"id": "c", "cards": ["5h"]}]}})
    ex = export_match(match_client, mid, token)
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    bad = json.loads(json.dumps(ex))
    bad["entries"][0]["scores"][1]["penalty"] = 0
    r = match_client.post("/v1/matches/import", json=resign(bad), headers=bearer(token))
    assert r.status_code == 422 and r.get_json()["code"] == "chain-broken"
    bad["entries"], bad["head"] = rechain(bad["entries"])
    bad.pop("standings")
    r = match_client.post("/v1/matches/import", json=resign(bad), headers=bearer(token))
    assert r.status_code == 422 and r.get_json()["code"] == "rescore-mismatch"
    keyed = json.loads(json.dumps(ex))
    keyed["idempotency"][0]["seq"] = 5  # a key answered by no entry
    r = match_client.post("/v1/matches/import", json=resign(keyed), headers=bearer(token))
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-entry"
    assert match_client.get(f"/v1/matches/{mid}").status_code == 404


def test_retry_after_export_delete_import_replays(match_client):
    mid, token = create(match_client)
    first = append_hand(match_client, mid, token, hand(1), key="hand-1")
    second = append_hand(match_client, mid, token, hand(2), key="hand-2")
    ex = export_match(match_client, mid, token)
    assert match_client.delete(f"/v1/matches/{mid}", headers=bearer(token)).status_code == 204
    assert match_client.post("/v1/matches/import", json=ex, headers=bearer(token)).status_code == 201
    for key, body, answer in (("hand-1", hand(1), first), ("hand-2", hand(2), second)):
        again = append_hand(match_client, mid, token, body, key=key)
        assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
        assert again.data == answer.data  # the first answer, byte for byte
    assert match_client.get(f"/v1/matches/{mid}").get_json()["hands_played"] == 2
    r = append_hand(match_client, mid, token, hand(2), key="hand-1")
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"


def test_idempotency_is_compact(match_client, redis_url):
    """A key keeps its request's fingerprint and its entry's seq, not the answer."""
    mid, token = create(match_client)
    append_hand(match_client, mid, token, hand(1), key="k")
    stored = raw_client(redis_url, decode_responses=True).hget(keys(mid)[2], "k")
    fp, seq = stored.split(":")
    assert len(fp) == 64 and seq == "0"


def test_match_full_and_its_export_reimports(redis_url, tracker):
    match_client = make_client(redis_url, tracker, LEDGER_MAX_HANDS=3)
    mid, token = create(match_client)
    for i in range(3):
        assert append_hand(match_client, mid, token, hand(i)).status_code == 201
    r = append_hand(match_client, mid, token, hand(3))
    assert r.status_code == 409 and r.get_json()["code"] == "match-full"
    ex = export_match(match_client, mid, token)
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    r = match_client.post("/v1/matches/import", json=ex, headers=bearer(token))
    assert r.status_code == 201 and r.get_json()["hands_played"] == 3


def test_entry_too_large(redis_url, tracker):
    match_client = make_client(redis_url, tracker, LEDGER_MAX_ENTRY_BYTES=400)
    mid, token = create(match_client)
    body = {"score": {"winner": "kim", "finish": "out", "players": [
        {"id": "kim", "cards": []}, {"id": "lou", "cards": [r + s for r in "23456789TJQK" for s in "cdhs"]}]}}
    r = append_hand(match_client, mid, token, body)
    assert r.status_code == 413 and r.get_json()["code"] == "entry-too-large", r.get_json()
    assert match_client.get(f"/v1/matches/{mid}").get_json()["version"] == 0
    assert append_hand(match_client, mid, token, hand(1)).status_code == 201


def _records(n):
    """Legal, finished self-play hand records of kaluki-hunt (the largest of the catalog)."""
    out, seed = [], 0
    while len(out) < n:
        data = play_hand(CATALOG["kaluki-hunt"], ["kim", "lou"], seed=seed)
        seed += 1
        data.pop("ruleset")
        out.append(data)
    return out


def test_a_full_match_of_large_records_exports_and_reimports(redis_url, tracker):
    """Full to LEDGER_MAX_HANDS with the largest entries the cap lets in; its export fits
    the import's limit and imports again."""
    limits = Limits(max_hands=4, max_entry_bytes=16 * 1024)
    match_client = make_client(redis_url, tracker, LEDGER_MAX_HANDS=limits.max_hands)
    mid, token = create(match_client, players=("kim", "lou"))
    appended = 0
    for record in _records(20):
        r = append_hand(match_client, mid, token, {"record": record}, key="k" * 200 + str(appended))
        if r.status_code == 422 and r.get_json()["code"] == "hand-not-finished":
            continue
        assert r.status_code == 201, r.get_json()
        appended += 1
        if appended == limits.max_hands:
            break
    assert appended == limits.max_hands
    r = match_client.get(f"/v1/matches/{mid}/export", headers=bearer(token))
    assert len(r.data) <= limits.import_bytes
    ex = r.get_json()
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    r = match_client.post("/v1/matches/import", data=r.data, content_type="application/json",
                    headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["hands_played"] == limits.max_hands == len(ex["entries"])


def test_import_limit_fits_a_full_export():
    """Every entry at its cap, each with a 255-character key: the default limit holds it."""
    lim = Limits()
    entry = 'x' * lim.max_entry_bytes
    answered = json.dumps({"key": "k" * 255, "fingerprint": "f" * 64, "seq": lim.max_hands})
    header = 64 * 1024 // 2  # far more than any header: 16 players, a rule set, standings
    size = header + lim.max_hands * (len(entry) + 1 + len(answered) + 1)
    assert size <= lim.import_bytes
    assert lim.import_bytes == Limits.import_bytes_for(1000, 16 * 1024)


def test_import_body_limit_is_its_own(redis_url, tracker):
    """An export bigger than the app's 256 KiB body limit imports (and one over is 413)."""
    match_client = make_client(redis_url, tracker, LEDGER_IMPORT_MAX_BYTES=2 * 1024 * 1024)
    mid, token = create(match_client)
    ex = export_match(match_client, mid, token)
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    from service.engine.match import score_input

    body = hand(1)["score"]
    body["players"][1]["cards"] = ["Qs", "4d", "9c", "8h"]
    scored = score_input("kaluki-hunt", CATALOG["kaluki-hunt"], "score", body)
    entries = [{"seq": i, "type": "hand", "source": "score", "input": body,
                "winner": scored.winner, "finish": scored.finish,
                "special": scored.score.special, "scores": scored.scores_data()}
               for i in range(900)]
    for k in ("standings", "hands_played", "status", "winner"):
        ex.pop(k)
    ex["entries"], ex["head"] = rechain(entries)
    ex["version"] = 900
    doc = resign(ex)
    assert len(json.dumps(doc)) > 256 * 1024
    r = match_client.post("/v1/matches/import", json=doc, headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["standings"][0]["points"] == 900 * 20
    match_client.delete(f"/v1/matches/{mid}", headers=bearer(token))
    big = make_client(redis_url, tracker, LEDGER_IMPORT_MAX_BYTES=100_000)
    r = big.post("/v1/matches/import", json=doc, headers=bearer(token))
    assert r.status_code == 413


# -- the signing key ----------------------------------------------------------------------

def test_embedded_key_is_generated_once_and_private(tmp_path):
    keys_seen: list[bytes] = []
    threads = [threading.Thread(target=lambda: keys_seen.append(signing.key_from_file(
        str(tmp_path)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys_seen)) == 1 and len(keys_seen[0]) == 64
    mode = stat.S_IMODE(os.stat(tmp_path / signing.FILE_NAME).st_mode)
    assert mode == 0o600
    assert sorted(os.listdir(tmp_path)) == [signing.FILE_NAME]  # no temporary files left


def test_redis_key_is_shared_by_instances(embedded_url):
    r = redis.Redis.from_url(embedded_url)
    assert r.get(signing.REDIS_KEY) is None  # the tests' apps use LEDGER_SIGNING_KEY
    try:
        apps = [create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": embedded_url,
                            "ALLOW_VOLATILE_REDIS": True}) for _ in range(2)]
        found = [a.extensions["kaluki_ledger"].signing_key() for a in apps]
        assert found[0] == found[1] and found[0][1] == "redis"
        assert r.get(signing.REDIS_KEY) == found[0][0]
        ready = " ".join(apps[0].test_client().get("/readyz").get_json()["notes"])
        assert "signing key: redis (set LEDGER_SIGNING_KEY in production)" in ready
    finally:
        r.delete(signing.REDIS_KEY)


# -- a property: a restore changes nothing a match_client can see --------------------------------

CARDS = ["Qs", "4d", "JK", "As", "9h", "2c", "Kd"]


@settings(max_examples=12)
@given(hands=st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(CARDS), min_size=1,
                                                        max_size=4, unique=True)),
                      min_size=0, max_size=6))
def test_restore_is_invisible(embedded_url, hands):
    """Any ledger of scored hands: after export, delete and import, the match reads the
    same, its export is the same, and every key answered before replays its first answer."""
    ids = Tracker(embedded_url)
    try:
        match_client = make_client(embedded_url, ids)
        mid, token = create(match_client)
        answers = {}
        for i, (kim_wins, cards) in enumerate(hands):
            winner, loser = ("kim", "lou") if kim_wins else ("lou", "kim")
            body = {"score": {"winner": winner, "finish": "out", "players": [
                {"id": winner, "cards": []}, {"id": loser, "cards": cards}]}}
            r = append_hand(match_client, mid, token, body, key=f"k{i}")
            assert r.status_code == 201, r.get_json()
            answers[f"k{i}"] = (body, r.data)
        before = match_client.get(f"/v1/matches/{mid}").get_json()
        ex = export_match(match_client, mid, token)
        assert match_client.delete(f"/v1/matches/{mid}", headers=bearer(token)).status_code == 204
        r = match_client.post("/v1/matches/import", json=ex, headers=bearer(token))
        assert r.status_code == 201, r.get_json()
        assert match_client.get(f"/v1/matches/{mid}").get_json() == before
        assert export_match(match_client, mid, token) == ex
        for key, (body, data) in answers.items():
            again = append_hand(match_client, mid, token, body, key=key)
            assert again.status_code == 201 and again.data == data
        assert match_client.get(f"/v1/matches/{mid}").get_json()["version"] == len(hands)
    finally:
        ids.cleanup()
