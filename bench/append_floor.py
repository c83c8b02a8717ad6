"""Appends against their floor: ``POST /v1/matches/{id}/hands`` beside the one-script floor app.

Three servers under the production gunicorn config, each with its own embedded Redis: bare Flask
(``bench.baseline_app``), the floor (``bench.floor_app``: parse the body, one Lua script that bumps
a version, pushes the entry and publishes it) and the service. They are loaded one at a time in
interleaved pairs (floor, then append, then bare Flask, ``--pairs`` times) so slow drifts of a
shared machine cancel out; each ratio is the median of its per-pair ratios. Every answer is
counted: a row with any non-2xx says so (issue 36's check fails on any). Only 127.0.0.1.

    python -m bench.append_floor                  # 7 pairs of 2 s each
"""

from __future__ import annotations

import argparse
from pathlib import Path
from statistics import median

from . import loadgen
from .loadgen import Result, Target
from .measure import BENCH, BODIES, LEDGER_MATCHES, ledger_target, log, measure, served_paths
from .report import write_section
from .server import BASELINE_APP, SERVICE_APP, Server

FLOOR_APP = "bench.floor_app:app"
HEADING = "## Appends against the one-script floor (issue 36)"


def floor_target() -> Target:
    paths = tuple((f"/v1/matches/floor{i}/hands", "-") for i in range(LEDGER_MATCHES))
    return Target("floor append", paths[0][0], BODIES / "match_hand.json", rotate=paths)


def section(rows: dict[str, list[Result]], ratios: dict[str, list[float]],
            notes: list[str]) -> str:
    out = [HEADING, "",
           "| server | requests/s (median) | p50 ms | p99 ms | non-2xx | ratio (median of "
           "pairs) | pairs (min–max) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, runs in rows.items():
        rps = median(r.rps for r in runs)
        rs = ratios.get(name)
        ratio = f"{median(rs):.2f}" if rs else ""
        span = f"{min(rs):.2f}–{max(rs):.2f}" if rs else ""
        out.append(f"| {name} | {rps:,.0f} | {median(r.p50_ms for r in runs):.2f} | "
                   f"{median(r.p99_ms for r in runs):.2f} | {sum(r.non2xx for r in runs)} | "
                   f"{ratio} | {span} |")
    out.append("")
    out += [f"* {n}" for n in notes]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.append_floor", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--slice", type=float, default=2.0, help="seconds per run")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    run_args = argparse.Namespace(warmup=0.5, duration=args.slice,
                                  connections=args.connections, use_wrk=None)
    notes: list[str] = []
    rows: dict[str, list[Result]] = {"bare Flask": [], "floor append": [], "append": []}
    ratios: dict[str, list[float]] = {"floor append": [], "append": []}
    append_over_floor: list[float] = []
    with Server(BASELINE_APP) as bare, Server(FLOOR_APP) as floor, Server(SERVICE_APP) as srv:
        append = ledger_target(srv.url, served_paths(srv.url), notes)
        if append is None:
            raise SystemExit("the service has no append endpoint: " + "; ".join(notes))
        base = Target("bare Flask", "/echo", BODIES / "match_hand.json")
        fl = floor_target()
        for server, target in ((bare, base), (floor, fl), (srv, append)):
            loadgen.run(server.url, target, 2.0, args.connections)
        for _ in range(args.pairs):
            f = measure(floor, fl, run_args, name="floor append")
            a = measure(srv, append, run_args, name="append")
            b = measure(bare, base, run_args, name="bare Flask")
            rows["floor append"].append(f)
            rows["append"].append(a)
            rows["bare Flask"].append(b)
            ratios["floor append"].append(f.rps / b.rps if b.rps else 0.0)
            ratios["append"].append(a.rps / b.rps if b.rps else 0.0)
            append_over_floor.append(a.rps / f.rps if f.rps else 0.0)
    ratio = median(append_over_floor)
    log(f"append / floor = {ratio:.2f} (pairs {min(append_over_floor):.2f}–"
        f"{max(append_over_floor):.2f})")
    notes.insert(0, f"**append ÷ floor: {ratio:.2f}** (median of {args.pairs} pairs, "
                    f"{min(append_over_floor):.2f}–{max(append_over_floor):.2f}; goal ≥ 0.85). "
                    "The ratio column is each row's requests/s over bare Flask's in the same "
                    "pair.")
    notes.append(f"{args.pairs} interleaved rounds of (0.5 s settle + {args.slice:g} s) floor, "
                 f"append, bare Flask; {args.connections} connections; "
                 f"tool: {'wrk' if loadgen.have_wrk() else 'the Python generator'}; "
                 "deploy/gunicorn.conf.py defaults; each server its own embedded Redis.")
    write_section(section(rows, ratios, notes), HEADING,
                  Path(args.out) if args.out else BENCH / "RESULTS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
