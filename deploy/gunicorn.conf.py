"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: sync workers, one per core plus one (see bench/RESULTS.md for the
measurement behind the choice). Every knob can be overridden from the
environment: PORT, WEB_CONCURRENCY, GUNICORN_THREADS, GUNICORN_TIMEOUT.
"""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = 100 if max_requests else 0
preload_app = True
accesslog = os.environ.get("ACCESS_LOG") or None
errorlog = "-"
# gunicorn >= 23 opens a control socket at one fixed path per user: give each port its own,
# so two instances on one host (blue/green, the concurrency tests) do not take each other's
control_socket = os.environ.get(
    "GUNICORN_CONTROL_SOCKET",
    f"/tmp/kaluki-gunicorn-{os.environ.get('PORT', '8000')}.ctl")
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# /metrics sums every worker's numbers through files in this directory (cleared at start)
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR",
                      f"/tmp/kaluki-metrics-{os.environ.get('PORT', '8000')}")


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


def child_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
