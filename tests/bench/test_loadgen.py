"""The load generator's parsing (bench/loadgen.py: wrk's output, percentiles) and the bench bodies
(no load, no timing asserts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import loadgen, measure

WRK_OUT = """Running 10s test @ http://127.0.0.1:1234/v1/melds/validate
  2 threads and 16 connections
BENCH_RESULT requests=12345 duration_us=10000000 p50_us=9610 p90_us=15000 p99_us=17230 \
max_us=40000 non2xx=0 connect=0 read=0 write=0 timeout=0 status=0
"""


def test_parse_wrk_line() -> None:
    r = loadgen.parse_wrk("validate", WRK_OUT)
    assert r.tool == "wrk" and r.requests == 12345
    assert r.rps == pytest.approx(1234.5)
    assert (r.p50_ms, r.p90_ms, r.p99_ms) == (9.61, 15.0, 17.23)


def test_parse_wrk_without_result_line() -> None:
    with pytest.raises(ValueError):
        loadgen.parse_wrk("x", "wrk: connection refused\n")


def test_percentile_nearest_rank() -> None:
    values = list(range(1, 101))
    assert loadgen.percentile(values, 50) == 50
    assert loadgen.percentile(values, 99) == 99
    assert loadgen.percentile([], 99) == 0


def test_bodies_are_json() -> None:
    paths = sorted(Path(measure.BODIES).glob("*.json"))
    assert {p.stem for p in paths} >= {"validate", "opening", "build", "release", "score",
                                       "analyze", "adjudicate", "turncheck", "turncheck_table",
                                       "turnoptions"}
    for path in paths:
        assert isinstance(json.loads(path.read_text()), dict), path
