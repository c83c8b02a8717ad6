"""Measuring for ``make bench``: servers under load, the samples, the machine they ran on.

Each ``*_section`` starts the servers it needs (bench/server.py), drives them with
bench/loadgen.py and returns its rows; bench/report.py renders them and bench/run.py
runs the sections. Only 127.0.0.1 is targeted and every load loop is bounded by time
(and, for memory, by a request count).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict
from pathlib import Path
from statistics import median

from . import loadgen
from .loadgen import Result, Target
from .server import BASELINE_APP, ROOT, SERVICE_APP, Server, rss_kib
from .stats import merge, summary
from .workers import SLOW_CLIENT_SAFE, WORKER_MODELS, model_label

BENCH = ROOT / "bench"
BODIES = BENCH / "bodies"
RESULTS_DIR = BENCH / "results"

# name, path, body file (a path the app does not serve is skipped, with a note)
ENDPOINTS = [
    ("validate", "/v1/melds/validate", "validate.json"),
    ("opening", "/v1/melds/opening", "opening.json"),
    ("build", "/v1/melds/build", "build.json"),
    ("release", "/v1/jokers/release", "release.json"),
    ("score", "/v1/hands/score", "score.json"),
    ("turn-check", "/v1/turns/check", "turncheck.json"),
    # a mid-hand table of 12 melds, as a game sends it every turn
    ("turn-check-table", "/v1/turns/check", "turncheck_table.json"),
    ("turn-options", "/v1/turns/options", "turnoptions.json"),
    ("analyze", "/v1/hands/analyze", "analyze.json"),
    ("adjudicate", "/v1/hands/adjudicate", "adjudicate.json"),
]
LEDGER_RE = re.compile(r"^/v1/matches/\{[^}/]+\}/hands$")


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- HTTP helpers ----------------------------------------------------------------------

def http_json(url: str, body: bytes | None = None, headers: dict[str, str] | None = None,
              method: str | None = None) -> tuple[int, object]:
    req = urllib.request.Request(url, data=body, method=method or ("POST" if body else "GET"),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw or b"null")
    except ValueError:
        return status, raw[:300].decode("utf-8", "replace")


def served_paths(url: str) -> dict[str, set[str]]:
    """``{path: {methods}}`` from the served /openapi.json."""
    status, doc = http_json(url + "/openapi.json")
    if status != 200 or not isinstance(doc, dict):
        raise RuntimeError(f"/openapi.json answered {status}")
    return {p: {m.upper() for m in ops} for p, ops in doc.get("paths", {}).items()}


LEDGER_MATCHES = 200  # appends are spread over this many matches (see ledger_target)


def ledger_target(url: str, paths: dict[str, set[str]], notes: list[str]) -> Target | None:
    """Create LEDGER_MATCHES matches; appends go to them in turn, each with its own token.

    A match takes LEDGER_MAX_HANDS entries (1,000 by default), then every append is a
    fast 409 ``match-full`` that would count as throughput: 200 matches hold 200,000
    appends, several times what one run sends (about 16 s at a few thousand per second).
    A run that still meets a non-2xx says so in its row's name.
    """
    hands = next((p for p, ms in paths.items() if LEDGER_RE.match(p) and "POST" in ms), None)
    if hands is None or "POST" not in paths.get("/v1/matches", set()):
        notes.append("`POST /v1/matches/{id}/hands`: not in this app's /openapi.json yet, skipped.")
        return None
    create = (BODIES / "match_create.json").read_bytes()
    pairs = []
    for _ in range(LEDGER_MATCHES):
        status, doc = http_json(url + "/v1/matches", create)
        if status != 201 or not isinstance(doc, dict) or "id" not in doc or "token" not in doc:
            notes.append(f"ledger: creating a match answered {status} {str(doc)[:200]}; skipped.")
            return None
        pairs.append((re.sub(r"\{[^}]+\}", str(doc["id"]), hands), str(doc["token"])))
    notes.append(f"ledger append: spread over {LEDGER_MATCHES} matches (kaluki-51, goal_points "
                 "1,000,000), a fresh Idempotency-Key per request.")
    return Target("ledger append", pairs[0][0], BODIES / "match_hand.json", token=pairs[0][1],
                  idempotency=True, rotate=tuple(pairs))


def probe(url: str, target: Target, notes: list[str]) -> None:
    headers = {}
    if target.token:
        headers["Authorization"] = f"Bearer {target.token}"
    if target.idempotency:
        headers["Idempotency-Key"] = f"bench-probe-{time.time_ns()}"
    status, doc = http_json(url + target.path, target.body, headers)
    if not 200 <= status < 300:
        notes.append(f"`{target.name}`: the bench body answered {status} "
                     f"({str(doc)[:240]}); its numbers measure that error path.")


def load1() -> float:
    """The 1-minute load average (other work on the machine skews every number)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return -1.0


