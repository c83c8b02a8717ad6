"""Logs: one JSON format for the app and gunicorn, request ids in every line, an access log.

* ``request_id`` (a context variable) holds the id of the request being served;
  ``service.web.requestid`` sets it. :class:`RequestIdFilter`, on every handler,
  copies it into each record, so every line logged while serving a request
  (the app's, the ledger's, flask's) carries ``request_id``.
* ``LOG_FORMAT``: ``json`` (default; python-json-logger, one object per line:
  ``time``, ``level``, ``logger``, ``message``, ``request_id`` and any extra
  fields) or ``text`` for people at a terminal. ``LOG_LEVEL`` (``INFO``).
* The access log is gunicorn's (``logger_class`` :class:`GunicornLogger` in
  deploy/gunicorn.conf.py, which also hands gunicorn :func:`dict_config`): one
  line per request with ``method``, ``route`` (the URL rule Flask matched, e.g.
  ``/v1/matches/<match_id>/hands``, never the raw path), ``status``,
  ``duration_ms``, ``request_id``, ``remote_addr`` (and ``forwarded_for`` when
  a proxy sent it), ``bytes``. Written after the response is sent, in the
  worker, so it costs the request no latency. ``ACCESS_LOG``: unset or ``-``
  for stdout, ``off`` to disable, or a file path.
* Never logged: request bodies, query strings, ``Authorization`` or any other
  header value (tokens stay out of the logs).
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from typing import Any

from gunicorn.glogging import Logger as _GunicornBaseLogger
from pythonjsonlogger.orjson import OrjsonFormatter

from .settings import Settings, load

request_id: ContextVar[str | None] = ContextVar("kaluki_request_id", default=None)

ENVIRON_KEY = "kaluki.request_id"  # the WSGI environ key for the access log
RULE_KEY = "kaluki.url_rule"  # set by service.web.metrics (the rule Flask matched)


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record logged while a request is served."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            rid = request_id.get()
            if rid is not None:
                record.request_id = rid
        return True


class TextFormatter(logging.Formatter):
    """The human format (``LOG_FORMAT=text``), request id last."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s [%(process)d] [%(levelname)s] %(name)s: %(message)s"
                         " [%(request_id)s]")

    def format(self, record: logging.LogRecord) -> str:
        record.__dict__.setdefault("request_id", "-")
        return super().format(record)


def json_formatter() -> logging.Formatter:
    return OrjsonFormatter("%(levelname)s %(name)s %(message)s", timestamp="time",
                           rename_fields={"levelname": "level", "name": "logger"})


def _settings(found: Settings | None) -> Settings:
    return found if found is not None else load()  # None: the environment as it is now


def log_format(found: Settings | None = None) -> str:
    return _settings(found).LOG_FORMAT


def access_target(found: Settings | None = None) -> str | None:
    """Where the access log goes: ``-`` (stdout), a file path, or None (off)."""
    return _settings(found).access_log()


def dict_config(level: str | None = None, found: Settings | None = None) -> dict[str, Any]:
    """The logging configuration for gunicorn's ``logconfig_dict`` (app and gunicorn alike)."""
    found = _settings(found)
    level = (level or found.LOG_LEVEL).upper()
    formatter = ({"()": "service.logs.TextFormatter"} if log_format(found) == "text"
                 else {"()": "service.logs.json_formatter"})
    target = access_target(found)
    access_handler: dict[str, Any] = (
        {"class": "logging.StreamHandler", "stream": "ext://sys.stdout"} if target in (None, "-")
        else {"class": "logging.FileHandler", "filename": target})
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "service.logs.RequestIdFilter"}},
        "formatters": {"kaluki": formatter},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                        "formatter": "kaluki", "filters": ["request_id"]},
            "access": {**access_handler, "formatter": "kaluki", "filters": ["request_id"]},
        },
        "root": {"level": level, "handlers": ["console"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": ["console"], "propagate": False,
                               "qualname": "gunicorn.error"},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False,
                                "qualname": "gunicorn.access"},
        },
    }


def configure(found: Settings | None = None, level: str | None = None) -> None:
    """Outside gunicorn (``flask run``, tests, scripts): the same format on stderr.

    Like ``logging.basicConfig``, it does nothing when the root logger already has
    handlers (under gunicorn :func:`dict_config` has set them up).
    """
    root = logging.getLogger()
    if root.handlers:
        return
    found = _settings(found)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TextFormatter() if log_format(found) == "text" else json_formatter())
    handler.addFilter(RequestIdFilter())
    root.addHandler(handler)
    root.setLevel((level or found.LOG_LEVEL).upper())


class GunicornLogger(_GunicornBaseLogger):  # type: ignore[misc]  # gunicorn ships no types
    """gunicorn's logger with a structured access line (see the module docstring)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        self._access_on = access_target() is not None

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not getattr(self, "_access_on", True):
            return
        rule = environ.get(RULE_KEY)
        duration_ms = round(request_time.total_seconds() * 1000, 3)
        status = resp.status_code if resp.status_code is not None else 0
        method = environ.get("REQUEST_METHOD", "-")
        route = rule.rule if rule is not None else "unmatched"
        rid = environ.get(ENVIRON_KEY) or "-"
        fields: dict[str, Any] = {
            "method": method, "route": route, "status": status, "duration_ms": duration_ms,
            "request_id": rid, "remote_addr": environ.get("REMOTE_ADDR") or "-",
            "bytes": getattr(resp, "sent", 0)}
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        if forwarded:
            fields["forwarded_for"] = forwarded
        try:
            self.access_log.info("%s %s %s %.1fms", method, route, status, duration_ms,
                                 extra=fields)
        except Exception:  # never let a log line fail a request
            self.error("access log line failed", exc_info=True)
