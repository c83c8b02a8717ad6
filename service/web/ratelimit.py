"""Rate limits (docs/api.md#limits): Flask-Limiter, counted in the ledger's Redis, failing open.

Every limit counts per client address and per endpoint; the match writes (hand
appends, buy-ins, deletes) also count per match token. The limits come in tiers,
each a Flask-Limiter limit string (``;`` between several) from the environment:

* ``RATELIMIT_CREATE`` (``30/second;2000/hour``): ``POST /v1/matches``,
  ``POST /v1/matches/import``: each match keeps its bytes in Redis for weeks;
* ``RATELIMIT_EXPENSIVE`` (``40/second``): analyze, adjudicate, turns/options, a match's export;
* ``RATELIMIT_APPEND`` (``200/second``): hand appends, buy-ins, deletes, per address;
* ``RATELIMIT_MATCH`` (``100/second``): the same writes, per match token;
* ``RATELIMIT_RULINGS`` (empty: not counted; see below): validate, opening, build,
  release, score, turns/check;
* ``RATELIMIT_DEFAULT`` (``1000/second``): every other route (reads, the catalog).

``/healthz``, ``/readyz``, ``/metrics``, ``/docs``, ``/openapi.json`` and
``/problems/…`` are never limited. An empty value turns a tier off.

The cheap rulings are what a game server calls every turn, thousands of times a
second from one address; a shared counter would put a Redis round trip on every
one of them (measured in docs/bench.md: it costs more than the ruling). They are
not counted by default: what protects the service from a flood of them is the
CPU they cost, which is bounded per request (MAX_BODY_BYTES, the engine's
budgets) and per process (the workers), and the buffering proxy in front.
``RATELIMIT_RULINGS`` (e.g. ``5000/second``) counts them too, in the same Redis.

Flask-Limiter's own settings, by their usual names (service/settings.py):
``RATELIMIT_ENABLED`` (default ``true``; ``false`` turns every limit off, as the
tests and benchmarks do), ``RATELIMIT_STORAGE_URI``, ``RATELIMIT_STRATEGY``
(``fixed-window`` by default: one Redis script call per counted request),
``RATELIMIT_KEY_PREFIX``, ``RATELIMIT_SWALLOW_ERRORS`` and
``RATELIMIT_IN_MEMORY_FALLBACK_ENABLED`` (both default ``true``: when Redis is
down the limits are counted in each process's memory and the request is served,
never a 500), ``RATELIMIT_HEADERS_ENABLED`` (default ``false``: when ``true``,
every limited answer also carries ``RateLimit`` with the remaining quota, one more
Redis read per request; without it only 429s do).

Storage: ``RATELIMIT_STORAGE_URI`` if set; else the ledger's Redis
(``REDIS_URL``; ``redis+cluster://`` when that Redis is a cluster), or, without
``REDIS_URL``, the embedded Redis's socket (``redis+unix://…``).

Client address: the peer's address, or behind a proxy the address the proxy
saw, taken from ``X-Forwarded-For`` only when the peer is one of
``FORWARDED_ALLOW_IPS`` (comma-separated addresses or networks, or ``*``;
default: none trusted, so a client cannot pick its own address by sending the
header). The right-most address not itself a trusted proxy is the client.

Over a limit: 429 ``rate-limited`` with ``Retry-After`` (seconds),
``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers-09:
``RateLimit-Policy: "create";q=20;w=1`` and ``RateLimit: "create";r=0;t=1``).
Every limited answer carries ``RateLimit-Policy``.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import math
import os
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import redis
from flask import Flask, Response, request
from flask_limiter import Limit, Limiter, RateLimitExceeded

from .. import settings
from ..api.problems import Problem
from ..i18n import N_
from ..ledger.embedded import SOCKET_NAME
from ..ledger.store import CLUSTER_SCHEMES, is_cluster

log = logging.getLogger(__name__)

TIERS: Mapping[str, str] = {  # tier -> its setting (service/settings.py)
    "create": "RATELIMIT_CREATE", "expensive": "RATELIMIT_EXPENSIVE",
    "append": "RATELIMIT_APPEND", "match": "RATELIMIT_MATCH",
    "rulings": "RATELIMIT_RULINGS", "default": "RATELIMIT_DEFAULT",
}
ENDPOINT_TIERS: Mapping[str, str] = {
    "matches.create": "create", "matches.import_match": "create",
    "hands.analyze": "expensive", "referee.adjudicate": "expensive",
    "referee.turn_options": "expensive", "matches.export": "expensive",
    "matches.append_hand": "append", "matches.buy_in": "append", "matches.delete": "append",
    "melds.validate_meld": "rulings", "melds.opening": "rulings", "melds.build": "rulings",
    "jokers.release": "rulings", "hands.score": "rulings", "referee.check_turn": "rulings",
}
MATCH_WRITES = frozenset(("matches.append_hand", "matches.buy_in", "matches.delete"))
EXEMPT = frozenset(("health.healthz", "health.readyz", "metrics", "api-docs.openapi_json",
                    "docs", "docs_init", "docs_assets", "problem_type", "problems_css",
                    "console.page", "console.asset", "static"))

# Flask-Limiter's settings (service/settings.py), handed to it through the app config
_LIMITER_SETTINGS = ("RATELIMIT_ENABLED", "RATELIMIT_SWALLOW_ERRORS",
                     "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", "RATELIMIT_STORAGE_URI",
                     "RATELIMIT_STRATEGY", "RATELIMIT_KEY_PREFIX")


def storage_uri(config: settings.Settings) -> str:
    """Where the counters live: the ledger's Redis unless RATELIMIT_STORAGE_URI says."""
    url = config.REDIS_URL
    if not url:
        return ("redis+unix://"
                f"{os.path.join(os.path.abspath(config.KALUKI_DATA_DIR), SOCKET_NAME)}")
    if url.startswith("unix://"):
        return "redis+" + url
    if url.partition("://")[0].lower() in CLUSTER_SCHEMES:  # limits reads these as they are
        return url
    if _is_cluster(url):
        return "redis+cluster://" + url.split("://", 1)[1]
    return url


