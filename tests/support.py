"""Shared test helpers: system packages the suite needs, and a headless browser.

A test that needs a Debian package (``chromium``, ``nginx``, ``redis-server``) or
node calls :func:`require_binary`. Where the program is missing the test skips with
a message naming the package; under CI (``CI`` set to anything but ``false``/``0``)
the same situation fails the run, because ``.ci/run`` installs every package the
suite needs and a skip there would hide a test that never ran.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# Ports for the servers tests start (gunicorn, nginx, redis-server, cluster buses): below the
# kernel's ephemeral range (32768-60999 on Linux), so no client connection's own port is ever
# handed out, and one slice per pytest-xdist worker, so two workers never pick the same port.
PORT_BASE, PORT_SLICE, PORT_SLICES = 20000, 1500, 8


def _port_slice() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) % PORT_SLICES if worker.isdigit() else 0
    start = PORT_BASE + index * PORT_SLICE
    return range(start, start + PORT_SLICE)


_SLICE = _port_slice()
# from a random point in this worker's slice (a server a killed run left behind keeps its
# port), round the slice, each port at most once per pass
_NEXT = itertools.cycle([*_SLICE[(k := random.randrange(len(_SLICE))):], *_SLICE[:k]])


def free_port() -> int:
    """A loopback port nothing listens on, not handed out before in this test process."""
    for _ in range(len(_SLICE)):
        port = next(_NEXT)
        with socket.socket() as s:  # no SO_REUSEADDR: a port in TIME_WAIT is passed over too
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in {_SLICE.start}-{_SLICE.stop - 1}")


IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def missing(what: str) -> None:
    """Skip (or, under CI, fail) because ``what`` is not installed."""
    message = f"needs {what} (not installed here)"
    if IN_CI:
        pytest.fail(f"{message}; CI installs it in .ci/run, so this must not skip")
    pytest.skip(message)


def require_binary(name: str, package: str | None = None) -> str:
    """The path of executable ``name``; skip or fail naming its Debian ``package``."""
    path = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None)
    if path is None:
        missing(f"the '{package or name}' package ({name})")
    assert path is not None
    return path


@contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright browser on Debian's chromium (Playwright never downloads one)."""
    executable = require_binary("chromium", "chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the 'playwright' Python package")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
