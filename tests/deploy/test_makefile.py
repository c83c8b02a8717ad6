"""`make run` installs what serving needs and no more; `make test` adds the dev extra
(issue 21 item 13). Read from `make -n` (prints the commands, runs none) on a venv path
that does not exist, so every install step shows."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import missing

ROOT = Path(__file__).resolve().parents[2]


def dry_run(target: str, tmp_path: Path) -> str:
    if shutil.which("make") is None:
        missing("make")
    out = subprocess.run(["make", "-n", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout


def test_make_run_installs_only_the_runtime_dependencies(tmp_path):
    steps = dry_run("run", tmp_path)
    installs = [line for line in steps.splitlines() if "pip install" in line]
    assert any(line.rstrip().endswith("install -q -e .") for line in installs), installs
    assert not any("[dev]" in line for line in installs), installs
    assert "gunicorn -c deploy/gunicorn.conf.py" in steps


@pytest.mark.parametrize("target", ["test", "lint"])
def test_the_other_targets_add_the_dev_extra(target, tmp_path):
    assert "-e '.[dev]'" in dry_run(target, tmp_path)
