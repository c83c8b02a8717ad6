"""Response headers (issue 14 item 7): nosniff, no-store, CSP, CORS, /readyz and /metrics."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from service.app import create_app
from service.ledger.embedded import ensure_server
from tests.support import free_port

MATCH = {"ruleset": "kaluki-hunt", "players": ["kim", "lou"]}
VALIDATE = {"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK", "Qc"]}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> str:
    return ensure_server(str(tmp_path_factory.mktemp("headers-redis")))


@pytest.fixture(scope="module")
def c(redis_url):
    return create_app({"LEDGER_REDIS_URL": redis_url}).test_client()  # with /metrics


@pytest.mark.parametrize("method,path,body,status", [
    ("post", "/v1/melds/validate", VALIDATE, 200),
    ("post", "/v1/melds/validate", {"ruleset": "kaluki-51", "cards": ["Zz"]}, 422),
    ("get", "/v1/no-such-thing", None, 404),
    ("get", "/healthz", None, 200),
    ("get", "/readyz", None, 200),
    ("get", "/metrics", None, 200),
    ("get", "/openapi.json", None, 200),
    ("get", "/docs", None, 200),
    ("get", "/docs/assets/swagger-ui.css", None, 200),
    ("post", "/v1/matches", MATCH, 201),
])
def test_nosniff_on_every_response(c, method, path, body, status):
    r = getattr(c, method)(path, json=body) if body is not None else getattr(c, method)(path)
    assert r.status_code == status
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_a_media_type_error_and_a_body_refused_below_flask_carry_nosniff(c):
    r = c.post("/v1/melds/validate", data="x", content_type="text/plain")
    assert r.status_code == 415 and r.headers["X-Content-Type-Options"] == "nosniff"
    r = c.post("/v1/melds/validate", data=b"{}", content_type="application/json",
               environ_overrides={"CONTENT_LENGTH": "40"})
    assert r.status_code == 400 and r.get_json()["code"] == "body-incomplete"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_answers_that_carry_a_token_are_no_store(c):
    created = c.post("/v1/matches", json=MATCH)
    assert created.status_code == 201 and created.headers["Cache-Control"] == "no-store"
    body = created.get_json()
    auth = {"Authorization": f"Bearer {body['token']}"}
    export = c.get(f"/v1/matches/{body['id']}/export", headers=auth)
    assert export.status_code == 200 and export.headers["Cache-Control"] == "no-store"
    imported = c.post("/v1/matches/import", json=export.get_json())  # 409 here: a live id
    assert imported.headers["Cache-Control"] == "no-store"
    # a read needs no token and may be cached by the client's own rules
    read = c.get(f"/v1/matches/{body['id']}")
    assert read.status_code == 200 and "no-store" not in read.headers.get("Cache-Control", "")
    # any answer to a request that sent a token is no-store too
    assert c.get(f"/v1/matches/{body['id']}", headers=auth).headers["Cache-Control"] == "no-store"


def test_html_pages_get_a_strict_csp_with_no_inline_scripts(c):
    for path in ("/docs", "/console", "/problems/invalid-card"):
        r = c.get(path, headers={"Accept": "text/html"})
        assert r.mimetype == "text/html", path
        csp = r.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["default-src"] == "'none'" or directives["default-src"] == "'self'", path
        assert directives["frame-ancestors"] == "'none'" and directives["base-uri"] == "'none'", path
        assert "'unsafe-inline'" not in directives.get("script-src", ""), path
        assert not re.findall(rb"<script>(.*?)</script>", r.data, re.S), path  # no inline code
    assert "Content-Security-Policy" not in c.get("/healthz").headers  # JSON needs none


def test_an_html_page_without_its_own_policy_gets_the_strict_default(c):
    from service.web.security import csp_for

    csp = csp_for(b"<html><script>alert(1)</script></html>")
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    digest = base64.b64encode(hashlib.sha256(b"alert(1)").digest()).decode()
    assert set(directives["script-src"].split()) == {"'self'", f"'sha256-{digest}'"}
    assert directives["default-src"] == "'none'"


def test_cors_allows_any_origin_by_default_and_an_allowlist_when_set(redis_url, monkeypatch):
    c = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url}).test_client()
    for origin in ("https://game.example", "http://localhost:5173"):
        r = c.post("/v1/melds/validate", json=VALIDATE, headers={"Origin": origin})
        assert r.headers["Access-Control-Allow-Origin"] == origin  # flask-cors echoes it
        assert "Access-Control-Allow-Credentials" not in r.headers
        assert "Origin" in r.headers["Vary"]
    # no Origin, no CORS headers (the fast path for game backends)
    assert "Access-Control-Allow-Origin" not in c.post("/v1/melds/validate", json=VALIDATE).headers

    monkeypatch.setenv("CORS_ORIGINS", "https://game.example, https://admin.game.example")
    c = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url}).test_client()
    r = c.post("/v1/melds/validate", json=VALIDATE, headers={"Origin": "https://game.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "https://game.example"
    exposed = {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Retry-After", "RateLimit", "RateLimit-Policy"} <= exposed
    r = c.post("/v1/melds/validate", json=VALIDATE, headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in r.headers
    pre = c.options("/v1/matches", headers={"Origin": "https://admin.game.example",
                                            "Access-Control-Request-Method": "POST"})
    assert pre.headers["Access-Control-Allow-Origin"] == "https://admin.game.example"


def test_readyz_reveals_no_paths_or_addresses(redis_url, tmp_path):
    ok = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url,
                     "ALLOW_VOLATILE_REDIS": True}).test_client()  # the machine's has no AOF
    r = ok.get("/readyz")
    assert r.status_code == 200 and set(r.get_json()) <= {"status", "notes"}
    assert "127.0.0.1" not in r.get_data(as_text=True) and "redis://" not in r.get_data(as_text=True)

    embedded = create_app({"TESTING_NO_METRICS": True,
                           "KALUKI_DATA_DIR": str(tmp_path)}).test_client()
    r = embedded.get("/readyz")
    assert r.status_code == 200 and str(tmp_path) not in r.get_data(as_text=True)

    port = free_port()
    down = create_app({"TESTING_NO_METRICS": True, "REDIS_RETRIES": 0,
                       "LEDGER_REDIS_URL": f"redis://127.0.0.1:{port}/0"}).test_client()
    r = down.get("/readyz")
    assert r.status_code == 503 and r.headers["Retry-After"]
    text = r.get_data(as_text=True)
    assert r.get_json()["status"] == "unavailable" and r.get_json()["reason"]
    assert str(port) not in text and "127.0.0.1" not in text and "redis://" not in text


def test_metrics_are_public_unless_metrics_token_is_set(redis_url, monkeypatch):
    monkeypatch.setenv("METRICS_TOKEN", "s3cret-metrics")
    c = create_app({"LEDGER_REDIS_URL": redis_url}).test_client()
    r = c.get("/metrics")
    assert r.status_code == 401 and r.get_json()["code"] == "token-required"
    assert c.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 403
    r = c.get("/metrics", headers={"Authorization": "Bearer s3cret-metrics"})
    assert r.status_code == 200 and b"kaluki_http_request_duration_seconds" in r.data
    assert c.get("/healthz").status_code == 200  # only /metrics is guarded


def test_the_docs_page_runs_in_a_browser_under_its_csp(redis_url):
    """Chromium loads /docs with the strict policy: its scripts run, nothing is refused.

    """
    import threading

    from werkzeug.serving import make_server

    from tests.support import chromium

    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": redis_url})
    server = make_server("127.0.0.1", free_port(), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with chromium() as browser:
            page = browser.new_page()
            page.add_init_script("window.__csp = []; document.addEventListener("
                                 "'securitypolicyviolation', e => window.__csp.push("
                                 "e.violatedDirective + ' ' + e.blockedURI));")
            messages: list[str] = []
            page.on("console", lambda m: messages.append(m.text))
            page.goto(f"http://127.0.0.1:{server.server_port}/docs", timeout=20_000)
            # the start-up script (a file, no inline code) ran and Swagger UI drew the operations
            page.wait_for_selector(".opblock", timeout=20_000)
            page.wait_for_timeout(500)
            assert page.evaluate("window.__csp") == []
            assert not [m for m in messages if "Content Security Policy" in m], messages
    finally:
        server.shutdown()
        thread.join(timeout=5)
