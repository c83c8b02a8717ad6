"""Match ledgers in Redis (SPEC §7): keys, Lua scripts, connection.

Key layout (every key of one match shares the hash tag ``{match:<id>}``, so a
Redis Cluster keeps them on one slot and the scripts may touch them together):

* ``kaluki:{match:<id>}``        hash: ``meta`` (JSON, immutable), ``state``
  (JSON standings), ``version`` (entries so far), ``head`` (last hash),
  ``token`` (SHA-256 of the write token)
* ``kaluki:{match:<id>}:hands``  list: the entries, canonical JSON with ``hash``
* ``kaluki:{match:<id>}:idem``   hash: Idempotency-Key → ``<fingerprint>:<seq>`` (the
  request's fingerprint and the entry it appended; the answer is rebuilt from the entry)

Every write is one script run (EVALSHA; redis-py reloads it on NOSCRIPT), so
Redis applies all of it or none of it; every write refreshes the TTL of all
three keys.
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
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from .errors import LedgerError

log = logging.getLogger(__name__)

PREFIX = "kaluki"
DEFAULT_TTL = 30 * 24 * 3600

FIELDS = ("meta", "state", "version", "head", "token")
UNAVAILABLE_ERRORS = (RedisConnectionError, RedisTimeoutError, OSError)

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
#       ttl_ms
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
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[8]) end
return {'ok', tostring(version)}
"""


class LedgerUnavailable(LedgerError):
    """Redis cannot be reached (a 503 with Retry-After)."""

    code = "ledger-unavailable"


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
            ) -> redis.Redis:
    """A client with timeouts, retries (exponential backoff) and a bounded pool."""
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.02), retries)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_timeout,
        socket_timeout=socket_timeout, socket_connect_timeout=connect_timeout,
        retry=retry, retry_on_error=[RedisConnectionError, RedisTimeoutError],
        health_check_interval=30, decode_responses=True)
    return redis.Redis(connection_pool=pool)


class LedgerStore:
    """Storage only: no rules. Every method raises :class:`LedgerUnavailable` on outages."""

    def __init__(self, client: redis.Redis, ttl_seconds: int = DEFAULT_TTL, label: str = "") -> None:
        self.client = client
        self.ttl_ms = int(ttl_seconds) * 1000
        self.label = label
        self._create = client.register_script(CREATE_LUA)
        self._append = client.register_script(APPEND_LUA)

    def _call(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UNAVAILABLE_ERRORS as exc:
            log.warning("ledger store unavailable: %s", exc)
            raise LedgerUnavailable(str(exc)) from exc

    def ping(self) -> tuple[bool, str]:
        try:
            started = time.perf_counter()
            self.client.ping()
            return True, f"ok ({self.label}, {1000 * (time.perf_counter() - started):.1f} ms)"
        except UNAVAILABLE_ERRORS as exc:
            return False, f"unreachable ({self.label}): {exc}"

    def create(self, match_id: str, meta: dict[str, Any], state: dict[str, Any], token_hash: str,
               entries: Sequence[str] = (), head: str = "0" * 64) -> tuple[bool, str | None]:
        """Store a new match (or an imported one); (False, its head) when the id is taken."""
        res = self._call(self._create, keys=list(keys(match_id)),
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

        res = self._call(run)
        meta, state, version, head, token = res[0]
        if meta is None:
            return None
        return Stored(match_id, orjson.loads(meta), orjson.loads(state), int(version), head,
                      token, res[1] if idem_key else None)

    def append(self, match_id: str, *, idem_key: str, fingerprint: str, expected_version: int,
               expected_head: str, entry: str, new_head: str, state: dict[str, Any]
               ) -> AppendResult:
        res = self._call(self._append, keys=list(keys(match_id)),
                         args=[idem_key or "", fingerprint, str(expected_version), expected_head,
                               entry, new_head, orjson.dumps(state).decode(), self.ttl_ms])
        return AppendResult(res[0], res[1] if len(res) > 1 else None)

    def entries(self, match_id: str, start: int = 0, stop: int = -1) -> list[str]:
        return self._call(self.client.lrange, keys(match_id)[1], start, stop)

    def delete(self, match_id: str) -> bool:
        return bool(self._call(self.client.delete, *keys(match_id)))

    def ttl(self, match_id: str) -> int:
        return int(self._call(self.client.pttl, keys(match_id)[0]))