def measure(srv: Server, target: Target, args: argparse.Namespace,
            duration: float | None = None, name: str | None = None) -> Result:
    """Warm up, then load ``target`` for the measured time.

    Besides the client's view (rps, latency) this records the workers' own CPU
    time per request, which other work on a shared machine disturbs far less.
    """
    if args.warmup > 0:
        loadgen.run(srv.url, target, args.warmup, args.connections, use_wrk=args.use_wrk)
    before, cpu0 = load1(), srv.cpu_seconds()
    r = loadgen.run(srv.url, target, duration or args.duration, args.connections,
                    use_wrk=args.use_wrk)
    cpu = srv.cpu_seconds() - cpu0
    r.extra["load1_before"] = before
    r.extra["load1_after"] = load1()
    r.extra["cpu_us_per_req"] = cpu * 1e6 / r.requests if r.requests else 0.0
    if name:
        r.name = name
    log(f"{r.name:16s} {r.rps:8.0f} rps  p50 {r.p50_ms:6.2f} ms  p99 {r.p99_ms:6.2f} ms"
        f"  cpu/req {r.extra['cpu_us_per_req']:5.0f} us  non2xx {r.non2xx}"
        f"  errors {r.socket_errors}  load {before:.1f}")
    return r


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    wrk = "absent (pure-Python fallback)"
    if shutil.which("wrk"):
        out = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
        wrk = (out.stdout or out.stderr).splitlines()[0].split("Copyright")[0].strip()
    versions = {}
    for mod in ("flask", "flask_smorest", "marshmallow", "gunicorn", "werkzeug"):
        try:
            from importlib.metadata import version
            versions[mod] = version(mod.replace("_", "-"))
        except Exception:  # noqa: BLE001 - informative only
            versions[mod] = "?"
    return {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": cpu, "cores": str(os.cpu_count()),
            "python": platform.python_version(), "os": platform.platform(terse=True),
            "wrk": wrk, "versions": ", ".join(f"{k} {v}" for k, v in versions.items())}


def nginx_binary() -> str | None:
    """Debian's nginx (the ``nginx`` package), or None."""
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.access(p, os.X_OK)), None)


def pids_cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time consumed so far by these processes."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def embedded_redis_pids(srv: Server) -> list[int]:
    """The embedded Redis the server's master started (none with BENCH_REDIS_URL)."""
    return srv.children(lambda cmdline, _master: b"redis-server" in cmdline)


def nginx_rows(srv: Server, target: Target, pair_args: argparse.Namespace, slice_s: float,
               pairs: int, notes: list[str]) -> list[Result]:
    """validate straight to gunicorn beside validate through deploy/nginx/nginx.conf.

    The same server, in ``pairs`` pairs of (direct, then through nginx), each after
    its settle; the ratio is the median of the per-pair rps ratios, as for the
    baseline pairs. nginx runs the committed config (upstream and port templated,
    tests/deploy/nginx.py) on the same cores as the load generator and gunicorn.
    """
    binary = nginx_binary()
    if binary is None:
        notes.append("validate through nginx: skipped, nginx is not installed (the Debian "
                     "package `nginx`).")
        return []
    from tests.deploy.nginx import Nginx

    direct_runs, proxied_runs, ratios, nginx_cpu = [], [], [], []
    with Nginx(binary, [f"127.0.0.1:{srv.port}"]) as proxy:
        loadgen.run(proxy.url, target, 2.0, pair_args.connections, use_wrk=pair_args.use_wrk)
        for _ in range(pairs):
            d = measure(srv, target, pair_args, duration=slice_s, name="validate direct")
            cpu0 = pids_cpu_seconds(proxy.worker_pids())
            e = measure(_Front(srv, proxy.url), target, pair_args, duration=slice_s,
                        name="validate via nginx")
            cpu = pids_cpu_seconds(proxy.worker_pids()) - cpu0
            nginx_cpu.append(cpu * 1e6 / e.requests if e.requests else 0.0)
            direct_runs.append(d)
            proxied_runs.append(e)
            ratios.append(e.rps / d.rps if d.rps else 0.0)
        workers = len(proxy.worker_pids())
    direct = merge("validate, direct (beside nginx)", direct_runs)
    proxied = merge("validate through nginx", proxied_runs)
    for row in (direct, proxied):
        row.extra["nginx_pair"] = 1.0
    proxied.extra["ratio"] = median(ratios)
    proxied.extra["ratio_min"], proxied.extra["ratio_max"] = min(ratios), max(ratios)
    proxied.extra["nginx_cpu_us_per_req"] = median(nginx_cpu)
    direct.extra["ratio"] = 1.0
    notes.append(f"validate through nginx: deploy/nginx/nginx.conf ({workers} nginx workers, "
                 f"keep-alive to gunicorn) in front of the same server, {pairs} pairs of "
                 f"({pair_args.warmup:g} s settle + {slice_s:g} s direct, then the same through "
                 "nginx); nginx shares the cores with the load generator and gunicorn.")
    return [direct, proxied]


