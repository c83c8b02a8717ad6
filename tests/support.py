"""Shared test helpers: system packages the suite needs, and a headless browser.

A test that needs a Debian package (``chromium``, ``nginx``, ``redis-server``) or
node calls :func:`require_binary`. Where the program is missing the test skips with
a message naming the package; under CI (``CI`` set to anything but ``false``/``0``)
the same situation fails the run, because ``.ci/run`` installs every package the
suite needs and a skip there would hide a test that never ran.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

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
