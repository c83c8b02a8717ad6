"""``make bench``: HTTP load benchmarks, worker-model comparison, memory, micro-benchmarks.

Everything is written to ``bench/RESULTS.md`` (sections) and the raw numbers to
``bench/results/http.json``. See docs/bench.md. Only 127.0.0.1 is targeted and
every load loop is bounded by time (and, for memory, by a request count).

    python -m bench.run                      # everything (about 6-8 minutes)
    python -m bench.run --duration 3 --warmup 1 --skip-workers --skip-memory   # quick
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib
import json
import os
import platform
import re
import shutil
import signal
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

BENCH = ROOT / "bench"
BODIES = BENCH / "bodies"
RESULTS_DIR = BENCH / "results"
RESULTS_MD = BENCH / "RESULTS.md"

# name, path, body file, OpenAPI path that must exist (None: always there)
ENDPOINTS = [
    ("validate", "/v1/melds/validate", "validate.json"),
    ("opening", "/v1/melds/opening", "opening.json"),
    ("build", "/v1/melds/build", "build.json"),
    ("release", "/v1/jokers/release", "release.json"),
    ("score", "/v1/hands/score", "score.json"),
    ("turn-check", "/v1/turns/check", "turncheck.json"),
    ("turn-options", "/v1/turns/options", "turnoptions.json"),
    ("analyze", "/v1/hands/analyze", "analyze.json"),
    ("adjudicate", "/v1/hands/adjudicate", "adjudicate.json"),
]
LEDGER_RE = re.compile(r"^/v1/matches/\{[^}/]+\}/hands$")

# (label, workers, threads) compared for the "Worker model" section; the label is the
# worker class for gevent (GUNICORN_WORKER_CLASS), else GUNICORN_THREADS decides
WORKER_MODELS = [("sync", 2, 1), ("sync", 3, 1), ("sync", 4, 1), ("sync", 5, 1),
                 ("gthread", 2, 4), ("gthread", 2, 2), ("gthread", 3, 2),
                 ("gevent", 2, 1), ("gevent", 3, 1)]
# worker classes that a few slow clients cannot starve (issue 14: a sync or gthread worker
# gives a slow connection a whole thread); the default is picked among these when measured
SLOW_CLIENT_SAFE = ("gevent",)


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


LEDGER_MATCHES = 16  # appends are spread over this many matches (see ledger_target)


def ledger_target(url: str, paths: dict[str, set[str]], notes: list[str]) -> Target | None:
    """Create LEDGER_MATCHES matches; appends go to them in turn, each with its own token.

    A match ends once a player reaches goal_points (at most 1,000,000 here; the
    bench hand adds 127 points), so one match would turn appends into 409s after
    ~7,800 hands; sixteen hold ~125,000, more than a run sends.
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


# -- sections --------------------------------------------------------------------------

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


def _baseline(args: argparse.Namespace, label: str) -> Result:
    with Server(BASELINE_APP) as base:
        return measure(base, Target("baseline (bare Flask)", "/echo",
                                        BODIES / "validate.json"), args, name=label)


