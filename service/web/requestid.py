"""Request ids: ``X-Request-ID`` accepted when it looks like an id, else generated.

A WSGI layer around the app: an incoming ``X-Request-ID`` of 1-128 characters
from ``[A-Za-z0-9._:-]`` is kept (a proxy's or a client's id, so one id follows
a request through every hop); anything else, or none, gets a fresh one (a
uuid4 in hex). The id is echoed on every response (``X-Request-ID``, problems
included), set in ``service.logs.request_id`` so every log line of the request
carries it, left in the WSGI environ for gunicorn's access line, and put in
problem bodies as ``request_id`` (service.api.problems).
"""

from __future__ import annotations

import re
from typing import Any
from uuid import uuid4

from flask import Flask

from ..logs import ENVIRON_KEY, request_id

HEADER = "X-Request-ID"
_looks_like_id = re.compile(r"[A-Za-z0-9._:-]{1,128}").fullmatch


def accept(value: str | None) -> str:
    """The incoming id when it looks like one, else a new one."""
    if value is not None and _looks_like_id(value) is not None:
        return value
    return uuid4().hex


def install(app: Flask) -> None:
    inner = app.wsgi_app

    def with_request_id(environ: dict[str, Any], start_response: Any) -> Any:
        rid = accept(environ.get("HTTP_X_REQUEST_ID"))
        environ[ENVIRON_KEY] = rid

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append((HEADER, rid))
            return start_response(status, headers, exc_info)

        token = request_id.set(rid)
        try:
            return inner(environ, start)
        finally:
            request_id.reset(token)

    app.wsgi_app = with_request_id  # type: ignore[method-assign]
