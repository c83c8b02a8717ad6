"""Start and stop gunicorn with the production config on a free loopback port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
SERVICE_APP = "service.app:create_app()"
BASELINE_APP = "bench.baseline_app:app"


def free_port() -> int:
    """A free loopback port: the first free one of ``BENCH_PORTS`` (``9400-9449``) when
    set (a shared machine gives each person a range), else any."""
    span = os.environ.get("BENCH_PORTS")
    if span:
        lo, _, hi = span.partition("-")
        for port in range(int(lo), int(hi or lo) + 1):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
        raise RuntimeError(f"no free port in BENCH_PORTS={span}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    """Resident set size of a process, in KiB (from /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Server:
    """``with Server(app, workers=3, threads=1) as srv: srv.url`` runs gunicorn -c deploy/...

    ``workers``/``threads`` of None keep the config's defaults (or the caller's
    environment); otherwise they are passed as WEB_CONCURRENCY/GUNICORN_THREADS,
    the config's own env overrides.
    """

    def __init__(self, app: str, workers: int | None = None, threads: int | None = None,
                 env: dict[str, str] | None = None, ready_path: str = "/healthz") -> None:
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ready_path = ready_path
        self.env = dict(os.environ)
        self.env.update({"HOST": "127.0.0.1", "PORT": str(self.port),
                         "LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "warning")})
        self.env.pop("ACCESS_LOG", None)
        # the bench measures requests, not limits or the stop: off unless the caller's env
        # sets them (BENCH_RATELIMIT=1 keeps the limits on, to measure what they cost)
        if not os.environ.get("BENCH_RATELIMIT"):
            self.env["RATELIMIT_ENABLED"] = "false"
        self.env.setdefault("SHUTDOWN_DRAIN_SECONDS", "0")
        # Never write bench matches into a real store: a throw-away embedded Redis
        # (its data dir is removed on exit) unless BENCH_REDIS_URL names a server.
        self.data_dir = tempfile.mkdtemp(prefix="kaluki-bench-")
        self.env["KALUKI_DATA_DIR"] = self.data_dir
        self.env.pop("REDIS_URL", None)
        if os.environ.get("BENCH_REDIS_URL"):
            self.env["REDIS_URL"] = os.environ["BENCH_REDIS_URL"]
        if workers is not None:
            self.env["WEB_CONCURRENCY"] = str(workers)
        if threads is not None:
            self.env["GUNICORN_THREADS"] = str(threads)
        self.env.update(env or {})
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        gunicorn = Path(sys.executable).with_name("gunicorn")
        cmd = [str(gunicorn) if gunicorn.exists() else "gunicorn", "-c", str(CONFIG), self.app]
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.proc.returncode}): "
                                   f"{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                    if r.status == 200 and len(self.worker_pids()) >= self.expected_workers():
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("gunicorn did not become ready within 60 s")

    def log_tail(self, n: int = 3000) -> str:
        self.log.seek(0)
        return self.log.read()[-n:]

    def expected_workers(self) -> int:
        return int(self.env.get("WEB_CONCURRENCY", "1"))  # unknown default: wait for one

    def children(self, match: Callable[[bytes, bytes], bool]) -> list[int]:
        """The master's child processes whose command line satisfies ``match(cmdline,
        master's cmdline)``."""
        assert self.proc is not None
        pid = self.proc.pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                children = [int(x) for x in f.read().split()]
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                master = f.read()
        except OSError:
            return []
        out = []
        for c in children:
            try:
                with open(f"/proc/{c}/cmdline", "rb") as f:
                    if match(f.read(), master):
                        out.append(c)
            except OSError:
                pass
        return out

    def worker_pids(self) -> list[int]:
        # workers are forks of the master (same command line); the embedded Redis
        # the master may start is a child too, and is not a worker
        return self.children(lambda cmdline, master: cmdline == master)

    def cpu_seconds(self) -> float:
        """User + system CPU time consumed so far by the current workers."""
        total = 0
        for pid in self.worker_pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
            except (OSError, IndexError, ValueError):
                pass
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
