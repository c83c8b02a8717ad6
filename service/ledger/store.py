"""Match ledgers in Redis (docs/api.md#match-ledgers): keys, Lua scripts, connection.

Key layout (every key of one match shares the hash tag ``{match:<id>}``, so a
Redis Cluster keeps them on one slot and the scripts may touch them together):

* ``kaluki:{match:<id>}``        hash: ``meta`` (JSON, immutable), ``state``
  (JSON standings), ``version`` (entries so far), ``head`` (last hash),
  ``token`` (SHA-256 of the write token)
* ``kaluki:{match:<id>}:hands``  list: the entries, canonical JSON with ``hash``
* ``kaluki:{match:<id>}:idem``   hash: Idempotency-Key → ``<fingerprint>:<seq>`` (the
  request's fingerprint and the entry it appended; the answer is rebuilt from the entry)
* ``kaluki:{match:<id>}:tomb``   string: the token's SHA-256, kept ``tombstone_ms``
  (longer than the match's TTL): written at create, refreshed on every write and
  on delete, so a deleted or expired id can be restored only with its own token

Every write is one script run (EVALSHA; redis-py reloads it on NOSCRIPT), so
Redis applies all of it or none of it (a correction is an append like any other);
every applied write ends with ``PUBLISH kaluki:events <match key>`` (``CHANNEL``,
the live events' wake-up: ``service/api/matches/events.py``); an append that lost
the compare-and-set answers the match as it is, so its retry reads nothing first; every write refreshes the TTL of the
three match keys and of the tombstone. With ``wait_replicas`` a write is
acknowledged only once that many replicas have it (``WAIT``); when they do not
answer in time the write stands on the primary but the caller gets
:class:`LedgerUnavailable`, and its retry with the same Idempotency-Key replays it.

Redis Cluster: :func:`connect` asks the server named by the URL (``INFO
cluster``; or the URL says ``redis+cluster://`` / ``rediss+cluster://``) and
then uses redis-py's ``RedisCluster``, with the same timeouts, retries and
pool size (per node). The hash tag keeps a match's keys on one slot, so each
script runs on the master of that slot (SCRIPT LOAD goes to every master, and
a NOSCRIPT after a failover reloads it). Every Redis failure (unreachable, a
redirect that did not settle, a down slot, a failover window, OOM, READONLY,
TRYAGAIN, CLUSTERDOWN) is :class:`LedgerUnavailable`: a 503, never a 500.

Instrumentation: ``LedgerStore.observer`` (set by ``service.web.metrics``) is
told the duration and outcome of every Redis call by operation, and of the
compare-and-set conflicts and idempotent replays the scripts report.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import orjson
import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from .errors import LedgerError

log = logging.getLogger(__name__)

PREFIX = "kaluki"
CHANNEL = "kaluki:events"  # every write script publishes its match's key here (events.py)
DEFAULT_TTL = 30 * 24 * 3600

FIELDS = ("meta", "state", "version", "head", "token")
# Redis trouble of any kind (docs/api.md#limits): connection and timeout errors, and every error
# the server or the cluster client reports (MovedError/AskError that did not settle,
# ClusterDownError, TryAgainError, OutOfMemoryError, ReadOnlyError, MasterDownError,
# SlotNotCoveredError, RedisClusterException when no node answers, ...)
UNAVAILABLE_ERRORS = (redis.RedisError, OSError)
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
DEFAULT_TOMBSTONE = 400 * 24 * 3600

# KEYS: main, hands, idem, tomb.
# ARGV: meta, state, token, version, head, ttl_ms, tomb_ms, n_idem, idem k/v pairs..., entry...
# A live id is 'exists'; an id whose tombstone holds another token is 'tombstone'.
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists', redis.call('HGET', KEYS[1], 'head')}
end
local tomb = redis.call('GET', KEYS[4])
if tomb and tomb ~= ARGV[3] then return {'tombstone'} end
redis.call('HSET', KEYS[1], 'meta', ARGV[1], 'state', ARGV[2], 'token', ARGV[3],
           'version', ARGV[4], 'head', ARGV[5])
local n = tonumber(ARGV[8])
local first = 9 + 2 * n
for i = 9, first - 1, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
for i = first, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
redis.call('SET', KEYS[4], ARGV[3], 'PX', ARGV[7])
return {'ok'}
"""

