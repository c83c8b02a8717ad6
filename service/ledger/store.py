"""Match ledgers in Redis (SPEC §7): keys, Lua scripts, connection.

Key layout (every key of one match shares the hash tag ``{match:<id>}``, so a
Redis Cluster keeps them on one slot and the scripts may touch them together):

* ``kaluki:{match:<id>}``        hash: ``meta`` (JSON, immutable), ``state``
  (JSON standings), ``version`` (entries so far), ``head`` (last hash),
  ``token`` (SHA-256 of the write token)
* ``kaluki:{match:<id>}:hands``  list: the entries, canonical JSON with ``hash``
* ``kaluki:{match:<id>}:idem``   hash: Idempotency-Key → ``<fingerprint>\\n<201 body>``

Every write is one script run (EVALSHA; redis-py reloads it on NOSCRIPT), so
Redis applies all of it or none of it; every write refreshes the TTL of all
three keys.

Redis Cluster: :func:`connect` asks the server named by the URL (``INFO
cluster``; or the URL says ``redis+cluster://`` / ``rediss+cluster://``) and
then uses redis-py's ``RedisCluster``, with the same timeouts, retries and
pool size (per node). The hash tag keeps a match's keys on one slot, so each
script runs on the master of that slot (SCRIPT LOAD goes to every master, and
a NOSCRIPT after a failover reloads it). Every Redis failure (unreachable, a
redirect that did not settle, a down slot, a failover window, OOM, READONLY,
TRYAGAIN, CLUSTERDOWN) is :class:`LedgerUnavailable`: a 503, never a 500.

Instrumentation: ``LedgerStore.observer`` (set by ``service.api.metrics``) is
told the duration and outcome of every Redis call by operation, and of the
compare-and-set conflicts and idempotent replays the scripts report.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger(__name__)

PREFIX = "kaluki"
DEFAULT_TTL = 30 * 24 * 3600

FIELDS = ("meta", "state", "version", "head", "token")
# Redis trouble of any kind (SPEC §4): connection and timeout errors, and every error
# the server or the cluster client reports (MovedError/AskError that did not settle,
# ClusterDownError, TryAgainError, OutOfMemoryError, ReadOnlyError, MasterDownError,
# SlotNotCoveredError, RedisClusterException when no node answers, ...)
UNAVAILABLE_ERRORS = (redis.RedisError, OSError)
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

# KEYS: main, hands, idem.  ARGV: meta, state, token, version, head, ttl_ms, entry...
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists', redis.call('HGET', KEYS[1], 'head')}
end
redis.call('HSET', KEYS[1], 'meta', ARGV[1], 'state', ARGV[2], 'token', ARGV[3],
           'version', ARGV[4], 'head', ARGV[5])
for i = 7, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return {'ok'}
"""

# KEYS: main, hands, idem.
# ARGV: idem_key, fingerprint, expected_version, expected_head, entry, new_head, state,
#       response, ttl_ms
# The entry and new state are computed by the engine from (expected_version,
# expected_head); the script applies them only if that is still the match's state
# (compare-and-set), and only once per Idempotency-Key.
APPEND_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if ARGV[1] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[1])
  if prior then return {'replay', prior} end
