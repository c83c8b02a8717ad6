"""Statistics of ``make bench``'s samples (pure functions) and the targets they meet.

Latency percentiles of one run are the load generator's (bench/loadgen.py
``percentile``); here several runs become one row or one cell.
"""

from __future__ import annotations

from statistics import median

from .loadgen import Result

# issue 6: throughput ratio to the baseline, and p99 at most 3x p50 for stateless endpoints
RATIO_TARGETS = {"validate": 0.80, "opening": 0.75, "score": 0.75}
STATEFUL = {"ledger append"}
P99_OVER_P50 = 3.0


def merge(name: str, runs: list[Result]) -> Result:
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


def summary(runs: list[dict]) -> dict:
    """One worker-model cell from its rounds (``asdict`` of each run's :class:`Result`):
    the median rps with its range, and the medians of p50, p99, load and CPU per request."""
    return {"rps": median([x["requests"] / x["duration_s"] for x in runs]),
            "rps_min": min(x["requests"] / x["duration_s"] for x in runs),
            "rps_max": max(x["requests"] / x["duration_s"] for x in runs),
            "p50_ms": median([x["p50_ms"] for x in runs]),
            "p99_ms": median([x["p99_ms"] for x in runs]),
            "load1": median([x["extra"]["load1_before"] for x in runs]),
            "cpu_us": median([x["extra"]["cpu_us_per_req"] for x in runs])}
