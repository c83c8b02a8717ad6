"""Slow and broken clients against gunicorn with the production config (issue 14 item 1).

One server for the module, started by the test with deploy/gunicorn.conf.py as it
is (the default worker model, two workers) and the embedded Redis; every socket
goes to 127.0.0.1 and every test is bounded in time.
"""

from __future__ import annotations

import contextlib
import re
import socket
import statistics
import tempfile
import threading
import time

import pytest
import requests

from tests.ledger.servers import Gunicorn

VALIDATE = b'{"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc"]}'
BODY_TIMEOUT = 3  # REQUEST_BODY_TIMEOUT for this server (default 10 s)
MAX_BODY = 4096  # MAX_BODY_BYTES for this server


@pytest.fixture(scope="module")
def server():
    data = tempfile.TemporaryDirectory(prefix="kaluki-slow-")
    g = Gunicorn(None, threads=None, extra_env={
        "KALUKI_DATA_DIR": data.name, "REQUEST_BODY_TIMEOUT": str(BODY_TIMEOUT),
        "MAX_BODY_BYTES": str(MAX_BODY)})
    try:
        yield g.wait(60)
    finally:
        g.stop()
        data.cleanup()


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def _answer(s: socket.socket, timeout: float = 10) -> bytes:
    """Everything the server sends until it closes (or ``timeout``)."""
    s.settimeout(timeout)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
            if b"\r\n\r\n" in out:
                head, _, rest = out.partition(b"\r\n\r\n")
                length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")]
                if length and len(rest) >= length[0]:
                    break
    except (TimeoutError, ConnectionResetError):
        pass
    return out


def _closed(s: socket.socket) -> bool:
    """The server has closed this connection (an EOF or a reset is waiting)."""
    s.settimeout(0.05)
    try:
        return s.recv(65536) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_slow_loris_does_not_starve_a_normal_client(server):
    """32 sockets stall in their headers, 8 trickle a body: /healthz stays fast."""
    port = server.port
    stop = threading.Event()
    loris = []
    for _ in range(32):  # about 35 bytes of a request, then nothing
        s = _connect(port)
        s.sendall(b"POST /v1/melds/validate HTTP/1.1\r\nHo")
        loris.append(s)
    tricklers = []
    for _ in range(8):  # full headers, then one body byte a second
        s = _connect(port)
        s.sendall(b"POST /v1/melds/validate HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 60\r\n\r\n")
        tricklers.append(s)

    def trickle() -> None:
        for i in range(BODY_TIMEOUT + 3):
            if stop.wait(1.0):
                return
            for s in tricklers:
                with contextlib.suppress(OSError):
                    s.send(VALIDATE[i:i + 1])

    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    started = time.monotonic()
    try:
        times, failures = [], []
        fresh = requests.Session()
        while time.monotonic() - started < 3.5:
            t0 = time.perf_counter()
            try:
                # half on a kept-alive connection, half on new ones
                r = (fresh.get if len(times) % 2 else requests.get)(
                    f"{server.base}/healthz", timeout=5)
                (times if r.status_code == 200 else failures).append(time.perf_counter() - t0)
            except requests.RequestException as exc:
                failures.append(exc)
            time.sleep(0.02)
        assert not failures, failures[:3]
        assert len(times) >= 40
        assert statistics.median(times) < 0.050, statistics.median(times)

        # gunicorn's header deadline (keepalive, 5 s) closes the stalled ones unanswered;
        # the tricklers get 408 after REQUEST_BODY_TIMEOUT
        time.sleep(max(0.0, started + 6.5 - time.monotonic()))
        assert all(_closed(s) for s in loris)
        stop.set()
        answers = [_answer(s, 3) for s in tricklers]
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers[:2]
        assert b'"code":"request-timeout"' in answers[0]
    finally:
        stop.set()
        for s in loris + tricklers:
            s.close()


def _raw(server, head: bytes, body: bytes, shut: bool = True) -> bytes:
    s = _connect(server.port)
    try:
        s.sendall(head + body)
        if shut:
            s.shutdown(socket.SHUT_WR)
        return _answer(s)
    finally:
        s.close()


def test_a_body_shorter_than_its_length_is_never_ruled_on(server):
    """A complete JSON body under a larger Content-Length: 400, not a ruling or a write."""
    for path, body in (("/v1/melds/validate", VALIDATE),
                       ("/v1/matches", b'{"ruleset": "kaluki-hunt", "players": ["a", "b"]}')):
        head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body) + 40}\r\n\r\n").encode()
        answer = _raw(server, head, body)
        assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
        assert b'"code":"body-incomplete"' in answer
        assert b"application/problem+json" in answer
    # the same bodies with their right lengths are answered
    assert requests.post(f"{server.base}/v1/melds/validate", data=VALIDATE,
                         headers={"Content-Type": "application/json"}, timeout=5).ok


def test_chunked_bodies_over_the_limit_are_413_under_it_answered(server):
    def chunks(body: bytes, size: int = 1000):
        for i in range(0, len(body), size):
            yield body[i:i + size]

    url = f"{server.base}/v1/melds/validate"
    headers = {"Content-Type": "application/json"}
    r = requests.post(url, data=chunks(VALIDATE, 7), headers=headers, timeout=10)
    assert r.request.headers.get("Transfer-Encoding") == "chunked"
    assert r.status_code == 200 and r.json()["valid"] is True

    # valid JSON whose first MAX_BODY bytes would parse as well: never cut, always refused
    padded = VALIDATE[:-1] + b" " * MAX_BODY + b"}"
    r = requests.post(url, data=chunks(padded), headers=headers, timeout=10)
    assert r.status_code == 413
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "payload-too-large"

    # a chunked body cut short by the client: no answer is a ruling
    head = (b"POST /v1/melds/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    answer = _raw(server, head, b"%x\r\n%s\r\n" % (len(VALIDATE), VALIDATE))
    assert not answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_oversized_request_lines_and_headers_are_refused(server):
    """gunicorn's limits (limit_request_line, limit_request_field_size) hold."""
    r = requests.get(f"{server.base}/healthz?" + "a" * 5000, timeout=5)
    assert r.status_code in (400, 414)
    r = requests.get(f"{server.base}/healthz", headers={"X-Big": "b" * 9000}, timeout=5)
    assert r.status_code in (400, 431)


def test_the_ledger_and_metrics_work_under_the_default_workers(server):
    """gevent patches before the app loads: redis-py, the embedded Redis and the
    prometheus multiprocess files behave as under the thread models."""
    s = requests.Session()
    created = s.post(f"{server.base}/v1/matches", timeout=10,
                     json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
    assert created.status_code == 201, created.text
    mid, token = created.json()["id"], created.json()["token"]
    for key in ("h1", "h1", "h2"):  # a retry replays
        r = s.post(f"{server.base}/v1/matches/{mid}/hands", timeout=10,
                   headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
                   json={"score": {"winner": "kim", "finish": "out", "players": [
                       {"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}})
        assert r.status_code == 201, r.text
    assert s.get(f"{server.base}/v1/matches/{mid}", timeout=10).json()["hands_played"] == 2
    time.sleep(1.2)  # the workers flush their tallies once a second
    text = s.get(f"{server.base}/metrics", timeout=10).text
    counts = re.findall(r'kaluki_http_request_duration_seconds_count\{method="POST",'
                        r'route="/v1/matches/<match_id>/hands",status="201"\} (\S+)', text)
    assert counts and float(counts[0]) == 3.0, counts
