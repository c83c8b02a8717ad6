"""Prometheus metrics at ``/metrics``: latency and count per route, method and status.

Built on prometheus_client directly. prometheus-flask-exporter did the same job
but cost 64 µs of CPU per request (measured: 284 µs → 220 µs per
``/v1/melds/validate`` call in-process without it), a fifth of the app's own
work. Here a WSGI layer around the app times each call, and the observation is
tallied in memory (a bisect and two additions under a lock); once a second,
and before every scrape, the tallies are added to the prometheus histogram.

Why the tally: under gunicorn (``PROMETHEUS_MULTIPROC_DIR``, which the
production config sets, so that every worker's numbers are summed in one
answer) each ``Histogram.observe`` takes a process-wide lock, calls
``getpid()`` and writes two values into a memory-mapped file: 5 µs per request
in-process and about 15 µs of worker CPU under load (bench/RESULTS.md), where
the tally costs under 1 µs. The price is that a scrape may miss up to one
second of another worker's requests; they appear in the next scrape.

The other families are fed the same way (:class:`BatchedCounter` tallies a
dict entry under a lock; nothing touches prometheus on the request path), and
only where their event happens, so a request that has none pays nothing:

* ``kaluki_redis_command_duration_seconds{operation}`` and
  ``kaluki_redis_errors_total{operation,error}``: every ledger store call
  (``load``, ``append``, ``create``, ``entries``, ``delete``, ``ttl``), told by
  ``LedgerStore.observer``; ``error`` is the redis-py exception class.
* ``kaluki_ledger_cas_retries_total``: appends that lost the compare-and-set
  to a concurrent writer and went round again;
  ``kaluki_ledger_idempotent_replays_total``: appends answered from the
  Idempotency-Key store.
* ``kaluki_ruling_violations_total{code}``: the violation codes in ruling
  answers (``render_violations``; a ruling without violations costs nothing).
* ``kaluki_problems_total{code,status}``: every problem answered; from it
  ``kaluki_rate_limited_total`` (status 429 / ``rate-limited``) and
  ``kaluki_solver_budget_refusals_total`` (``search-too-large``).
* ``kaluki_event_streams_open`` (a gauge) and ``kaluki_events_sent_total``: live event
  streams and the events they sent (``service.api.matches.events``).
* ``kaluki_build_info{version,api_version,git_sha}`` = 1 (``GIT_SHA``, else
  ``git rev-parse HEAD`` at start, else ``unknown``).
"""

from __future__ import annotations

import os
import subprocess
import threading
import weakref
from bisect import bisect_left
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from time import perf_counter, sleep
from typing import Any

import flask
from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from .. import settings
from ..api import problems, render
from ..logs import RULE_KEY

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
REDIS_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                 0.25, 0.5, 1.0, 2.5)
FLUSH_SECONDS = 1.0

Key = tuple[str, ...]


