"""Take the README's console screenshots: ``python -m tests.console.screenshots``.

Writes docs/console-legal.png (the README's Hunt) and docs/console-illegal.png (the
same hand with one card broken: examples/illegal.hand) from a gunicorn started here and stopped after.
"""

from __future__ import annotations

import tempfile

from service.docs.console import STATIC
from tests.console.test_console_browser import HUNT
from tests.ledger.servers import ROOT, Gunicorn
from tests.support import chromium


def main() -> None:
    from playwright.sync_api import expect

    with tempfile.TemporaryDirectory() as data:
        server = Gunicorn(None, workers=1, extra_env={"KALUKI_DATA_DIR": data,
                                                      "RATELIMIT_ENABLED": "false"}).wait()
        try:
            with chromium() as browser:
                page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-GB")
                page.goto(server.base + "/console")
                broken = (STATIC / "examples" / "illegal.hand").read_text(encoding="utf-8")
                for name, record, legal in (("legal", HUNT, "true"), ("illegal", broken, "false")):
                    page.fill("textarea[name=record]", record)
                    page.click("button[type=submit]")
                    expect(page.locator("#verdict")).to_have_attribute("data-legal", legal)
                    page.locator("h1").click()  # no focus ring in the picture
                    out = ROOT / "docs" / f"console-{name}.png"
                    page.screenshot(path=str(out), full_page=True)
                    print(out.relative_to(ROOT))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
