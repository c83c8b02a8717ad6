"""/docs renders in a real browser, offline, under its CSP: every operation is listed.

Headless Chromium (Debian's, driven by Playwright) opens /docs on a gunicorn the
test starts; every request the page makes must go to that server, the console
must stay free of errors (a CSP violation is one), and the page must list every
operation of /openapi.json by its operationId.
"""

from __future__ import annotations

import pytest
import requests

from tests.ledger.servers import Gunicorn
from tests.support import chromium

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    g = Gunicorn(None, workers=1, threads=4, extra_env={
        "RATELIMIT_ENABLED": "false",
        "KALUKI_DATA_DIR": str(tmp_path_factory.mktemp("docs-redis"))})
    try:
        yield g.wait()
    finally:
        g.stop()


def _operations(base: str) -> list[str]:
    spec = requests.get(base + "/openapi.json", timeout=10).json()
    return sorted(op["operationId"] for item in spec["paths"].values()
                  for method, op in item.items() if method in METHODS)


def test_docs_render_every_operation(server) -> None:
    expected = _operations(server.base)
    assert len(expected) >= 22
    with chromium() as browser:
        page = browser.new_page()
        errors: list[str] = []
        outside: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(server.base + "/")
                or r.url.startswith("data:") else outside.append(r.url))
        response = page.goto(server.base + "/docs")
        assert response is not None and response.ok
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector(".opblock", timeout=30_000)
        shown = sorted(page.eval_on_selector_all(
            ".opblock .opblock-summary-operation-id", "els => els.map(e => e.textContent.trim())"))
        assert shown == expected
        assert page.locator("text=Unable to render this definition").count() == 0
        page.click("#operations-Matches-appendHand .opblock-summary-control")  # open one:
        page.wait_for_selector("#operations-Matches-appendHand .opblock-body .example",
                               timeout=30_000)  # its schemas and examples render too
        page.wait_for_load_state("networkidle")
        assert errors == []
        assert outside == []


def test_problem_pages_render_in_a_browser(server) -> None:
    """A violation's page and a problem's page, as a browser opens them, in both languages."""
    with chromium() as browser:
        page = browser.new_page(locale="nl-NL", extra_http_headers={"Accept-Language": "nl"})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        response = page.goto(server.base + "/problems/card-not-in-hand")
        assert response is not None and response.ok
        assert "script-src" not in response.headers["content-security-policy"]  # no script
        assert page.locator("h2").first.inner_text() == "Wat het betekent"
        assert page.evaluate("getComputedStyle(document.querySelector('main')).maxWidth") != "none"
        page.click("a[hreflang=en]")
        assert page.locator("h2").first.inner_text() == "What it means"
        page.goto(server.base + "/problems/invalid-card?lang=en")
        assert "Invalid card" in page.locator("h1").inner_text()
        assert errors == []