# KEYS: main, hands, idem.  The match, its entries and its answered keys at one instant
# (a script: atomic on a plain Redis and on the slot's master of a cluster alike).
SNAPSHOT_LUA = """
local m = redis.call('HMGET', KEYS[1], 'meta', 'state', 'version', 'head', 'token')
if not m[1] then return {} end
return {m, redis.call('LRANGE', KEYS[2], 0, -1), redis.call('HGETALL', KEYS[3])}
"""

# KEYS: main, hands.  The match and its entries at one instant.
LEDGER_LUA = """
local m = redis.call('HMGET', KEYS[1], 'meta', 'state', 'version', 'head', 'token')
if not m[1] then return {} end
return {m, redis.call('LRANGE', KEYS[2], 0, -1)}
"""

# KEYS: main, hands, idem, tomb.  ARGV: tomb_ms.  Leaves the tombstone (token hash).
DELETE_LUA = """
local token = redis.call('HGET', KEYS[1], 'token')
if not token then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[4], token, 'PX', ARGV[1])
redis.call('PUBLISH', 'kaluki:events', KEYS[1])
return 1
"""

# KEYS: main, hands, idem, tomb.
# ARGV: idem_key, fingerprint, expected_version, expected_head, entry, new_head, state,
#       ttl_ms, tomb_ms
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
if cur[1] ~= ARGV[3] or cur[2] ~= ARGV[4] then
  -- the match as it is now, so that the writer computes again without reading it first
  return {'conflict', redis.call('HMGET', KEYS[1], 'meta', 'state', 'version', 'head', 'token')}
