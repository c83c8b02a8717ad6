"""The worker model behind deploy/gunicorn.conf.py's default, and the rule that picks it.

``make bench``'s "Worker model" section measures every model of WORKER_MODELS
(bench/measure.py ``workers_section``), keeps every sample in
bench/results/workers_history.json (:func:`update_history`), pools them
(:func:`pooled`) and names a winner by :func:`pick_winner`. The default in
deploy/gunicorn.conf.py (gevent, one worker per core; service/settings.py
``Settings.worker_class``) is set by hand after that rule: the report prints the
winner beside :func:`configured_default`, what the config picks with no overrides,
so a disagreement shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from statistics import median

from .server import ROOT
from .stats import P99_OVER_P50

# (label, workers, threads) compared for the "Worker model" section; the label is the
# worker class for gevent (GUNICORN_WORKER_CLASS), else GUNICORN_THREADS decides
WORKER_MODELS = [("sync", 2, 1), ("sync", 3, 1), ("sync", 4, 1), ("sync", 5, 1),
                 ("gthread", 2, 4), ("gthread", 2, 2), ("gthread", 3, 2),
                 ("gevent", 2, 1), ("gevent", 3, 1)]
# worker classes that a few slow clients cannot starve (issue 14: a sync or gthread worker
# gives a slow connection a whole thread); the default is picked among these when measured
SLOW_CLIENT_SAFE = ("gevent",)


def model_label(kind: str, workers: int, threads: int) -> str:
    """A model's name in the tables and the history: ``sync 2``, ``gthread 2x4``, ``gevent 3``."""
    return f"{kind} {workers}" + (f"x{threads}" if threads > 1 else "")


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


HISTORY = ROOT / "bench" / "results" / "workers_history.json"


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
    wanted = {model_label(k, w, t) for k, w, t in WORKER_MODELS}
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
    order = {model_label(k, w, t): i for i, (k, w, t) in enumerate(WORKER_MODELS)}
    return sorted((r for r in out.values() if "validate" in r and "baseline" in r),
                  key=lambda r: order.get(r["model"], 99))



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

