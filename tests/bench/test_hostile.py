"""bench/hostile.py's report: its section in bench/RESULTS.md survives `make bench`."""

from __future__ import annotations

from pathlib import Path

from bench import hostile
from bench.report import _keep, write_section

RESULT = {"date": "2026-12-01 09:00 UTC", "python": "3.11", "seconds_per_endpoint": 1.0,
          "errors": [], "rows": [
              {"endpoint": "analyze", "body": "a", "cpu_ms": 21.0, "status": 422, "bytes": 275},
              {"endpoint": "analyze", "body": "b", "cpu_ms": 60.0, "status": 200, "bytes": 9},
              {"endpoint": "validate", "body": "c", "cpu_ms": 1.0, "status": 200, "bytes": 9}]}


def test_the_worst_body_per_endpoint_is_reported_against_the_target() -> None:
    text = hostile.render(RESULT, before={"analyze": 820.0})
    summary = text.split("Every body measured")[0]
    rows = {line.split(" | ")[0].lstrip("| "): line for line in summary.splitlines()
            if line.startswith("| analyze |") or line.startswith("| validate |")}
    assert "| 60.0 | 820.0 | 200 |" in rows["analyze"] and "**missed**" in rows["analyze"]
    assert "| 1.0 |" in rows["validate"] and "| met |" in rows["validate"]


def test_the_section_is_replaced_and_kept(tmp_path: Path) -> None:
    md = tmp_path / "RESULTS.md"
    md.write_text("# Benchmark results\n\n## Machine\n\nx\n")
    write_section(hostile.render(RESULT), hostile.HEADING, md)
    write_section(hostile.render(RESULT), hostile.HEADING, md)  # replaced, not appended twice
    text = md.read_text()
    assert text.count(hostile.HEADING) == 1 and text.startswith("# Benchmark results")
    kept = "\n".join(_keep(text, hostile.HEADING, note=False))
    assert "| analyze | 60.0 |" in kept and "not re-run" not in kept
