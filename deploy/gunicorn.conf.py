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

Logs (service/logs.py): JSON lines for gunicorn and the app alike (LOG_FORMAT=text
for people), every line of a request with its request_id; the access log is on
(stdout; ACCESS_LOG=off disables it, ACCESS_LOG=<path> writes it to a file).
"""

import multiprocessing
import os
import sys

# the logging classes below live in the service package: make it importable from here
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from service.logs import dict_config  # noqa: E402

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or ("gthread" if threads > 1 else "sync")
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = 100 if max_requests else 0
preload_app = True
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
