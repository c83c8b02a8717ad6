"""bench/report.py: the markdown of bench/RESULTS.md from the sections' numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import report
from bench.loadgen import Result


def _res(name: str, rps: float) -> Result:
    return Result(name=name, tool="wrk", requests=int(rps * 10), duration_s=10, p50_ms=1,
                  p90_ms=2, p99_ms=3, max_ms=4)


def test_render_ratios_and_kept_sections() -> None:
    previous = "# x\n\n## Memory\n\nold memory table\n\n## Other\n"
    text = report.render({"cpu": "test"}, (_res("baseline", 2000), [_res("validate", 1000)]),
                      ["a note"], None, None, [], previous)
    assert "| validate | 1,000 | 1.00 | 3.00 | 3.0 | 0.50 |" in text
    assert "ratio ≥ 0.80 **not met**; p99/p50 ≤ 3 met" in text
    assert "old memory table" in text and "not re-run" in text


def test_render_pair_spread_and_tail_check() -> None:
    row = _res("opening", 1600)
    row.p99_ms = 3.5
    row.extra.update(ratio=0.8, ratio_min=0.74, ratio_max=0.86)
    text = report.render({"cpu": "test"}, (_res("baseline", 2000), [row]), [], None, None, [], "")
    assert "| 0.80 | 0.74–0.86 |" in text
    assert "ratio ≥ 0.75 met; p99/p50 ≤ 3 **not met**" in text


def test_render_nginx_rows_in_their_own_table() -> None:
    """validate through nginx sits beside direct, not among the baseline ratios."""
    direct, proxied = _res("validate, direct (beside nginx)", 1000), _res("validate through nginx", 900)
    direct.extra.update(nginx_pair=1.0, ratio=1.0)
    proxied.extra.update(nginx_pair=1.0, ratio=0.9, ratio_min=0.85, ratio_max=0.95,
                         nginx_cpu_us_per_req=110.0)
    text = report.render({"cpu": "test"}, (_res("baseline", 2000), [_res("validate", 1000),
                                                                 direct, proxied]),
                      [], None, None, [], "")
    main, _, proxy_table = text.partition("Through the reverse proxy")
    assert "| validate | 1,000 |" in main and "through nginx" not in main
    assert "| validate through nginx | 900 | 1.00 | 3.00 | 3.0 | 0.90 | 0.85–0.95 |" in proxy_table
    assert "| 110 |" in proxy_table and "| validate, direct (beside nginx) | 1,000 |" in proxy_table


def test_render_worker_model_table_and_winner(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a history the winner is named on this run's rows, beside the config's default."""
    monkeypatch.setattr(report, "HISTORY", tmp_path / "no-history.json")
    monkeypatch.setattr(report, "configured_default", lambda: "gevent, 2 workers x 1 threads")

    def cell(rps: float, p50: float, p99: float) -> dict:
        return {"rps": rps, "rps_min": rps - 100, "rps_max": rps + 50, "p50_ms": p50,
                "p99_ms": p99, "cpu_us": 310.4, "load1": 1.25}

    rows = [{"model": model, "workers": w, "threads": 1, "runs": {"validate": [{}, {}]},
             "rss_kib": 2 * 1024 * 60, "validate": cell(rps, 4.0, p99),
             "baseline": cell(2 * rps, 2.0, 5.0)}
            for model, w, rps, p99 in (("sync 2", 2, 1200.0, 10.0), ("gevent 2", 2, 1000.0, 11.0))]
    text = report.render({"cpu": "test"}, None, [], rows, None, None, "")
    assert "each cell is the median of 2 interleaved runs" in text
    assert ("| sync 2 | 1,200 [1,100–1,250] | 4.00 | 10.00 | 310 | 2,400 [2,300–2,450] | "
            "2.00 | 5.00 | 310 | 0.50 | 1.2 | 120 |") in text
    assert "on the numbers of this run: **gevent 2**." in text  # the slow-client-safe model
    assert "Defaults in deploy/gunicorn.conf.py: gevent, 2 workers x 1 threads." in text
    assert "`bench.workers.pick_winner`" in text


