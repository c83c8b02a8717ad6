"""What REDIS_WAIT_REPLICAS costs an append: ``python -m bench.replica_wait``.

A Redis primary with one replica (Debian's redis-server, on loopback ports given by
``--port``, default 9310 and 9311; AOF everysec on both), and two gunicorn instances on
it, one with ``REDIS_WAIT_REPLICAS=0`` and one with ``REDIS_WAIT_REPLICAS=1``. The
same clients (bench/ledger_bench.py's, each appending to its own match) alternate
between the two settings in interleaved rounds, so background load hits both alike.
Only 201s are measured (failures are counted apart). Prints a markdown section and
writes it to bench/results/wait.md (bench/RESULTS.md keeps it as its "Waiting for replicas" section).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import redis
import requests

from bench.ledger_bench import CLIENTS, SCORE, merge, run_phase
from tests.ledger.servers import ROOT, Gunicorn


def _redis(port: int, data: str, *extra: str) -> subprocess.Popen:
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is needed (apt-get install redis-server)")
    os.makedirs(data, exist_ok=True)
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--dir", data,
                             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                             "--daemonize", "no", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return proc
        except redis.RedisError:
            time.sleep(0.05)
    raise SystemExit(f"redis-server on {port} did not start")


def _store_level(url: str, count: int) -> dict[int, float]:
    """The store's append alone (no HTTP, no app), one at a time, the two settings
    interleaved in batches of 20: the median ms per append."""
    from service.ledger.store import LedgerStore, connect

    stores = {w: LedgerStore(connect(url), 600, "bench", wait_replicas=w, wait_timeout_ms=1000)
              for w in (0, 1)}
    times: dict[int, list[float]] = {0: [], 1: []}
    mids = {w: f"wait-bench-{w}-{uuid.uuid4().hex[:8]}" for w in (0, 1)}
    versions = {0: 0, 1: 0}
    heads = {0: "0" * 64, 1: "0" * 64}
    for w, mid in mids.items():
        stores[w].create(mid, {"m": 1}, {"s": 0}, "t")
    for batch in range(count // 20):
        for w in ((0, 1) if batch % 2 == 0 else (1, 0)):
            for _ in range(20):
                head = uuid.uuid4().hex * 2
                t0 = time.perf_counter()
                res = stores[w].append(mids[w], idem_key=uuid.uuid4().hex, fingerprint="f",
                                       expected_version=versions[w], expected_head=heads[w],
                                       entry='{"seq":0}', new_head=head, state={"s": 1})
                times[w].append(time.perf_counter() - t0)
                assert res.kind == "ok", res
                versions[w] += 1
                heads[w] = head
    for w, mid in mids.items():
        stores[w].delete(mid)
    return {w: statistics.median(t) * 1000 for w, t in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="per row, over all rounds")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--workers", type=int, default=1, help="gunicorn workers per instance")
    ap.add_argument("--single", type=int, default=100,
                    help="appends per round by one client alone, per setting")
    ap.add_argument("--port", type=int, default=9310, help="the primary's; the replica's is +1")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "wait.md"))
    opts = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="wait-bench-")
    procs = [_redis(opts.port, f"{tmp.name}/primary"),
             _redis(opts.port + 1, f"{tmp.name}/replica", "--replicaof", "127.0.0.1",
                    str(opts.port))]
    primary = redis.Redis(port=opts.port, decode_responses=True)
    for _ in range(200):  # the replica synced
        if primary.info("replication").get("slave0", {}).get("state") == "online":
            break
        time.sleep(0.05)
    url = f"redis://127.0.0.1:{opts.port}/0"
    servers = {wait: Gunicorn(url, workers=opts.workers, threads=None,
                              extra_env={"REDIS_WAIT_REPLICAS": str(wait),
                                         "REDIS_WAIT_TIMEOUT_MS": "1000"})
               for wait in (0, 1)}
    try:
        for s in servers.values():
            s.wait(60)
        base = servers[0].base
        own = []
        for _ in range(CLIENTS):
            r = requests.post(base + "/v1/matches", json={
                "ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_end": "goal",
                "goal_points": 1_000_000}, timeout=10)
            r.raise_for_status()
            own.append((r.json()["id"], r.json()["token"]))

        codes: dict[str, int] = {}

        def appender(wait: int):
            target = servers[wait].base

            def append(s, c, i):
                mid, token = own[c]
                r = s.post(f"{target}/v1/matches/{mid}/hands", json={"score": SCORE},
                           headers={"Authorization": f"Bearer {token}",
                                    "Idempotency-Key": uuid.uuid4().hex}, timeout=30)
                if r.status_code != 201:
                    codes[f"{r.status_code} {r.json().get('code')}"] = \
                        codes.get(f"{r.status_code} {r.json().get('code')}", 0) + 1
                return r.status_code == 201
            return append

        for w in (0, 1):
            run_phase("warm-up", 1.0, appender(w))
        phases = [(f"append, REDIS_WAIT_REPLICAS={w}", appender(w)) for w in (0, 1)]
        parts: list[list[dict]] = [[] for _ in phases]
        alone: dict[int, list[float]] = {0: [], 1: []}
        for round_ in range(opts.rounds):
            order = list(enumerate(phases)) if round_ % 2 == 0 else \
                list(enumerate(phases))[::-1]
            for i, (name, fn) in order:
                parts[i].append(run_phase(name, opts.seconds / opts.rounds, fn))
            # one client, one connection, one append at a time: the round trip WAIT adds
            s = requests.Session()
            for w in (0, 1) if round_ % 2 == 0 else (1, 0):
                fn = appender(w)
                for i in range(opts.single):
                    t0 = time.perf_counter()
                    if fn(s, 0, i):
                        alone[w].append(time.perf_counter() - t0)
        rows = [merge(p) for p in parts]
        store_ms = _store_level(url, opts.single * opts.rounds)
    finally:
        for s in servers.values():
            s.stop()
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
        tmp.cleanup()

    off, on = rows
    print("failures by answer:", codes)
    lines = ["## Waiting for replicas (REDIS_WAIT_REPLICAS)", "",
             f"{CLIENTS} concurrent clients, each appending to its own match, against one "
             f"gunicorn instance per setting ({opts.workers} gevent worker(s), "
             "deploy/gunicorn.conf.py) on one Redis primary with one replica over loopback "
             f"TCP; {opts.seconds:g} s per row in {opts.rounds} interleaved rounds; "
             f"{platform.python_implementation()} {platform.python_version()}, "
             f"{os.cpu_count()} CPUs shared with the clients and both Redis servers.", "",
             "| setting | appends (201) | failures | req/s | mean ms | p50 ms | p99 ms |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['n']} | {r['failures']} | {r['rps']:.0f} | "
                     f"{r['mean']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} |")
    a0, a1 = (statistics.median(alone[w]) * 1000 for w in (0, 1))
    lines += ["", f"The store alone (LedgerStore.append, no HTTP, one at a time, "
                  f"{opts.single * opts.rounds // 20 * 10} appends per setting, interleaved): "
                  f"median {store_ms[0]:.3f} ms without WAIT, {store_ms[1]:.3f} ms with WAIT 1 "
                  f"({store_ms[1] - store_ms[0]:+.3f} ms: the replica's acknowledgement).",
              "", f"One client alone, one append at a time ({len(alone[0])} appends per "
                  f"setting): median {a0:.2f} ms without WAIT, {a1:.2f} ms with WAIT 1 "
                  f"({a1 - a0:+.2f} ms).",
              "", f"Under load WAIT 1 changed the mean by {on['mean'] - off['mean']:+.1f} ms "
                  f"and the p99 by {on['p99'] - off['p99']:+.1f} ms per append "
                  f"({on['rps'] / off['rps']:.2f}× the appends per second).", ""]
    text = "\n".join(lines)
    print(text)
    out = Path(opts.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
