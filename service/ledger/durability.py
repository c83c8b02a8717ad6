"""Could this Redis lose an acknowledged hand? (docs/ledger.md#durability-is-checked)

Read at start and on ``/readyz``: ``appendonly``, ``appendfsync`` and
``maxmemory-policy`` by ``CONFIG GET``; where ``CONFIG`` is disabled (managed
Redis services rename or forbid it) from ``INFO persistence`` / ``INFO memory``
instead (``aof_enabled``, ``maxmemory_policy``; ``appendfsync`` is then unknown
and not held against the server). A setting that cannot be read at all is
reported as unknown, not as a failure.

A Redis loses acknowledged hands when it keeps no AOF (a crash loses every
write since the last snapshot), fsyncs its AOF only when the OS likes
(``appendfsync no``), or may evict keys (any ``maxmemory-policy`` but
``noeviction``: every match key has a TTL, so the ``volatile-*`` policies evict
them too). ``ALLOW_VOLATILE_REDIS=true`` accepts such a Redis (tests against a
throwaway one, a cache-only deployment whose clients keep their exports);
``/readyz`` still names the risk.

>>> risks({"appendonly": "no", "appendfsync": "everysec", "maxmemory-policy": "allkeys-lru"})
['redis has no AOF (appendonly no)', 'redis may evict keys (maxmemory-policy allkeys-lru)']
>>> risks({"appendonly": "yes", "appendfsync": "everysec", "maxmemory-policy": "noeviction"})
[]
"""

from __future__ import annotations

from typing import Any

import redis

from .store import is_oom

SETTINGS = ("appendonly", "appendfsync", "maxmemory-policy")


def read_settings(client: Any) -> dict[str, str]:
    """The three settings, by CONFIG GET or else INFO; missing ones are absent."""
    out: dict[str, str] = {}
    try:
        for name in SETTINGS:
            value = client.config_get(name).get(name)
            if value is not None:
                out[name] = str(value)
        if len(out) == len(SETTINGS):
            return out
    except redis.ResponseError:  # CONFIG disabled or renamed
        pass
    persistence = client.info("persistence")
    memory = client.info("memory")
    if "aof_enabled" in persistence:
        out.setdefault("appendonly", "yes" if int(persistence["aof_enabled"]) else "no")
    if "maxmemory_policy" in memory:
        out.setdefault("maxmemory-policy", str(memory["maxmemory_policy"]))
    return out


def risks(settings: dict[str, str]) -> list[str]:
    """Why acknowledged hands could be lost (empty: they cannot, as far as Redis says)."""
    out = []
    if settings.get("appendonly", "yes") != "yes":
        out.append(f"redis has no AOF (appendonly {settings['appendonly']})")
    elif settings.get("appendfsync") == "no":
        out.append("redis AOF is not fsynced (appendfsync no)")
    policy = settings.get("maxmemory-policy", "noeviction")
    if policy != "noeviction":
        out.append(f"redis may evict keys (maxmemory-policy {policy})")
    return out


def out_of_memory(client: Any, probe_key: str = "kaluki:readyz") -> bool:
    """True when Redis refuses writes for memory (``OOM command not allowed``): a small
    write is refused, or ``used_memory`` has reached ``maxmemory``."""
    try:
        client.set(probe_key, "1", px=10_000)
    except redis.ResponseError as exc:
        if is_oom(exc):
            return True
        raise
    memory = client.info("memory")
    limit = int(memory.get("maxmemory") or 0)
    return bool(limit) and int(memory.get("used_memory") or 0) >= limit
