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


def test_render_nginx_rows_in_their_own_table() -> None:
    """validate through nginx sits beside direct, not among the baseline ratios."""
    direct, proxied = _res("validate, direct (beside nginx)", 1000), _res("validate through nginx", 900)
    direct.extra.update(nginx_pair=1.0, ratio=1.0)
    proxied.extra.update(nginx_pair=1.0, ratio=0.9, ratio_min=0.85, ratio_max=0.95,
                         nginx_cpu_us_per_req=110.0)
    text = run.render({"cpu": "test"}, (_res("baseline", 2000), [_res("validate", 1000),
                                                                 direct, proxied]),
                      [], None, None, [], "")
    main, _, proxy_table = text.partition("Through the reverse proxy")
    assert "| validate | 1,000 |" in main and "through nginx" not in main
    assert "| validate through nginx | 900 | 1.00 | 3.00 | 3.0 | 0.90 | 0.85–0.95 |" in proxy_table
    assert "| 110 |" in proxy_table and "| validate, direct (beside nginx) | 1,000 |" in proxy_table


def _row(model: str, rps: float, p99: float, workers: int, p50: float = 5.0) -> dict:
    return {"model": model, "workers": workers, "threads": 1,
            "validate": {"rps": rps, "p99_ms": p99, "p50_ms": p50}}


def test_pick_winner_throughput_under_tail_guard() -> None:
    rows = [_row("fast-tail", 1200, 30, 2), _row("a", 1000, 12, 2), _row("b", 990, 10, 3),
            _row("c", 800, 10, 5)]
    assert run.pick_winner(rows)["model"] == "a"  # b is tied on rps but has more processes


def test_pick_winner_keeps_p99_within_three_p50() -> None:
    """The issue's tail target (p99 <= 3 x p50) rules a model out before throughput counts."""
    rows = [_row("quick-but-spiky", 1300, 14, 2, p50=4), _row("steady", 1000, 12, 2, p50=5)]
    assert run.pick_winner(rows)["model"] == "steady"  # 14 <= 1.5 x 12, but 14 > 3 x 4


def test_pooled_compares_models_within_each_run() -> None:
    """Two runs of very different speed: the per-run ranking survives pooling."""
    history = []
    for date, scale in (("slow run", 1.0), ("fast run", 3.0)):
        for k, w, t in run.WORKER_MODELS:
            model = f"{k} {w}" + (f"x{t}" if t > 1 else "")
            rps = (1100 if model in ("gthread 2x2", "gevent 3") else 1000) * scale
            for app in ("validate", "baseline"):
                history.append({"date": date, "model": model, "workers": w, "threads": t,
                                "app": app, "rps": rps, "p50_ms": 4 / scale,
                                "p99_ms": 10 / scale, "cpu_us": 300, "load1": 1})
    rows = {r["model"]: r for r in run.pooled(history)}
    assert rows["gthread 2x2"]["validate"]["rps"] == pytest.approx(1.1)
    assert rows["sync 2"]["validate"]["rps"] == pytest.approx(1.0)
    assert rows["sync 2"]["validate"]["p99_ms"] == pytest.approx(1.0)
    assert rows["sync 2"]["validate"]["tail"] == pytest.approx(2.5)
    # only the models slow clients cannot starve compete: gthread 2x2 is faster, not eligible
    assert run.pick_winner(list(rows.values()))["model"] == "gevent 3"
    others = [r for r in rows.values() if not r["model"].startswith("gevent")]
    assert run.pick_winner(others)["model"] == "gthread 2x2"


def test_bodies_are_json() -> None:
    paths = sorted(Path(run.BODIES).glob("*.json"))
    assert {p.stem for p in paths} >= {"validate", "opening", "build", "release", "score",
                                       "analyze", "adjudicate", "turncheck"}
    for path in paths:
        assert isinstance(json.loads(path.read_text()), dict), path
