"""Fast JSON in and out (orjson) for Flask and for problem bodies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from flask import Response
from flask.json.provider import JSONProvider


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


class OrjsonProvider(JSONProvider):
    """Flask's JSON provider backed by orjson (responses are compact UTF-8)."""

    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        # self._app is typed as flask's sansio App; it is a Flask, whose response_class takes a body
        return self._app.response_class(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS),  # type: ignore[arg-type, return-value]
                                        mimetype=self.mimetype)


def json_response(body: Any, status: int = 200,
                  headers: Mapping[str, str] | None = None) -> Response:
    """A JSON response built directly (no app proxy lookups on the hot path): ``body`` is
    data to encode, or JSON already encoded (``bytes``/``str``, e.g. a cached document)."""
    raw = body if isinstance(body, (bytes, str)) else orjson.dumps(
        body, option=orjson.OPT_NON_STR_KEYS)
    resp = Response(raw, status=status, mimetype="application/json")
    if headers:
        for k, v in headers.items():
            resp.headers[k] = v
    return resp
