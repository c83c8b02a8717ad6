"""bench/solver_bench.py runs to the end on a few hands (it once stopped at the first
contract rule set of the catalog, which needs a round: make bench then kept stale results)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import solver_bench
from service.engine.rules import CATALOG


def test_the_solver_bench_runs_over_every_classic_rule_set(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    out = tmp_path / "solver.md"
    code = solver_bench.main(["--hands", "8", "--dense", "4", "--repeats", "1",
                              "--oracle-seconds", "2", "--dense-oracle-seconds", "2",
                              "--out", str(out)])
    capsys.readouterr()
    text = out.read_text()
    classic = [name for name, rules in CATALOG.items() if not rules.is_contract]
    assert code == 0 and classic
    for name in classic:
        assert f"| {name} | 8 |" in text and f"| {name} | 4 |" in text
    assert "disagreement" not in text
