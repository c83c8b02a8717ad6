"""What a request body may be sent as (docs/api.md#errors-and-codes): JSON, or a type a
path names in ``EXTRA_BODY_TYPES``; anything else is 415 ``unsupported-media-type``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, request

from ..api.problems import Problem
from ..i18n import N_

JSON_TYPES = ("application/json", "application/problem+json")


def install(app: Flask) -> None:
    """Check the body's type before any view (a body-less request passes)."""

    @app.before_request
    def _check_media_type() -> None:
        environ = request.environ
        if environ["REQUEST_METHOD"] not in ("POST", "PUT", "PATCH"):
            return
        content_type = environ.get("CONTENT_TYPE", "")
        if content_type.startswith("application/json"):  # the hot path: no parsing
            return
        if request.content_length != 0:
            mimetype = request.mimetype
            if mimetype in JSON_TYPES or mimetype.endswith("+json"):
                return
            extra = app.config.get("EXTRA_BODY_TYPES", ())
            if mimetype in extra:
                # a mapping names the paths that take the type; a plain list allows it anywhere
                paths = extra.get(mimetype) if isinstance(extra, Mapping) else None
                if paths is None or request.path.rstrip("/") in paths:
                    return
            if not mimetype and not request.content_length and not request.data:
                return
            accepted = " or ".join(["application/json", *_extra_types(extra, request.path)])
            raise Problem("unsupported-media-type",
                          N_("Send the body as {accepted}, not {mimetype}."),
                          params={"accepted": accepted, "mimetype": mimetype or "no type"})


def _extra_types(extra: Any, path: str) -> list[str]:
    """The other body types ``path`` takes (EXTRA_BODY_TYPES), for the 415's detail."""
    if not isinstance(extra, Mapping):
        return list(extra)
    return [t for t, paths in extra.items() if paths is None or path.rstrip("/") in paths]
