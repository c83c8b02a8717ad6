"""Durability is checked, not assumed (docs/ledger.md#durability-is-checked): /readyz reads the
Redis's persistence and eviction settings and its memory; every Redis failure is a 503, never a
500."""

from __future__ import annotations

import uuid

import pytest
import redis

from service.app import create_app
from service.ledger.durability import read_settings, risks
from tests.ledger.backends import SIGNING_KEY, ThrowawayRedis


def ready(url, **config):
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": url,
                      "LEDGER_SIGNING_KEY": SIGNING_KEY, "REDIS_RETRIES": 1, **config})
    c = app.test_client()
    return c, c.get("/readyz")


@pytest.fixture
def volatile(tmp_path):
    """A throwaway Redis with the defaults an operator forgets to change: no AOF."""
    server = ThrowawayRedis(str(tmp_path), "--appendonly", "no")
    server.start()
    yield server
    server.stop()


def test_no_aof_makes_readyz_503_with_the_reason(volatile):
    _, r = ready(volatile.url)
    assert r.status_code == 503 and r.headers["Retry-After"]
    assert "redis has no AOF (appendonly no)" in r.get_json()["reason"]
    assert "127.0.0.1" not in r.get_data(as_text=True)  # no addresses for anonymous callers
    _, r = ready(volatile.url, ALLOW_VOLATILE_REDIS=True)
    assert r.status_code == 200 and "accepted: ALLOW_VOLATILE_REDIS" in " ".join(r.get_json()["notes"])


def test_evicting_policy_and_unsynced_aof_fail_readiness(volatile):
    admin = redis.Redis.from_url(volatile.url)
    admin.config_set("appendonly", "yes")
    admin.config_set("maxmemory-policy", "volatile-lru")  # every match key has a TTL
    _, r = ready(volatile.url)
    assert r.status_code == 503
    assert r.get_json()["reason"] == "redis may evict keys (maxmemory-policy volatile-lru)"
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("appendfsync", "no")
    _, r = ready(volatile.url)
    assert r.status_code == 503 and "appendfsync no" in r.get_json()["reason"]
    admin.config_set("appendfsync", "everysec")
    _, r = ready(volatile.url)
    assert r.status_code == 200, r.get_json()


def test_config_disabled_falls_back_to_info(tmp_path):
    server = ThrowawayRedis(str(tmp_path), "--appendonly", "no", "--rename-command", "CONFIG", "")
    server.start()
    try:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        settings = read_settings(client)
        assert settings == {"appendonly": "no", "maxmemory-policy": "noeviction"}
        assert risks(settings) == ["redis has no AOF (appendonly no)"]
        _, r = ready(server.url)
        assert r.status_code == 503 and "appendonly no" in r.get_json()["reason"]
    finally:
        server.stop()


def test_embedded_default_is_durable(embedded_url):
    client = redis.Redis.from_url(embedded_url, decode_responses=True)
    assert client.config_get("save")["save"] == "60 1"  # the save point takes effect
    assert read_settings(client) == {"appendonly": "yes", "appendfsync": "everysec",
                                     "maxmemory-policy": "noeviction"}
    _, r = ready(embedded_url)
    assert r.status_code == 200, r.get_json()


