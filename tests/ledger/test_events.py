"""Live events across instances (docs/api.md#scorekeeping): two gunicorn instances (gevent workers)
share one Redis; hands written on one reach a stream on the other within a second, each exactly
once and in order, across a reconnect with Last-Event-ID; the stream ends after finished.
Run on the embedded Redis, a single Redis and a Redis Cluster (tests/ledger/backends.py)."""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
import requests

from tests.ledger.servers import start_pair
from tests.ledger.test_concurrency import hand_body


@pytest.fixture
def pair(redis_url):
    servers = start_pair(redis_url, threads=None, workers=2,
                         extra_env={"EVENTS_HEARTBEAT_SECONDS": "1"})
    yield servers
    for s in servers:
        s.stop()


class Reader:
    """Reads an SSE stream in a thread: (arrival time, id, event, data) per event."""

    def __init__(self, url: str, last_id: str | None = None) -> None:
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        self.resp = requests.get(url, headers=headers, stream=True, timeout=30)
        assert self.resp.status_code == 200, self.resp.text
        assert self.resp.headers["Content-Type"].startswith("text/event-stream")
        self.events: list[tuple[float, str | None, str, dict]] = []
        self.heartbeats = 0
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        buf = b""
        try:
            for chunk in self.resp.iter_content(chunk_size=None):
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    fields: dict[str, str] = {}
                    for line in block.decode().split("\n"):
                        if line.startswith(":"):
                            self.heartbeats += 1
                            continue
                        name, _, value = line.partition(": ")
                        fields[name] = value
                    if "event" in fields:
                        self.events.append((time.monotonic(), fields.get("id"), fields["event"],
                                            json.loads(fields["data"])))
        except (requests.RequestException, AttributeError):
            pass  # closed by the test
        finally:
            self.ended.set()

    def close(self) -> None:
        self.resp.close()

    def wait_for(self, n: int, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < n and time.monotonic() < deadline:
            time.sleep(0.01)


def test_events_across_instances_exactly_once_in_order(pair):
    a, b = pair[0].base, pair[1].base
    r = requests.post(a + "/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                               "match_end": "hands", "match_hands": 12}, timeout=10)
    mid, token = r.json()["id"], r.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}

    def write(i: int) -> float:
        t0 = time.monotonic()
        resp = requests.post(f"{a}/v1/matches/{mid}/hands", json=hand_body(i * 2 + 1), timeout=10,
                             headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
        assert resp.status_code == 201, resp.text
        return t0

    write(0)  # before any stream: the stream begins with it
    first = Reader(f"{b}/v1/matches/{mid}/events")
    first.wait_for(1)
    written = {0: 0.0}
    for i in range(1, 6):
        written[i] = write(i)
        time.sleep(0.05)
    first.wait_for(6)
    first.close()
    last_id = first.events[-1][1]
    # written while no one listens: the reconnect resumes from the ledger
    for i in range(6, 8):
        written[i] = write(i)
    fix = requests.post(f"{a}/v1/matches/{mid}/hands/2/corrections", timeout=10, headers={
        **auth, "Idempotency-Key": uuid.uuid4().hex}, json={"reason": "void it", "void": True})
    assert fix.status_code == 201
    second = Reader(f"{b}/v1/matches/{mid}/events", last_id=last_id)
    second.wait_for(3)
    for i in range(9, 14):  # the 12th counted hand (one voided) ends the match
        written[i] = write(i - 1)
        time.sleep(0.05)
    assert second.ended.wait(10), "the stream did not end after finished"
    events = first.events + second.events
    ids = [int(e[1]) for e in events if e[2] != "finished"]
    assert ids == list(range(14)), ids  # every entry exactly once, in order
    kinds = [e[2] for e in events]
    assert kinds.count("correction") == 1 and kinds[-1] == "finished"
    assert events[-1][3]["match"]["status"] == "finished"
    assert [e[3]["entry"]["seq"] for e in events[:-1]] == ids
    late = [(seq, round(t - written[seq], 3)) for t, seq_s, kind, _ in events
            if kind in ("hand", "correction") and (seq := int(seq_s)) in written
            and written[seq] and seq not in (6, 7)]
    assert late and all(d < 1.0 for _, d in late), late  # live events within a second


def test_ndjson_resume_after_and_deleted(pair):
    a, b = pair[0].base, pair[1].base
    r = requests.post(a + "/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]},
                      timeout=10)
    mid, token = r.json()["id"], r.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for i in range(3):
        assert requests.post(f"{a}/v1/matches/{mid}/hands", json=hand_body(i * 2 + 1), timeout=10,
                             headers={**auth, "Idempotency-Key": uuid.uuid4().hex}
                             ).status_code == 201
    resp = requests.get(f"{b}/v1/matches/{mid}/events?after=0", stream=True, timeout=30,
                        headers={"Accept": "application/x-ndjson"})
    assert resp.headers["Content-Type"].startswith("application/x-ndjson")
    lines = resp.iter_lines()
    got = [json.loads(next(lines)) for _ in range(2)]
    assert [(g["id"], g["event"]) for g in got] == [(1, "hand"), (2, "hand")]
    assert got[1]["data"]["match"]["version"] == 3
    beat = json.loads(next(lines))
    assert beat == {"event": "heartbeat"}
    t0 = time.monotonic()
    assert requests.delete(f"{a}/v1/matches/{mid}", headers=auth, timeout=10).status_code == 204
    nxt = json.loads(next(lines))
    while nxt.get("event") == "heartbeat":
        nxt = json.loads(next(lines))
    assert nxt["event"] == "deleted" and nxt["data"] == {"id": mid}
    assert time.monotonic() - t0 < 1.0
    assert list(lines) == []  # the stream ends
    assert requests.get(f"{b}/v1/matches/{mid}/events", timeout=10).status_code == 404
