"""Liveness and readiness probes (docs/api.md#probes).

``/readyz`` tells anonymous callers only ``status`` and a ``reason`` (or, when
ready, ``notes`` such as an accepted volatile Redis), with every path, URL and
address scrubbed (``…``), so no file paths or Redis addresses. The full detail goes
to the log, once each time it changes. While the server drains before a stop
(SIGTERM; deploy/gunicorn.conf.py), ``/readyz`` answers 503 ``draining``.
"""

from __future__ import annotations

import logging
import mmap
import re
from enum import StrEnum
from typing import Literal

from flask import Response, current_app

from .. import settings
from ..web.jsonio import dumps, json_response
from ..web.parsing import Blueprint


class Readiness(StrEnum):
    """``/readyz``'s ``status``; ``/healthz`` answers only ``ok``."""

    OK = "ok"
    UNAVAILABLE = "unavailable"
    DRAINING = "draining"

blp = Blueprint("health", __name__, description="Probes for orchestrators.")
log = logging.getLogger(__name__)

_SCRUB = re.compile(r"[a-z+]+://\S*|(?<![\w.])/[^\s,;)]+|\[[0-9a-f:.]+\](?::\d+)?|"
                    r"[\w.-]+:\d+\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[0-9a-f]*:[0-9a-f:]*:[0-9a-f]*\b",
                    re.I)
_drain: mmap.mmap | None | Literal[False] = None
_last_detail: dict[str, str] = {}


def draining(path: str | None) -> bool:
    """Whether the server stops soon (the flag gunicorn's master sets on SIGTERM, in the
    file ``KALUKI_DRAIN_FILE`` names)."""
    global _drain
    if _drain is None:
        _drain = False
        if path:
            try:
                with open(path, "rb") as f:
                    _drain = mmap.mmap(f.fileno(), 1, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                log.warning("KALUKI_DRAIN_FILE %s cannot be mapped: no drain signal", path)
    return bool(_drain and _drain[0])


def public_reason(detail: str) -> str:
    """What an anonymous caller may read of a readiness detail: every path, URL and
    address scrubbed (a setting such as "(appendonly no)" stays: it is the reason)."""
    text = _SCRUB.sub("…", detail).strip()
    return text[:200] or "unavailable"


@blp.route("/healthz")
def healthz() -> Response:
    """The process is alive."""
    return json_response({"status": Readiness.OK})


@blp.route("/readyz")
def readyz() -> Response:
    """Ready to serve: the ledger store (Redis) answers."""
    body: dict[str, str | list[str]]
    if draining(settings.of(current_app).KALUKI_DRAIN_FILE):
        ok, body = False, {"status": Readiness.DRAINING, "reason": "the server is stopping"}
    else:
        check = current_app.extensions.get("kaluki_ready")
        ok, detail = check() if check else (True, "no ledger store configured")
        if _last_detail.get("detail") != detail and (not ok or "detail" in _last_detail):
            (log.info if ok else log.warning)("readiness: %s", detail)
        _last_detail["detail"] = detail
        if ok:  # the store's own words (a path, an address) stay in the log; its notes
            # (a volatile Redis accepted by ALLOW_VOLATILE_REDIS, a key kept in Redis) do not
            notes = [public_reason(n) for n in detail.split("; ")[1:] if n]
            body = {"status": Readiness.OK, **({"notes": notes} if notes else {})}
        else:
            body = {"status": Readiness.UNAVAILABLE, "reason": public_reason(detail)}
    resp = current_app.response_class(dumps(body), status=200 if ok else 503,
                                      mimetype="application/json")
    if not ok:
        resp.headers["Retry-After"] = "5"
    return resp