def test_out_of_memory_is_503_and_fails_readiness(tmp_path):
    server = ThrowawayRedis(str(tmp_path), "--maxmemory", "2mb",
                            "--maxmemory-policy", "noeviction")
    server.start()
    try:
        c, r = ready(server.url)
        assert r.status_code == 200, r.get_json()
        res = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
        assert res.status_code == 201
        mid, token = res.get_json()["id"], res.get_json()["token"]
        filler = redis.Redis.from_url(server.url)
        for size in (100_000, 1_000, 10):  # until not even a small write fits
            with pytest.raises(redis.ResponseError, match="maxmemory"):  # OOM command not allowed
                for i in range(3_000):
                    filler.set(f"filler:{size}:{i}", b"x" * size)
        # full, with no margin left: the memory freed later (client buffers) must not make
        # room for the append (it did, about once in 20 runs on a loaded machine)
        used = int(filler.info("memory")["used_memory"])
        filler.config_set("maxmemory", used // 2)
        body = {"score": {"winner": "kim", "finish": "out", "players": [
            {"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}}
        r = c.post(f"/v1/matches/{mid}/hands", json=body, headers={
            "Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
        assert r.headers["Retry-After"]
        r = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
        assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
        r = c.get("/readyz")  # the instance that met the refusal
        assert r.status_code == 503
        assert r.get_json()["reason"] == "redis is out of memory (OOM command not allowed)"
    finally:
        server.stop()


def test_wait_for_replicas_without_any_is_503_and_the_retry_replays(tmp_path):
    """REDIS_WAIT_REPLICAS=1 on a Redis with no replica: the write stands on the primary, the
    client hears 503 (saying the write was taken but not copied), and its retry with the same
    key replays instead of appending twice: still 503 while no replica has it (a replay
    waits too), 201 from an instance that does not wait."""
    server = ThrowawayRedis(str(tmp_path))
    server.start()
    try:
        app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": server.url,
                          "LEDGER_SIGNING_KEY": SIGNING_KEY, "REDIS_WAIT_REPLICAS": 1,
                          "REDIS_WAIT_TIMEOUT_MS": 50})
        c = app.test_client()
        r = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
        assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
        plain = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": server.url,
                            "LEDGER_SIGNING_KEY": SIGNING_KEY}).test_client()
        res = plain.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["a", "b"]})
        mid, token = res.get_json()["id"], res.get_json()["token"]
        body = {"score": {"winner": "a", "finish": "out", "players": [
            {"id": "a", "cards": []}, {"id": "b", "cards": ["Qs"]}]}}
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "once"}
        r = c.post(f"/v1/matches/{mid}/hands", json=body, headers=headers)
        assert r.status_code == 503 and r.headers["Retry-After"]
        assert "could not copy it to 1 replica(s)" in r.get_json()["detail"]
        r = c.post(f"/v1/matches/{mid}/hands", json=body, headers=headers)
        assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
        r = plain.post(f"/v1/matches/{mid}/hands", json=body, headers=headers)
        assert r.status_code == 201 and r.headers["Idempotent-Replayed"] == "true"
        assert c.get(f"/v1/matches/{mid}").get_json()["version"] == 1
    finally:
        server.stop()


def _fill(url: str) -> None:
    """Full for good: maxmemory set below what the server already uses (noeviction), so
    every write is refused however the memory in use moves by a few bytes."""
    filler = redis.Redis.from_url(url)
    used = int(filler.info("memory")["used_memory"])
    filler.config_set("maxmemory", str(used // 2))
    with pytest.raises(redis.ResponseError, match="maxmemory"):  # OOM command not allowed
        filler.set("filler", b"x")


def test_a_full_redis_still_exports_and_says_it_is_out_of_memory(tmp_path):
    """issue 21 items 17 and 18: with the signing key kept in Redis (no LEDGER_SIGNING_KEY),
    a worker that has not read the key yet still exports from a full Redis (the key is read
    before anything is written), and a refused write says the store is out of memory, in
    English and in Dutch, not that it cannot be reached."""
    server = ThrowawayRedis(str(tmp_path), "--maxmemory", "2mb",
                            "--maxmemory-policy", "noeviction")
    server.start()
    config = {"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": server.url, "REDIS_RETRIES": 1}
    try:
        first = create_app(config).test_client()
        res = first.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]})
        mid, token = res.get_json()["id"], res.get_json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        before = first.get(f"/v1/matches/{mid}/export", headers=auth)
        assert before.status_code == 200  # the key is made and kept in Redis
        _fill(server.url)
        fresh = create_app(config).test_client()  # a worker with no key cached
        after = fresh.get(f"/v1/matches/{mid}/export", headers=auth)
        assert after.status_code == 200, after.get_json()
        assert after.get_json()["signature"] == before.get_json()["signature"]
        body = {"score": {"winner": "kim", "finish": "out", "players": [
            {"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}}
        for lang, words in (("en", "out of memory"), ("nl", "geen geheugen")):
            r = fresh.post(f"/v1/matches/{mid}/hands", json=body, headers={
                **auth, "Idempotency-Key": uuid.uuid4().hex, "Accept-Language": lang})
            assert r.status_code == 503 and r.get_json()["code"] == "ledger-unavailable"
            assert words in r.get_json()["detail"] and "reach" not in r.get_json()["detail"]
            assert r.headers["Retry-After"]
    finally:
        server.stop()


def test_the_signing_key_is_read_before_it_is_written(caplog):
    """signing.key_from_redis: an existing key is returned without a write; a key that cannot
    be created (a full Redis) is logged, then raised (the export answers 503)."""
    from service.ledger import signing

    class Full:
        def __init__(self, value):
            self.value, self.writes = value, 0

        def get(self, key):
            return self.value

        def set(self, *args, **kwargs):
            self.writes += 1
            raise redis.exceptions.OutOfMemoryError("command not allowed when used memory > "
                                                    "'maxmemory'")

    holds = Full("k" * 64)
    assert signing.key_from_redis(holds) == b"k" * 64 and holds.writes == 0
    empty = Full(None)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        signing.key_from_redis(empty)
    assert empty.writes == 1
    assert "signing key could not be created" in caplog.text