class _Front:
    """``srv`` as seen through a proxy: the proxy's URL, the server's workers' CPU."""

    def __init__(self, srv: Server, url: str) -> None:
        self.srv, self.url = srv, url

    def cpu_seconds(self) -> float:
        return self.srv.cpu_seconds()


def endpoints_section(args: argparse.Namespace, notes: list[str]) -> tuple[Result, list[Result]]:
    """Each endpoint in ``args.pairs`` short runs, each right after a baseline run.

    Both servers stay up; only one is loaded at a time. An endpoint's ratio is the
    median of its per-pair ratios (endpoint rps / the baseline rps measured just
    before it), so slow drifts of a shared or virtual machine cancel out.
    """
    results: list[Result] = []
    base_runs: list[Result] = []
    base_target = Target("baseline (bare Flask)", "/echo", BODIES / "validate.json")
    slice_s = max(1.0, args.duration / args.pairs)
    # every path is warmed once below; each paired run then needs only a short settle
    pair_args = argparse.Namespace(**{**vars(args), "warmup": min(args.warmup, 0.5)})
    with Server(BASELINE_APP) as base, Server(SERVICE_APP) as srv:
        paths = served_paths(srv.url)
        targets = []
        for name, path, body in ENDPOINTS:
            if path not in paths:
                notes.append(f"`{path}`: not in this app's /openapi.json yet, skipped.")
                continue
            targets.append(Target(name, path, BODIES / body))
        ledger = (ledger_target(srv.url, paths, notes)
                  if not args.only or "ledger append" in args.only else None)
        if ledger:
            targets.append(ledger)
        chosen = [t for t in targets if not args.only or t.name in args.only]
        for t in chosen:  # first requests import, cache and allocate: warm every path once
            probe(srv.url, t, notes)
            loadgen.run(srv.url, t, 2.0, args.connections, use_wrk=args.use_wrk)
        loadgen.run(base.url, base_target, 2.0, args.connections, use_wrk=args.use_wrk)
        for t in chosen:
            # the baseline parses the same body as the endpoint (a larger body costs
            # the baseline too: that cost is the web stack's, not the service's)
            pair_base = Target(base_target.name, base_target.path, t.body_file)
            runs, ratios, cpu_ratios = [], [], []
            redis_us = []
            for _ in range(args.pairs):
                b = measure(base, pair_base, pair_args, duration=slice_s, name="baseline")
                redis0 = pids_cpu_seconds(embedded_redis_pids(srv))
                e = measure(srv, t, pair_args, duration=slice_s)
                if t.idempotency and e.requests:  # a ledger write: the Redis's CPU too
                    redis_us.append((pids_cpu_seconds(embedded_redis_pids(srv)) - redis0)
                                    * 1e6 / e.requests)
                base_runs.append(b)
                runs.append(e)
                ratios.append(e.rps / b.rps if b.rps else 0.0)
                if e.extra["cpu_us_per_req"]:
                    cpu_ratios.append(b.extra["cpu_us_per_req"] / e.extra["cpu_us_per_req"])
            row = merge(t.name, runs)
            row.extra["ratio"] = median(ratios)
            row.extra["ratio_min"], row.extra["ratio_max"] = min(ratios), max(ratios)
            row.extra["cpu_ratio"] = median(cpu_ratios) if cpu_ratios else 0.0
            if redis_us and any(redis_us):
                row.extra["redis_cpu_us_per_req"] = median(redis_us)
                notes.append(f"{t.name}: the embedded Redis spent {median(redis_us):,.0f} µs "
                             "of CPU per request (median of the pairs; its process's user + "
                             "system time over the requests).")
            results.append(row)
        validate = next((t for t in chosen if t.name == "validate"), None)
        if validate is not None and not args.skip_nginx:
            results += nginx_rows(srv, validate, pair_args, slice_s, args.pairs, notes)
        workers = len(srv.worker_pids())
    baseline = merge("baseline (bare Flask), all runs", base_runs)
    notes.append(f"server: deploy/gunicorn.conf.py defaults ({workers} workers); "
                 f"{args.connections} connections; every path warmed {2:g} s first, then per "
                 f"endpoint {args.pairs} pairs of ({pair_args.warmup:g} s settle + {slice_s:g} s "
                 f"baseline, then the same for the endpoint); ratios are medians of the "
                 f"per-pair ratios; tool: "
                 f"{baseline.tool}.")
    return baseline, results


