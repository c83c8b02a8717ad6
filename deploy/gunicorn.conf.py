"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: gevent, one worker per core (2 on the 2-core bench machine), no
preload. Chosen for slow clients first (issue 14): a sync or gthread worker gives
a connection a whole thread as soon as its first bytes arrive, so 4 sockets that
send 35 bytes of headers and then nothing stopped the gthread 2x2 default from
answering anyone. A gevent worker gives such a connection a greenlet and closes
it unanswered after `keepalive` seconds without complete headers; with 32 such
sockets and 8 trickling a body, /healthz keeps a median of a few ms
(tests/web/test_slow_clients.py). Polite clients, measured with `make bench`'s
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
table now includes gevent 2 and 3, and bench.workers.pick_winner picks among the
models slow clients cannot starve). CPU-heavy requests block a gevent worker
for their whole length: the solver's work budget (issue 14 item 2) is what keeps
that short. Earlier measurements of the thread models (bench/RESULTS.md,
"Worker model"): gthread 2x2 1.08x the median model's validate rps, p99 2.6x
p50; sync 0.93-0.99x; gthread 2x4 1.22x with p99 4.8x p50.

Every knob can be overridden from the environment (service/settings.py, listed with
their defaults in docs/configuration.md): PORT, WEB_CONCURRENCY,
GUNICORN_WORKER_CLASS, GUNICORN_THREADS (set: the thread models, 1 = sync,
more = gthread), GUNICORN_WORKER_CONNECTIONS, GUNICORN_TIMEOUT,
GUNICORN_MAX_REQUESTS, GUNICORN_RECYCLE_EVERY, SHUTDOWN_DRAIN_SECONDS. They are read
once, here, and a bad value stops gunicorn before it binds, naming the variable.
Stopping (SIGTERM or SIGINT, to the master or the whole process group): below, and
docs/deploy.md "Stopping".