def test_render_memory_rows_and_total() -> None:
    memory = {"start": {"101": 50_000, "102": 40_000},
              "checkpoints": [{"requests": 10_000, "rss_kib": {"101": 51_000, "102": 41_000}},
                              {"requests": 100_000, "rss_kib": {"101": 52_020, "102": 41_000}}],
              "same_workers": True}
    text = report.render({"cpu": "test"}, None, [], None, memory, None, "")
    assert "| worker pid | start | after 10,000 | after 100,000 | ratio last/first checkpoint |" in text
    assert "| 101 | 50,000 | 51,000 | 52,020 | 1.020 |" in text
    assert "| 102 | 40,000 | 41,000 | 41,000 | 1.000 |" in text
    assert ("Total over workers: 92,000 KiB → 93,020 KiB (ratio 1.011; target ≤ 1.10). "
            "Same worker processes throughout: True.") in text


def test_render_micro_sections_and_carried_tool_sections() -> None:
    previous = ("# Benchmark results\n\n## Hostile requests\n\nhostile table\n\n"
                "## Waiting for replicas (REDIS_WAIT_REPLICAS)\n\nwait table\n")
    text = report.render({"cpu": "test"}, None, [], None, None,
                         [("solver_bench (ok, 3 s)", "\nsolver table\n")], previous)
    assert "## Engine micro-benchmarks\n\n### solver_bench (ok, 3 s)\n\nsolver table\n" in text
    # written by bench/hostile.py and bench/replica_wait.py: kept as they are, not marked
    assert text.endswith("## Hostile requests\n\nhostile table\n\n"
                         "## Waiting for replicas (REDIS_WAIT_REPLICAS)\n\nwait table\n")
    assert "not re-run" not in text
    assert "No `bench/*_bench.py` module yet." in report.render({}, None, [], None, None, [], "")


def test_keep_marks_a_skipped_section_once() -> None:
    previous = "# x\n\n## Memory\n\nold table\n\n## Other\n\nother\n"
    kept = report._keep(previous, "## Memory")
    assert kept == ["## Memory", "",
                    "_(not re-run by the last `make bench`; from an earlier run)_\n\nold table", ""]
    again = report._keep("\n".join(kept) + "\n## Other\n", "## Memory")
    assert again == kept  # the mark is not added twice
    assert report._keep(previous, "## Memory", note=False) == ["## Memory", "", "old table", ""]
    assert report._keep(previous, "## Worker model") == []


def test_sections_written_by_hand_or_other_tools_are_carried_over() -> None:
    """A render keeps every section it does not write itself (the measurements written
    by the issue benchmarks, say), unmarked and in their order, after its own."""
    previous = ("# Benchmark results\n\n## Machine\n\nold machine\n\n"
                "## Builds (issue 19)\n\nbuild table\n\n## Scorekeeping (issue 24)\n\nfan-out\n")
    text = report.render({"cpu": "test"}, None, [], None, None, [], previous)
    assert text.endswith("## Builds (issue 19)\n\nbuild table\n\n"
                         "## Scorekeeping (issue 24)\n\nfan-out\n")
    assert text.count("## Machine") == 1 and "old machine" not in text


def test_a_micro_benchmarks_own_headings_stay_inside_its_section() -> None:
    """A micro-benchmark that prints "## ..." gets it as "#### ...": inside the micro
    section, so a later render keeps the section whole instead of cutting it there."""
    text = report.render({"cpu": "test"}, None, [], None, None,
                         [("options_bench (ok, 1 s)", "## Legal next plays (issue 23)\n\nnew")],
                         "")
    assert "### options_bench (ok, 1 s)\n\n#### Legal next plays (issue 23)\n\nnew" in text
    kept = report.render({"cpu": "test"}, None, [], None, None, None, text)
    assert "#### Legal next plays (issue 23)\n\nnew" in kept
    assert kept.count("## Engine micro-benchmarks") == 1
