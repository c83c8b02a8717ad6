"""Response headers for browsers and caches, the CORS allowlist, and who may read /metrics.

* ``X-Content-Type-Options: nosniff`` on every response (problems answered below
  Flask add it themselves, service/api/problems.py).
* ``Cache-Control: no-store`` on every response that carries a match's write token
  (creation, export, import) and on every answer to a request that sent
  ``Authorization``: no cache, shared or private, keeps a secret or a token-gated page.
* A Content-Security-Policy on every ``text/html`` response that has none: a strict
  default (nothing but this origin's scripts, styles and images, no framing, no
  forms, no plugins) plus the SHA-256 of each inline ``<script>`` the page itself
  carries (the Swagger UI page at ``/docs`` has one).
* ``CORS_ORIGINS``: the origins whose browser pages may call the API, comma-separated;
  default ``*``. The API is made to be called from game frontends in browsers, and it
  has no ambient credentials: no cookies, no sessions, a write needs the match's
  token in ``Authorization``, which a browser never adds by itself. So a page on
  another origin can do nothing a script outside a browser could not do already, and
  ``*`` costs no safety (flask-cors never sends ``Allow-Credentials`` here). An
  operator who wants only their own frontends (e.g. to keep other sites from spending
  the rate limits of their visitors' addresses) lists them.
* ``METRICS_TOKEN``: unset (the default), ``/metrics`` is public like ``/healthz``: it
  holds request counts and latencies by route and status, no ids, tokens or
  addresses, and Prometheus scrapes the pods directly. The production proxy need not
  route it (the deployment keeps it internal). Set, ``/metrics`` needs
  ``Authorization: Bearer <METRICS_TOKEN>`` (401 ``token-required`` / 403
  ``token-invalid`` otherwise), for a deployment where the service's port is reachable
  from outside.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from functools import lru_cache
from typing import Any

from flask import Flask, Response, request
from flask_cors import CORS

from .. import settings
from ..api.problems import Problem
from . import requestid

NOSNIFF = "nosniff"
# endpoints whose answers carry a match's write token
TOKEN_ENDPOINTS = frozenset(("matches.create", "matches.export",
                             "matches.import_match"))
CSP_DEFAULT = ("default-src 'none'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
               "form-action 'none'; frame-ancestors 'none'")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


def cors_origins(found: settings.Settings) -> str | list[str]:
    """``CORS_ORIGINS``: ``*`` or a list of origins."""
    origins = [o.strip() for o in found.CORS_ORIGINS.split(",") if o.strip()]
    return "*" if not origins or "*" in origins else origins


# the response headers a browser page may read (everything the API documents a client reads)
CORS_EXPOSED = ["ETag", "Location", "Retry-After", "Link", "Idempotent-Replayed", "RateLimit",
                "RateLimit-Policy", requestid.HEADER]


def install_cors(app: Flask) -> None:
    """flask-cors for ``CORS_ORIGINS``, its response hook run only for requests that carry
    ``Origin``.

    Only browsers send ``Origin`` and only they read CORS headers; without it the
    hook adds nothing, yet cost 50-80 µs per request (profiled). Game backends
    calling every turn skip it; browsers, preflights included, get it unchanged.
    """
    CORS(app, origins=cors_origins(settings.of(app)), expose_headers=CORS_EXPOSED)
    funcs = app.after_request_funcs.setdefault(None, [])
    cors_hook = funcs[-1]
    assert cors_hook.__name__ == "cors_after_request", "flask-cors registers its hook last"

    def cors_after_request(response: Any) -> Any:
        return cors_hook(response) if "HTTP_ORIGIN" in request.environ else response

    funcs[-1] = cors_after_request


@lru_cache(maxsize=16)
def csp_for(body: bytes) -> str:
    """The default policy, allowing exactly the inline scripts of this page."""
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(m.group(1)).digest()).decode()}'"
        for m in _INLINE_SCRIPT.finditer(body))
    return CSP_DEFAULT.format(scripts=hashes)


def install(app: Flask) -> None:
    token = settings.of(app).METRICS_TOKEN

    @app.after_request
    def _security_headers(response: Response) -> Response:
        headers = response.headers
        headers["X-Content-Type-Options"] = NOSNIFF
        req = request._get_current_object()  # type: ignore[attr-defined]
        if "HTTP_AUTHORIZATION" in req.environ or req.endpoint in TOKEN_ENDPOINTS:
            headers["Cache-Control"] = "no-store"
        if (headers.get("Content-Type", "").startswith("text/html")
                and "Content-Security-Policy" not in headers):
            body = b"" if response.direct_passthrough else response.get_data()
            headers["Content-Security-Policy"] = csp_for(body)
        return response

    if token:
        @app.before_request
        def _metrics_token() -> None:
            if request.endpoint != "metrics":
                return
            auth = request.headers.get("Authorization", "")
            if not auth.startswith("Bearer "):
                raise Problem("token-required", "/metrics needs its bearer token.",
                              headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
            if not hmac.compare_digest(auth[7:].strip().encode(), token.encode()):
                raise Problem("token-invalid", "That is not the metrics token.")
