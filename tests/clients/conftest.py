"""The fixtures of the SDK's tests: node with the SDK's locked dev dependencies installed,
and the package, its examples and tests compiled under ``tsc --strict`` (once per worker)."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from tests.clients.sdk import NODE_MAJOR, SDK, build_dir, locked, run, tsc, write_quick_starts
from tests.support import missing, require_binary


@pytest.fixture(scope="session")
def node() -> str:
    """node, with the SDK's locked dev dependencies installed."""
    node = require_binary("node", "nodejs")
    npm = require_binary("npm", "npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < NODE_MAJOR:
        missing(f"node >= {NODE_MAJOR} (the 'nodejs' package; this one is {version})")
    lock = hashlib.sha256((SDK / "package-lock.json").read_bytes()).hexdigest()
    marker = SDK / "node_modules" / ".kaluki-npm-ci"
    with locked("npm-ci"):
        if not marker.exists() or marker.read_text() != lock:
            run([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"], timeout=300)
            marker.write_text(lock)
    return node


@pytest.fixture(scope="session")
def compiled(node) -> Path:
    """src, the examples, the READMEs' quick starts and test/ compiled under --strict,
    in this worker's directory."""
    write_quick_starts()
    out = build_dir()
    tsc(node, "-p", "test/tsconfig.json", "--strict", "--outDir", str(out), "--incremental",
         "--tsBuildInfoFile", str(out / "test.tsbuildinfo"))
    return out
