"""Load generators: ``wrk`` (preferred) and a pure-Python fallback.

Both drive a fixed number of keep-alive connections against one URL for a
fixed time (and optionally a fixed number of requests) and return a
:class:`Result` with requests/s and latency percentiles.

* ``wrk`` (Debian package ``wrk``) runs ``bench/lua/post.lua``, which POSTs the
  body, adds the bearer token and a fresh ``Idempotency-Key`` per request when
  asked, and prints one ``BENCH_RESULT`` line from ``done()``.
* The fallback forks ``procs`` processes, each with ``connections / procs``
  threads, each thread holding one keep-alive ``http.client`` connection. It is
  slower than wrk (the client itself costs CPU on the same machine), so its
  numbers are only comparable within one run, which is what the ratios use.
"""

from __future__ import annotations

import http.client
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

LUA = Path(__file__).with_name("lua") / "post.lua"
_RESULT_RE = re.compile(r"^BENCH_RESULT (.*)$", re.M)


@dataclass(frozen=True)
class Target:
    """One endpoint to load: a POST of ``body`` to ``path``."""

    name: str
    path: str
    body_file: Path
    token: str | None = None
    idempotency: bool = False
    # (path, token) pairs used in turn instead of path/token (several matches)
    rotate: tuple[tuple[str, str], ...] = ()

    @property
    def body(self) -> bytes:
        return self.body_file.read_bytes()


@dataclass
class Result:
    name: str
    tool: str
    requests: int
    duration_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    non2xx: int = 0
    socket_errors: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0


def have_wrk() -> bool:
    return shutil.which("wrk") is not None and os.environ.get("BENCH_NO_WRK", "") in ("", "0")


def parse_wrk(name: str, stdout: str) -> Result:
    """Read the ``BENCH_RESULT k=v ...`` line that ``post.lua``'s ``done()`` prints.

    >>> r = parse_wrk("x", "Running...\\nBENCH_RESULT requests=2000 duration_us=1000000 "
    ...     "p50_us=1500 p90_us=2000 p99_us=4000 max_us=9000 non2xx=3 connect=0 read=1 "
    ...     "write=0 timeout=2 status=3\\n")
    >>> (r.rps, r.p50_ms, r.p99_ms, r.non2xx, r.socket_errors)
    (2000.0, 1.5, 4.0, 3, 3)
    """
    m = _RESULT_RE.search(stdout)
    if not m:
        raise ValueError(f"no BENCH_RESULT line in wrk output:\n{stdout[-2000:]}")
    kv = dict(part.split("=", 1) for part in m.group(1).split())
    v = {k: int(x) for k, x in kv.items()}
    return Result(name=name, tool="wrk", requests=v["requests"],
                  duration_s=v["duration_us"] / 1e6, p50_ms=v["p50_us"] / 1000,
                  p90_ms=v["p90_us"] / 1000, p99_ms=v["p99_us"] / 1000,
                  max_ms=v["max_us"] / 1000, non2xx=v["non2xx"],
                  socket_errors=v["connect"] + v["read"] + v["write"] + v["timeout"])


def run_wrk(base_url: str, target: Target, duration: float, connections: int,
            threads: int = 2, max_requests: int = 0) -> Result:
    threads = max(1, min(threads, connections))
    env = dict(os.environ, BENCH_BODY_FILE=str(target.body_file),
               BENCH_TOKEN=target.token or "",
               BENCH_IDEMPOTENCY="1" if target.idempotency else "0",
               BENCH_ROTATE=";".join(f"{p} {t}" for p, t in target.rotate),
               BENCH_MAX_PER_THREAD=str(-(-max_requests // threads) if max_requests else 0))
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(duration))}s",
           "--timeout", "10s", "-s", str(LUA), base_url + target.path]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=duration + 60, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return parse_wrk(target.name, proc.stdout)


def percentile(sorted_values: list[int], pct: float) -> int:
    """Nearest-rank percentile of an ascending list.

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), percentile([5], 99)
    (5, 5)
    """
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * pct // 100))
    return sorted_values[int(rank) - 1]


def _py_thread(host: str, port: int, target: Target, body: bytes, deadline: float,
               quota: int, out: list) -> None:
    lat: list[int] = []
    non2xx = errors = 0
    conn = http.client.HTTPConnection(host, port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if target.token:
        headers["Authorization"] = f"Bearer {target.token}"
    n = 0
    path = target.path
    while n < quota and time.monotonic() < deadline:
        if target.rotate:
            path, token = target.rotate[n % len(target.rotate)]
            headers["Authorization"] = f"Bearer {token}"
        if target.idempotency:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        t0 = time.perf_counter_ns()
        try:
            conn.request("POST", path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=10)
            n += 1
            continue
        lat.append((time.perf_counter_ns() - t0) // 1000)
        if not 200 <= status < 300:
            non2xx += 1
        n += 1
    conn.close()
    out.append((lat, non2xx, errors))


def _py_proc(host: str, port: int, target: Target, duration: float, nthreads: int,
             quota: int, queue) -> None:
    body = target.body
    out: list = []
    start = time.monotonic()
    deadline = start + duration
    ts = [threading.Thread(target=_py_thread,
                           args=(host, port, target, body, deadline, quota, out))
          for _ in range(nthreads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    elapsed = time.monotonic() - start
    lat = [x for part in out for x in part[0]]
    queue.put((lat, sum(p[1] for p in out), sum(p[2] for p in out), elapsed))


def run_python(base_url: str, target: Target, duration: float, connections: int,
               procs: int = 0, max_requests: int = 0) -> Result:
    """The fallback generator: ``procs`` processes x threads, one connection per thread."""
    hostport = base_url.split("://", 1)[1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    procs = procs or min(connections, os.cpu_count() or 2, 4)
    per_proc = [connections // procs + (1 if i < connections % procs else 0) for i in range(procs)]
    per_conn_quota = -(-max_requests // connections) if max_requests else 1 << 62
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    ps = [ctx.Process(target=_py_proc, args=(host, int(port), target, duration, n,
                                               per_conn_quota, queue), daemon=True)
          for n in per_proc if n]
    for p in ps:
        p.start()
    parts = [queue.get(timeout=duration + 60) for _ in ps]
    for p in ps:
        p.join(timeout=10)
    lat = sorted(x for part in parts for x in part[0])
    elapsed = max(part[3] for part in parts)
    return Result(name=target.name, tool="python", requests=len(lat), duration_s=elapsed,
                  p50_ms=percentile(lat, 50) / 1000, p90_ms=percentile(lat, 90) / 1000,
                  p99_ms=percentile(lat, 99) / 1000, max_ms=(lat[-1] if lat else 0) / 1000,
                  non2xx=sum(p[1] for p in parts), socket_errors=sum(p[2] for p in parts))


def run(base_url: str, target: Target, duration: float, connections: int,
        max_requests: int = 0, use_wrk: bool | None = None) -> Result:
    if use_wrk is None:
        use_wrk = have_wrk()
    if use_wrk:
        return run_wrk(base_url, target, duration, connections, max_requests=max_requests)
    return run_python(base_url, target, duration, connections, max_requests=max_requests)
