"""bench/report.py: the markdown of bench/RESULTS.md from the sections' numbers."""

from __future__ import annotations

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
