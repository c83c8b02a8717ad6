"""The TypeScript SDK in ``clients/typescript``, driven through node.

Needs node >= 20 and npm (Debian packages ``nodejs`` and ``npm``): without them these
tests skip with a message naming them, and under CI they fail instead. The first run
installs the locked dev dependencies (``npm ci``, from ``package-lock.json``) into
``clients/typescript/node_modules``; later runs reuse them and need no network.

* the committed ``src/schema.ts`` is what ``npm run generate`` makes of
  ``openapi/openapi.json`` today (drift);
* the package and its examples compile under ``tsc --strict``;
* the transport's unit tests (a scripted fetch: retries, Retry-After, keys, If-Match);
* a scenario against gunicorn: a ruling, the README's Hunt record, a match, an append
  whose first answer is lost and whose retry is replayed, standings, problems.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import hashlib
import json
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ledger.servers import ROOT, Gunicorn
from tests.support import missing, require_binary

SDK = ROOT / "clients" / "typescript"
NODE_MAJOR = 20


def _run(args: list[str], timeout: float, **kw) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=kw.pop("cwd", SDK), capture_output=True, text=True,
                          timeout=timeout, **kw)
    assert proc.returncode == 0, (f"{shlex.join(args)} exited {proc.returncode}\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    """One pytest worker at a time (npm ci must not run twice into one node_modules)."""
    digest = hashlib.sha256(str(SDK).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"kaluki-sdk-{digest}-{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def node() -> str:
    """node, with the SDK's locked dev dependencies installed."""
    node = require_binary("node", "nodejs")
    npm = require_binary("npm", "npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < NODE_MAJOR:
        missing(f"node >= {NODE_MAJOR} (the 'nodejs' package; this one is {version})")
    lock = hashlib.sha256((SDK / "package-lock.json").read_bytes()).hexdigest()
    marker = SDK / "node_modules" / ".kaluki-npm-ci"
    with _locked("npm-ci"):
        if not marker.exists() or marker.read_text() != lock:
            _run([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"], timeout=300)
            marker.write_text(lock)
    return node


def _tsc(node: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([node, "node_modules/typescript/bin/tsc", *args], timeout=120)


def test_committed_types_are_generated_from_the_openapi_document(node, tmp_path):
    """`npm run generate` (= `make sdk`) of openapi/openapi.json equals src/schema.ts."""
    script = shlex.split(json.loads((SDK / "package.json").read_text())["scripts"]["generate"])
    assert script[0] == "openapi-typescript" and "--output" in script
    out = script.index("--output") + 1
    committed = SDK / script[out]
    script[out] = str(tmp_path / "schema.ts")
    _run([node, "node_modules/openapi-typescript/bin/cli.js", *script[1:]], timeout=60)
    fresh = (tmp_path / "schema.ts").read_text()
    if fresh != committed.read_text():
        diff = "".join(list(difflib.unified_diff(
            committed.read_text().splitlines(True), fresh.splitlines(True),
            str(committed.relative_to(ROOT)), "regenerated"))[:60])
        pytest.fail(f"the SDK's types are stale: run `make sdk` and commit\n{diff}")


def _build_dir() -> Path:
    """This worker's own output directory (kept: tsc --incremental reuses it)."""
    return SDK / "build" / f"pytest-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


def test_package_compiles_strict(node):
    """The package alone (no node types: it runs in browsers too) under --strict."""
    out = _build_dir()
    _tsc(node, "-p", "tsconfig.json", "--strict", "--noEmit", "--incremental",
         "--tsBuildInfoFile", str(out / "package.tsbuildinfo"))


def _write_quick_starts() -> None:
    """The first ```ts block of the SDK's README and of the service's, where
    test/tsconfig.json includes them."""
    for name, readme in (("sdk", SDK / "README.md"), ("service", ROOT / "README.md")):
        block = re.search(r"```ts\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
        assert block, f"{readme.relative_to(ROOT)} has a ```ts quick start"
        target = SDK / "build" / "readme" / f"{name}.ts"
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{name}.{os.getpid()}.tmp")
        tmp.write_text(block.group(1), encoding="utf-8")
        tmp.replace(target)  # atomic: the other worker's tsc never reads half a file


@pytest.fixture(scope="module")
def compiled(node) -> Path:
    """src, the examples, the READMEs' quick starts and test/ compiled under --strict,
    in this worker's directory."""
    _write_quick_starts()
    out = _build_dir()
    _tsc(node, "-p", "test/tsconfig.json", "--strict", "--outDir", str(out), "--incremental",
         "--tsBuildInfoFile", str(out / "test.tsbuildinfo"))
    return out


def test_examples_and_readme_quick_start_compile_strict(compiled):
    examples = sorted(p.stem for p in (SDK / "examples").glob("*.ts"))
    assert examples == ["retries", "tour"]
    for name in examples:
        assert (compiled / "examples" / f"{name}.js").is_file()
    for name in ("sdk", "service"):
        assert (compiled / "build" / "readme" / f"{name}.js").is_file()


def test_transport_unit_tests(node, compiled):
    proc = _run([node, "--test", str(compiled / "test" / "unit.test.js")], timeout=60)
    assert "# fail 0" in proc.stdout and "# pass 18" in proc.stdout, proc.stdout[-2000:]


def test_scenario_against_gunicorn(node, compiled, tmp_path):
    server = Gunicorn(None, workers=1, threads=2,
                      extra_env={"KALUKI_DATA_DIR": str(tmp_path), "RATELIMIT_ENABLED": "false"})
    try:
        server.wait()
        proc = _run([node, str(compiled / "test" / "scenario.js"), server.base], timeout=30)
    finally:
        server.stop()
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ok"] is True and result["retries"] == 1
