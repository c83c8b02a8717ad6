"""The SDK's build tools, for the tests of clients/typescript: node and npm, run from the
SDK's directory, one worker at a time where they write."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.ledger.servers import ROOT

SDK = ROOT / "clients" / "typescript"
NODE_MAJOR = 20


def run(args: list[str], timeout: float, **kw) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=kw.pop("cwd", SDK), capture_output=True, text=True,
                          timeout=timeout, **kw)
    assert proc.returncode == 0, (f"{shlex.join(args)} exited {proc.returncode}\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """One pytest worker at a time (npm ci must not run twice into one node_modules)."""
    digest = hashlib.sha256(str(SDK).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"kaluki-sdk-{digest}-{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def tsc(node: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run([node, "node_modules/typescript/bin/tsc", *args], timeout=120)


def build_dir() -> Path:
    """This worker's own output directory (kept: tsc --incremental reuses it)."""
    return SDK / "build" / f"pytest-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


def write_quick_starts() -> None:
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