end
local cur = redis.call('HMGET', KEYS[1], 'version', 'head')
if cur[1] ~= ARGV[3] or cur[2] ~= ARGV[4] then return {'conflict', cur[1]} end
local version = tonumber(cur[1]) + 1
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], 'version', version, 'head', ARGV[6], 'state', ARGV[7])
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. '\\n' .. ARGV[8])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[9]) end
return {'ok', tostring(version)}
"""


class LedgerUnavailable(Exception):
    """Redis cannot be reached (a 503 with Retry-After)."""


@dataclass(frozen=True, slots=True)
class Stored:
    id: str
    meta: dict[str, Any]
    state: dict[str, Any]
    version: int
    head: str
    token_hash: str
    prior: str | None  # the stored answer for the Idempotency-Key asked about, if any


@dataclass(frozen=True, slots=True)
class AppendResult:
    kind: str  # ok | replay | conflict | missing
    payload: str | None = None


def keys(match_id: str) -> tuple[str, str, str]:
    tag = f"{PREFIX}:{{match:{match_id}}}"
    return tag, f"{tag}:hands", f"{tag}:idem"


def connect(url: str, *, max_connections: int = 32, socket_timeout: float = 2.0,
            connect_timeout: float = 1.0, retries: int = 3, pool_timeout: float = 2.0
            ) -> redis.Redis | RedisCluster:
    """A client with timeouts, retries (exponential backoff) and a bounded pool.

    A Redis Cluster (the URL's scheme says so, or the node it names answers
    ``cluster_enabled:1``) gets a ``RedisCluster`` with the same settings, its
    pool bound applying per node.
    """
    scheme, sep, rest = url.partition("://")
    cluster = scheme.lower() in CLUSTER_SCHEMES
    if cluster:
        url = f"{CLUSTER_SCHEMES[scheme.lower()]}{sep}{rest}"
    else:
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=pool_timeout,
            socket_timeout=socket_timeout, socket_connect_timeout=connect_timeout,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), retries),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            health_check_interval=30, decode_responses=True)
        client = redis.Redis(connection_pool=pool)
        if scheme.lower() == "unix" or not is_cluster(client):
            return client
        client.close()
        pool.disconnect()
    return RedisCluster.from_url(
        url, retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), retries),
        max_connections=max_connections, connection_pool_class=redis.BlockingConnectionPool,
        timeout=pool_timeout, socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout, decode_responses=True)


def is_cluster(client: redis.Redis) -> bool:
    """Whether the server is a Redis Cluster node (``INFO cluster``; a server that
    refuses INFO, e.g. by ACL, is taken for a plain Redis). Connection errors raise."""
    try:
        return int(client.info("cluster").get("cluster_enabled", 0)) == 1
    except ResponseError:
        return False


class LedgerStore:
    """Storage only: no rules. Every method raises :class:`LedgerUnavailable` on outages."""

    def __init__(self, client: redis.Redis | RedisCluster, ttl_seconds: int = DEFAULT_TTL,
                 label: str = "", observer: Any = None) -> None:
        self.client = client
        self.ttl_ms = int(ttl_seconds) * 1000
        self.cluster = isinstance(client, RedisCluster)
        self.label = f"{label}, cluster" if self.cluster and label else label
        # observer.redis_call(operation, seconds, error_class_or_empty) and
        # observer.ledger_event("cas-conflict" | "idempotent-replay"), or None
        self.observer = observer
        self._create = client.register_script(CREATE_LUA)
        self._append = client.register_script(APPEND_LUA)

    def _call(self, op: str, fn, *args, **kwargs):
        observer = self.observer
        started = time.perf_counter()
        try:
            res = fn(*args, **kwargs)
        except UNAVAILABLE_ERRORS as exc:
            if observer is not None:
                observer.redis_call(op, time.perf_counter() - started, type(exc).__name__)
            log.warning("ledger store unavailable during %s: %s: %s", op, type(exc).__name__, exc,
                        extra={"operation": op, "error": type(exc).__name__})
            raise LedgerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        if observer is not None:
            observer.redis_call(op, time.perf_counter() - started, "")
        return res

    def _event(self, kind: str) -> None:
        if self.observer is not None:
            self.observer.ledger_event(kind)

    def ping(self) -> tuple[bool, str]:
        try:
            started = time.perf_counter()
            if self.cluster:  # every slot's master answers (a replica down leaves us ready)
                self.client.ping(target_nodes=RedisCluster.PRIMARIES)
            else:
                self.client.ping()
            return True, f"ok ({self.label}, {1000 * (time.perf_counter() - started):.1f} ms)"
        except UNAVAILABLE_ERRORS as exc:
            return False, f"unreachable ({self.label}): {exc}"

    def create(self, match_id: str, meta: dict[str, Any], state: dict[str, Any], token_hash: str,
               entries: Sequence[str] = (), head: str = "0" * 64) -> tuple[bool, str | None]:
        """Store a new match (or an imported one); (False, its head) when the id is taken."""
        res = self._call("create", self._create, keys=list(keys(match_id)),
                         args=[orjson.dumps(meta).decode(), orjson.dumps(state).decode(),
                               token_hash, len(entries), head, self.ttl_ms, *entries])
        return (True, None) if res[0] == "ok" else (False, res[1])

    def load(self, match_id: str, idem_key: str | None = None) -> Stored | None:
        main, _, idem = keys(match_id)

        def run() -> list[Any]:
            if not idem_key:
                return [self.client.hmget(main, FIELDS)]
            pipe = self.client.pipeline(transaction=False)
            pipe.hmget(main, FIELDS)
            pipe.hget(idem, idem_key)
            return pipe.execute()

        res = self._call("load", run)
        meta, state, version, head, token = res[0]
        if meta is None:
            return None
        if idem_key and res[1] is not None:
            self._event("idempotent-replay")
        return Stored(match_id, orjson.loads(meta), orjson.loads(state), int(version), head,
                      token, res[1] if idem_key else None)

    def append(self, match_id: str, *, idem_key: str, fingerprint: str, expected_version: int,
               expected_head: str, entry: str, new_head: str, state: dict[str, Any],
               response: str) -> AppendResult:
        res = self._call("append", self._append, keys=list(keys(match_id)),
                         args=[idem_key or "", fingerprint, str(expected_version), expected_head,
                               entry, new_head, orjson.dumps(state).decode(), response,
                               self.ttl_ms])
        if res[0] == "conflict":
            self._event("cas-conflict")
        elif res[0] == "replay":
            self._event("idempotent-replay")
        return AppendResult(res[0], res[1] if len(res) > 1 else None)

    def entries(self, match_id: str, start: int = 0, stop: int = -1) -> list[str]:
        return self._call("entries", self.client.lrange, keys(match_id)[1], start, stop)

    def delete(self, match_id: str) -> bool:
        return bool(self._call("delete", self.client.delete, *keys(match_id)))

    def ttl(self, match_id: str) -> int:
        return int(self._call("ttl", self.client.pttl, keys(match_id)[0]))
