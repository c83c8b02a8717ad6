"""Graceful stop (issue 12 item 6): SIGTERM turns /readyz 503 first, then the server drains.

Against gunicorn with the production config (default worker model), under load
from clients on kept-alive connections that honour readiness: they stop sending
once /readyz says 503. Not one of their requests may fail, and a request in
flight when the signal comes (its body still arriving) is answered.
"""

from __future__ import annotations

import signal
import socket
import tempfile
import threading
import time

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
