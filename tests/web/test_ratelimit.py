"""Rate limits (issue 14 item 3, docs/api.md#limits): Flask-Limiter counting in the ledger's
Redis."""

from __future__ import annotations

import re
import uuid

import pytest

from service import settings
from service.app import create_app
from service.ledger.embedded import ensure_server
from service.web import ratelimit
from tests.support import free_port

MATCH = {"ruleset": "kaluki-hunt", "players": ["kim", "lou"]}
KIM_WINS = {"score": {"winner": "kim", "finish": "out",
                      "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}}
VALIDATE = {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc"]}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> str:
    """A private embedded Redis: the ledger and the counters share it, as in production."""
    return ensure_server(str(tmp_path_factory.mktemp("ratelimit-redis")))


def limited_app(redis_url: str, prefix: str | None = None, **config):
    return create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url,
                       "RATELIMIT_ENABLED": True,
                       "RATELIMIT_KEY_PREFIX": prefix or uuid.uuid4().hex, **config})


def test_a_creation_burst_meets_429_with_retry_after_and_ratelimit_fields(redis_url):
    c = limited_app(redis_url, RATELIMIT_CREATE="5/minute").test_client()
    statuses = [c.post("/v1/matches", json=MATCH) for _ in range(8)]
    assert [r.status_code for r in statuses] == [201] * 5 + [429] * 3
    ok, refused = statuses[0], statuses[-1]
    assert ok.headers["RateLimit-Policy"] == '"create-5-60s";q=5;w=60'
    assert refused.headers["Content-Type"] == "application/problem+json"
    body = refused.get_json()
    assert body["code"] == "rate-limited" and body["status"] == 429
    assert body["type"] == "/problems/rate-limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["RateLimit-Policy"] == '"create-5-60s";q=5;w=60'
    m = re.fullmatch(r'"create-5-60s";r=0;t=(\d+)', refused.headers["RateLimit"])
    assert m and 0 <= int(m.group(1)) <= 60
    # Dutch, like every problem
    nl = c.post("/v1/matches", json=MATCH, headers={"Accept-Language": "nl"})
    assert nl.status_code == 429 and nl.get_json()["title"] == "Te veel verzoeken"


def test_limits_hold_across_two_instances_sharing_one_redis(redis_url):
    prefix = uuid.uuid4().hex
    a = limited_app(redis_url, prefix, RATELIMIT_CREATE="6/minute").test_client()
    b = limited_app(redis_url, prefix, RATELIMIT_CREATE="6/minute").test_client()
    statuses = [(a if i % 2 else b).post("/v1/matches", json=MATCH).status_code
                for i in range(10)]
    assert statuses == [201] * 6 + [429] * 4


def test_disabled_by_ratelimit_enabled_false(redis_url, monkeypatch):
    off = limited_app(redis_url, RATELIMIT_CREATE="2/minute", RATELIMIT_ENABLED=False)
    assert off.extensions.get("kaluki_limiter") is None
    c = off.test_client()
    answers = [c.post("/v1/matches", json=MATCH) for _ in range(6)]
    assert all(r.status_code == 201 for r in answers)
    assert "RateLimit-Policy" not in answers[-1].headers
    # Flask-Limiter's own variable, read from the environment
    monkeypatch.setenv("RATELIMIT_ENABLED", "false")
    monkeypatch.setenv("RATELIMIT_CREATE", "1/minute")
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url})
    assert app.extensions.get("kaluki_limiter") is None
    monkeypatch.setenv("RATELIMIT_ENABLED", "true")
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url,
                      "RATELIMIT_KEY_PREFIX": uuid.uuid4().hex})
    c = app.test_client()
    assert [c.post("/v1/matches", json=MATCH).status_code for _ in range(2)] == [201, 429]


