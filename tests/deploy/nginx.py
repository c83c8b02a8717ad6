"""Run Debian's nginx with deploy/nginx/nginx.conf in front of a given upstream.

Used by tests/deploy/test_nginx.py and bench/measure.py. The committed config is used
as it is, except for two lines it is made for: the address in the upstream's
``server`` line and the port in ``listen``. nginx runs in the foreground
(``daemon off``) with its prefix, pid file and error log in a temporary
directory, on a free loopback port, and is stopped by its pid.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support import free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "nginx" / "nginx.conf"
UPSTREAM_RE = re.compile(r"^(\s*server\s+)app:8000(\s)", re.M)
LISTEN_RE = re.compile(r"^(\s*listen\s+)8080;", re.M)


def render(upstreams: list[str], port: int) -> str:
    """The committed config with only the upstream address(es) and the port replaced."""
    text = CONFIG.read_text()
    match = UPSTREAM_RE.search(text)
    assert match and LISTEN_RE.search(text), "deploy/nginx/nginx.conf lost its template lines"
    line_end = text.index("\n", match.start())
    line = text[match.start():line_end]
    lines = "\n".join(line.replace("app:8000", u) for u in upstreams)
    text = text[:match.start()] + lines + text[line_end:]
    return LISTEN_RE.sub(rf"\g<1>127.0.0.1:{port};", text)


class Nginx:
    """``with Nginx(binary, ["127.0.0.1:8001"]) as n: n.url`` (stopped by pid on exit)."""

    def __init__(self, binary: str, upstreams: list[str]) -> None:
        self.binary = binary
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # a world-readable prefix: nginx's workers run as an unprivileged user when the
        # master is root, and must reach the temp directories under it
        self.prefix = Path(tempfile.mkdtemp(prefix="kaluki-nginx-"))
        self.prefix.chmod(0o755)
        self.conf = self.prefix / "nginx.conf"
        self.conf.write_text(render(upstreams, self.port))
        self.access_log = self.prefix / "stdout.log"
        self.error_log = self.prefix / "error.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Nginx:
        directives = (f"daemon off; pid {self.prefix / 'nginx.pid'}; "
                      f"error_log {self.error_log} info;")
        self._out = self.access_log.open("wb")
        self.proc = subprocess.Popen(
            [self.binary, "-p", f"{self.prefix}/", "-c", str(self.conf), "-e",
             str(self.error_log), "-g", directives],
            stdout=self._out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._cleanup()
                raise RuntimeError(f"nginx exited with {self.proc.returncode}: {self.log_tail()}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.5):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen: {self.log_tail()}")

    def log_tail(self, n: int = 3000) -> str:
        parts = []
        for path in (self.error_log, self.access_log):
            with contextlib.suppress(OSError):
                parts.append(path.read_text(errors="replace")[-n:])
        return "\n".join(parts)

    def access_lines(self) -> list[str]:
        return [line for line in self.access_log.read_text(errors="replace").splitlines()
                if line.startswith("{")]

    def worker_pids(self) -> list[int]:
        """nginx's worker processes (children of the master)."""
        assert self.proc is not None
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            pid_file = self.prefix / "nginx.pid"
            pid = int(pid_file.read_text()) if pid_file.exists() else self.proc.pid
            os.kill(pid, signal.SIGTERM)  # fast shutdown
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        with contextlib.suppress(AttributeError, OSError):
            self._out.close()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)