class _Batched:
    """What a batched family shares: a tally under a lock, moved into prometheus by
    ``flush`` from a daemon thread every ``interval`` seconds (started on first use,
    so after gunicorn's fork) and before every scrape."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._flusher: threading.Thread | None = None
        _LIVE.add(self)

    def _after_fork(self) -> None:
        # the parent's tally belongs to the parent; its thread did not survive the fork
        self._lock = threading.Lock()
        self._flusher = None
        self._reset()

    def _reset(self) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        raise NotImplementedError

    def _start(self) -> None:
        with self._lock:
            if self._flusher is not None:
                return
            self._flusher = threading.Thread(target=self._run, name="metrics-flush", daemon=True)
        self._flusher.start()

    def _run(self) -> None:
        me = threading.current_thread()
        while self._flusher is me:
            sleep(self.interval)
            self.flush()


class BatchedHistogram(_Batched):
    """A labelled prometheus ``Histogram`` fed in batches.

    ``observe`` adds to an in-memory tally; ``flush`` moves the tally into the
    histogram's own values, bucket by bucket, exactly as that many ``observe``
    calls would have (tests/web/test_metrics.py checks the exposition is
    identical).
    """

    def __init__(self, histogram: Histogram, buckets: tuple[float, ...],
                 interval: float = FLUSH_SECONDS) -> None:
        self.histogram = histogram
        self.bounds = tuple(float(b) for b in buckets)  # +Inf is bucket len(bounds)
        self._tally: dict[Key, list[float]] = {}
        super().__init__(interval)

    def _reset(self) -> None:
        self._tally = {}

    def observe(self, key: Key, seconds: float) -> None:
        # prometheus counts an observation in the first bucket whose bound is >= it
        slot = bisect_left(self.bounds, seconds) + 1
        with self._lock:
            tally = self._tally.get(key)
            if tally is None:
                tally = self._tally[key] = [0.0] * (len(self.bounds) + 2)
            tally[0] += seconds
            tally[slot] += 1
        if self._flusher is None:
            self._start()

    def flush(self) -> None:
        with self._lock:
            tally, self._tally = self._tally, {}
        for key, counts in tally.items():
            child = self.histogram.labels(*key)  # once a second per key: its own cache will do
            # prometheus_client keeps a child's sum and its (non-cumulative) bucket
            # counts as one value each: what observe() increments one at a time
            child._sum.inc(counts[0])
            for bucket, n in zip(child._buckets, counts[1:], strict=True):
                if n:
                    bucket.inc(n)


class BatchedCounter(_Batched):
    """A labelled prometheus ``Counter`` fed in batches: ``inc`` adds to a tally,
    ``flush`` (the same daemon thread, scrapes, ``flush_all``) moves it over."""

    def __init__(self, counter: Counter, interval: float = FLUSH_SECONDS) -> None:
        self.counter = counter
        self._counts: dict[Key, float] = {}
        super().__init__(interval)

    def _reset(self) -> None:
        self._counts = {}

    def inc(self, key: Key = (), n: float = 1.0) -> None:
        with self._lock:
            self._counts[key] = self._counts.get(key, 0.0) + n
        if self._flusher is None:
            self._start()

    def flush(self) -> None:
        with self._lock:
            counts, self._counts = self._counts, {}
        for key, n in counts.items():
            (self.counter.labels(*key) if key else self.counter).inc(n)


_LIVE: weakref.WeakSet[_Batched] = weakref.WeakSet()
# the lambda's list is thrown away: the comprehension only calls each _after_fork
os.register_at_fork(after_in_child=lambda: [h._after_fork() for h in list(_LIVE)])  # type: ignore[func-returns-value]


def flush_all() -> None:
    """Flush every live batched family of this process (gunicorn's ``worker_exit`` calls
    it, so a worker that stops, or is recycled by ``max_requests``, loses no tally)."""
    for family in list(_LIVE):
        family.flush()


class _Request(flask.Request):
    """Flask's request, also leaving the matched rule in the WSGI environ.

    Flask clears ``environ["werkzeug.request"]`` when the request context ends,
    so the WSGI layer below could no longer ask which route answered.
    """

    @property
    def url_rule(self) -> Any:
        return self.environ.get(RULE_KEY)

    @url_rule.setter
    def url_rule(self, rule: Any) -> None:
        self.environ[RULE_KEY] = rule


class LedgerObserver:
    """What ``LedgerStore.observer`` is told, into the Redis and ledger families."""

    def __init__(self, latency: BatchedHistogram, errors: BatchedCounter,
                 cas_retries: BatchedCounter, replays: BatchedCounter) -> None:
        self.latency = latency
        self.errors = errors
        self.events = {"cas-conflict": cas_retries, "idempotent-replay": replays}

    def redis_call(self, operation: str, seconds: float, error: str) -> None:
        self.latency.observe((operation,), seconds)
        if error:
            self.errors.inc((operation, error))

    def ledger_event(self, kind: str) -> None:
        counter = self.events.get(kind)
        if counter is not None:
            counter.inc()


class EventsObserver:
    """What the live-event hub (``service.api.matches.events``) is told."""

    def __init__(self, streams: Gauge, sent: BatchedCounter) -> None:
        self.streams = streams
        self.sent = sent

    def stream_opened(self) -> None:
        self.streams.inc()

    def stream_closed(self) -> None:
        self.streams.dec()

    def events_sent(self, n: int) -> None:
        self.sent.inc((), n)


def git_sha(configured: str = "") -> str:
    """``GIT_SHA`` (its setting), else the checkout's HEAD, else ``unknown``."""
    if configured:
        return configured
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=2, check=True)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_version() -> str:
    try:
        return version("kaluki-service")
    except PackageNotFoundError:
        return "unknown"


