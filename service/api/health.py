"""Liveness and readiness probes (SPEC §8)."""

from __future__ import annotations

from flask import current_app

from .jsonio import dumps, json_response
from .parsing import Blueprint

blp = Blueprint("health", __name__, description="Probes for orchestrators.")


@blp.route("/healthz")
def healthz():
    """The process is alive."""
    return json_response({"status": "ok"})


@blp.route("/readyz")
def readyz():
    """Ready to serve: the ledger store (Redis) answers."""
    check = current_app.extensions.get("kaluki_ready")
    ok, detail = check() if check else (True, "no ledger store configured")
    body = {"status": "ok" if ok else "unavailable", "redis": detail}
    resp = current_app.response_class(dumps(body), status=200 if ok else 503,
                                      mimetype="application/json")
    if not ok:
        resp.headers["Retry-After"] = "5"
    return resp
