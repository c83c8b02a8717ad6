"""Request bodies are read whole, in bounded time, before any view runs (docs/api.md#limits,
docs/deploy.md#deploying-the-service).

A WSGI layer under Flask reads every request body itself, so that:

* a body shorter than its ``Content-Length`` (the client stopped sending or hung up)
  is never ruled on: it is a 400 ``body-incomplete`` (if anyone is still listening),
  never a ruling or a write made from a truncated body;
* a chunked body (no ``Content-Length``) over ``MAX_BODY_BYTES`` is a 413
  ``payload-too-large``, not a body silently cut at the limit; under the limit it is
  handed on as if it had come with its length;
* a body must arrive within ``REQUEST_BODY_TIMEOUT`` seconds (default 10) from the
  moment the view would read it: a client trickling bytes is a 408
  ``request-timeout``. Under gevent workers (the default) the deadline is exact (a
  ``gevent.Timeout`` around the whole read); under sync/gthread workers each read
  from the socket waits at most the time left.

The request line and headers are gunicorn's to bound (``keepalive`` under gevent,
``limit_request_*``; deploy/gunicorn.conf.py).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..api.problems import PAYLOAD_TOO_LARGE, Problem
from ..i18n import N_

_METHODS_WITH_BODY = frozenset(("POST", "PUT", "PATCH", "DELETE"))
CHUNK = 64 * 1024

StartResponse = Callable[..., Any]


class _Incomplete(Exception):
    pass


def _gevent_timeout() -> Any:
    """gevent's Timeout class when this process runs patched gevent, else None."""
    gevent = sys.modules.get("gevent")
    if gevent is None:
        return None
    from gevent import monkey

    return gevent.Timeout if monkey.is_module_patched("socket") else None


class BodyGuard:
    """WSGI middleware: read the body completely and in time, or answer for it."""

    def __init__(self, app: Callable[..., Iterable[bytes]], max_bytes: int,
                 timeout: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout
        # under the gevent worker the app is created after gevent has patched
        self.gevent_timeout = _gevent_timeout()

    def __call__(self, environ: dict[str, Any], start_response: StartResponse
                 ) -> Iterable[bytes]:
        if environ["REQUEST_METHOD"] not in _METHODS_WITH_BODY:
            return self.app(environ, start_response)
        length = environ.get("CONTENT_LENGTH")
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if not chunked:
            if not length:
                return self.app(environ, start_response)
            try:
                expected = int(length)
            except ValueError:
                return self.app(environ, start_response)  # werkzeug's 400
            if expected <= 0 or expected > self.max_bytes:
                return self.app(environ, start_response)  # nothing to read / werkzeug's 413
            limit = expected
        else:
            expected = None
            limit = self.max_bytes + 1  # one byte over the limit says "too large"
        try:
            body = self._read(environ, limit, expected)
        except _Incomplete:
            return _answer(Problem(
                "body-incomplete", N_("The body ended before its Content-Length of {expected} "
                                      "bytes."), params={"expected": expected}),
                environ, start_response)
        except TimeoutError:
            return _answer(Problem(
                "request-timeout", N_("The request body did not arrive within {timeout:g} s."),
                params={"timeout": self.timeout}, headers={"Connection": "close"}),
                environ, start_response)
        if expected is None and len(body) > self.max_bytes:
            return _answer(Problem("payload-too-large", PAYLOAD_TOO_LARGE,
                                   params={"limit": self.max_bytes}), environ, start_response)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = False
        return self.app(environ, start_response)

    def _read(self, environ: dict[str, Any], limit: int, expected: int | None) -> bytes:
        stream = environ["wsgi.input"]
        if expected is not None and _buffered(stream) >= expected:
            body: bytes = stream.read(expected)  # already received with the headers: no waiting
            if len(body) < expected:
                raise _Incomplete
            return body
        deadline = time.monotonic() + self.timeout
        gevent_timeout = self.gevent_timeout
        if gevent_timeout is not None:
            with gevent_timeout(self.timeout, TimeoutError):
                return _read_all(stream, limit, expected, None, deadline)
        return _read_all(stream, limit, expected, environ.get("gunicorn.socket"), deadline)


def _buffered(stream: Any) -> int:
    """How much of a gunicorn request body has already been received (0 if unknown).

    The common small body arrives in the same packets as the headers; reading it
    needs no deadline (a timer costs a few µs per request).
    """
    try:
        if stream.buf.tell():  # gunicorn's Body has read ahead itself: not the simple case
            return 0
        buf = stream.reader.unreader.buf
        size: int = buf.seek(0, io.SEEK_END)
        return size
    except AttributeError:
        return 0


def _read_all(stream: Any, limit: int, expected: int | None, sock: Any,
              deadline: float) -> bytes:
    parts: list[bytes] = []
    got = 0
    previous = sock.gettimeout() if sock is not None else None
    try:
        while got < limit:
            if sock is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
            try:
                data = stream.read(min(CHUNK, limit - got))
            except TimeoutError as exc:
                raise TimeoutError from exc
            except OSError as exc:  # the client went away mid-body
                raise _Incomplete from exc
            except Exception as exc:  # gunicorn's parser: a broken chunked encoding
                if type(exc).__module__.startswith("gunicorn.http"):
                    raise _Incomplete from exc
                raise
            if not data:
                break
            parts.append(data)
            got += len(data)
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.settimeout(previous)
    if expected is not None and got < expected:
        raise _Incomplete
    return b"".join(parts)


def _answer(problem: Problem, environ: dict[str, Any], start_response: StartResponse
            ) -> Iterable[bytes]:
    return problem.response()(environ, start_response)
