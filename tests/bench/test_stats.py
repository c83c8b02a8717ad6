"""bench/stats.py: several runs as one row (HTTP tables) or one cell (worker models)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from bench import stats
from bench.loadgen import Result


def _run(requests: int, p50: float, p99: float, cpu: float, load: float) -> Result:
    return Result(name="validate", tool="python", requests=requests, duration_s=2.0,
                  p50_ms=p50, p90_ms=p50 * 2, p99_ms=p99, max_ms=p99 * 4, non2xx=1,
                  socket_errors=requests % 2,
                  extra={"cpu_us_per_req": cpu, "load1_before": load,
                         "load1_after": load + 0.5})


def test_merge_sums_counts_and_takes_median_latencies() -> None:
    runs = [_run(2000, 4.0, 9.0, 300.0, 1.0), _run(3001, 5.0, 30.0, 280.0, 2.0),
            _run(2500, 6.0, 12.0, 350.0, 3.0)]
    row = stats.merge("validate, all runs", runs)
    assert (row.name, row.tool) == ("validate, all runs", "python")
    assert (row.requests, row.duration_s) == (7501, 6.0)
    assert row.rps == pytest.approx(7501 / 6)
    assert (row.p50_ms, row.p90_ms, row.p99_ms, row.max_ms) == (5.0, 10.0, 12.0, 120.0)
    assert (row.non2xx, row.socket_errors) == (3, 1)
    # the CPU is the median; the load is the first run's before and the last run's after
    assert row.extra == {"cpu_us_per_req": 300.0, "load1_before": 1.0, "load1_after": 3.5}


def test_summary_of_a_worker_model_cell() -> None:
    runs = [asdict(_run(n, p50, p99, cpu, load)) for n, p50, p99, cpu, load in
            ((2000, 4.0, 9.0, 300.0, 1.0), (6000, 5.0, 30.0, 280.0, 2.0),
             (4000, 6.0, 12.0, 350.0, 4.0))]
    assert stats.summary(runs) == {"rps": 2000.0, "rps_min": 1000.0, "rps_max": 3000.0,
                                   "p50_ms": 5.0, "p99_ms": 12.0, "load1": 2.0,
                                   "cpu_us": 300.0}