end
local version = tonumber(cur[1]) + 1
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], 'version', version, 'head', ARGV[6], 'state', ARGV[7])
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[8]) end
redis.call('SET', KEYS[4], redis.call('HGET', KEYS[1], 'token'), 'PX', ARGV[9])
redis.call('PUBLISH', 'kaluki:events', KEYS[1])
return {'ok', tostring(version)}
"""


class LedgerUnavailable(LedgerError):
    """Redis cannot be reached (a 503 with Retry-After); ``reason`` says more."""

    code = "ledger-unavailable"
    reason = "unreachable"


class OutOfMemory(LedgerUnavailable):
    """Redis answers but refuses writes for memory (``maxmemory`` reached, ``noeviction``)."""

    reason = "out-of-memory"


class NotReplicated(LedgerUnavailable):
    """The write stands on the master, but fewer than ``REDIS_WAIT_REPLICAS`` replicas
    acknowledged it in time; a retry with the same Idempotency-Key replays it (and waits)."""

    reason = "not-replicated"


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
    current: Stored | None = None  # conflict: the match as the script found it


def keys(match_id: str) -> tuple[str, str, str]:
    tag = f"{PREFIX}:{{match:{match_id}}}"
    return tag, f"{tag}:hands", f"{tag}:idem"


def tomb_key(match_id: str) -> str:
    return f"{PREFIX}:{{match:{match_id}}}:tomb"


def _all_keys(match_id: str) -> list[str]:
    return [*keys(match_id), tomb_key(match_id)]


def is_oom(exc: BaseException) -> bool:
    """Redis refused a write for memory (redis-py drops the ``OOM`` prefix; a script's
    error keeps it inside the message)."""
    return isinstance(exc, redis.exceptions.OutOfMemoryError) or "OOM command not allowed" in str(
        exc) or "used memory > 'maxmemory'" in str(exc)


class ReplicasBehind(Exception):
    """Fewer replicas than asked for acknowledged a write in time."""


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
        return int(cast("dict[str, Any]", client.info("cluster")).get("cluster_enabled", 0)) == 1
    except ResponseError:
        return False


class LedgerStore:
    """Storage only: no rules. Every method raises :class:`LedgerUnavailable` on outages."""

    def __init__(self, client: redis.Redis | RedisCluster, ttl_seconds: int = DEFAULT_TTL,
                 label: str = "", observer: Any = None,
                 tombstone_seconds: int = DEFAULT_TOMBSTONE, wait_replicas: int = 0,
                 wait_timeout_ms: int = 500) -> None:
        self.client = client
        self.ttl_ms = int(ttl_seconds) * 1000
        # a tombstone outlives the match it stands for, whatever the settings say
        self.tomb_ms = max(int(tombstone_seconds) * 1000, 2 * self.ttl_ms)
        self.cluster = isinstance(client, RedisCluster)
        self.label = f"{label}, cluster" if self.cluster and label else label
        # observer.redis_call(operation, seconds, error_class_or_empty) and
        # observer.ledger_event("cas-conflict" | "idempotent-replay"), or None
        self.observer = observer
        self.oom_at = -1e9  # when a write last met "OOM command not allowed"
        self.wait_replicas = int(wait_replicas)
        self.wait_timeout_ms = int(wait_timeout_ms)
        # redis-py annotates register_script's self as Redis; RedisCluster has it as well
        self._create = client.register_script(CREATE_LUA)  # type: ignore[misc]
        self._append = client.register_script(APPEND_LUA)  # type: ignore[misc]
        self._delete = client.register_script(DELETE_LUA)  # type: ignore[misc]
        self._snapshot = client.register_script(SNAPSHOT_LUA)  # type: ignore[misc]
        self._ledger = client.register_script(LEDGER_LUA)  # type: ignore[misc]

    def _call(self, op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        observer = self.observer
        started = time.perf_counter()
        try:
            res = fn(*args, **kwargs)
        except UNAVAILABLE_ERRORS as exc:
            if observer is not None:
                observer.redis_call(op, time.perf_counter() - started, type(exc).__name__)
            log.warning("ledger store unavailable during %s: %s: %s", op, type(exc).__name__, exc,
                        extra={"operation": op, "error": type(exc).__name__})
            if is_oom(exc):
                self.oom_at = time.monotonic()
                raise OutOfMemory(f"{type(exc).__name__}: {exc}") from exc
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

    def _script(self, op: str, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a write script; with ``wait_replicas``, on one connection followed by WAIT."""
        if not self.wait_replicas:
            return self._call(op, script, keys=keys, args=args)
        return self._replicated(op, keys[0], lambda pipe: script(keys=keys, args=args,
                                                                 client=pipe))

    def _replicated(self, op: str, key: str, write: Callable[[Any], Any]) -> Any:
        """``write`` (queues commands on a pipeline; the first one's answer is returned) and
        then ``WAIT wait_replicas wait_timeout_ms`` in one pipeline on one
        connection (WAIT counts the writes of the connection it runs on). On a Cluster, that
        is a connection to the master owning ``key``'s slot, so WAIT asks that shard's
        replicas. Fewer replicas in time: :class:`NotReplicated` (the write stands)."""
        def run() -> Any:
            client: Any = self.client
            if self.cluster:
                client = client.get_redis_connection(client.get_node_from_key(key))
            pipe = client.pipeline(transaction=False)
            write(pipe)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
            *results, acked = pipe.execute()
            if int(acked) < self.wait_replicas:
                raise ReplicasBehind(f"{acked} of {self.wait_replicas} replicas acknowledged "
                                     f"within {self.wait_timeout_ms} ms")
            return results[0]

        try:
            return self._call(op, run)
        except ReplicasBehind as exc:
            log.warning("ledger write not replicated in time: %s", exc,
                        extra={"operation": op})
            raise NotReplicated(str(exc), replicas=self.wait_replicas) from exc
        except LedgerUnavailable:
            if self.cluster:  # a moved slot or a dead master: learn the new map for the retry
                try:
                    cast("Any", self.client).nodes_manager.initialize()
                except Exception as exc:  # noqa: BLE001 - the 503 stands; the next call retries
                    log.debug("cluster map refresh failed: %s", exc)
            raise

    def confirm_replicated(self, match_id: str) -> None:
        """Before a replayed answer: with ``wait_replicas``, the replicas have everything this
        match's master took so far (a TTL refresh, then WAIT, on one connection), so a replay
        of a write that was answered 503 ``NotReplicated`` is acknowledged only once the
        replicas have it. No-op otherwise."""
        if not self.wait_replicas:
            return
        match_keys = keys(match_id)

        def refresh(pipe: Any) -> None:  # as every write does: the three keys and the tombstone
            for key in match_keys:
                pipe.pexpire(key, self.ttl_ms)
            pipe.pexpire(tomb_key(match_id), self.tomb_ms)

        self._replicated("replay-wait", match_keys[0], refresh)

    def create(self, match_id: str, meta: dict[str, Any], state: dict[str, Any], token_hash: str,
               entries: Sequence[str] = (), head: str = "0" * 64,
               idempotency: Sequence[tuple[str, str]] = ()) -> tuple[str, str | None]:
        """Store a new match (or an imported one, with its answered Idempotency-Keys).

        ``("ok", None)``; ``("exists", its head)`` when the id is live;
        ``("tombstone", None)`` when the id was deleted or expired under another token.
        """
        pairs = [x for kv in idempotency for x in kv]
        res = self._script("create", self._create, _all_keys(match_id),
                           [orjson.dumps(meta).decode(), orjson.dumps(state).decode(),
                            token_hash, len(entries), head, self.ttl_ms, self.tomb_ms,
                            len(idempotency), *pairs, *entries])
        return res[0], (res[1] if len(res) > 1 else None)

    def tombstone(self, match_id: str) -> str | None:
        """The token hash a deleted or expired id is kept for, if any."""
        token_hash: str | None = self._call("tombstone", self.client.get, tomb_key(match_id))
        return token_hash

    def snapshot(self, match_id: str) -> tuple[Stored | None, list[str], dict[str, str]]:
        """The match, its entries and its answered Idempotency-Keys, read at one instant."""
        res = self._call("snapshot", self._snapshot, keys=list(keys(match_id)), args=[])
        if not res:
            return None, [], {}
        (meta, state, version, head, token), entries, flat = res
        answered = dict(zip(flat[::2], flat[1::2], strict=True))
        stored = Stored(match_id, orjson.loads(meta), orjson.loads(state), int(version), head,
                        token, None)
        return stored, entries, answered

    def ledger(self, match_id: str) -> tuple[Stored | None, list[str]]:
        """The match and its entries, read at one instant."""
        res = self._call("ledger", self._ledger, keys=list(keys(match_id)[:2]), args=[])
        if not res:
            return None, []
        (meta, state, version, head, token), entries = res
        return Stored(match_id, orjson.loads(meta), orjson.loads(state), int(version), head,
                      token, None), entries

    def load(self, match_id: str, idem_key: str | None = None) -> Stored | None:
        main, _, idem = keys(match_id)

        def run() -> list[Any]:
            # redis-py annotates hmget's fields as a list; any sequence will do
            if not idem_key:
                return [self.client.hmget(main, FIELDS)]  # type: ignore[arg-type]
            pipe = self.client.pipeline(transaction=False)
            pipe.hmget(main, FIELDS)  # type: ignore[arg-type]
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
               expected_head: str, entry: str, new_head: str, state: dict[str, Any]
               ) -> AppendResult:
        res = self._script("append", self._append, _all_keys(match_id),
                           [idem_key or "", fingerprint, str(expected_version), expected_head,
                            entry, new_head, orjson.dumps(state).decode(), self.ttl_ms,
                            self.tomb_ms])
        if res[0] == "conflict":
            self._event("cas-conflict")
            now = res[1]  # meta, state, version, head, token
            return AppendResult("conflict", None, Stored(
                match_id, orjson.loads(now[0]), orjson.loads(now[1]), int(now[2]), now[3],
                now[4], None))
        if res[0] == "replay":
            self._event("idempotent-replay")
        return AppendResult(res[0], res[1] if len(res) > 1 else None)

    def entries(self, match_id: str, start: int = 0, stop: int = -1) -> list[str]:
        entries: list[str] = self._call("entries", self.client.lrange, keys(match_id)[1], start,
                                        stop)
        return entries

    def entry_and_state(self, match_id: str, seq: int) -> tuple[str | None, dict[str, Any] | None]:
        """Entry ``seq`` and the match's state, in one round trip."""
        main, hands, _ = keys(match_id)

        def run() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            pipe.lindex(hands, seq)
            pipe.hget(main, "state")
            return pipe.execute()

        text, state = self._call("entry", run)
        return text, (orjson.loads(state) if state else None)

    def delete(self, match_id: str) -> bool:
        """Delete the match, leaving its tombstone (its token hash)."""
        return bool(self._script("delete", self._delete, _all_keys(match_id), [self.tomb_ms]))

    def ttl(self, match_id: str) -> int:
        return int(self._call("ttl", self.client.pttl, keys(match_id)[0]))
