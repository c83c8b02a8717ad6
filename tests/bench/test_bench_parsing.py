"""The benchmark suite's parsing and reporting (no load, no timing asserts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import loadgen, run
from bench.loadgen import Result

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


def _res(name: str, rps: float) -> Result:
    return Result(name=name, tool="wrk", requests=int(rps * 10), duration_s=10, p50_ms=1,
                  p90_ms=2, p99_ms=3, max_ms=4)


def test_render_ratios_and_kept_sections() -> None:
    previous = "# x\n\n## Memory\n\nold memory table\n\n## Other\n"
    text = run.render({"cpu": "test"}, (_res("baseline", 2000), [_res("validate", 1000)]),
                      ["a note"], None, None, [], previous)
    assert "| validate | 1,000 | 1.00 | 3.00 | 3.0 | 0.50 |" in text
    assert "ratio ≥ 0.80 **not met**; p99/p50 ≤ 3 met" in text
    assert "old memory table" in text and "not re-run" in text


def test_render_pair_spread_and_tail_check() -> None:
    row = _res("opening", 1600)
    row.p99_ms = 3.5
    row.extra.update(ratio=0.8, ratio_min=0.74, ratio_max=0.86)
    text = run.render({"cpu": "test"}, (_res("baseline", 2000), [row]), [], None, None, [], "")
    assert "| 0.80 | 0.74–0.86 |" in text
    assert "ratio ≥ 0.75 met; p99/p50 ≤ 3 **not met**" in text


def test_pick_winner_throughput_under_tail_guard() -> None:
    def row(model: str, rps: float, p99: float, workers: int) -> dict:
        return {"model": model, "workers": workers, "threads": 1,
                "validate": {"rps": rps, "p99_ms": p99}}
    rows = [row("fast-tail", 1200, 30, 2), row("a", 1000, 12, 2), row("b", 990, 10, 3),
            row("c", 800, 10, 5)]
    assert run.pick_winner(rows)["model"] == "a"  # b is tied on rps but has more processes


def test_bodies_are_json() -> None:
    for path in Path(run.BODIES).glob("*.json"):
        json.loads(path.read_text())
