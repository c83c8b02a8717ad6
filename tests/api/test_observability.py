"""Request ids, log records and the metric families beyond the request histogram (in-process).

tests/ledger/test_observability_gunicorn.py reads the same things from a gunicorn
the test starts: JSON log lines, the access log and multiprocess metrics.
"""

from __future__ import annotations

import io
import json
import logging
import re
import uuid

import pytest
from flask import Blueprint as FlaskBlueprint
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from service import logs
from service.api.problems import Problem
from service.app import create_app
from service.ledger.chain import GENESIS
from service.web import metrics
from service.web.requestid import accept
from tests.ledger.backends import ThrowawayRedis
from tests.support import free_port

HEX32 = re.compile(r"[0-9a-f]{32}")
VALID = {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc"]}
DUPLICATE_SUIT = {"ruleset": "kaluki-51", "cards": ["4c", "4c", "4d"]}
SCORE = {"score": {"winner": "kim", "finish": "out",
                   "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs"]}]}}

# -- request ids ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING_NO_METRICS": True}).test_client()


@pytest.mark.parametrize("given_id", ["abc-123", "a", "x" * 128, "req_1.2:3-Z",
                                      "01J9ZK3Q4W5E6R7T8Y9U0I1O2P"])
def test_an_incoming_id_is_kept_and_echoed(client, given_id):
    r = client.post("/v1/melds/validate", json=VALID, headers={"X-Request-ID": given_id})
    assert r.status_code == 200 and r.headers["X-Request-ID"] == given_id


@pytest.mark.parametrize("bad", ["", "x" * 129, "has space", "semi;colon", "ünï", "a/b",
                                 "<script>", "id\ttab"])
def test_a_malformed_id_is_replaced(client, bad):
    r = client.post("/v1/melds/validate", json=VALID, headers={"X-Request-ID": bad})
    assert r.status_code == 200
    assert HEX32.fullmatch(r.headers["X-Request-ID"]), r.headers["X-Request-ID"]


def test_an_id_is_generated_when_none_is_sent(client):
    ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(5)}
    assert len(ids) == 5 and all(HEX32.fullmatch(i) for i in ids)


@given(st.text(max_size=140))
def test_accept_keeps_exactly_the_ids_that_look_like_ids(value):
    looks = 1 <= len(value) <= 128 and all(
        c.isascii() and (c.isalnum() or c in "._:-") for c in value)
    assert (accept(value) == value) == looks
    if not looks:
        assert HEX32.fullmatch(accept(value))


@pytest.mark.parametrize("request_args,status,code", [
    (("get", "/no/such/path", {}), 404, "not-found"),
    (("post", "/v1/melds/validate", {"json": {"ruleset": "kaluki-51"}}), 422, "validation-error"),
    (("post", "/v1/melds/validate", {"data": "x", "content_type": "text/plain"}), 415,
     "unsupported-media-type"),
    (("post", "/v1/melds/validate", {"data": "{", "content_type": "application/json"}), 400,
     "malformed-json"),
    (("delete", "/v1/melds/validate", {}), 405, "method-not-allowed"),
])
def test_problems_carry_the_id_in_header_and_body(client, request_args, status, code):
    method, path, kw = request_args
    for sent in ("given-id-42", None):
        headers = {"X-Request-ID": sent} if sent else {}
        r = getattr(client, method)(path, headers=headers, **kw)
        assert r.status_code == status and r.mimetype == "application/problem+json"
        body = r.get_json()
        assert body["code"] == code
        assert body["request_id"] == r.headers["X-Request-ID"]
        if sent:
            assert body["request_id"] == sent


def test_a_500_carries_the_id_too():
    bp = FlaskBlueprint("boom", __name__)

    @bp.route("/boom")
    def boom():
        raise RuntimeError("kaboom")

    app = create_app({"TESTING_NO_METRICS": True})
    app.register_blueprint(bp)
    r = app.test_client().get("/boom", headers={"X-Request-ID": "r500"})
    assert r.status_code == 500 and r.headers["X-Request-ID"] == "r500"
    assert r.get_json()["request_id"] == "r500"


