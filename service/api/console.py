"""GET /console: the referee console, a page where a person settles a disputed hand.

The page is static (``service/console/static``: HTML, hand-written ES modules, CSS,
example records) and talks only to this service's own API. It is a plain Flask
blueprint, registered outside flask-smorest, so it stays out of the OpenAPI document.
Every response carries a strict Content-Security-Policy: no inline scripts or
styles, nothing fetched from another origin. A hand record never reaches the
server in a URL: the page sends it in a POST body and keeps its permalink in the
URL fragment, which browsers do not send.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).resolve().parent.parent / "console" / "static"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

bp = Blueprint("console", __name__)


@bp.after_request
def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.route("/console")
def page() -> Response:
    """The console page."""
    response = send_from_directory(STATIC, "index.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/console/assets/<path:filename>")
def asset(filename: str) -> Response:
    """The page's scripts, styles and example records."""
    return send_from_directory(STATIC, filename, max_age=300)
