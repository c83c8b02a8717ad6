"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: gthread, one worker per core with 2 threads each (2 x 2 on the
2-core bench machine). Measured with `make bench` (bench/RESULTS.md, "Worker
model"; sync 2/3/4/5 and gthread 2x4, 2x2, 3x2 on /v1/melds/validate and a bare
Flask baseline): gthread 2x2 gave ~10-15% more validate throughput than any
sync count (~2,280 vs ~1,930-2,120 rps in the quietest run), the least memory
(2 processes, ~67 MiB) and less CPU per request (it keeps connections alive;
gunicorn's sync workers close every connection), with a p99 close to sync's;
gthread 2x4 was as fast but its p99 was ~2.5x worse (four threads per GIL on
CPU-bound work). Every knob can be overridden from the environment: PORT,
WEB_CONCURRENCY, GUNICORN_THREADS (1 = sync workers), GUNICORN_TIMEOUT.
"""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = 100 if max_requests else 0
preload_app = True
accesslog = os.environ.get("ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()


def on_starting(server):  # noqa: ARG001 - gunicorn hook signature
    """Prometheus multiprocess mode needs a clean shared directory per server start."""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        os.makedirs(path, exist_ok=True)
        for name in os.listdir(path):
            os.remove(os.path.join(path, name))


def child_exit(server, worker):  # noqa: ARG001 - gunicorn hook signature
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_flask_exporter.multiprocess import GunicornPrometheusMetrics

        GunicornPrometheusMetrics.mark_process_dead_on_child_exit(worker.pid)
