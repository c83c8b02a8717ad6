"""Two gunicorn instances on one Redis, 32 concurrent writers on one match
(docs/api.md#match-ledgers).

Every hand is sent with its own Idempotency-Key and then retried with the same
key: the ledger must hold each hand exactly once, its chain must verify, and
its standings must equal a re-score of the export.
"""

from __future__ import annotations

import threading
import uuid

import pytest
import requests

from service.ledger.chain import verify
from service.ledger.service import rescore_export as rescore
from tests.ledger.servers import start_pair

WRITERS = 32
HANDS_PER_WRITER = 4
LOSER_CARDS = [["Qs"], ["4d", "5d"], ["JK"], ["As", "2c"], ["9h"], []]


def hand_body(i: int) -> dict:
    winner, loser = ("kim", "lou") if i % 2 else ("lou", "kim")
    cards = LOSER_CARDS[i % len(LOSER_CARDS)] or ["3c"]
    return {"score": {"winner": winner, "finish": "special" if i % 7 == 0 else "out",
                      "players": [{"id": winner, "cards": []}, {"id": loser, "cards": cards}]}}


@pytest.fixture
def servers(redis_url):
    pair = start_pair(redis_url)
    yield pair
    for s in pair:
        s.stop()


@pytest.mark.slow
def test_concurrent_writers_exactly_once(servers, tracker):
    base = [s.base for s in servers]
    r = requests.post(base[0] + "/v1/matches", json={
        "ruleset": "kaluki-hunt", "players": ["kim", "lou"], "match_hands": 10_000}, timeout=10)
    assert r.status_code == 201
    mid, token = r.json()["id"], r.json()["token"]
    tracker.ids.add(mid)
    results: dict[str, tuple[int, dict, bytes]] = {}
    errors: list[str] = []
    lock = threading.Lock()

    def writer(w: int) -> None:
        s = requests.Session()
        try:
            for h in range(HANDS_PER_WRITER):
                i = w * HANDS_PER_WRITER + h
                key = f"w{w}-h{h}-{uuid.uuid4().hex}"
                body = hand_body(i)
                headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
                first = s.post(f"{base[i % 2]}/v1/matches/{mid}/hands", json=body,
                               headers=headers, timeout=30)
                again = s.post(f"{base[(i + 1) % 2]}/v1/matches/{mid}/hands", json=body,
                               headers=headers, timeout=30)
                with lock:
                    if first.status_code != 201 or again.status_code != 201:
                        errors.append(f"{key}: {first.status_code} {again.status_code} "
                                      f"{first.text[:200]}")
                    elif first.content != again.content:
                        errors.append(f"{key}: the retry answered differently")
                    else:
                        results[key] = (first.json()["seq"], body, first.content)
        except Exception as exc:  # pragma: no cover - reported below
            with lock:
                errors.append(repr(exc))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:5]
    total = WRITERS * HANDS_PER_WRITER
    assert len(results) == total
    seqs = sorted(seq for seq, _, _ in results.values())
    assert seqs == list(range(total))  # each hand exactly once, no gaps

    ex = requests.get(f"{base[1]}/v1/matches/{mid}/export", timeout=10,
                      headers={"Authorization": f"Bearer {token}"}).json()
    assert len(ex["entries"]) == total and ex["version"] == total
    assert verify(ex["entries"]) == ex["head"]
    for seq, body, _ in results.values():
        assert ex["entries"][seq]["input"] == body["score"]
    state = rescore(ex)
    match = requests.get(f"{base[0]}/v1/matches/{mid}", timeout=10).json()
    assert state.to_dict()["standings"] == match["standings"] == ex["standings"]
    assert match["hands_played"] == total and match["head"] == ex["head"]
