"""Redis dies while writers append, then comes back (docs/api.md#match-ledgers,
docs/deploy.md#deploying-the-service).

Every append answered 201 is in the ledger; an append answered 503 (or lost
with the connection) is never half-applied; retried with the same key it
completes exactly once.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import requests

from service.ledger.chain import verify
from service.ledger.service import rescore_export as rescore
from tests.ledger.backends import ThrowawayRedis
from tests.ledger.servers import start_pair
from tests.ledger.test_concurrency import hand_body

WRITERS = 8


@pytest.mark.slow
def test_redis_outage_during_writes(tmp_path):
    redis_server = ThrowawayRedis(str(tmp_path))
    redis_server.start()
    servers = start_pair(redis_server.url, extra_env={"REDIS_SOCKET_TIMEOUT": "1",
                                                      "LEDGER_MAX_HANDS": "1000000"})
    try:
        _run(redis_server, [s.base for s in servers])
    finally:
        for s in servers:
            s.stop()
        redis_server.stop()


def _run(redis_server: ThrowawayRedis, base: list[str]) -> None:
    r = requests.post(base[0] + "/v1/matches", json={
        "ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_end": "goal", "goal_points": 1_000_000}, timeout=10)
    assert r.status_code == 201
    mid, token = r.json()["id"], r.json()["token"]
    acked: dict[str, tuple[int, dict, bytes]] = {}
    pending: dict[str, dict] = {}
    statuses: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def post(s, i, key, body):
        return s.post(f"{base[i % 2]}/v1/matches/{mid}/hands", json=body, timeout=15,
                      headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    def writer(w: int) -> None:
        s = requests.Session()
        i = 0
        while not stop.is_set():
            key, body = f"w{w}-{i}-{uuid.uuid4().hex}", hand_body(w * 1000 + i)
            try:
                resp = post(s, i, key, body)
                code = resp.status_code
            except requests.RequestException:
                resp, code = None, -1
            with lock:
                statuses.append(code)
                if code == 201:
                    acked[key] = (resp.json()["seq"], body, resp.content)
                else:
                    assert code in (503, -1), resp.text if resp is not None else code
                    if resp is not None:
                        assert resp.headers.get("Retry-After")
                    pending[key] = body
            if code != 201:
                time.sleep(0.05)
            i += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    time.sleep(0.8)
    redis_server.stop(hard=True)
    time.sleep(1.5)
    ready = requests.get(base[0] + "/readyz", timeout=10)
    assert ready.status_code == 503
    redis_server.start()
    time.sleep(0.8)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert statuses.count(503) + statuses.count(-1) > 0, "the outage was not observed"
    assert len(acked) > 0

    # retry every unanswered append with its key until it completes
    s = requests.Session()
    retried: dict[str, tuple[int, dict, bytes]] = {}
    for n, (key, body) in enumerate(pending.items()):
        for _ in range(50):
            resp = post(s, n, key, body)
            if resp.status_code == 201:
                retried[key] = (resp.json()["seq"], body, resp.content)
                break
            assert resp.status_code == 503
            time.sleep(0.2)
        else:
            pytest.fail(f"{key} never completed")

    ex = requests.get(f"{base[1]}/v1/matches/{mid}/export", timeout=10,
                      headers={"Authorization": f"Bearer {token}"}).json()
    entries = ex["entries"]
    assert verify(entries) == ex["head"]
    everything = {**acked, **retried}
    seqs = sorted(seq for seq, _, _ in everything.values())
    assert seqs == list(range(len(entries)))  # each append exactly once, nothing else
    for seq, body, _ in everything.values():
        assert entries[seq]["input"] == body["score"]
    for key, (_, body, content) in list(acked.items())[:20]:  # retries replay the 201
        assert post(s, 0, key, body).content == content
    state = rescore(ex)
    match = requests.get(f"{base[0]}/v1/matches/{mid}", timeout=10).json()
    print(f"fault test: {len(acked)} acked, {statuses.count(503)} answered 503, "
          f"{statuses.count(-1)} lost connections, {len(retried)} completed on retry "
          f"({sum(1 for k in retried if retried[k][2] and k in pending)}), "
          f"{len(entries)} entries")
    assert match["version"] == len(entries) == match["hands_played"]
    assert state.to_dict()["standings"] == match["standings"]


@pytest.mark.slow
def test_redis_killed_during_corrections(tmp_path):
    """docs/api.md#scorekeeping: a correction is atomic in Redis (one script run, as appends are).
    Redis is killed while writers correct hands: nothing is half-applied, every retry with its key
    completes exactly once, and the chain verifies and re-folds to the stored standings."""
    from service.app import create_app

    redis_server = ThrowawayRedis(str(tmp_path))
    redis_server.start()
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_server.url,
                      "LEDGER_SIGNING_KEY": "k" * 32, "ALLOW_VOLATILE_REDIS": True,
                      "REDIS_SOCKET_TIMEOUT": 1, "REDIS_RETRIES": 0,
                      "LEDGER_MAX_HANDS": 1_000_000})
    try:
        _corrections_under_outage(app, redis_server)
    finally:
        redis_server.stop()


def _corrections_under_outage(app, redis_server: ThrowawayRedis) -> None:
    c = app.test_client()
    r = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
    mid, token = r.get_json()["id"], r.get_json()["token"]
    hands = [hand_body(i) for i in range(3)]
    for i, body in enumerate(hands):
        assert c.post(f"/v1/matches/{mid}/hands", json=body, headers={
            "Authorization": f"Bearer {token}", "Idempotency-Key": f"h{i}"}).status_code == 201
    acked: dict[str, int] = {}
    pending: dict[str, dict] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def post(client, key, body):
        return client.post(f"/v1/matches/{mid}/hands/{body['_seq']}/corrections",
                           json={k: v for k, v in body.items() if k != "_seq"},
                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    def writer(w: int) -> None:
        client = app.test_client()
        i = 0
        while not stop.is_set():
            n = w * 1000 + i
            body = {"_seq": n % 3, "reason": f"fix {n}",
                    **({"void": True} if n % 4 == 0 else hand_body(n + 7))}
            key = f"c{w}-{i}-{uuid.uuid4().hex}"
            resp = post(client, key, body)
            with lock:
                if resp.status_code == 201:
                    acked[key] = resp.get_json()["seq"]
                else:
                    assert resp.status_code == 503, resp.get_json()
                    assert resp.headers.get("Retry-After")
                    pending[key] = body
            if resp.status_code != 201:
                time.sleep(0.05)
            i += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.6)
    redis_server.stop(hard=True)
    time.sleep(1.0)
    redis_server.start()
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert pending, "the outage was not observed"
    assert acked
    client = app.test_client()
    for key, body in pending.items():
        for _ in range(50):
            resp = post(client, key, body)
            if resp.status_code == 201:
                acked[key] = resp.get_json()["seq"]
                again = post(client, key, body)  # the retry of the retry replays
                assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
                assert again.get_json()["seq"] == acked[key]
                break
            assert resp.status_code == 503
            time.sleep(0.2)
        else:
            pytest.fail(f"{key} never completed")
    ex = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"}
                    ).get_json()
    entries = ex["entries"]
    assert verify(entries) == ex["head"]
    assert sorted(acked.values()) == list(range(3, len(entries)))  # each exactly once
    assert all(e["type"] == "correction" for e in entries[3:])
    match = client.get(f"/v1/matches/{mid}").get_json()
    assert match["version"] == len(entries)
    assert rescore(ex).to_dict()["standings"] == match["standings"]


@pytest.mark.slow
def test_live_events_survive_a_redis_restart(tmp_path):
    """docs/api.md#scorekeeping: a stream open through a Redis restart misses nothing: the worker's
    listener reconnects, re-reads the matches it follows, and the stream goes on."""
    from service.app import create_app

    redis_server = ThrowawayRedis(str(tmp_path))
    redis_server.start()
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_server.url,
                      "LEDGER_SIGNING_KEY": "k" * 32, "ALLOW_VOLATILE_REDIS": True,
                      "REDIS_SOCKET_TIMEOUT": 1, "EVENTS_HEARTBEAT_SECONDS": 0.5})
    try:
        c = app.test_client()
        r = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
        mid, token = r.get_json()["id"], r.get_json()["token"]

        def append(i: int) -> int:
            for _ in range(50):
                resp = c.post(f"/v1/matches/{mid}/hands", json=hand_body(i * 2 + 1), headers={
                    "Authorization": f"Bearer {token}", "Idempotency-Key": f"k{i}"})
                if resp.status_code == 201:
                    return resp.get_json()["seq"]
                time.sleep(0.1)
            raise AssertionError("the append never went through")

        append(0)
        got: list[bytes] = []
        stream = app.test_client().get(f"/v1/matches/{mid}/events",
                                       headers={"Accept": "application/x-ndjson"}, buffered=False)

        def read() -> None:
            for chunk in stream.response:
                got.extend(line for line in chunk.splitlines() if b'"hand"' in line)
                if len(got) >= 3:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        redis_server.stop(hard=True)
        time.sleep(1.0)
        redis_server.start()
        append(1)
        append(2)
        reader.join(timeout=10)
        ids = [int(line.split(b'"id":', 1)[1].split(b",", 1)[0]) for line in got]
        assert ids == [0, 1, 2], got
        stream.close()
    finally:
        redis_server.stop()