def _is_cluster(url: str) -> bool:
    """Ask the Redis once (at start) whether it runs in cluster mode, the ledger's way."""
    try:
        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return is_cluster(client)
        finally:
            client.close()
    except Exception as exc:  # down at start: a plain client (the limiter fails open anyway)
        log.warning("rate limits: could not ask %s whether it is a cluster: %s",
                    _redact(url), type(exc).__name__)
        return False


def _redact(url: str) -> str:
    return url.split("@", 1)[-1] if "@" in url else url


@lru_cache(maxsize=64)
def _networks(spec: str) -> tuple[Any, ...] | None:
    """FORWARDED_ALLOW_IPS as networks; None means every peer is trusted (``*``)."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if "*" in items:
        return None
    nets = []
    for item in items:
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            log.warning("FORWARDED_ALLOW_IPS: %r is not an address or network", item)
    return tuple(nets)


@lru_cache(maxsize=4096)
def _trusted(addr: str, spec: str) -> bool:
    nets = _networks(spec)
    if nets is None:
        return True
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in net for net in nets)


def client_address_func(trusted: str) -> Callable[[], str]:
    """The key function: the client's address (X-Forwarded-For only through a trusted peer)."""
    def client_address() -> str:
        environ = request.environ
        peer: str = environ.get("REMOTE_ADDR") or "unknown"
        forwarded: str | None = environ.get("HTTP_X_FORWARDED_FOR")
        if not trusted or not forwarded or not _trusted(peer, trusted):
            return peer
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        for hop in reversed(hops):
            if not _trusted(hop, trusted):
                return hop
        return hops[0] if hops else peer
    return client_address


def match_token() -> str:
    """The key for a match write: a digest of the bearer token (never the token itself)."""
    auth = request.environ.get("HTTP_AUTHORIZATION", "")
    return "token:" + hashlib.sha256(auth.encode()).hexdigest()[:32]