def test_match_writes_are_also_limited_per_token(redis_url):
    c = limited_app(redis_url, RATELIMIT_MATCH="3/minute").test_client()
    tokens = []
    for _ in range(2):
        body = c.post("/v1/matches", json=MATCH).get_json()
        tokens.append((body["id"], body["token"]))

    def append(mid, token):
        return c.post(f"/v1/matches/{mid}/hands", json=KIM_WINS,
                      headers={"Authorization": f"Bearer {token}",
                               "Idempotency-Key": uuid.uuid4().hex}).status_code

    (m1, t1), (m2, t2) = tokens
    assert [append(m1, t1) for _ in range(4)] == [201, 201, 201, 429]
    assert append(m2, t2) == 201  # another match's token has its own count


def test_healthz_readyz_metrics_and_docs_are_exempt(redis_url):
    app = create_app({"LEDGER_REDIS_URL": redis_url, "RATELIMIT_ENABLED": True,
                      "RATELIMIT_KEY_PREFIX": uuid.uuid4().hex, "RATELIMIT_DEFAULT": "1/minute"})
    c = app.test_client()
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs",
                 "/problems/rate-limited"):
        assert all(c.get(path).status_code == 200 for _ in range(3)), path
    assert [c.get("/v1/rulesets").status_code for _ in range(2)] == [200, 429]


def test_rulings_are_not_counted_by_default_and_can_be(redis_url):
    c = limited_app(redis_url).test_client()
    answers = [c.post("/v1/melds/validate", json=VALIDATE) for _ in range(30)]
    assert all(r.status_code == 200 for r in answers)
    assert "RateLimit-Policy" not in answers[-1].headers  # not even looked at
    c = limited_app(redis_url, RATELIMIT_RULINGS="3/second").test_client()
    assert [c.post("/v1/melds/validate", json=VALIDATE).status_code
            for _ in range(4)] == [200, 200, 200, 429]


def test_a_redis_outage_fails_open(redis_url):
    """Counters unreachable: requests are served (in-memory counts), never a 500."""
    down = f"redis://127.0.0.1:{free_port()}/0"
    c = limited_app(redis_url, RATELIMIT_STORAGE_URI=down,
                    RATELIMIT_CREATE="3/minute").test_client()
    statuses = [c.post("/v1/matches", json=MATCH).status_code for _ in range(5)]
    assert 500 not in statuses
    assert statuses[:3] == [201] * 3  # served; the in-memory fallback still counts
    c = limited_app(redis_url, RATELIMIT_STORAGE_URI=down,
                    RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=False).test_client()
    assert all(c.post("/v1/matches", json=MATCH).status_code == 201 for _ in range(3))


def test_the_client_address_comes_from_x_forwarded_for_only_through_a_trusted_proxy(
        redis_url):
    def burst(app, addresses):
        c = app.test_client()
        return [c.post("/v1/matches", json=MATCH, headers={"X-Forwarded-For": a}).status_code
                for a in addresses]

    spoofed = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    # not trusted (the default): a client cannot spread itself over made-up addresses
    assert burst(limited_app(redis_url, RATELIMIT_CREATE="2/minute"), spoofed) == [201, 201, 429]
    # the proxy (the test client's 127.0.0.1) is trusted: each forwarded address counts alone
    trusted = limited_app(redis_url, RATELIMIT_CREATE="2/minute",
                          FORWARDED_ALLOW_IPS="127.0.0.0/8")
    assert burst(trusted, spoofed) == [201, 201, 201]
    # the right-most untrusted hop is the client; what it claims before that is ignored
    assert burst(trusted, ["198.51.100.9, 203.0.113.1"] * 2) == [201, 429]


def test_storage_uri_follows_the_ledger(tmp_path):
    def uri(**given: str) -> str:
        return ratelimit.storage_uri(settings.load({}, given))

    assert uri(LEDGER_REDIS_URL="unix:///x/redis.sock") == "redis+unix:///x/redis.sock"
    assert uri(KALUKI_DATA_DIR=str(tmp_path)) == f"redis+unix://{tmp_path}/redis.sock"
    down = f"redis://127.0.0.1:{free_port()}/3"
    assert uri(REDIS_URL=down) == down  # not a cluster
