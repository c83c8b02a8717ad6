"""Observability from outside a gunicorn the test starts with the production config.

JSON log lines (gunicorn's and the app's in one format), request ids in them,
the access log's fields, no tokens or bodies in the logs, and the new metric
families summed over both workers (multiprocess mode). A second server shows
``ACCESS_LOG=off`` and ``LOG_FORMAT=text``.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.ledger.servers import Gunicorn
from tests.support import free_port

SECRET = "tok-" + uuid.uuid4().hex
BODY_MARK = "Qs"  # a card only the request body holds


def _lines(server: Gunicorn) -> list[str]:
    return Path(server.log.name).read_text().splitlines()


def _wait_for(server: Gunicorn, predicate, timeout: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        lines = _lines(server)
        if predicate(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


@pytest.mark.slow
def assert_one_charset(header: str) -> None:
    from tests.web.test_metrics import content_type_params

    kind, params = content_type_params(header)
    assert kind == "text/plain" and params["charset"] == ["utf-8"], header


def test_json_logs_access_log_request_ids_and_metrics():
    dead_redis = f"redis://127.0.0.1:{free_port()}/0"  # the ledger's lines: Redis is away
    server = Gunicorn(dead_redis, workers=2, threads=2,
                      extra_env={"LOG_LEVEL": "INFO", "REDIS_RETRIES": "0",
                                 "GIT_SHA": "feedc0de"}).wait()
    try:
        s = requests.Session()
        ok = s.post(server.base + "/v1/melds/validate", timeout=10,
                    json={"ruleset": "kaluki-51", "cards": ["4c", "4c", "4d"]},
                    headers={"X-Request-ID": "rid-validate-1"})
        assert ok.status_code == 200 and ok.headers["X-Request-ID"] == "rid-validate-1"
        down = s.post(server.base + "/v1/matches/abcdefgh1234/hands", timeout=10,
                      json={"score": {"winner": "kim", "finish": "out", "players": [
                          {"id": "kim", "cards": []}, {"id": "lou", "cards": [BODY_MARK]}]}},
                      headers={"X-Request-ID": "rid-ledger-2", "Authorization": f"Bearer {SECRET}",
                               "Idempotency-Key": "k1"})
        assert down.status_code == 503 and down.json()["request_id"] == "rid-ledger-2"
        bad = s.get(server.base + "/v1/nothing-here", headers={"X-Request-ID": "bad id"},
                    timeout=10)
        generated = bad.headers["X-Request-ID"]
        assert bad.status_code == 404 and generated != "bad id"
        assert bad.json()["request_id"] == generated

        wanted = ("rid-validate-1", "rid-ledger-2", generated)  # /healthz probes log too
        lines = _wait_for(server, lambda ls: all(
            any('"gunicorn.access"' in x and f'"{rid}"' in x for x in ls) for rid in wanted))
        records = [json.loads(x) for x in lines]  # every line is one JSON object
        assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
        loggers = {r["logger"] for r in records}
        assert {"gunicorn.error", "gunicorn.access", "service.ledger"} <= loggers, loggers

        access = {r["request_id"]: r for r in records if r["logger"] == "gunicorn.access"}
        a = access["rid-validate-1"]
        assert (a["method"], a["route"], a["status"]) == ("POST", "/v1/melds/validate", 200)
        assert isinstance(a["duration_ms"], float) and a["duration_ms"] > 0
        assert a["remote_addr"] == "127.0.0.1" and a["level"] == "INFO"
        hands = access["rid-ledger-2"]
        assert hands["route"] == "/v1/matches/<match_id>/hands" and hands["status"] == 503
        assert access[generated]["route"] == "unmatched" and access[generated]["status"] == 404

        ledger = [r for r in records if r["logger"].startswith("service.ledger")]
        assert ledger and all(r.get("request_id") == "rid-ledger-2" for r in ledger), ledger
        text = "\n".join(lines)
        assert SECRET not in text and "Bearer" not in text and BODY_MARK not in text

        # metrics: summed over both workers (each flushes within a second)
        time.sleep(1.5)
        scrape = s.get(server.base + "/metrics", timeout=10)
        assert_one_charset(scrape.headers["Content-Type"])  # the multiprocess path too
        fams = {f.name: f for f in text_string_to_metric_families(scrape.text)}
        vals = {(x.name, tuple(sorted(x.labels.items()))): x.value
                for f in fams.values() for x in f.samples}
        assert vals[("kaluki_ruling_violations_total", (("code", "duplicate-suit"),))] == 1
        assert vals[("kaluki_problems_total", (("code", "ledger-unavailable"),
                                               ("status", "503")))] == 1
        assert vals[("kaluki_problems_total", (("code", "not-found"), ("status", "404")))] == 1
        assert vals[("kaluki_redis_errors_total", (("error", "ConnectionError"),
                                                   ("operation", "connect")))] == 1
        assert vals[("kaluki_build_info", (("api_version", "1.0.0"), ("git_sha", "feedc0de"),
                                           ("version", "0.1.0")))] == 1
        for family in ("kaluki_rate_limited", "kaluki_solver_budget_refusals",
                       "kaluki_ledger_cas_retries", "kaluki_ledger_idempotent_replays",
                       "kaluki_redis_command_duration_seconds"):
            assert family in fams, family
    finally:
        server.stop()


@pytest.mark.slow
def test_access_log_off_and_text_format(tmp_path):
    server = Gunicorn(None, workers=1, threads=2,
                      extra_env={"ACCESS_LOG": "off", "LOG_FORMAT": "text", "LOG_LEVEL": "INFO",
                                 "KALUKI_DATA_DIR": str(tmp_path)}).wait()
    try:
        r = requests.get(server.base + "/healthz", headers={"X-Request-ID": "quiet-1"}, timeout=10)
        assert r.headers["X-Request-ID"] == "quiet-1"
        time.sleep(0.5)
        lines = _lines(server)
        assert lines and not any(line.lstrip().startswith("{") for line in lines)
        assert any("[INFO] gunicorn.error: Booting worker" in line for line in lines)
        assert not any("quiet-1" in line or "/healthz" in line for line in lines)
    finally:
        server.stop()