def install(app: Flask) -> Limiter | None:
    """Attach the limiter (nothing at all when RATELIMIT_ENABLED is false)."""
    conf = settings.of(app)
    app.config["RATELIMIT_ENABLED"] = conf.RATELIMIT_ENABLED
    if not conf.RATELIMIT_ENABLED:
        return None
    for name in _LIMITER_SETTINGS:
        app.config[name] = getattr(conf, name)
    app.config["RATELIMIT_STORAGE_URI"] = conf.RATELIMIT_STORAGE_URI or storage_uri(conf)
    app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_timeout": 0.25,
                                                        "socket_connect_timeout": 0.25})
    tiers: dict[str, str] = {tier: getattr(conf, name) for tier, name in TIERS.items()}
    trusted = conf.FORWARDED_ALLOW_IPS

    def tier_of() -> str:
        return ENDPOINT_TIERS.get(request.endpoint or "", "default")

    def address_limit() -> str:
        return tiers[tier_of()]

    def token_limit() -> str:
        return tiers["match"] if request.endpoint in MATCH_WRITES else ""

    def exempt() -> bool:
        return request.endpoint in EXEMPT or not tiers[tier_of()] and (
            request.endpoint not in MATCH_WRITES or not tiers["match"])

    limiter = Limiter(
        client_address_func(trusted),
        default_limits=[Limit(address_limit), Limit(token_limit, key_function=match_token)],
        headers_enabled=False)  # the IETF fields are written below, not X-RateLimit-*
    limiter.request_filter(exempt)
    before = len(app.before_request_funcs.get(None, ()))
    after = len(app.after_request_funcs.get(None, ()))
    teardown = len(app.teardown_request_funcs.get(None, ()))
    limiter.init_app(app)
    # endpoints with nothing to count skip Flask-Limiter's hooks altogether: even for an
    # exempt request they cost ~65 µs in-process (measured on validate), a third of a ruling
    uncounted = frozenset(e for e in app.view_functions if e in EXEMPT or (
        not tiers[ENDPOINT_TIERS.get(e, "default")]
        and (e not in MATCH_WRITES or not tiers["match"])))
    for funcs, start in ((app.before_request_funcs, before), (app.after_request_funcs, after),
                         (app.teardown_request_funcs, teardown)):
        hooks = funcs.setdefault(None, [])
        hooks[start:] = [_skipping(h, uncounted) for h in hooks[start:]]
    headers_enabled = conf.RATELIMIT_HEADERS_ENABLED

    @app.errorhandler(RateLimitExceeded)
    def _rate_limited(exc: RateLimitExceeded) -> Response:
        item = exc.limit.limit
        return Problem("rate-limited", N_("Over the rate limit of {amount} per {window} for "
                                          "this client; see Retry-After."),
                       params={"amount": item.amount, "window": _window_text(item)}).response()

    @app.after_request
    @functools.partial(_skipping, uncounted=uncounted)
    def _ratelimit_headers(response: Response) -> Response:
        current = limiter.current_limit if _limited(limiter) else None
        if current is None:
            return response
        item = current.limit
        name = _policy_name(item, "match" if "token:" in current.key else tier_of())
        response.headers["RateLimit-Policy"] = f'"{name}";q={item.amount};w={_window(item)}'
        if current.breached or headers_enabled:
            try:
                reset = max(0, math.ceil(current.window[0] - time.time()))
                remaining = 0 if current.breached else current.remaining
            except Exception:  # the storage went away: the policy alone
                return response
            response.headers["RateLimit"] = f'"{name}";r={remaining};t={reset}'
            if current.breached:
                response.headers["Retry-After"] = str(max(1, reset))
        return response

    app.extensions["kaluki_limiter"] = limiter
    return limiter


def _skipping(hook: Callable[..., Any], uncounted: frozenset[str]) -> Callable[..., Any]:
    """``hook``, except on the endpoints nothing counts (it then passes its argument on)."""
    def skipping(*args: Any) -> Any:
        if request.endpoint in uncounted:
            return args[0] if args else None
        return hook(*args)

    skipping.__name__ = getattr(hook, "__name__", "ratelimit_hook")
    return skipping


def _limited(limiter: Limiter) -> bool:
    """Whether this request went through the limiter at all (cheap: no storage call)."""
    try:
        return bool(limiter.context.view_rate_limit)
    except Exception:
        return False


def _window(item: Any) -> int:
    return int(item.get_expiry())


def _window_text(item: Any) -> str:
    mult = item.multiples
    return f"{mult} {item.GRANULARITY.name}s" if mult > 1 else item.GRANULARITY.name


def _policy_name(item: Any, tier: str) -> str:
    return f"{tier}-{item.amount}-{_window(item)}s"
