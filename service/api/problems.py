"""RFC 9457 problem details: every error the service returns (docs/api.md#errors-and-codes).

A problem has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``;
schema failures add ``errors`` (field → messages). Titles and details are
English, or in the language the client prefers (``Accept-Language``) when a
catalog in ``service/i18n/locale`` speaks it (Dutch, ``nl``, today).
Codes map to statuses in one table, :data:`STATUS`, and every engine and ledger
error reaches the client through one handler (:func:`install`).
Every problem answered to a request also carries ``request_id``: the id echoed
in its ``X-Request-ID`` header and logged with every line of that request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from ..engine.errors import EngineError
from ..engine.match import EntryError
from ..engine.melds import InvalidMeld
from ..engine.rulings import UnknownView
from ..engine.solver import HandTooLarge
from ..i18n import N_, SOURCE, gettext, render, resolve
from ..ledger.errors import LedgerError
from ..logs import request_id
from ..problem_codes import CODES
from ..web.jsonio import dumps
from ..web.language import language
from .render import violation_dict, violation_text

PROBLEM_MEDIA_TYPE = "application/problem+json"

# app.extensions[ON_PROBLEM](code, status) is told of every problem answered (metrics)
ON_PROBLEM = "kaluki_on_problem"

# The one table of problem codes is service/problem_codes.py; these are its views.
TITLES: Mapping[str, str] = {c: p.title for c, p in CODES.items()}
"""code -> English title (msgctxt "title"; translations in service/i18n/locale)."""

STATUS: Mapping[str, int] = {c: p.status for c, p in CODES.items() if p.status != 422}
"""Statuses by code (a code not listed is 422). A code answers one status wherever it is
raised, with the exceptions in :data:`ALSO_STATUS`."""

ALSO_STATUS: Mapping[str, Mapping[int, str]] = {c: p.also for c, p in CODES.items() if p.also}
"""Codes answered with another status too, and where (docs/api.md's table lists them under
both)."""

HEADERS: Mapping[str, Mapping[str, str]] = {c: p.headers for c, p in CODES.items() if p.headers}
"""Headers a code always carries (a raise may add or override)."""

DETAILS: Mapping[str, str] = {c: p.detail for c, p in CODES.items() if p.detail}
"""The detail a code answers when the raise gives none (an HTTP error's), or in place of a
ledger error's own message (no Redis internals in an answer)."""

_API_CODES = frozenset(c for c, p in CODES.items() if p.api)
"""Codes only the API itself answers, each with a detail of its own (the rest are engine or
ledger errors, whose detail is their own message)."""

ENGINE_DETAIL = "{detail}"
"""An engine or ledger error's detail is its own English message; a catalog may
wrap it per code (msgctxt = the code, msgid ``{detail}``), with ``{field}`` and
the error's parameters to hand."""

DETAIL_CODES: tuple[str, ...] = tuple(code for code in TITLES if code not in _API_CODES)
"""The codes whose detail is an engine or ledger error's message (translated per code)."""

def status_of(code: str) -> int:
    return STATUS.get(code, 422)


def title(code: str, lang: str) -> str:
    english = TITLES.get(code)
    if english is None:
        return code.replace("-", " ").capitalize()
    return gettext(lang, english, "title")


class Problem(Exception):
    """Raise anywhere in a view to answer with a problem.

    ``detail`` is English; with ``params`` it is a ``str.format`` template,
    filled in for the answer and looked up (with ``context``) in the client's
    language's catalog. The status comes from :data:`STATUS` unless given.
    """

    def __init__(self, code: str, detail: str, *, params: Mapping[str, Any] | None = None,
                 context: str | None = None, status: int | None = None,
                 errors: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status_of(code) if status is None else status
        self.code = code
        self.template = detail
        self.params = params
        self.context = context
        self.errors = errors
        self.headers = {**HEADERS.get(code, {}), **(headers or {})}
        self.extra = extra

    @property
    def detail(self) -> str:
        """The English detail."""
        if self.params is None:
            return self.template
        return render(SOURCE, self.template, self.params)

    def detail_in(self, lang: str) -> str:
        translated = gettext(lang, self.template, self.context)
        if translated == self.template:
            return self.detail
        if self.params is None:
            return translated
        try:
            return translated.format(**resolve(self.params, lang))
        except (KeyError, IndexError):  # a translation naming a fact this raise lacks
            return self.detail

    def to_dict(self, lang: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"/problems/{self.code}",
            "title": title(self.code, lang),
            "status": self.status,
            "detail": self.detail_in(lang),
            "code": self.code,
        }
        if self.errors is not None:
            body["errors"] = self.errors
        body.update(self.extra)
        return body

    def response(self) -> Response:
        lang = language()
        body = self.to_dict(lang)
        rid = request_id.get()
        if rid is not None:
            body["request_id"] = rid
        try:
            hook = current_app.extensions.get(ON_PROBLEM)
        except RuntimeError:  # outside an app
            hook = None
        if hook is not None:
            hook(self.code, self.status)
        resp = Response(dumps(body), status=self.status, mimetype=PROBLEM_MEDIA_TYPE)
        resp.headers["X-Content-Type-Options"] = "nosniff"  # also outside Flask's hooks
        for k, v in self.headers.items():
            resp.headers[k] = v
        resp.headers["Content-Language"] = lang
        return resp


def error_problem(exc: EngineError | LedgerError, field: str | None = None, *,
                  errors_at: str | None = None, detail: str | None = None,
                  errors: Mapping[str, Any] | None = None, **extra: Any) -> Problem:
    """The problem for an engine or ledger error: its code, status from :data:`STATUS`,
    its own message as the detail (a catalog may wrap it per code), and
    ``errors`` naming where it happened when that is known.

    ``field`` says where the input was when the error itself does not know
    (a card read from ``cards.3``); ``errors_at`` overrides where ``errors``
    points (an entry of an import, say), ``errors`` what it says.
    """
    english = str(exc) if detail is None else detail
    where = exc.field if exc.field is not None else field
    params = {"detail": english, "field": where, **exc.params}
    at = errors_at if errors_at is not None else where
    if errors is None and at is not None:
        errors = {at: [str(exc)]}
    return Problem(exc.code, ENGINE_DETAIL, params=params, context=exc.code, errors=errors,
                   **extra)


NOT_FOUND = DETAILS["not-found"]
MALFORMED_JSON = DETAILS["malformed-json"]
PAYLOAD_TOO_LARGE = N_("The request body is larger than {limit} bytes.")
INTERNAL_ERROR = N_("Something went wrong on our side.")

_HTTP_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed",
               406: "not-acceptable", 408: "request-timeout", 413: "payload-too-large",
               415: "unsupported-media-type", 422: "validation-error", 429: "rate-limited",
               503: "service-unavailable"}


def _http_problem(exc: HTTPException) -> Problem:
    status = exc.code or 500
    code = _HTTP_CODES.get(status, "bad-request" if status < 500 else "internal-error")
    data = getattr(exc, "data", None) or {}
    errors = None
    messages = data.get("messages") if isinstance(data, dict) else None
    if status == 400 and messages and "json" in messages and "Invalid JSON body." in str(messages):
        code = "malformed-json"
    if status == 422 and messages:
        # flask-smorest/webargs: {"json": {field: [...]}}
        raw = messages.get("json", messages) if isinstance(messages, dict) else {"body": messages}
        errors = flatten(raw)
    params: dict[str, Any] | None = None
    detail = DETAILS.get(code)
    if status == 413:
        detail, params = PAYLOAD_TOO_LARGE, {"limit": _limit()}
    elif code == "method-not-allowed":
        params = {"method": request.method}
    if detail is None:
        detail = exc.description or code
    headers = {}
    if status == 405 and getattr(exc, "valid_methods", None):
        headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
    return Problem(code, detail, params=params, status=status, errors=errors, headers=headers)


def flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """``{"players": {1: {"cards": ["…"]}}}`` → ``{"players.1.cards": ["…"]}``."""
    if isinstance(errors, dict):
        out: dict[str, list[str]] = {}
        for key, value in errors.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        return {prefix or "body": errors}
    return {prefix or "body": [str(errors)]}


# ledger-unavailable for a Redis that answers (the store's LedgerUnavailable.reason)
UNAVAILABLE_DETAILS: Mapping[str, str] = {
    "out-of-memory": N_("The match store (Redis) is out of memory and refuses writes; nothing "
                        "was written. Retry later with the same Idempotency-Key."),
    "not-replicated": N_("The match store took the write but could not copy it to {replicas} "
                         "replica(s) in time. Retry with the same Idempotency-Key: the retry "
                         "answers with that write once it is copied, never writing it twice."),
}


TABLE_MELD_ILLEGAL = N_("the table meld is not legal: {message}")
UNKNOWN_VIEW = N_("{player} is not a player of this hand: a view is one of its players")


def engine_problem(exc: EngineError, field: str | None = None) -> Problem:
    """The problem for any engine error. An :class:`EntryError` (an import's or an
    append's input that cannot be scored) answers its cause, located at the entry."""
    if isinstance(exc, InvalidMeld):  # a table meld: its violation, as a ruling shows it
        v = exc.violation
        return Problem(exc.code, TABLE_MELD_ILLEGAL, params={"message": violation_text(v)},
                       errors={exc.field or "meld": [v.message()]},
                       violations=[violation_dict(v, language())])
    if isinstance(exc, UnknownView):  # ?view= names no player of the record
        return Problem(exc.code, UNKNOWN_VIEW, params=dict(exc.params),
                       errors={"query.view": [f"{exc.params['player']!r} is not a player of "
                                              "this hand"]})
    if isinstance(exc, HandTooLarge):  # its errors entry names the cap
        return error_problem(exc, field, errors={exc.field or "cards": [f"at most {exc.limit} cards"]})
    if isinstance(exc, EntryError):
        if exc.violation is not None:
            return Problem(exc.code, ENGINE_DETAIL, params={"detail": str(exc)}, context=exc.code,
                           violations=[violation_dict(exc.violation, language())])
        if isinstance(exc.cause, EngineError):
            return error_problem(exc.cause, exc.field, errors_at=exc.field)
        return error_problem(exc, field)
    return error_problem(exc, field, **{k: exc.params[k] for k in exc.members})


def _limit() -> int:
    return int(current_app.config.get("MAX_CONTENT_LENGTH") or 0)


def install(app: Flask) -> None:
    """Route every error through problem details (the pages each ``type`` names are
    :mod:`service.docs.pages`)."""

    @app.errorhandler(Problem)
    def _problem(exc: Problem) -> Response:
        return exc.response()

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        return _http_problem(exc).response()

    @app.errorhandler(EngineError)
    def _engine(exc: EngineError) -> Response:
        return engine_problem(exc).response()

    @app.errorhandler(LedgerError)
    def _ledger(exc: LedgerError) -> Response:
        special = UNAVAILABLE_DETAILS.get(getattr(exc, "reason", ""))
        if special is not None:
            return Problem(exc.code, special, params=exc.params).response()
        return error_problem(exc, detail=DETAILS.get(exc.code)).response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return _http(exc)
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return Problem("internal-error", INTERNAL_ERROR).response()
