"""The ledger on a Redis Cluster (docs/api.md#limits, docs/ledger.md#redis-cluster): detection, one
slot per match, and trouble.

The other ledger tests run against the session's cluster too (``cluster`` in
tests/ledger/backends.py BACKENDS); here: the client the service picks, what a
redirect, OOM and READONLY answer, and a master killed while writers append.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis
import requests

from service.app import create_app
from service.ledger.chain import verify
from service.ledger.store import LedgerStore, LedgerUnavailable, connect, keys
from tests.ledger.backends import RedisClusterServers, ThrowawayRedis
from tests.ledger.servers import Gunicorn
from tests.ledger.test_concurrency import hand_body

CREATE = {"ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_end": "goal",
          "goal_points": 1_000_000}


def test_any_node_url_gives_a_cluster_client(cluster_url):
    assert isinstance(connect(cluster_url), redis.RedisCluster)
    scheme = cluster_url.replace("redis://", "redis+cluster://")
    assert isinstance(connect(scheme), redis.RedisCluster)
    store = LedgerStore(connect(cluster_url), 60, "redis")
    ok, detail = store.ping()
    assert ok and "cluster" in detail, detail
    # every key of a match hashes to one slot, so its scripts may touch them together
    probe = redis.Redis.from_url(cluster_url)
    for mid in ("abcdefgh", "Zz-_0123456789ab", uuid.uuid4().hex):
        assert len({probe.cluster("keyslot", k) for k in keys(mid)}) == 1


def test_scripts_reload_on_a_master_that_lost_them(cluster_url):
    """NOSCRIPT (a promoted replica, a restarted master) reloads the script and runs it."""
    store = LedgerStore(connect(cluster_url), 60, "redis")
    mid = f"noscript-{uuid.uuid4().hex[:12]}"
    try:
        assert store.create(mid, {"m": 1}, {"s": 0}, "t") == ("ok", None)
        for node in store.client.get_primaries():
            store.client.get_redis_connection(node).script_flush()
        res = store.append(mid, idem_key="k", fingerprint="f", expected_version=0,
                           expected_head="0" * 64, entry='{"seq":0}', new_head="a" * 64,
                           state={"s": 1})
        assert res.kind == "ok" and store.entries(mid) == ['{"seq":0}']
    finally:
        store.delete(mid)


def test_single_redis_is_not_taken_for_a_cluster(tmp_path):
    server = ThrowawayRedis(str(tmp_path))
    server.start()
    try:
        client = connect(server.url)
        assert type(client) is redis.Redis
        client.close()
    finally:
        server.stop()


def _first_problem(app_client) -> tuple[int, dict, dict]:
    r = app_client.post("/v1/matches", json=CREATE)
    return r.status_code, r.get_json(), dict(r.headers)


def test_redirect_is_503_not_500(cluster_url):
    """A plain client on a node that does not own the slot gets MOVED: 503 ledger-unavailable."""
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": cluster_url})
    holder = app.extensions["kaluki_ledger"]
    probe = redis.Redis.from_url(cluster_url, decode_responses=True)
    mid = "redirect-test-match"
    owner = next(n for n in probe.cluster("nodes").values()
                 if any(int(r[0]) <= probe.cluster("keyslot", keys(mid)[0]) <= int(r[-1])
                        for r in n["slots"]))
    other = next(addr for addr, n in probe.cluster("nodes").items()
                 if "master" in n["flags"] and n["node_id"] != owner["node_id"])
    host, port = other.rsplit(":", 1)
    plain = redis.Redis(host=host, port=int(port), decode_responses=True)
    holder.store = LedgerStore(plain, 60, "redis")
    with pytest.raises(LedgerUnavailable, match="MovedError"):
        holder.store.load(mid)
    c = app.test_client()
    r = c.get(f"/v1/matches/{mid}")
    assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
    assert r.headers["Retry-After"]


def test_oom_and_readonly_are_503_not_500(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    primary = ThrowawayRedis(str(tmp_path / "a"))
    replica = ThrowawayRedis(str(tmp_path / "b"))
    primary.start()
    replica.start()
    try:
        for server, setup in ((primary, ("CONFIG", "SET", "maxmemory", "1")),
                              (replica, ("REPLICAOF", "127.0.0.1", str(primary.port)))):
            raw = redis.Redis.from_url(server.url, decode_responses=True)
            raw.execute_command(*setup)
            deadline = time.monotonic() + 10
            while server is replica and raw.info("replication")["master_link_status"] != "up":
                assert time.monotonic() < deadline, "the replica did not sync"
                time.sleep(0.05)
            app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": server.url,
                              "REDIS_RETRIES": 0})
            status, body, headers = _first_problem(app.test_client())
            assert status == 503, body
            assert body["code"] == "ledger-unavailable" and headers["Retry-After"]
            # inside a script the server's error is a plain ResponseError carrying its text
            error = "OOM command not allowed" if server is primary else "(?i)read.?only"
            with pytest.raises(LedgerUnavailable, match=error):
                app.extensions["kaluki_ledger"].get().create("abcdefgh", {}, {}, "t")
    finally:  # throwaway data: no shutdown handshake between the two
        replica.stop(hard=True)
        primary.stop(hard=True)


@pytest.mark.slow
def test_master_killed_mid_run_every_201_kept_window_503_only(tmp_path):
    """Kill (SIGKILL) the master of the match's slot while writers append: its replica is
    promoted after cluster-node-timeout; every 201 is in the ledger, the window is 503s."""
    cluster = RedisClusterServers(str(tmp_path), node_timeout_ms=1000)
    cluster.start()
    # the URL names a replica: a worker that first connects after the kill must still
    # find the cluster through the node its URL names (docs/ledger.md)
    server = Gunicorn(cluster.replica_url(), workers=2, threads=4,
                      extra_env={"REDIS_SOCKET_TIMEOUT": "1", "REDIS_RETRIES": "2",
                                 "LEDGER_MAX_HANDS": "1000000"})  # a long run on one match
    try:
        server.wait()
        _failover_run(cluster, server.base)
    finally:
        server.stop()
        cluster.stop()


@pytest.mark.slow
def test_master_killed_mid_run_with_replica_wait_loses_no_201(tmp_path):
    """issue 21 item 19: the same run with REDIS_WAIT_REPLICAS=1 on masters with two
    replicas each: a 201 means a replica had the hand, so the promoted one has every 201
    (and the surviving replica keeps the shard writable after the failover)."""
    cluster = RedisClusterServers(str(tmp_path), replicas=2, node_timeout_ms=1000)
    cluster.start()
    server = Gunicorn(cluster.replica_url(), workers=2, threads=4,
                      extra_env={"REDIS_SOCKET_TIMEOUT": "1", "REDIS_RETRIES": "2",
                                 "LEDGER_MAX_HANDS": "1000000", "REDIS_WAIT_REPLICAS": "1",
                                 "REDIS_WAIT_TIMEOUT_MS": "500"})
    try:
        server.wait()
        _failover_run(cluster, server.base)
    finally:
        server.stop()
        cluster.stop()


def _replicas_of(cluster: RedisClusterServers, master: int) -> list[int]:
    out = []
    for port in cluster.live_ports():
        info = cluster.node(port).info("replication")
        if info.get("role") == "slave" and int(info.get("master_port", 0)) == master:
            out.append(port)
    return out


def _failover_run(cluster: RedisClusterServers, base: str) -> None:
    r = requests.post(base + "/v1/matches", json=CREATE, timeout=10)
    assert r.status_code == 201, r.text
    mid, token = r.json()["id"], r.json()["token"]
    master, _ = cluster.master_of(keys(mid)[0])
    replicas = _replicas_of(cluster, master)
    acked: dict[str, tuple[int, dict]] = {}
    pending: dict[str, dict] = {}
    statuses: list[int] = []
    bad: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    headers = {"Authorization": f"Bearer {token}"}

    def post(s: requests.Session, key: str, body: dict) -> requests.Response:
        return s.post(f"{base}/v1/matches/{mid}/hands", json=body, timeout=15,
                      headers={**headers, "Idempotency-Key": key})

    def writer(w: int) -> None:
        s = requests.Session()
        i = 0
        while not stop.is_set() and i < 2000:  # bounded: the main thread stops it sooner
            key, body = f"w{w}-{i}-{uuid.uuid4().hex}", hand_body(w * 10_000 + i)
            try:
                resp = post(s, key, body)
                code = resp.status_code
            except requests.RequestException:
                resp, code = None, -1
            with lock:
                statuses.append(code)
                if code == 201:
                    acked[key] = (resp.json()["seq"], body)
                else:
                    pending[key] = body
                    if code != 503 or resp.json().get("code") != "ledger-unavailable" \
                            or not resp.headers.get("Retry-After"):
                        bad.append(f"{code} {resp.text[:200] if resp is not None else ''}")
            if code != 201:
                time.sleep(0.02)
            i += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    before = len(acked)
    cluster.kill(master)
    deadline = time.monotonic() + 20
    while not any(cluster.node(p).info("replication").get("role") == "master"
                  for p in replicas):
        assert time.monotonic() < deadline, "no replica was promoted"
        time.sleep(0.05)
    promoted_at = len(statuses)
    time.sleep(1.5)  # writes go on against the promoted replica
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert not bad, bad[:5]  # the window answered 503 ledger-unavailable only, never 500
    assert before > 0 and statuses.count(503) > 0, "the failover window was not observed"
    assert statuses[promoted_at:].count(201) > 0, "no write succeeded after the failover"

    # every unanswered append, retried with its key, completes exactly once
    s = requests.Session()
    for key, body in pending.items():
        for _ in range(100):
            resp = post(s, key, body)
            if resp.status_code == 201:
                acked[key] = (resp.json()["seq"], body)
                break
            assert resp.status_code == 503, resp.text
            time.sleep(0.1)
        else:
            pytest.fail(f"{key} never completed: {resp.status_code} {resp.text[:300]}")
    ex = requests.get(f"{base}/v1/matches/{mid}/export", timeout=10, headers=headers).json()
    entries = ex["entries"]
    assert verify(entries) == ex["head"]
    assert sorted(seq for seq, _ in acked.values()) == list(range(len(entries)))
    for seq, body in acked.values():  # every 201 is still there, where it said
        assert entries[seq]["input"] == body["score"]
    print(f"failover: {before} acked before the kill, {statuses.count(503)} answered 503, "
          f"{statuses.count(-1)} lost, {len(pending)} retried, {len(entries)} entries")


def test_wait_asks_the_replica_of_the_masters_own_shard(tmp_path):
    """issue 21 item 19: REDIS_WAIT_REPLICAS on a Cluster runs WAIT on the connection that
    ran the write, to the master owning the match's slot. With that master's replica killed,
    its writes are 503 NotReplicated (the write stands on the master), while a match on
    another shard, whose replica is up, is acknowledged; a replay waits the same way."""
    from service.ledger.store import NotReplicated

    cluster = RedisClusterServers(str(tmp_path), node_timeout_ms=1000)
    cluster.start()
    try:
        store = LedgerStore(connect(cluster.url), 60, "redis", wait_replicas=1,
                            wait_timeout_ms=300)
        mids = [f"wait-{uuid.uuid4().hex[:12]}" for _ in range(40)]
        owners = {mid: cluster.master_of(keys(mid)[0]) for mid in mids}
        assert store.create(mids[0], {"m": 1}, {"s": 0}, "t") == ("ok", None)
        lonely, replica = owners[mids[0]]
        other = next(mid for mid in mids if owners[mid][0] != lonely)
        assert store.create(other, {"m": 1}, {"s": 0}, "t") == ("ok", None)
        cluster.kill(replica)
        with pytest.raises(NotReplicated):
            store.append(mids[0], idem_key="k", fingerprint="f", expected_version=0,
                         expected_head="0" * 64, entry='{"seq":0}', new_head="a" * 64,
                         state={"s": 1})
        assert store.entries(mids[0]) == ['{"seq":0}']  # it stands on the master
        with pytest.raises(NotReplicated):
            store.confirm_replicated(mids[0])
        res = store.append(other, idem_key="k", fingerprint="f", expected_version=0,
                           expected_head="0" * 64, entry='{"seq":0}', new_head="a" * 64,
                           state={"s": 1})
        assert res.kind == "ok"
        store.confirm_replicated(other)
    finally:
        cluster.stop()
