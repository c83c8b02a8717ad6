"""The markdown of bench/RESULTS.md, from the sections' numbers (bench/measure.py).

A section skipped this run keeps its previous text (:func:`_keep`); the sections
other tools write (bench/hostile.py, bench/replica_wait.py) are carried over as
they are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .loadgen import Result
from .stats import P99_OVER_P50, RATIO_TARGETS, STATEFUL
from .workers import HISTORY, configured_default, pick_winner, pooled


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
        out += ["", f"Winner by the rule in `bench.workers.pick_winner` (validate p99 at most "
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
            # a benchmark's own headings sit under its ### title (a "## " would end the section)
            text = re.sub(r"^#{1,3} ", "#### ", text.strip(), flags=re.M)
            out += [f"### {title}", "", text, ""]
    else:
        out += _keep(previous, "## Engine micro-benchmarks")
    out += _keep(previous, "## Hostile requests", note=False)  # written by bench/hostile.py
    out += _keep(previous, "## Waiting for replicas (REDIS_WAIT_REPLICAS)", note=False)  # bench/replica_wait.py
    written = {line for line in out if line.startswith("## ")}
    for heading in re.findall(r"^## .*$", previous, re.M):  # sections other tools wrote, kept
        if heading not in written:
            out += _keep(previous, heading, note=False)
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


def write_section(text: str, heading: str, path: Path) -> None:
    """Put ``text`` (which starts with ``heading``) in place of the section of that heading
    in the results file, or at its end: how a benchmark run on its own writes its part of
    bench/RESULTS.md, which :func:`render` then carries over."""
    previous = path.read_text() if path.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(previous):
        new = pattern.sub(lambda _: text + "\n", previous)
    else:
        new = previous.rstrip() + "\n\n" + text
    path.write_text(new.rstrip() + "\n")