def test_the_header_is_exposed_to_browsers(client):
    r = client.get("/healthz", headers={"Origin": "https://example.org"})
    assert "X-Request-ID" in r.headers["Access-Control-Expose-Headers"]


# -- log records ------------------------------------------------------------------------

def _capture(formatter: logging.Formatter) -> tuple[io.StringIO, logging.Handler]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(logs.RequestIdFilter())
    logging.getLogger().addHandler(handler)
    return stream, handler


def test_every_line_of_a_request_has_its_id_even_the_ledgers(tmp_path):
    """The ledger's own warning (Redis gone) is a JSON line with the request's id."""
    server = ThrowawayRedis(str(tmp_path))
    server.start()
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": server.url,
                      "REDIS_RETRIES": 0})
    c = app.test_client()
    mid = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"]}
                 ).get_json()["id"]
    server.stop(hard=True)
    stream, handler = _capture(logs.json_formatter())
    try:
        r = c.get(f"/v1/matches/{mid}", headers={"X-Request-ID": "ledger-line-7",
                                                 "Authorization": "Bearer s3cr3t-token"})
    finally:
        logging.getLogger().removeHandler(handler)
    assert r.status_code == 503
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    ledger = [x for x in lines if x["logger"] == "service.ledger.store"]
    assert ledger, lines
    assert all(x["request_id"] == "ledger-line-7" for x in ledger)
    assert ledger[0]["level"] == "WARNING" and ledger[0]["operation"] == "load"
    assert {"time", "message", "error"} <= set(ledger[0])
    assert "s3cr3t-token" not in stream.getvalue()


def test_lines_outside_a_request_have_no_id_and_text_format_reads(monkeypatch):
    stream, handler = _capture(logs.TextFormatter())
    try:
        logging.getLogger("kaluki.test").warning("outside")
    finally:
        logging.getLogger().removeHandler(handler)
    assert stream.getvalue().rstrip().endswith("kaluki.test: outside [-]")


def test_gunicorn_logging_config(monkeypatch):
    monkeypatch.setenv("ACCESS_LOG", "off")
    assert logs.access_target() is None
    monkeypatch.setenv("ACCESS_LOG", "/tmp/x.log")
    assert logs.dict_config()["handlers"]["access"]["filename"] == "/tmp/x.log"
    monkeypatch.delenv("ACCESS_LOG")
    cfg = logs.dict_config("warning")
    assert cfg["handlers"]["access"]["stream"] == "ext://sys.stdout"
    assert cfg["loggers"]["gunicorn.access"]["level"] == "INFO"  # on whatever LOG_LEVEL says
    assert cfg["root"]["level"] == "WARNING"
    monkeypatch.setenv("LOG_FORMAT", "text")
    assert logs.dict_config()["formatters"]["kaluki"]["()"] == "service.logs.TextFormatter"


# -- metrics ----------------------------------------------------------------------------

def samples(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(resp.data.decode()) for s in fam.samples}


def value(snapshot, name: str, **labels: str) -> float:
    return snapshot.get((name, tuple(sorted(labels.items()))), 0.0)


def test_ruling_violations_by_code():
    c = create_app().test_client()
    c.post("/v1/melds/validate", json=VALID)  # a ruling without violations counts nothing
    before = samples(c)
    for _ in range(3):
        assert c.post("/v1/melds/validate", json=DUPLICATE_SUIT).get_json()["valid"] is False
    after = samples(c)
    assert value(after, "kaluki_ruling_violations_total", code="duplicate-suit") - value(
        before, "kaluki_ruling_violations_total", code="duplicate-suit") == 3
    assert sum(v for (n, _), v in after.items() if n == "kaluki_ruling_violations_total") == 3