def workers_section(args: argparse.Namespace) -> list[dict]:
    """Every model on validate and the baseline, ``args.rounds`` interleaved rounds each.

    The machine is shared (other work shows in the load average), so each cell is
    the median over rounds; the rounds rotate the order of the models.
    """
    validate = Target("validate", "/v1/melds/validate", BODIES / "validate.json")
    base = Target("baseline", "/echo", BODIES / "validate.json")
    rows = [{"model": model_label(k, w, t), "workers": w, "threads": t,
             "runs": {"validate": [], "baseline": []}, "rss_kib": []}
            for k, w, t in WORKER_MODELS]
    for rnd in range(args.rounds):
        order = rows[rnd % len(rows):] + rows[:rnd % len(rows)]
        for row in order:
            w, t = row["workers"], row["threads"]
            kind = row["model"].split()[0]
            env = {"GUNICORN_WORKER_CLASS": kind} if kind in SLOW_CLIENT_SAFE else None
            with Server(SERVICE_APP, workers=w, threads=t, env=env) as srv:
                r = measure(srv, validate, args, args.worker_duration,
                            name=f"{row['model']} validate")
                row["runs"]["validate"].append(asdict(r))
                row["rss_kib"].append(sum(rss_kib(p) for p in srv.worker_pids()))
            with Server(BASELINE_APP, workers=w, threads=t, env=env) as srv:
                r = measure(srv, base, args, args.worker_duration,
                            name=f"{row['model']} baseline")
                row["runs"]["baseline"].append(asdict(r))
    for row in rows:
        for app in ("validate", "baseline"):
            row[app] = summary(row["runs"][app])
        row["rss_kib"] = median(row["rss_kib"])
    return rows



def memory_section(args: argparse.Namespace) -> dict:
    """RSS of every worker after N1 and N2 requests to /v1/melds/validate (exact counts)."""
    target = Target("validate", "/v1/melds/validate", BODIES / "validate.json")
    out: dict = {"checkpoints": []}
    done = 0
    with Server(SERVICE_APP) as srv:
        pids = srv.worker_pids()
        out["start"] = {str(p): rss_kib(p) for p in pids}
        for goal in args.memory_requests:
            t0, rps, non2xx = time.monotonic(), 1000.0, 0
            while done < goal and time.monotonic() - t0 < args.memory_timeout:
                # a chunk sized to the remaining count (each wrk thread stops at its share)
                left = goal - done
                r = loadgen.run(srv.url, target, duration=min(max(1.0, left / rps * 1.3), 20),
                                connections=args.connections, max_requests=left,
                                use_wrk=args.use_wrk)
                done += r.requests
                non2xx += r.non2xx
                rps = max(r.rps, 50.0)
            now = {str(p): rss_kib(p) for p in srv.worker_pids()}
            out["checkpoints"].append({"requests": done, "rss_kib": now, "non2xx": non2xx})
            log(f"memory: after {done} requests RSS (KiB) {now}")
        out["same_workers"] = sorted(srv.worker_pids()) == sorted(pids)
    return out