Logs (service/logs.py): JSON lines for gunicorn and the app alike (LOG_FORMAT=text
for people), every line of a request with its request_id; the access log is on
(stdout; ACCESS_LOG=off disables it, ACCESS_LOG=<path> writes it to a file).
"""

import mmap
import multiprocessing
import os
import random
import signal
import socket
import sys
import threading

# the settings and logging classes live in the service package: make it importable from here
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from service import settings as _settings  # noqa: E402
from service.logs import dict_config  # noqa: E402

# every variable, read once and checked (service/settings.py): a bad value stops here
try:
    S = _settings.load()
except _settings.SettingsError as _exc:
    print(f"kaluki: {_exc}", file=sys.stderr)
    raise SystemExit(1) from None

bind = f"{S.HOST}:{S.PORT}"
workers = S.WEB_CONCURRENCY or multiprocessing.cpu_count()
# gevent unless asked otherwise: GUNICORN_THREADS alone keeps the older models
# (1 = sync workers, more = gthread), as the bench's worker-model table sets them
threads = S.GUNICORN_THREADS or 1
worker_class = S.worker_class()
_gevent = "gevent" in worker_class
# connections one gevent worker holds at once (each idle one costs a greenlet and a socket);
# a live event stream (GET /v1/matches/{id}/events) is one of them, held as a greenlet
# that waits on the worker's one Redis pub/sub listener: keep this above
# EVENTS_MAX_SUBSCRIBERS (default 1000 streams a worker) with room for other requests.
# Under gthread/sync a stream holds a thread for its whole life: use gevent for events.
worker_connections = S.GUNICORN_WORKER_CONNECTIONS
timeout = S.GUNICORN_TIMEOUT
graceful_timeout = 10
# gevent: also the time a client has to send a request's line and headers (first request
# or next one on a kept-alive connection); then the connection is closed unanswered
keepalive = 5
max_requests = S.GUNICORN_MAX_REQUESTS
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
# one gthread worker could otherwise accept every connection and leave the other idle).
# Each worker then binds its own socket (the master holds none).
reuse_port = True
# one JSON format for gunicorn and the app; the access line (route, status, duration_ms,
# request_id, ...) comes from service.logs.GunicornLogger, after the response is sent
logger_class = "service.logs.GunicornLogger"
logconfig_dict = dict_config(found=S)
accesslog = None  # where it goes is ACCESS_LOG, in logconfig_dict
errorlog = "-"
# gunicorn >= 23 opens a control socket at one fixed path per user: give each port its own,
# so two instances on one host (blue/green, the concurrency tests) do not take each other's
control_socket = S.GUNICORN_CONTROL_SOCKET or f"/tmp/kaluki-gunicorn-{S.PORT}.ctl"
loglevel = S.LOG_LEVEL

# /metrics sums every worker's numbers through files in this directory (cleared at start;
# prometheus_client reads the variable itself, so it is set in the environment)
_METRICS_DIR = S.PROMETHEUS_MULTIPROC_DIR or f"/tmp/kaluki-metrics-{S.PORT}"
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _METRICS_DIR


def on_starting(server):  # noqa: ARG001 - gunicorn hook signature
    """Prometheus multiprocess mode needs a clean shared directory per server start.

    Without REDIS_URL the master starts the embedded Redis (one per data dir) so it
    lives exactly as long as the server; the workers connect to its socket.
    """
    _log_urls(server)
    if not S.REDIS_URL:
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
        embedded.ensure_server(S.KALUKI_DATA_DIR)
    os.makedirs(_METRICS_DIR, exist_ok=True)
    for name in os.listdir(_METRICS_DIR):
        os.remove(os.path.join(_METRICS_DIR, name))


def worker_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    """In the worker, as it stops: write out the last second of metrics tallies."""
    import sys

    metrics = sys.modules.get("service.web.metrics")  # absent in the bench's baseline app
    if metrics is not None:
        metrics.flush_all()


def child_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


# Graceful stop (SIGTERM or SIGINT, to the master or to the whole process group: systemd's
# KillMode=control-group, Ctrl-C, `kill -- -PGID`):
#
# 1. readiness turns 503 at once and every answer says "Connection: close", for
#    SHUTDOWN_DRAIN_SECONDS, while the workers go on serving: a worker stops only when the
#    master tells it to, so a signal sent to the group leaves it serving (the master does
#    not boot new workers once the drain has begun);
# 2. then each worker stops taking new connections (a socket filter drops new SYNs, so a
#    client's connect is refused once the socket closes, never reset after it sent its
#    request), serves what is already waiting in its accept queue, and stops (its in-flight
#    requests finish within graceful_timeout). A second signal skips the drain.
#
# Shared state: a small file mapped by the master and every worker (KALUKI_DRAIN_FILE;
# service/api/health.py reads byte 0): byte 0 is 1 while draining; byte 1 + age % SLOTS is
# set by the master just before it sends a worker SIGTERM itself.
SHUTDOWN_DRAIN_SECONDS = S.SHUTDOWN_DRAIN_SECONDS
_DRAIN_PATH = S.KALUKI_DRAIN_FILE or f"/tmp/kaluki-drain-{S.PORT}"
os.environ["KALUKI_DRAIN_FILE"] = _DRAIN_PATH  # the workers' app reads it (its settings)
_SLOTS = 4096
# a fresh, not-draining flag for every start (written in place, never truncated: a
# mapping of a truncated file faults; O_NOFOLLOW: never through a planted symlink)
_fd = os.open(_DRAIN_PATH, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
os.pwrite(_fd, bytes(1 + _SLOTS), 0)
_DRAIN = mmap.mmap(_fd, 1 + _SLOTS)
os.close(_fd)
_QUEUE_WAIT = 2.0  # seconds a stopping worker serves its accept queue at most


def _urls(addresses):
    """The URLs the service answers on, for the start-up log (gunicorn's own line is blank
    with reuse_port: its master holds no socket)."""
    out = []
    for address in addresses:
        if isinstance(address, str):  # a Unix socket
            out.append(f"unix:{address}")
            continue
        host, port = address[0], address[1]
        shown = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
        shown = f"[{shown}]" if ":" in shown else shown
        every = " (every interface)" if host in ("0.0.0.0", "::", "") else ""
        out.append(f"http://{shown}:{port}{every}")
    return out


def _log_urls(server):
    urls = ", ".join(_urls(server.cfg.address))

    class _Listening:  # fill in gunicorn's own "Listening at: " line
        def filter(self, record):
            if record.msg == "Listening at: %s (%s)" and record.args and not record.args[0]:
                record.args = (urls, *record.args[1:])
            return True

    server.log.error_log.addFilter(_Listening())


def when_ready(server):
    """The drain (above): the master's side."""
    server.log.info("Serving on %s (%d %s workers)", ", ".join(_urls(server.cfg.address)),
                    server.num_workers, worker_class)
    stop_term, stop_int = server.handle_term, server.handle_int

    def drain(name, stop):
        def handle():
            if SHUTDOWN_DRAIN_SECONDS <= 0 or _DRAIN[0]:
                stop()
            _DRAIN[0] = 1
            server.log.info("%s: draining for %.1f s (readiness 503, connections close; "
                            "again to stop at once)", name, SHUTDOWN_DRAIN_SECONDS)
            timer = threading.Timer(SHUTDOWN_DRAIN_SECONDS, server.signal,
                                    (signal.SIGTERM, None))
            timer.daemon = True
            timer.start()
        return handle

    server.handle_term = drain("SIGTERM", stop_term)
    server.handle_int = drain("SIGINT", stop_int)
    kill_worker, manage_workers = server.kill_worker, server.manage_workers

    def told_kill_worker(pid, sig):
        worker = server.WORKERS.get(pid)
        if worker is not None and sig == signal.SIGTERM:
            _DRAIN[1 + worker.age % _SLOTS] = 1  # this SIGTERM is the master's
        kill_worker(pid, sig)

    def no_respawn_while_draining():
        if not _DRAIN[0]:
            manage_workers()

    server.kill_worker = told_kill_worker
    server.manage_workers = no_respawn_while_draining