def test_problems_rate_limits_and_budget_refusals():
    """Counted from the problems answered, whichever part of the service raises them."""
    bp = FlaskBlueprint("limits", __name__)

    @bp.route("/limited")
    def limited():
        raise Problem("rate-limited", "slow down", headers={"Retry-After": "1"})

    @bp.route("/too-large")
    def too_large():
        raise Problem("search-too-large", "too many combinations")

    app = create_app()
    app.register_blueprint(bp)
    c = app.test_client()
    before = samples(c)
    c.get("/limited")
    c.get("/limited")
    c.get("/too-large")
    c.get("/no/such/path")
    after = samples(c)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("kaluki_problems_total", code="rate-limited", status="429") == 2
    assert moved("kaluki_problems_total", code="search-too-large", status="422") == 1
    assert moved("kaluki_problems_total", code="not-found", status="404") == 1
    assert moved("kaluki_rate_limited_total") == 2
    assert moved("kaluki_solver_budget_refusals_total") == 1


def test_ledger_metrics_redis_calls_replays_cas_and_errors(tmp_path):
    server = ThrowawayRedis(str(tmp_path))
    server.start()
    try:
        app = create_app({"LEDGER_REDIS_URL": server.url, "REDIS_RETRIES": 0})
        c = app.test_client()
        created = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                              "match_hands": 100}).get_json()
        mid, token = created["id"], created["token"]
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
        first = c.post(f"/v1/matches/{mid}/hands", json=SCORE, headers=headers)
        again = c.post(f"/v1/matches/{mid}/hands", json=SCORE, headers=headers)
        assert first.status_code == again.status_code == 201
        assert again.headers["Idempotent-Replayed"] == "true"
        # a writer that read version 0 loses the compare-and-set to the append above
        store = app.extensions["kaluki_ledger"].get()
        stale = store.append(mid, idem_key="", fingerprint="f", expected_version=0,
                             expected_head=GENESIS, entry="{}", new_head="0" * 64, state={})
        assert stale.kind == "conflict"
        mid_snapshot = samples(c)
        server.stop(hard=True)
        assert c.get(f"/v1/matches/{mid}").status_code == 503
        after = samples(c)
    finally:
        server.stop()
    count = "kaluki_redis_command_duration_seconds_count"
    assert value(mid_snapshot, count, operation="create") == 1
    # the worker remembers the match it created: both appends are one script run each (the
    # retry answered by the script's Idempotency-Key check), no read first
    assert value(mid_snapshot, count, operation="load") == 0
    assert value(mid_snapshot, count, operation="append") == 3
    assert value(mid_snapshot, "kaluki_ledger_idempotent_replays_total") == 1
    assert value(mid_snapshot, "kaluki_ledger_cas_retries_total") == 1
    assert value(mid_snapshot, "kaluki_redis_errors_total", operation="load",
                 error="ConnectionError") == 0
    assert value(after, "kaluki_redis_errors_total", operation="load", error="ConnectionError") == 1
    assert value(after, count, operation="load") == 1  # failed calls are timed too


def test_a_store_that_cannot_connect_counts_as_a_connect_error():
    app = create_app({"LEDGER_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
                      "REDIS_RETRIES": 0})
    c = app.test_client()
    assert c.get("/v1/matches/abcdefgh1234").status_code == 503
    assert value(samples(c), "kaluki_redis_errors_total", operation="connect",
                 error="ConnectionError") == 1


def test_build_info(monkeypatch):
    monkeypatch.setenv("GIT_SHA", "0123abc")
    c = create_app().test_client()
    snapshot = samples(c)
    info = [dict(labels) for (name, labels), v in snapshot.items()
            if name == "kaluki_build_info" and v == 1]
    assert info == [{"version": metrics.package_version(), "api_version": "1.0.0",
                     "git_sha": "0123abc"}]
    monkeypatch.delenv("GIT_SHA")
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", metrics.git_sha())
