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
"""

from __future__ import annotations

import os
import threading
import weakref
from bisect import bisect_left
from time import perf_counter, sleep
from typing import Any

import flask
from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Histogram,
    generate_latest,
    multiprocess,
)

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
FLUSH_SECONDS = 1.0
RULE_KEY = "kaluki.url_rule"

Key = tuple[str, str, str]


class BatchedHistogram:
    """A labelled prometheus ``Histogram`` fed in batches.

    ``observe`` adds to an in-memory tally; ``flush`` moves the tally into the
    histogram's own values, bucket by bucket, exactly as that many ``observe``
    calls would have (tests/api/test_metrics.py checks the exposition is
    identical). A daemon thread flushes every ``interval`` seconds in each
    process that observes (started on first use, so after gunicorn's fork).
    """

    def __init__(self, histogram: Histogram, buckets: tuple[float, ...],
                 interval: float = FLUSH_SECONDS) -> None:
        self.histogram = histogram
        self.bounds = tuple(float(b) for b in buckets)  # +Inf is bucket len(bounds)
        self.interval = interval
        self._lock = threading.Lock()
        self._tally: dict[Key, list[float]] = {}
        self._flusher: threading.Thread | None = None
        _LIVE.add(self)

    def _after_fork(self) -> None:
        # the parent's tally belongs to the parent; its thread did not survive the fork
        self._lock = threading.Lock()
        self._tally = {}
        self._flusher = None

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


_LIVE: weakref.WeakSet[BatchedHistogram] = weakref.WeakSet()
os.register_at_fork(after_in_child=lambda: [h._after_fork() for h in list(_LIVE)])


def flush_all() -> None:
    """Flush every live histogram of this process (gunicorn's ``worker_exit`` calls it,
    so a worker that stops, or is recycled by ``max_requests``, loses no tally)."""
    for histogram in list(_LIVE):
        histogram.flush()


class _Request(flask.Request):
    """Flask's request, also leaving the matched rule in the WSGI environ.

    Flask clears ``environ["werkzeug.request"]`` when the request context ends,
    so the WSGI layer below could no longer ask which route answered.
    """

    @property  # type: ignore[override]
    def url_rule(self) -> Any:
        return self.environ.get(RULE_KEY)

    @url_rule.setter
    def url_rule(self, rule: Any) -> None:
        self.environ[RULE_KEY] = rule


def install(app: Flask) -> BatchedHistogram:
    multiproc = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
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

    @app.route("/metrics")
    def metrics() -> Response:
        latency.flush()
        if multiproc:
            scrape = CollectorRegistry()
            multiprocess.MultiProcessCollector(scrape)
            return Response(generate_latest(scrape), mimetype=CONTENT_TYPE_LATEST)
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    return latency