def pre_fork(server, worker):  # noqa: ARG001 - gunicorn hook signature
    _DRAIN[1 + worker.age % _SLOTS] = 0


def post_fork(server, worker):  # noqa: ARG001 - gunicorn hook signature
    """The drain's handlers replace gunicorn's as soon as it installs them (before the app
    loads: a worker still loading is stopped by the master too, not by the group's signal)."""
    init_signals = worker.init_signals

    def init_then_ours():
        init_signals()
        _worker_signals(worker)

    worker.init_signals = init_then_ours


def _worker_signals(worker):
    """The drain (above): the worker's side. A SIGTERM the master did not send, and any
    SIGINT, is the process group's: the master drains and then stops this worker."""
    handle_exit = worker.handle_exit

    def on_term(sig, frame):
        if not _DRAIN[1 + worker.age % _SLOTS]:
            worker.log.info("worker %s: %s to the process group; serving on while the "
                            "master drains", worker.pid, signal.Signals(sig).name)
            return
        if getattr(worker, "_kaluki_stopping", False):
            return
        worker._kaluki_stopping = True
        # in a greenlet or a thread: the worker serves on meanwhile
        if _gevent:
            import gevent

            gevent.spawn(_stop_accepting, worker, handle_exit, sig)
        else:
            threading.Thread(target=_stop_accepting, args=(worker, handle_exit, sig),
                             daemon=True).start()

    def on_int(sig, frame):  # noqa: ARG001 - a signal handler's signature
        worker.log.info("worker %s: SIGINT to the process group; serving on while the "
                        "master drains", worker.pid)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_int)


def _stop_accepting(worker, handle_exit, sig):
    """Drop new SYNs on this worker's sockets, serve its accept queue, then stop."""
    import time

    # gunicorn's listeners, or (gevent, after its patch) plain sockets
    sockets = [getattr(lnr, "sock", lnr) for lnr in worker.sockets]
    for sock in sockets:
        try:
            _drop_new_connections(sock)
        except OSError as exc:
            worker.log.warning("worker %s: cannot filter its socket: %s", worker.pid, exc)
    deadline = time.monotonic() + _QUEUE_WAIT
    while time.monotonic() < deadline and any(_waiting(sock) for sock in sockets):
        time.sleep(0.02)
    time.sleep(0.05)  # the last accepted connection's request reaches the worker
    handle_exit(sig, None)


def _drop_new_connections(sock):
    """A classic BPF filter that drops every packet: new SYNs are not answered (connections
    already in the accept queue have their own sockets and are not filtered)."""
    import ctypes

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                    ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    drop = (Instruction * 1)(Instruction(0x06, 0, 0, 0))  # BPF_RET | BPF_K, 0: drop
    program = Program(1, ctypes.cast(drop, ctypes.POINTER(Instruction)))
    sock.setsockopt(socket.SOL_SOCKET, 26, bytes(program))  # SO_ATTACH_FILTER (Linux)


def _waiting(sock):
    """Connections in a listening socket's accept queue (Linux: tcp_info.tcpi_unacked)."""
    import struct

    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except OSError:
        return 0
    return struct.unpack_from("I", info, 24)[0]


# gevent: about one answer in GUNICORN_RECYCLE_EVERY closes its kept-alive connection.
# A few long-lived connections opened together (a load balancer's pool, a game server's)
# otherwise stay where they landed, often most of them on one worker while the other
# idles (measured: 3.6 vs 1.2 CPU-seconds in 5 s); the client's reconnect lands on
# whichever worker is idle, so the load evens out. 0 turns it off.
_RECYCLE_EVERY = S.GUNICORN_RECYCLE_EVERY
_RECYCLE = 1.0 / _RECYCLE_EVERY if _gevent and _RECYCLE_EVERY > 0 else 0.0


def pre_request(worker, req):
    """While draining, every answer closes its connection (RFC 9112 §9.6)."""
    if _DRAIN[0] or (_RECYCLE and random.random() < _RECYCLE):
        req.must_close = True
    worker.log.debug("%s %s", req.method, req.path)
