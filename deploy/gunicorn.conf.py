"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: gthread, one worker per core with 2 threads each (2 x 2 on the
2-core bench machine). Measured with `make bench` (bench/RESULTS.md, "Worker
model": sync 2/3/4/5 and gthread 2x4, 2x2, 3x2 on /v1/melds/validate and a bare
Flask baseline, pooled over 6 runs with each run's numbers taken relative to
its median model): gthread 2x2 serves 1.08x the median model's validate rps
with p99 = 2.6x p50; every sync count serves 0.93-0.99x (sync workers close
every connection, gthread keeps them alive). gthread 2x4 serves 1.22x but its
p99 is 4.8x its p50 (four threads share one GIL on CPU-bound work), and 3x2's
is 4.1x: both fail the p99 <= 3 x p50 target, the first guard of
bench.run.pick_winner. 2x2 also has the least memory (2 processes, ~95 MiB).
On the latest quiet run (2026-11-30): 2x2 4,781 validate rps, p50 3.4 ms, p99
9.3 ms; 2x4 5,382 rps, p99 14.6 ms. Every knob can be overridden
from the environment: PORT, WEB_CONCURRENCY, GUNICORN_THREADS (1 = sync
workers), GUNICORN_WORKER_CLASS (e.g. gthread with one thread), GUNICORN_TIMEOUT.
"""

import mmap
import multiprocessing
import os
import signal
import threading

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
# gevent unless asked otherwise: GUNICORN_THREADS alone keeps the older models
# (1 = sync workers, more = gthread), as the bench's worker-model table sets them
_threads = os.environ.get("GUNICORN_THREADS")
threads = int(_threads or "1")
worker_class = (os.environ.get("GUNICORN_WORKER_CLASS")
                or ("gevent" if _threads is None else "gthread" if threads > 1 else "sync"))
_gevent = "gevent" in worker_class
# connections one gevent worker holds at once (each idle one costs a greenlet and a socket)
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
# gevent: also the time a client has to send a request's line and headers (first request
# or next one on a kept-alive connection); then the connection is closed unanswered
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = 100 if max_requests else 0
# request line, header count and header size: gunicorn's defaults, stated (a request over
# them is refused with 400/431 before the app sees it)
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# gevent must patch the standard library before anything else imports it: the gevent
# worker patches right after the fork, so the app is loaded there (in each worker), not
# preloaded into the unpatched master. Other worker classes keep the preload.
preload_app = not _gevent
# SO_REUSEPORT: the kernel spreads new connections over the workers (with keep-alive,
# one gthread worker could otherwise accept every connection and leave the other idle)
reuse_port = True
accesslog = os.environ.get("ACCESS_LOG") or None
errorlog = "-"
# gunicorn >= 23 opens a control socket at one fixed path per user: give each port its own,
# so two instances on one host (blue/green, the concurrency tests) do not take each other's
control_socket = os.environ.get(
    "GUNICORN_CONTROL_SOCKET",
    f"/tmp/kaluki-gunicorn-{os.environ.get('PORT', '8000')}.ctl")
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# /metrics sums every worker's numbers through files in this directory (cleared at start)
# (an empty value counts as unset: prometheus_client would write its files to the cwd)
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = f"/tmp/kaluki-metrics-{os.environ.get('PORT', '8000')}"


def on_starting(server):  # noqa: ARG001 - gunicorn hook signature
    """Prometheus multiprocess mode needs a clean shared directory per server start.

    Without REDIS_URL the master starts the embedded Redis (one per data dir) so it
    lives exactly as long as the server; the workers connect to its socket.
    """
    if not os.environ.get("REDIS_URL"):
        from service.ledger.embedded import ensure_server

        ensure_server(os.environ.get("KALUKI_DATA_DIR", "./var"))
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        os.makedirs(path, exist_ok=True)
        for name in os.listdir(path):
            os.remove(os.path.join(path, name))


def worker_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    """In the worker, as it stops: write out the last second of metrics tallies."""
    import sys

    metrics = sys.modules.get("service.api.metrics")  # absent in the bench's baseline app
    if metrics is not None:
        metrics.flush_all()


def child_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# Graceful stop (SIGTERM): readiness turns 503 first, the workers answer every request
# with "Connection: close" for SHUTDOWN_DRAIN_SECONDS, and only then gunicorn stops its
# workers (each finishes its in-flight requests within graceful_timeout). The flag is one
# byte of a file mapped by the master and every worker (service/api/health.py reads it
# through KALUKI_DRAIN_FILE).
SHUTDOWN_DRAIN_SECONDS = float(os.environ.get("SHUTDOWN_DRAIN_SECONDS", "5"))
os.environ.setdefault("KALUKI_DRAIN_FILE",
                      f"/tmp/kaluki-drain-{os.environ.get('PORT', '8000')}")
_DRAIN_PATH = os.environ["KALUKI_DRAIN_FILE"]
with open(_DRAIN_PATH, "wb") as _f:  # a fresh, not-draining flag for every start
    _f.write(b"\0")
with open(_DRAIN_PATH, "r+b") as _f:
    _DRAIN = mmap.mmap(_f.fileno(), 1)


def when_ready(server):
    """Stop on SIGTERM only after the drain period (a second SIGTERM stops at once)."""
    stop = server.handle_term

    def handle_term():
        if SHUTDOWN_DRAIN_SECONDS <= 0 or _DRAIN[0]:
            stop()
        _DRAIN[0] = 1
        server.log.info("SIGTERM: draining for %.1f s (readiness 503, connections close)",
                        SHUTDOWN_DRAIN_SECONDS)
        timer = threading.Timer(SHUTDOWN_DRAIN_SECONDS, server.signal, (signal.SIGTERM, None))
        timer.daemon = True
        timer.start()

    server.handle_term = handle_term


def pre_request(worker, req):
    """While draining, every answer closes its connection (RFC 9112 §9.6)."""
    if _DRAIN[0]:
        req.must_close = True
    worker.log.debug("%s %s", req.method, req.path)