def _merge(name: str, runs: list[Result]) -> Result:
    """Several short runs of one target as one row: summed counts, median latencies."""
    return Result(name=name, tool=runs[0].tool, requests=sum(r.requests for r in runs),
                  duration_s=sum(r.duration_s for r in runs),
                  p50_ms=median(r.p50_ms for r in runs), p90_ms=median(r.p90_ms for r in runs),
                  p99_ms=median(r.p99_ms for r in runs), max_ms=max(r.max_ms for r in runs),
                  non2xx=sum(r.non2xx for r in runs),
                  socket_errors=sum(r.socket_errors for r in runs),
                  extra={"cpu_us_per_req": median(r.extra["cpu_us_per_req"] for r in runs),
                         "load1_before": runs[0].extra["load1_before"],
                         "load1_after": runs[-1].extra["load1_after"]})


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
    direct = _merge("validate, direct (beside nginx)", direct_runs)
    proxied = _merge("validate through nginx", proxied_runs)
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
        ledger = ledger_target(srv.url, paths, notes)
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
            row = _merge(t.name, runs)
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
    baseline = _merge("baseline (bare Flask), all runs", base_runs)
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
    rows = [{"model": f"{k} {w}" + (f"x{t}" if t > 1 else ""), "workers": w, "threads": t,
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
            runs = row["runs"][app]
            row[app] = {"rps": median([x["requests"] / x["duration_s"] for x in runs]),
                        "rps_min": min(x["requests"] / x["duration_s"] for x in runs),
                        "rps_max": max(x["requests"] / x["duration_s"] for x in runs),
                        "p50_ms": median([x["p50_ms"] for x in runs]),
                        "p99_ms": median([x["p99_ms"] for x in runs]),
                        "load1": median([x["extra"]["load1_before"] for x in runs]),
                        "cpu_us": median([x["extra"]["cpu_us_per_req"] for x in runs])}
        row["rss_kib"] = median(row["rss_kib"])
    return rows


def pick_winner(rows: list[dict]) -> dict:
    """The rule behind the default worker model: throughput under two tail-latency guards.

    Only models of SLOW_CLIENT_SAFE classes compete when any was measured.

    Models whose /v1/melds/validate p99 is at most 3x its p50 (the issue's tail
    target) and at most 1.5x the lowest p99; of these, the best rps, where
    models within 5% of it count as tied and the one with the fewest processes
    (memory), then the lower p99, wins. Works on one run's rows and on
    :func:`pooled` rows alike (there rps and p99 are relative to each run).
    """
    def tail(r: dict) -> float:
        v = r["validate"]
        return v.get("tail") or (v["p99_ms"] / v["p50_ms"] if v["p50_ms"] else float("inf"))

    rows = [r for r in rows if r["model"].split()[0] in SLOW_CLIENT_SAFE] or rows
    within = [r for r in rows if tail(r) <= P99_OVER_P50] or rows
    best_p99 = min(r["validate"]["p99_ms"] for r in within)
    guarded = [r for r in within if r["validate"]["p99_ms"] <= 1.5 * best_p99]
    best = max(r["validate"]["rps"] for r in guarded)
    tied = [r for r in guarded if r["validate"]["rps"] >= 0.95 * best]
    return min(tied, key=lambda r: (r["workers"], r["validate"]["p99_ms"]))


HISTORY = RESULTS_DIR / "workers_history.json"


def update_history(rows: list[dict], date: str) -> list[dict]:
    """Append this run's worker-model samples to bench/results/workers_history.json.

    On a shared machine one run's ranking flips with the neighbours' load, so
    the report also pools every sample kept there (same machine, same bench).
    """
    history = json.loads(HISTORY.read_text()) if HISTORY.exists() else []
    for row in rows:
        for app in ("validate", "baseline"):
            for x in row["runs"][app]:
                history.append({"date": date, "model": row["model"], "workers": row["workers"],
                                "threads": row["threads"], "app": app,
                                "rps": round(x["requests"] / x["duration_s"], 1),
                                "p50_ms": x["p50_ms"], "p99_ms": x["p99_ms"],
                                "cpu_us": round(x["extra"].get("cpu_us_per_req", 0), 1),
                                "load1": x["extra"].get("load1_before", -1)})
    HISTORY.write_text(json.dumps(history, indent=0) + "\n")
    return history


def pooled(history: list[dict]) -> list[dict]:
    """Per model, medians over the history's samples, each taken relative to its run.

    Runs differ in code version, machine and neighbours' load, so absolute rps
    and latencies from different runs do not pool. Within one run every model
    saw the same code and machine: each sample's rps and p99 are divided by
    the median over that run's models (for the same app), and the medians of
    those relative numbers (1.00 = a run's middle model) are pooled, with the
    scale-free p99/p50. Only runs that measured every model of WORKER_MODELS
    count.
    """
    wanted = {f"{k} {w}" + (f"x{t}" if t > 1 else "") for k, w, t in WORKER_MODELS}
    by_run: dict[str, set[str]] = {}
    for h in history:
        by_run.setdefault(h["date"], set()).add(h["model"])
    full = {d for d, models in by_run.items() if wanted <= models}
    history = [h for h in history if h["date"] in full and h["model"] in wanted]
    middle: dict[tuple[str, str], tuple[float, float]] = {}
    for key in {(h["date"], h["app"]) for h in history}:
        xs = [h for h in history if (h["date"], h["app"]) == key]
        middle[key] = (median(x["rps"] for x in xs), median(x["p99_ms"] for x in xs))
    out: dict[str, dict] = {}
    for h in history:
        row = out.setdefault(h["model"], {"model": h["model"], "workers": h["workers"],
                                          "threads": h["threads"], "samples": {}})
        row["samples"].setdefault(h["app"], []).append(h)
    for row in out.values():
        for app, xs in row.pop("samples").items():
            mid = [middle[(x["date"], app)] for x in xs]
            row[app] = {"rps": median(x["rps"] / m[0] for x, m in zip(xs, mid, strict=True)),
                        "p99_ms": median(x["p99_ms"] / m[1] for x, m in zip(xs, mid, strict=True)),
                        "tail": median(x["p99_ms"] / x["p50_ms"] for x in xs if x["p50_ms"]),
                        "n": len(xs), "runs": len({x["date"] for x in xs})}
    order = {f"{k} {w}" + (f"x{t}" if t > 1 else ""): i for i, (k, w, t) in enumerate(WORKER_MODELS)}
    return sorted((r for r in out.values() if "validate" in r and "baseline" in r),
                  key=lambda r: order.get(r["model"], 99))


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


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group of a timed-out module (servers it started), then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.communicate(timeout=wait)
            time.sleep(1)  # let children of the group finish their own shutdown
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers (e.g. a server's workers)


def micro_section(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Run every bench/*_bench.py (its ``main()`` writes bench/results/<name>.md)."""
    out = []
    for path in sorted(BENCH.glob("*_bench.py")):
        mod = path.stem
        name = mod.removesuffix("_bench")
        log(f"micro-benchmark {mod}")
        t0 = time.monotonic()
        # its own session: on timeout the whole group goes (a module may start servers)
        proc = subprocess.Popen([sys.executable, "-c", f"import bench.{mod} as m; m.main()"],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=args.micro_timeout)
            status = f"exit {proc.returncode}" if proc.returncode else "ok"
            if proc.returncode:
                stdout += "\n" + stderr[-2000:]
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            status, stdout = f"timed out after {args.micro_timeout:g} s", ""
        md = None
        fresh_since = time.time() - (time.monotonic() - t0) - 5
        for cand in (RESULTS_DIR / f"{name}.md", RESULTS_DIR / f"{mod}.md"):
            if not cand.exists():
                continue
            md = cand.read_text()
            if cand.stat().st_mtime < fresh_since:  # not rewritten this run: say so
                md = (f"_(not refreshed by this run ({status}); the module's last results, "
                      f"bench/results/{cand.name}:)_\n\n" + md)
            break
        if md is not None:  # its headings go below this section's "### module" title
            md = re.sub(r"^(#{1,4}) ", lambda m: "##" + m.group(1) + " ", md, flags=re.M)
        text = md if md is not None else f"```\n{stdout.strip()[-6000:]}\n```\n"
        out.append((f"{mod} ({status}, {time.monotonic() - t0:.0f} s)", text))
    return out


# -- report ----------------------------------------------------------------------------

# issue 6: throughput ratio to the baseline, and p99 at most 3x p50 for stateless endpoints
RATIO_TARGETS = {"validate": 0.80, "opening": 0.75, "score": 0.75}
STATEFUL = {"ledger append"}
P99_OVER_P50 = 3.0


def _fmt_row(r: Result, base: Result) -> str:
    """One table row; ratios are the paired medians when measured in pairs."""
    ratio = r.extra.get("ratio", r.rps / base.rps if base.rps else 0)
    spread = (f"{r.extra['ratio_min']:.2f}–{r.extra['ratio_max']:.2f}"
              if "ratio_min" in r.extra else "")
    flag = f" ({r.non2xx} non-2xx)" if r.non2xx else ""
    cpu = r.extra.get("cpu_us_per_req", 0)
    base_cpu = base.extra.get("cpu_us_per_req", 0)
    cpu_ratio = r.extra.get("cpu_ratio", base_cpu / cpu if cpu else 0)
    tail = r.p99_ms / r.p50_ms if r.p50_ms else 0
    checks = []
    if r.name in RATIO_TARGETS:
        checks.append(f"ratio ≥ {RATIO_TARGETS[r.name]:.2f} "
                      + ("met" if ratio >= RATIO_TARGETS[r.name] else "**not met**"))
    if r is not base and r.name not in STATEFUL:
        checks.append(f"p99/p50 ≤ {P99_OVER_P50:g} " + ("met" if tail <= P99_OVER_P50
                                                        else "**not met**"))
    return (f"| {r.name}{flag} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {tail:.1f} | "
            f"{ratio:.2f} | {spread} | {cpu:,.0f} | {cpu_ratio:.2f} | "
            f"{r.extra.get('load1_before', -1):.1f} | {'; '.join(checks)} |")


def _nginx_table(rows: list[Result]) -> list[str]:
    """validate direct beside validate through nginx (same run, paired)."""
    if not rows:
        return []
    out = ["", "Through the reverse proxy (deploy/nginx/nginx.conf), paired with direct "
               "requests to the same server:", "",
           "| path | requests/s | p50 ms | p99 ms | p99/p50 | rps ratio to direct (median) "
           "| pairs (min–max) | worker CPU µs/req | nginx CPU µs/req | load |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        spread = (f"{r.extra['ratio_min']:.2f}–{r.extra['ratio_max']:.2f}"
                  if "ratio_min" in r.extra else "")
        nginx_cpu = r.extra.get("nginx_cpu_us_per_req")
        flag = f" ({r.non2xx} non-2xx)" if r.non2xx else ""
        out.append(f"| {r.name}{flag} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | "
                   f"{r.p99_ms / r.p50_ms if r.p50_ms else 0:.1f} | "
                   f"{r.extra.get('ratio', 1.0):.2f} | {spread} | "
                   f"{r.extra.get('cpu_us_per_req', 0):,.0f} | "
                   f"{'' if nginx_cpu is None else f'{nginx_cpu:,.0f}'} | "
                   f"{r.extra.get('load1_before', -1):.1f} |")
    return out


def render(mach: dict, http: tuple[Result, list[Result]] | None, notes: list[str],
           workers: list[dict] | None, memory: dict | None,
           micro: list[tuple[str, str]] | None,
           previous: str) -> str:
    out = ["# Benchmark results", "",
           "Written by `make bench` (`python -m bench.run`); see docs/bench.md for what the",
           "numbers mean. The load generator runs on the same machine as the server.", "",
           "## Machine", ""]
    out += [f"* {k}: {v}" for k, v in mach.items()]
    out += [""]
    if http:
        base, results = http
        out += ["## HTTP endpoints", "",
                "| endpoint | requests/s | p50 ms | p99 ms | p99/p50 | throughput ratio to "
                "baseline (median) | pairs (min–max) | worker CPU µs/req "
                "| baseline CPU / endpoint CPU | load | targets |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|", _fmt_row(base, base)]
        out += [_fmt_row(r, base) for r in results if not r.extra.get("nginx_pair")]
        out += _nginx_table([r for r in results if r.extra.get("nginx_pair")])
        out += [""] + [f"* {n}" for n in notes] + [""]
    else:
        out += _keep(previous, "## HTTP endpoints")
    if workers:
        pool = pooled(json.loads(HISTORY.read_text())) if HISTORY.exists() else []
        win = pick_winner(pool or workers)
        out += ["## Worker model", "",
                "Each model served by deploy/gunicorn.conf.py with WEB_CONCURRENCY / "
                "GUNICORN_THREADS set, 16 connections; each cell is the median of "
                f"{len(workers[0]['runs']['validate'])} interleaved runs (rps range in "
                "brackets), load = 1-minute load average before the runs.", "",
                "| model | validate rps | p50 ms | p99 ms | CPU µs/req | baseline rps "
                "| p50 ms | p99 ms | CPU µs/req | validate/baseline rps | load "
                "| workers' RSS MiB (idle) |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in workers:
            v, b = r["validate"], r["baseline"]
            out.append(f"| {r['model']} | {v['rps']:,.0f} [{v['rps_min']:,.0f}–"
                       f"{v['rps_max']:,.0f}] | {v['p50_ms']:.2f} | {v['p99_ms']:.2f} | "
                       f"{v['cpu_us']:,.0f} | "
                       f"{b['rps']:,.0f} [{b['rps_min']:,.0f}–{b['rps_max']:,.0f}] | "
                       f"{b['p50_ms']:.2f} | {b['p99_ms']:.2f} | {b['cpu_us']:,.0f} | "
                       f"{v['rps'] / b['rps']:.2f} | "
                       f"{v['load1']:.1f} | {r['rss_kib'] / 1024:.0f} |")
        if pool:
            out += ["", "Pooled over the runs kept in bench/results/workers_history.json "
                        f"that measured every model ({pool[0]['validate']['runs']} runs, "
                        f"n = samples per cell). rps and p99 are relative to the median "
                        f"model of the same run (1.00), so runs of older code or on a busier "
                        f"machine still compare models fairly; p99/p50 is the median of the "
                        f"samples' own ratios:", "",
                    "| model | validate rps (rel.) | p99 (rel.) | p99/p50 | baseline rps (rel.) "
                    "| p99 (rel.) | p99/p50 | n |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|"]
            for r in pool:
                v, b = r["validate"], r["baseline"]
                out.append(f"| {r['model']} | {v['rps']:.2f} | {v['p99_ms']:.2f} | "
                           f"{v['tail']:.1f} | {b['rps']:.2f} | {b['p99_ms']:.2f} | "
                           f"{b['tail']:.1f} | {v['n']} |")
        out += ["", f"Winner by the rule in `bench.run.pick_winner` (validate p99 at most "
                    f"3x its p50 and at most 1.5x the lowest p99; then the best rps, within "
                    f"5% counting as a tie "
                    f"broken by fewer processes), on the {'pooled numbers' if pool else 'numbers of this run'}: "
                    f"**{win['model']}**. Defaults in deploy/gunicorn.conf.py: "
                    f"{configured_default()}.", ""]
    else:
        out += _keep(previous, "## Worker model")
    if memory:
        out += ["## Memory", "",
                "RSS of each gunicorn worker (KiB) under the default config, "
                "driving `/v1/melds/validate`.", ""]
        pids = list(memory["start"])
        cps = memory["checkpoints"]
        out += ["| worker pid | start | " + " | ".join(f"after {c['requests']:,}" for c in cps)
                + " | ratio last/first checkpoint |",
                "|---|---:|" + "---:|" * len(cps) + "---:|"]
        for p in pids:
            vals = [c["rss_kib"].get(p, 0) for c in cps]
            ratio = vals[-1] / vals[0] if vals and vals[0] else 0
            out.append(f"| {p} | {memory['start'][p]:,} | " + " | ".join(f"{v:,}" for v in vals)
                       + f" | {ratio:.3f} |")
        tot = [sum(c["rss_kib"].values()) for c in cps]
        if tot and tot[0]:
            out += ["", f"Total over workers: {tot[0]:,} KiB → {tot[-1]:,} KiB "
                        f"(ratio {tot[-1] / tot[0]:.3f}; target ≤ 1.10). "
                        f"Same worker processes throughout: {memory['same_workers']}.", ""]
    else:
        out += _keep(previous, "## Memory")
    if micro is not None:
        out += ["## Engine micro-benchmarks", ""]
        if not micro:
            out += ["No `bench/*_bench.py` module yet.", ""]
        for title, text in micro:
            out += [f"### {title}", "", text.strip(), ""]
    else:
        out += _keep(previous, "## Engine micro-benchmarks")
    out += _keep(previous, "## Hostile requests", note=False)  # written by bench/hostile.py
    out += _keep(previous, "## Waiting for replicas (REDIS_WAIT_REPLICAS)", note=False)  # bench/replica_wait.py
    return "\n".join(out).rstrip() + "\n"


def _keep(previous: str, heading: str, note: bool = True) -> list[str]:
    """A section skipped this run keeps its previous text (marked as such, unless
    another tool writes it: ``note=False``)."""
    m = re.search(rf"^{re.escape(heading)}\n(.*?)(?=^## |\Z)", previous, re.S | re.M)
    if not m:
        return []
    body = m.group(1).strip()
    if not note:
        return [heading, "", body, ""]
    note_text = "_(not re-run by the last `make bench`; from an earlier run)_"
    if not body.startswith("_(not re-run"):
        body = note_text + "\n\n" + body
    return [heading, "", body, ""]


def configured_default() -> str:
    """What deploy/gunicorn.conf.py chooses with no environment overrides."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("WEB_CONCURRENCY", "GUNICORN_THREADS")}
    code = ("import runpy; c = runpy.run_path('deploy/gunicorn.conf.py'); "
            "print(c['worker_class'], c['workers'], c['threads'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=False).stdout.split()
    if len(out) != 3:
        return "unknown"
    return f"{out[0]}, {out[1]} workers x {out[2]} threads"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=14,
                    help="seconds measured per endpoint (split over the pairs)")
    ap.add_argument("--warmup", type=float, default=2, help="seconds of warm-up per endpoint")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--only", nargs="*", help="endpoint names to run (validate, opening, ...)")
    ap.add_argument("--python-loadgen", dest="use_wrk", action="store_false", default=None,
                    help="use the pure-Python load generator even when wrk is installed")
    ap.add_argument("--rounds", type=int, default=2, help="worker-model rounds (median)")
    ap.add_argument("--pairs", type=int, default=7,
                    help="baseline/endpoint pairs per endpoint (ratio = median)")
    ap.add_argument("--worker-duration", type=float, default=5,
                    help="seconds measured per worker-model run")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--skip-workers", action="store_true")
    ap.add_argument("--skip-nginx", action="store_true",
                    help="no 'validate through nginx' row (it is skipped anyway without nginx)")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-micro", action="store_true")
    ap.add_argument("--memory-requests", type=lambda s: [int(x) for x in s.split(",")],
                    default=[10_000, 100_000], help="checkpoints, e.g. 10000,100000")
    ap.add_argument("--memory-timeout", type=float, default=240,
                    help="upper bound in seconds for each memory load phase")
    ap.add_argument("--micro-timeout", type=float, default=120,
                    help="seconds per bench/*_bench.py module (then its last results are "
                         "shown, marked as not refreshed)")
    ap.add_argument("--out", type=Path, default=RESULTS_MD)
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite RESULTS.md from bench/results/http.json, measuring nothing")
    args = ap.parse_args(argv)
    if args.render_only:
        raw = json.loads((RESULTS_DIR / "http.json").read_text())
        http = None
        if raw.get("http"):
            http = (Result(**raw["http"]["baseline"]),
                    [Result(**r) for r in raw["http"]["endpoints"]])
        previous = args.out.read_text() if args.out.exists() else ""
        args.out.write_text(render(raw["machine"], http, raw.get("notes", []), raw.get("workers"),
                                   raw.get("memory"),
                                   None if list(BENCH.glob("*_bench.py")) else [], previous))
        return 0
    if args.use_wrk is None:
        args.use_wrk = loadgen.have_wrk()
    if not args.use_wrk:
        log("wrk not found (or BENCH_NO_WRK=1): using the pure-Python load generator")
    RESULTS_DIR.mkdir(exist_ok=True)
    previous = args.out.read_text() if args.out.exists() else ""
    t0 = time.monotonic()
    mach = machine()
    notes: list[str] = []
    http = workers = memory = None
    if not args.skip_http:
        http = endpoints_section(args, notes)
    if not args.skip_workers:
        workers = workers_section(args)
        update_history(workers, mach["date"])
    if not args.skip_memory:
        memory = memory_section(args)
    micro = None if args.skip_micro else micro_section(args)
    raw_path = RESULTS_DIR / "http.json"
    raw = json.loads(raw_path.read_text()) if raw_path.exists() else {}
    raw["machine"] = mach  # sections skipped this run keep their previous raw numbers
    if http:
        raw["notes"] = notes
        raw["http"] = {"baseline": asdict(http[0]), "endpoints": [asdict(r) for r in http[1]]}
    if workers:
        raw["workers"] = workers
    if memory:
        raw["memory"] = memory
    raw_path.write_text(json.dumps(raw, indent=1) + "\n")
    args.out.write_text(render(mach, http, notes, workers, memory, micro, previous))
    log(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
        f"in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    importlib.invalidate_caches()
    sys.exit(main())
