"""Constant-rate (open-loop) load with coordinated omission corrected, on HdrHistogram.

Every closed-loop tool (wrk, :mod:`bench.loadgen`) waits for an answer before it sends the
next request, so a server that stalls is simply sent less, and its stall is counted once
instead of for every request that should have been sent meanwhile: a fine p50 and a p99 that
hides seconds of queueing ("coordinated omission"). Here request *i* is due at
``start + i / rate`` whatever happened before, and its latency is measured from that due time,
not from when a free connection got round to sending it; a request that had to wait for a
connection counts its wait. The latencies go into an ``hdrh`` histogram (1 µs to 60 s, three
significant digits), merged over the generator's processes.

The generator is a small HTTP/1.1 client of its own (one keep-alive socket per thread, the
request bytes built once, answers read by ``Content-Length``), spread over ``procs`` processes
so that the Python client itself is not the bottleneck; it shares the machine's cores with the
server, which the results say beside the numbers. Only 127.0.0.1 is targeted and every run is
bounded by its duration.

    python -m bench.openloop                       # max, then 50% and 80% of it, per endpoint
    python -m bench.openloop --duration 10 --only validate
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import socket
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hdrh.histogram import HdrHistogram

from . import loadgen
from .loadgen import Target
from .measure import (
    BENCH,
    BODIES,
    ENDPOINTS,
    RESULTS_DIR,
    http_json,
    ledger_target,
    load1,
    log,
    served_paths,
)
from .report import write_section
from .server import SERVICE_APP, Server

LOWEST_US, HIGHEST_US, DIGITS = 1, 60_000_000, 3


def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)


@dataclass
class OpenResult:
    """One constant-rate run: what was asked, what was sent, and the corrected latencies."""

    name: str
    rate: float  # requests/s asked for
    duration_s: float  # measured (after warm-up)
    requests: int  # answered in the measured window
    non2xx: int
    errors: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def achieved_rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0


def request_bytes(host: str, target: Target, body: bytes, n: int) -> bytes:
    """The ``n``-th request of ``target``: its path and token rotated, a fresh idempotency key.

    >>> t = Target("v", "/v1/x", __import__("pathlib").Path("x"))
    >>> request_bytes("127.0.0.1:1", t, b"{}", 0).split(b"\\r\\n")[0]
    b'POST /v1/x HTTP/1.1'
    """
    path, token = target.path, target.token
    if target.rotate:
        path, token = target.rotate[n % len(target.rotate)]
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", "Connection: keep-alive"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if target.idempotency:
        lines.append(f"Idempotency-Key: {uuid.uuid4().hex}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def read_status(sock: socket.socket, buf: bytearray) -> int:
    """Read one answer from ``sock`` (``buf`` keeps what came after it); its status code.

    Answers without a ``Content-Length`` are not expected from the service (ValueError).
    """
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError("answer without Content-Length")
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        rest += chunk
    buf[:] = rest[length:]
    return status


class _Schedule:
    """Hands out request numbers; request ``i`` is due at ``start + i * interval``."""

    def __init__(self, start: float, interval: float, end: float) -> None:
        self.start, self.interval, self.end = start, interval, end
        self._next = 0
        self._lock = threading.Lock()

    def take(self) -> tuple[int, float] | None:
        with self._lock:
            i = self._next
            self._next += 1
        due = self.start + i * self.interval
        return None if due >= self.end else (i, due)


def _thread(host: str, port: int, target: Target, body: bytes, sched: _Schedule,
            record_from: float, out: list[Any]) -> None:
    hist = new_histogram()
    non2xx = errors = retried = 0
    sock: socket.socket | None = None
    buf = bytearray()
    hostport = f"{host}:{port}"
    while (slot := sched.take()) is not None:
        n, due = slot
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        data = request_bytes(hostport, target, body, n)
        status = 0
        for attempt in (0, 1):
            # a keep-alive connection the server closed between requests (a worker recycled
            # after max_requests) is reopened and the request sent again once, as HTTP clients
            # do; its latency still counts from the due time
            reused = sock is not None
            try:
                if sock is None:
                    sock = socket.create_connection((host, port), timeout=10)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    buf = bytearray()
                sock.sendall(data)
                status = read_status(sock, buf)
                break
            except (OSError, ValueError) as exc:
                if sock is not None:
                    sock.close()
                sock = None
                if attempt == 0 and reused and isinstance(exc, ConnectionError) and not buf:
                    retried += 1
                    continue
                status = 0
                break
        if status == 0:
            if due >= record_from:
                errors += 1
            continue
        done = time.perf_counter()
        if due >= record_from:
            hist.record_value(max(LOWEST_US, min(HIGHEST_US, int((done - due) * 1e6))))
            if not 200 <= status < 300:
                non2xx += 1
    if sock is not None:
        sock.close()
    out.append((hist, non2xx, errors, retried))


def _process(host: str, port: int, target: Target, rate: float, start: float,
             warmup: float, duration: float, threads: int, queue: Any) -> None:
    body = target.body
    sched = _Schedule(start, 1.0 / rate, start + warmup + duration)
    out: list[Any] = []
    ts = [threading.Thread(target=_thread, args=(host, port, target, body, sched,
                                                 start + warmup, out), daemon=True)
          for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=warmup + duration + 30)
    merged = new_histogram()
    for hist, *_ in out:
        merged.add(hist)
    queue.put((merged.encode(), sum(o[1] for o in out), sum(o[2] for o in out),
               sum(o[3] for o in out)))


def run(base_url: str, target: Target, rate: float, duration: float, warmup: float = 1.0,
        connections: int = 64, procs: int = 2) -> OpenResult:
    """Send ``target`` at ``rate`` requests/s for ``warmup + duration`` seconds; the latencies
    of the requests due after the warm-up, each from its due time."""
    hostport = base_url.split("://", 1)[1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    procs = max(1, procs)
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start = time.perf_counter() + 0.3  # every process forked before the first is due
    per = rate / procs
    ps = [ctx.Process(target=_process, daemon=True,
                      args=(host, int(port), target, per, start + k / rate, warmup, duration,
                            max(1, connections // procs), queue))
          for k in range(procs)]
    for p in ps:
        p.start()
    parts = [queue.get(timeout=warmup + duration + 60) for _ in ps]
    for p in ps:
        p.join(timeout=10)
    hist = new_histogram()
    for encoded, *_ in parts:
        hist.decode_and_add(encoded)
    ms = 1000.0
    return OpenResult(
        name=target.name, rate=rate, duration_s=duration, requests=hist.get_total_count(),
        non2xx=sum(p[1] for p in parts), errors=sum(p[2] for p in parts),
        p50_ms=hist.get_value_at_percentile(50) / ms, p90_ms=hist.get_value_at_percentile(90) / ms,
        p99_ms=hist.get_value_at_percentile(99) / ms,
        p999_ms=hist.get_value_at_percentile(99.9) / ms, max_ms=hist.get_max_value() / ms,
        extra={"reconnected": float(sum(p[3] for p in parts))})


# -- the section of bench/RESULTS.md ---------------------------------------------------------

HEADING = "## Tail latency at a constant rate (issue 36)"
GOALS_MS = {"validate": 10.0, "turn-options": 10.0, "ledger append": 25.0}  # p99 at 50%


def render(rows: list[dict[str, Any]], notes: list[str]) -> str:
    out = [HEADING, "",
           "Open loop: each request is due at a fixed time and its latency counts from then "
           "(coordinated omission corrected; `bench/openloop.py`, HdrHistogram). The maximum "
           "is the closed-loop (wrk) throughput of the same server in the same run; the "
           "constant rates are 50% and 80% of it.", "",
           "| endpoint | closed-loop max req/s | load | rate req/s | sent req/s | p50 ms "
           "| p90 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors | goal (p99 at 50%) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        goal = ""
        g = GOALS_MS.get(r["name"])
        if g is not None and r["share"] == 0.5:
            goal = f"≤ {g:g} ms {'met' if r['p99_ms'] <= g else '**not met**'}"
        out.append(
            f"| {r['name']} | {r['max_rps']:,.0f} | {int(r['share'] * 100)}% | "
            f"{r['rate']:,.0f} | {r['requests'] / r['duration_s']:,.0f} | {r['p50_ms']:.2f} | "
            f"{r['p90_ms']:.2f} | {r['p99_ms']:.2f} | {r['p999_ms']:.2f} | {r['max_ms']:.2f} | "
            f"{r['non2xx']} | {r['errors']} | {goal} |")
    out.append("")
    out += [f"* {n}" for n in notes]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.openloop", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=10, help="measured seconds per rate")
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--max-duration", type=float, default=5,
                    help="closed-loop seconds that measure each endpoint's maximum")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="validate, turn-options, ledger append")
    ap.add_argument("--shares", type=lambda s: [float(x) for x in s.split(",")],
                    default=[0.5, 0.8])
    ap.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    args = ap.parse_args(argv)
    names = args.only or ["validate", "turn-options", "ledger append"]
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    with Server(SERVICE_APP) as srv:
        paths = served_paths(srv.url)
        targets: dict[str, Target] = {
            n: Target(n, p, BODIES / b) for n, p, b in ENDPOINTS if n in names}
        if "ledger append" in names:
            t = ledger_target(srv.url, paths, notes)
            if t is not None:
                targets["ledger append"] = t
        for name in names:
            target = targets.get(name)
            if target is None:
                continue
            status, _ = http_json(srv.url + target.path, target.body, {
                "Authorization": f"Bearer {target.token}",
                "Idempotency-Key": uuid.uuid4().hex} if target.token else None)
            loadgen.run(srv.url, target, 1, 16)  # warm
            closed = loadgen.run(srv.url, target, args.max_duration, 16)
            log(f"{name}: closed-loop max {closed.rps:.0f} req/s (p99 {closed.p99_ms:.1f} ms)")
            for share in args.shares:
                before = load1()
                r = run(srv.url, target, closed.rps * share, args.duration, args.warmup,
                        args.connections, args.procs)
                log(f"{name} at {share:.0%} ({r.rate:.0f}/s): p50 {r.p50_ms:.2f} p99 "
                    f"{r.p99_ms:.2f} p99.9 {r.p999_ms:.2f} ms, non2xx {r.non2xx}, "
                    f"errors {r.errors}")
                rows.append({**asdict(r), "max_rps": closed.rps, "share": share,
                             "load": before, "probe_status": status})
    notes.append(f"server: deploy/gunicorn.conf.py defaults on 127.0.0.1, the embedded Redis; "
                 f"generator: {args.procs} processes × {args.connections // args.procs} "
                 f"keep-alive connections on the same cores; {args.warmup:g} s warm-up, then "
                 f"{args.duration:g} s per rate; closed-loop maximum: {args.max_duration:g} s "
                 f"of {'wrk' if loadgen.have_wrk() else 'the Python generator'}, 16 connections.")
    notes.append("load average before each row: " + ", ".join(
        f"{r['name']} {int(r['share'] * 100)}% {r['load']:.1f}" for r in rows))
    RESULTS_DIR.mkdir(exist_ok=True)
    (RESULTS_DIR / "openloop.json").write_text(json.dumps(rows, indent=1) + "\n")
    write_section(render(rows, notes), HEADING, Path(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
