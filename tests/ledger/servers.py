"""Start gunicorn instances of the service as subprocesses (tests and the benchmark)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from tests.support import free_port

ROOT = Path(__file__).resolve().parents[2]


def _has_setting(name: str) -> bool:
    from gunicorn.config import KNOWN_SETTINGS

    return any(s.name == name for s in KNOWN_SETTINGS)


class Gunicorn:
    def __init__(self, redis_url: str | None, workers: int = 2, threads: int | None = 4,
                 extra_env: dict[str, str] | None = None, new_session: bool = False,
                 app: str = "service.app:create_app()") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(self.port),
               "WEB_CONCURRENCY": str(workers), "GUNICORN_THREADS": str(threads or 1),
               "REDIS_URL": redis_url, "LOG_LEVEL": "WARNING", "REDIS_RETRIES": "2",
               # off unless a test turns them on: limits, and the drain before a stop
               "RATELIMIT_ENABLED": "false", "SHUTDOWN_DRAIN_SECONDS": "0",
               "GUNICORN_RECYCLE_EVERY": "0",  # keep-alive as the client asks, deterministically
               "KALUKI_DRAIN_FILE": f"{tempfile.gettempdir()}/kaluki-drain-{self.port}",
               **(extra_env or {})}
        if threads is None:  # the config's own worker model (gevent)
            env.pop("GUNICORN_THREADS")
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        if redis_url is None:  # the embedded Redis (KALUKI_DATA_DIR in extra_env)
            env.pop("REDIS_URL")
        else:  # a test's Redis (throwaway, or the machine's without AOF): ready regardless,
            # and one signing key for every instance (pass extra_env to test otherwise)
            env.setdefault("ALLOW_VOLATILE_REDIS", "true")
            env.setdefault("LEDGER_SIGNING_KEY", "test-signing-key-0123456789abcdef")
        env.update(extra_env or {})
        self.drain_file = env["KALUKI_DRAIN_FILE"]
        self.log = tempfile.NamedTemporaryFile(prefix="gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
        args = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py")]
        if _has_setting("control_socket"):  # gunicorn >= 25: one control socket per instance
            args += ["--control-socket", f"{self.log.name}.ctl"]
        # new_session: its own process group, for a test that signals the whole group
        self.proc = subprocess.Popen(args + [app], cwd=ROOT, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=new_session)

    def wait(self, timeout: float = 30) -> Gunicorn:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}: "
                                   f"{Path(self.log.name).read_text()[-2000:]}")
            try:
                if requests.get(self.base + "/healthz", timeout=1).ok:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        for path in (self.log.name, f"{self.log.name}.ctl", self.drain_file):
            with contextlib.suppress(OSError):
                os.unlink(path)


def start_pair(redis_url: str, **kw) -> list[Gunicorn]:
    servers = [Gunicorn(redis_url, **kw), Gunicorn(redis_url, **kw)]
    try:
        for s in servers:
            s.wait()
    except Exception:
        for s in servers:
            s.stop()
        raise
    return servers
