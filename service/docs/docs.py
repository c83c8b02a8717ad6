"""``GET /docs``: Swagger UI 5, served from the flask-swagger-ui package (no CDN).

Only the package's ``dist`` files are used (Swagger UI's own build, version in
``/docs/assets/VERSION``); the page and its initializer are static files of ours,
so the page runs under a strict Content-Security-Policy: no inline script or
style, nothing loaded from anywhere but this origin.
"""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Flask, Response, send_from_directory

from ..api.problems import NOT_FOUND, Problem

ASSETS = Path(flask_swagger_ui.__file__).resolve().parent / "dist"
STATIC = Path(__file__).resolve().parent / "static"

# Swagger UI sets styles through the DOM (allowed); its CSS uses data: images.
DOCS_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
            "frame-ancestors 'none'")

_ASSET_FILES = frozenset(p.name for p in ASSETS.iterdir() if p.is_file())


def install(app: Flask) -> None:
    @app.route("/docs")
    def docs() -> Response:
        resp = send_from_directory(STATIC, "docs.html", max_age=300)
        resp.headers["Content-Security-Policy"] = DOCS_CSP
        return resp

    @app.route("/docs/init.js")
    def docs_init() -> Response:
        return send_from_directory(STATIC, "docs-init.js", mimetype="text/javascript",
                                   max_age=300)

    @app.route("/docs/assets/<path:filename>")
    def docs_assets(filename: str) -> Response:
        if filename not in _ASSET_FILES:
            raise Problem("not-found", NOT_FOUND)
        return send_from_directory(ASSETS, filename, max_age=86400)
