"""The application factory: wires web (what every request passes through), the resources,
the errors and the docs."""

from __future__ import annotations

import http
from collections.abc import Mapping
from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from . import ledger, logs, settings
from .api import (
    hands,
    health,
    jokers,
    matches,
    melds,
    referee,
    rulesets,
    violations,
)
from .api.common import ProblemSchema
from .api.problems import PROBLEM_MEDIA_TYPE, install
from .docs import contract, docs, pages
from .docs.console import bp as console_bp
from .web import mediatype, metrics, ratelimit, requestid, security
from .web.bodies import BodyGuard
from .web.jsonio import OrjsonProvider
from .web.parsing import install_fast_views

API_TITLE = "Kaluki scoring and adjudication API"
API_VERSION = "1.0.0"
BLUEPRINTS = (health.blp, rulesets.blp, violations.blp, melds.blp, jokers.blp, hands.blp,
              referee.blp, matches.blp)


class KalukiApi(Api):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Api, documenting errors as RFC 9457 problems."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_MEDIA_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "An RFC 9457 problem with a stable `code`",
                    "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_MEDIA_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def _openapi_json(self) -> Response:
        """The document finished for client generators (service/docs/contract.py), built once."""
        cached = getattr(self, "_finished_spec", None)
        if cached is None:
            cached = self._finished_spec = orjson.dumps(contract.finish(self.spec.to_dict()))
        return current_app.response_class(cached, mimetype="application/json")


def _config(overrides: Mapping[str, Any] | None, found: settings.Settings) -> dict[str, Any]:
    return {
        "API_TITLE": API_TITLE,
        "API_VERSION": API_VERSION,
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "MAX_CONTENT_LENGTH": found.MAX_BODY_BYTES,
        # hand records in text notation (docs/notation.md), on the adjudicate endpoint only
        "EXTRA_BODY_TYPES": {"text/vnd.kaluki.hand": ("/v1/hands/adjudicate",)},
        "API_SPEC_OPTIONS": {
            "info": {"description": "Rules, rulings and scores for Kaluki (Kalooki) rummy. "
                                    "Every error is an RFC 9457 problem with a stable `code`."},
        },
        **(overrides or {}),
    }


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app. Its settings (service/settings.py) are read here, once: from ``config``
    by name, else the environment; a bad value raises ``settings.SettingsError``."""
    found = settings.load(overrides=config)
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config.update(_config(config, found))
    app.extensions["kaluki_settings"] = found
    app.url_map.strict_slashes = False
    logs.configure(found)  # JSON lines (LOG_FORMAT=text for people); gunicorn sets up its own

    mediatype.install(app)  # a body is JSON (or a type its path takes), else 415
    api = KalukiApi(app)
    for blp in BLUEPRINTS:
        api.register_blueprint(blp)
    for extra in app.config.get("EXTRA_BLUEPRINTS", ()):
        api.register_blueprint(extra)
    app.register_blueprint(console_bp)  # the referee console page: not in the API document
    ledger.setup(app)  # match ledgers in Redis (created on first use)
    install(app)  # after Api(): our problem handlers replace flask-smorest's
    pages.install(app)  # every problem's and violation's type resolves: /problems/{code}
    if app.config.get("FAST_VIEWS", True):
        install_fast_views(app)

    docs.install(app)  # /docs: Swagger UI 5 from a package, under a strict CSP

    security.install(app)  # nosniff, no-store, CSP; METRICS_TOKEN
    ratelimit.install(app)  # RATELIMIT_* (service/web/ratelimit.py)
    security.install_cors(app)  # CORS_ORIGINS, for requests that carry Origin
    # bodies are read whole and in time before any view sees them (service/web/bodies.py)
    app.wsgi_app = BodyGuard(app.wsgi_app, app.config["MAX_CONTENT_LENGTH"],  # type: ignore[method-assign]
                             found.REQUEST_BODY_TIMEOUT)
    if not app.config.get("TESTING_NO_METRICS"):
        metrics.install(app)
    requestid.install(app)  # outermost: every answer gets X-Request-ID, every log line its id
    return app

