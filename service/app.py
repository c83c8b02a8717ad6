"""The application factory: wires the resources, errors, docs, metrics and CORS."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import swagger_ui_bundle
from flask import Flask, request, send_from_directory
from flask_cors import CORS
from flask_smorest import Api

from .api import hands, health, jokers, melds, rulesets, violations
from .api.jsonio import OrjsonProvider
from .api.problems import Problem, install

API_TITLE = "Kaluki scoring and adjudication API"
API_VERSION = "1.0.0"
BLUEPRINTS = (health.blp, rulesets.blp, violations.blp, melds.blp, jokers.blp, hands.blp)

_JSON_TYPES = ("application/json", "application/problem+json")


def _config(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    return {
        "API_TITLE": API_TITLE,
        "API_VERSION": API_VERSION,
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
        "MAX_CONTENT_LENGTH": int(os.environ.get("MAX_BODY_BYTES", 256 * 1024)),
        "API_SPEC_OPTIONS": {
            "info": {"description": "Rules, rulings and scores for Kaluki (Kalooki) rummy. "
                                    "Every error is an RFC 9457 problem with a stable `code`."},
        },
        **(overrides or {}),
    }


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config.update(_config(config))
    app.url_map.strict_slashes = False
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO").upper())

    _require_json(app)
    api = Api(app)
    for blp in BLUEPRINTS:
        api.register_blueprint(blp)
    for extra in app.config.get("EXTRA_BLUEPRINTS", ()):
        api.register_blueprint(extra)
    install(app)  # after Api(): our problem handlers replace flask-smorest's

    assets = swagger_ui_bundle.swagger_ui_path

    @app.route("/docs/assets/<path:filename>")
    def swagger_assets(filename: str):
        return send_from_directory(assets, filename, max_age=86400)

    CORS(app, expose_headers=["ETag", "Location", "Retry-After"])
    if not app.config.get("TESTING_NO_METRICS"):
        _metrics(app)
    return app


def _require_json(app: Flask) -> None:
    """A body sent as anything but JSON is 415 (SPEC §4)."""

    @app.before_request
    def _check_media_type() -> None:
        if request.method in ("POST", "PUT", "PATCH") and request.content_length != 0:
            mimetype = request.mimetype
            if mimetype in _JSON_TYPES or mimetype.endswith("+json") or (
                    mimetype in app.config.get("EXTRA_BODY_TYPES", ())):
                return
            if not mimetype and not request.content_length and not request.data:
                return
            raise Problem(415, "unsupported-media-type",
                          f"Send the body as application/json, not {mimetype or 'no type'}.",
                          nl="Stuur de inhoud als application/json.")


def _metrics(app: Flask) -> None:
    """Prometheus metrics at /metrics (multiprocess-safe under gunicorn when configured)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_flask_exporter.multiprocess import GunicornPrometheusMetrics as Metrics
    else:
        from prometheus_flask_exporter import PrometheusMetrics as Metrics
    Metrics(app, group_by="url_rule", defaults_prefix="kaluki")
