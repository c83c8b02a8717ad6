"""Graceful stop (issue 12 item 6): SIGTERM turns /readyz 503 first, then the server drains.

Against gunicorn with the production config (default worker model), under load
from clients on kept-alive connections that honour readiness: they stop sending
once /readyz says 503. Not one of their requests may fail, and a request in
flight when the signal comes (its body still arriving) is answered.
"""

from __future__ import annotations

import os
import signal
import socket
import tempfile
import threading
import time

import pytest
import requests

from tests.ledger.servers import Gunicorn

VALIDATE = b'{"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc"]}'
DRAIN = 1.5


def test_sigterm_drains_without_failing_a_client_that_honours_readiness():
    data = tempfile.TemporaryDirectory(prefix="kaluki-stop-")
    g = Gunicorn(None, threads=None, extra_env={"KALUKI_DATA_DIR": data.name,
                                                "SHUTDOWN_DRAIN_SECONDS": str(DRAIN)})
    try:
        g.wait(60)
        ready = threading.Event()
        ready.set()
        stop = threading.Event()
        lock = threading.Lock()
        ok: list[float] = []
        failures: list[str] = []
        readiness: list[tuple[float, int, str]] = []
        signalled: list[float] = []

        def client() -> None:
            s = requests.Session()
            while ready.is_set() and not stop.is_set():
                try:
                    r = s.post(f"{g.base}/v1/melds/validate", data=VALIDATE, timeout=10,
                               headers={"Content-Type": "application/json"})
                    with lock:
                        if r.status_code != 200:
                            failures.append(f"{r.status_code} {r.text[:100]}")
                        else:
                            ok.append(time.monotonic())
                except requests.RequestException as exc:
                    with lock:
                        failures.append(repr(exc))

        def poll() -> None:
            s = requests.Session()
            while not stop.is_set():
                try:
                    r = s.get(f"{g.base}/readyz", timeout=5)
                    readiness.append((time.monotonic(), r.status_code, r.json()["status"]))
                    if r.status_code == 503:
                        ready.clear()  # the load balancer takes this instance out
                        return
                except requests.RequestException as exc:
                    failures.append(f"readyz: {exc!r}")
                    return
                time.sleep(0.1)

        # a request in flight across the signal: its body arrives over one second
        inflight = socket.create_connection(("127.0.0.1", g.port), timeout=10)
        inflight.sendall(b"POST /v1/melds/validate HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(VALIDATE) + VALIDATE[:10])
        threads = [threading.Thread(target=client) for _ in range(4)]
        threads.append(threading.Thread(target=poll))
        for t in threads:
            t.start()
        probe = requests.Session()  # a kept-alive connection, used again while draining
        assert probe.get(f"{g.base}/healthz", timeout=5).headers["Connection"] == "keep-alive"
        time.sleep(0.7)
        assert ok, failures[:3]
        signalled.append(time.monotonic())
        g.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        during = probe.get(f"{g.base}/healthz", timeout=5)
        inflight.sendall(VALIDATE[10:30])
        time.sleep(0.7)
        inflight.sendall(VALIDATE[30:])
        answer = inflight.recv(65536)
        inflight.close()
        for t in threads:
            t.join(timeout=15)
        stop.set()
        exited = g.proc.wait(timeout=DRAIN + 15)
    finally:
        stop_time = time.monotonic()
        g.stop()
        data.cleanup()

    assert not failures, failures[:5]
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    # a request begun while draining is answered, on a connection that then closes
    assert during.status_code == 200 and during.headers["Connection"] == "close"
    # /readyz turned 503 ("draining") within the drain period, before the server stopped
    turned = [t for t, status, _ in readiness if status == 503]
    assert turned and readiness[-1][2] == "draining", readiness[-3:]
    assert turned[0] - signalled[0] < DRAIN
    # requests kept being answered after the signal, until the clients saw readiness go
    assert any(t > signalled[0] for t in ok)
    assert exited == 0 and stop_time - signalled[0] < DRAIN + 12


def _workers(pid: int) -> set[int]:
    """The master's child processes that are gunicorn workers (the embedded Redis is not)."""
    import pathlib

    found = set()
    for status in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"gunicorn" in cmdline:
            found.add(int(status.parent.name))
    return found


def _one_request(port: int) -> str:
    """A fresh connection and one request: "ok", "refused" (never connected: safe to retry)
    or "reset" (connected and sent its request, then lost: what must never happen)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except (ConnectionRefusedError, TimeoutError):
        return "refused"
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = s.recv(65536)
        return "ok" if answer.startswith(b"HTTP/1.1 200") else "reset"
    except OSError:
        return "reset"
    finally:
        s.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_to_the_process_group_drains_like_sigterm_to_the_master(sig):
    """issue 21 item 12: systemd's KillMode=control-group, Ctrl-C and `kill -- -PGID` signal
    every process. The workers keep serving through the drain (the port answers), none is
    respawned, and the server then stops cleanly. Item 20: from the signal until the server
    is gone, new connections are answered or refused, never reset after their request."""
    data = tempfile.TemporaryDirectory(prefix="kaluki-group-")
    g = Gunicorn(None, threads=None, new_session=True,
                 extra_env={"KALUKI_DATA_DIR": data.name, "SHUTDOWN_DRAIN_SECONDS": str(DRAIN),
                            "LOG_LEVEL": "info", "ACCESS_LOG": "off"})
    outcomes: list[tuple[float, str]] = []
    stop = threading.Event()
    try:
        g.wait(60)
        for _ in range(20):  # both workers up (each binds its own socket: reuse_port)
            if len(_workers(g.proc.pid)) == 2:
                break
            time.sleep(0.2)
        before = _workers(g.proc.pid)
        assert len(before) == 2

        def hammer() -> None:
            while not stop.is_set():
                outcomes.append((time.monotonic(), _one_request(g.port)))

        clients = [threading.Thread(target=hammer) for _ in range(6)]
        for t in clients:
            t.start()
        time.sleep(0.5)
        signalled = time.monotonic()
        os.killpg(g.proc.pid, sig)  # SIGINT: Ctrl-C in a terminal
        time.sleep(DRAIN * 0.7)
        during = _workers(g.proc.pid)
        ready = requests.get(f"{g.base}/readyz", timeout=5)
        exited = g.proc.wait(timeout=DRAIN + 20)
        stop.set()
        for t in clients:
            t.join(timeout=15)
        log = open(g.log.name).read()  # noqa: SIM115 - read before stop() removes it
    finally:
        stop.set()
        g.stop()
        data.cleanup()

    assert exited == 0, log[-2000:]
    # the same workers through the drain: none left at once, none booted
    assert during == before, log[-2000:]
    assert ready.status_code == 503 and ready.json()["status"] == "draining"
    assert log.count("Booting worker") == 2, log[-2000:]
    assert "to the process group" in log
    # issue 21 item 14: the start-up log names the URL (gunicorn's own line is blank with
    # reuse_port: its master holds no socket)
    assert f"Listening at: http://127.0.0.1:{g.port} (" in log, log[:2000]
    assert f"Serving on http://127.0.0.1:{g.port} (2 gevent workers)" in log
    in_drain = [o for t, o in outcomes if signalled < t < signalled + DRAIN * 0.9]
    assert in_drain and set(in_drain) == {"ok"}, in_drain[:10]
    # the end of the drain: nothing reset
    assert [o for _, o in outcomes].count("reset") == 0, [o for _, o in outcomes][-40:]
