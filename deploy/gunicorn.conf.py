"""Production gunicorn settings (Procfile and `make run` use this file).

Worker model: sync workers, one per core plus one (3 on the 2-core bench
machine). Measured with `make bench` (bench/RESULTS.md, "Worker model"): against
sync 2/4/5 and gthread 2x4, sync 3 was within 5% of the best median
/v1/melds/validate throughput (gthread 2x4, whose p99 was ~1.7x worse: four
threads contend for one GIL on CPU-bound work), with the best p99 and less
memory than sync 4/5; CPU time per request was the same for every model.
Sync workers close the connection after each response (gunicorn ignores
keepalive for them); put a buffering proxy or load balancer in front.
Every knob can be overridden from the environment: PORT, WEB_CONCURRENCY,
GUNICORN_THREADS (>1 switches to gthread), GUNICORN_TIMEOUT.
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
