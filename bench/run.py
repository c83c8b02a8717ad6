"""``make bench``: HTTP load benchmarks, worker-model comparison, memory, micro-benchmarks.

Everything is written to ``bench/RESULTS.md`` (sections) and the raw numbers to
``bench/results/http.json``. See docs/bench.md. Only 127.0.0.1 is targeted and
every load loop is bounded by time (and, for memory, by a request count).

    python -m bench.run                      # everything (about 6-8 minutes)
    python -m bench.run --duration 3 --warmup 1 --skip-workers --skip-memory   # quick
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from . import append_floor, loadgen, openloop
from .loadgen import Result
from .measure import (
    BENCH,
    RESULTS_DIR,
    endpoints_section,
    log,
    machine,
    memory_section,
    workers_section,
)
from .micro import micro_section
from .report import render
from .server import ROOT
from .workers import update_history

RESULTS_MD = BENCH / "RESULTS.md"


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
    ap.add_argument("--skip-floor", action="store_true",
                    help="no appends-against-the-floor section (bench/append_floor.py)")
    ap.add_argument("--skip-openloop", action="store_true",
                    help="no constant-rate tail-latency section (bench/openloop.py)")
    ap.add_argument("--memory-requests", type=lambda s: [int(x) for x in s.split(",")],
                    default=[10_000, 100_000], help="checkpoints, e.g. 10000,100000")
    ap.add_argument("--memory-timeout", type=float, default=240,
                    help="upper bound in seconds for each memory load phase")
    ap.add_argument("--micro-timeout", type=float, default=300,
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
    # sections written by their own tools, which render() carries over from then on
    if not args.skip_floor:
        append_floor.main(["--out", str(args.out)])
    if not args.skip_openloop:
        openloop.main(["--out", str(args.out)])
    log(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
        f"in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    importlib.invalidate_caches()
    sys.exit(main())