def _install_families(app: Flask, registry: CollectorRegistry | None) -> Any:
    """The families beyond the request histogram; returns what a scrape must refresh."""

    def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> BatchedCounter:
        return BatchedCounter(Counter(name, doc, list(labels), registry=registry))

    redis_latency = BatchedHistogram(
        Histogram("kaluki_redis_command_duration_seconds",
                  "Time of each ledger call to Redis (a script, a pipeline or a command), "
                  "by operation", ["operation"], buckets=REDIS_BUCKETS, registry=registry),
        REDIS_BUCKETS)
    observer = LedgerObserver(
        redis_latency,
        counter("kaluki_redis_errors", "Ledger calls to Redis that failed, by operation and "
                "redis-py error class (each one answered 503 ledger-unavailable)",
                ("operation", "error")),
        counter("kaluki_ledger_cas_retries", "Appends that lost the compare-and-set to a "
                "concurrent writer and were computed again"),
        counter("kaluki_ledger_idempotent_replays", "Appends answered with the stored 201 of "
                "their Idempotency-Key"))
    holder = app.extensions.get("kaluki_ledger")
    if holder is not None:
        holder.observer = observer
        if holder.store is not None:
            holder.store.observer = observer

    violations = counter("kaluki_ruling_violations", "Violations in ruling answers, by code",
                         ("code",))

    def on_violations(found: Any) -> None:
        for v in found:
            violations.inc((v.code,))

    app.extensions[render.ON_VIOLATIONS] = on_violations

    problem_counts = counter("kaluki_problems", "Problems answered, by code and status",
                             ("code", "status"))
    rate_limited = counter("kaluki_rate_limited", "Requests refused for the rate limit (429)")
    budget = counter("kaluki_solver_budget_refusals",
                     "Searches refused as too large for the solver's budget (search-too-large)")

    def on_problem(code: str, status: int) -> None:
        problem_counts.inc((code, str(status)))
        if status == 429 or code == "rate-limited":
            rate_limited.inc()
        elif code == "search-too-large":
            budget.inc()

    app.extensions[problems.ON_PROBLEM] = on_problem

    streams = Gauge("kaluki_event_streams_open", "Live event streams open (GET "
                    "/v1/matches/{id}/events), summed over the live workers", registry=registry,
                    multiprocess_mode="livesum")
    app.extensions["kaluki_events_observer"] = EventsObserver(
        streams, counter("kaluki_events_sent", "Live events sent to streams (entries, "
                         "finished, deleted; heartbeats not counted)"))

    build = Gauge("kaluki_build_info", "The running build: package version, API version and "
                  "git commit", ["version", "api_version", "git_sha"], registry=registry,
                  multiprocess_mode="max")
    labels = (package_version(), str(app.config.get("API_VERSION", "unknown")),
              git_sha(settings.of(app).GIT_SHA))
    # in multiprocess mode each process writes its own file: set it at every scrape, in
    # the worker that answers (the master's file is cleared when gunicorn starts)
    return lambda: build.labels(*labels).set(1)


def install(app: Flask) -> BatchedHistogram:
    # prometheus_client reads PROMETHEUS_MULTIPROC_DIR from the environment itself
    multiproc_dir = settings.of(app).PROMETHEUS_MULTIPROC_DIR
    multiproc = bool(multiproc_dir)
    if multiproc_dir:  # an unlabelled counter opens its file at once (under preload: in the master)
        os.makedirs(multiproc_dir, exist_ok=True)
    registry = CollectorRegistry(auto_describe=True)
    # in multiprocess mode values go to the shared files; the registry is built per scrape
    latency = BatchedHistogram(
        Histogram("kaluki_http_request_duration_seconds",
                  "Time to answer an HTTP request, by route, method and status",
                  ["method", "route", "status"], buckets=BUCKETS,
                  registry=None if multiproc else registry),
        BUCKETS)
    app.request_class = _Request
    inner = app.wsgi_app

    def timed(environ: dict[str, Any], start_response: Any) -> Any:
        """Time the whole WSGI call; label it by the route Flask matched."""
        status: list[str] = []

        def capture(code: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(code)
            return start_response(code, headers, exc_info)

        t0 = perf_counter()
        body = inner(environ, capture)
        elapsed = perf_counter() - t0
        if status:
            rule = environ.get(RULE_KEY)
            latency.observe((environ["REQUEST_METHOD"], rule.rule if rule else "unmatched",
                             status[-1][:3]), elapsed)
        return body

    app.wsgi_app = timed  # type: ignore[method-assign]
    refresh = _install_families(app, None if multiproc else registry)
    refresh()

    @app.route("/metrics")
    def metrics() -> Response:
        refresh()
        flush_all()
        if multiproc:
            scrape = CollectorRegistry()
            multiprocess.MultiProcessCollector(scrape)  # type: ignore[no-untyped-call]  # unannotated upstream
            return Response(generate_latest(scrape), content_type=CONTENT_TYPE_LATEST)
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)

    return latency
