"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: gevent, one worker per core (2 on the 2-core bench machine), no
preload. Chosen for slow clients first (issue 14): a sync or gthread worker gives
a connection a whole thread as soon as its first bytes arrive, so 4 sockets that
send 35 bytes of headers and then nothing stopped the gthread 2x2 default from
answering anyone. A gevent worker gives such a connection a greenlet and closes
it unanswered after `keepalive` seconds without complete headers; with 32 such
sockets and 8 trickling a body, /healthz keeps a median of a few ms
(tests/api/test_slow_clients.py). Polite clients, measured with `make bench`'s
HTTP section on /v1/melds/validate beside the bare-Flask baseline under the same
model (7 pairs; 2026-12-01 on a busy shared machine, load 11-23, so only the
within-model ratios carry over; docs/bench.md): gevent 2 validate/baseline
throughput 0.76, 0.79 and (with the connection recycling below) 0.82 in three
runs (single pairs 0.44-2.10), CPU ratio 0.80-0.82 (338 vs 284 us per request); gthread 2x2 in the same hour 0.72
(0.68-1.05), CPU ratio 0.82 (395 vs 320 us). Both under the 0.80 throughput
target there, where the committed quiet run had gthread 2x2 at 0.85: re-run on
a quiet machine before trusting either. gevent spends
less CPU per request than gthread (no thread hand-off); its p99 under that load
was far worse (hundreds of ms: one thread per worker competes for the cores with
every other process), to be re-measured on a quiet machine (the bench's worker
table now includes gevent 2 and 3, and bench.run.pick_winner picks among the
models slow clients cannot starve). CPU-heavy requests block a gevent worker
for their whole length: the solver's work budget (issue 14 item 2) is what keeps
that short. Earlier measurements of the thread models (bench/RESULTS.md,
"Worker model"): gthread 2x2 1.08x the median model's validate rps, p99 2.6x
p50; sync 0.93-0.99x; gthread 2x4 1.22x with p99 4.8x p50.

Every knob can be overridden from the environment: PORT, WEB_CONCURRENCY,
GUNICORN_WORKER_CLASS, GUNICORN_THREADS (set: the thread models, 1 = sync,
more = gthread), GUNICORN_WORKER_CONNECTIONS, GUNICORN_TIMEOUT,
GUNICORN_MAX_REQUESTS, SHUTDOWN_DRAIN_SECONDS.

Logs (service/logs.py): JSON lines for gunicorn and the app alike (LOG_FORMAT=text
for people), every line of a request with its request_id; the access log is on
(stdout; ACCESS_LOG=off disables it, ACCESS_LOG=<path> writes it to a file).
"""

import mmap
import multiprocessing
import os
import random
import signal
import sys
import threading

# the logging classes below live in the service package: make it importable from here
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from service.logs import dict_config  # noqa: E402

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
# gevent unless asked otherwise: GUNICORN_THREADS alone keeps the older models
# (1 = sync workers, more = gthread), as the bench's worker-model table sets them
_threads = os.environ.get("GUNICORN_THREADS")
threads = int(_threads or "1")
worker_class = (os.environ.get("GUNICORN_WORKER_CLASS")
                or ("gevent" if _threads is None else "gthread" if threads > 1 else "sync"))
_gevent = "gevent" in worker_class
# connections one gevent worker holds at once (each idle one costs a greenlet and a socket);
# a live event stream (GET /v1/matches/{id}/events) is one of them, held as a greenlet
# that waits on the worker's one Redis pub/sub listener: keep this above
# EVENTS_MAX_SUBSCRIBERS (default 1000 streams a worker) with room for other requests.
# Under gthread/sync a stream holds a thread for its whole life: use gevent for events.
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
# one JSON format for gunicorn and the app; the access line (route, status, duration_ms,
# request_id, ...) comes from service.logs.GunicornLogger, after the response is sent
logger_class = "service.logs.GunicornLogger"
logconfig_dict = dict_config()
accesslog = None  # where it goes is ACCESS_LOG, in logconfig_dict
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
        # loaded by its file, not through the service.ledger package (which imports redis and
        # with it ssl): gevent workers patch the stdlib after the fork, and a master that has
        # imported ssl makes every worker warn that ssl was patched too late
        import importlib.util

        package = importlib.util.find_spec("service")  # a top-level spec imports nothing
        assert package is not None and package.submodule_search_locations
        spec = importlib.util.spec_from_file_location("kaluki_embedded_redis", os.path.join(
            list(package.submodule_search_locations)[0], "ledger", "embedded.py"))
        assert spec is not None and spec.loader is not None
        embedded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(embedded)
        embedded.ensure_server(os.environ.get("KALUKI_DATA_DIR", "./var"))
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
# a fresh, not-draining flag for every start (written in place, never truncated: a
# mapping of a truncated file faults; O_NOFOLLOW: never through a planted symlink)
_fd = os.open(_DRAIN_PATH, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
os.pwrite(_fd, b"\0", 0)
_DRAIN = mmap.mmap(_fd, 1)
os.close(_fd)


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


# gevent: about one answer in GUNICORN_RECYCLE_EVERY closes its kept-alive connection.
# A few long-lived connections opened together (a load balancer's pool, a game server's)
# otherwise stay where they landed, often most of them on one worker while the other
# idles (measured: 3.6 vs 1.2 CPU-seconds in 5 s); the client's reconnect lands on
# whichever worker is idle, so the load evens out. 0 turns it off.
_RECYCLE_EVERY = float(os.environ.get("GUNICORN_RECYCLE_EVERY") or 100)
_RECYCLE = 1.0 / _RECYCLE_EVERY if _gevent and _RECYCLE_EVERY > 0 else 0.0


def pre_request(worker, req):
    """While draining, every answer closes its connection (RFC 9112 §9.6)."""
    if _DRAIN[0] or (_RECYCLE and random.random() < _RECYCLE):
        req.must_close = True
    worker.log.debug("%s %s", req.method, req.path)
