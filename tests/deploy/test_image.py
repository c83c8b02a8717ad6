"""The container image's install and start steps, run without Docker (issue 12, item 1).

This machine has a Docker client but no daemon, so the image cannot be built here.
Instead the test reads the repo's ``Dockerfile`` and does what a build would do,
under a temporary directory that stands for the image's root filesystem:

* the builder stage: every ``COPY`` from the build context (minus what
  ``.dockerignore`` leaves out) and every ``RUN`` command, literally, with the
  stage's ``ENV`` (container paths mapped under the temporary root) and the base
  image's ``python`` (this interpreter's base, not the project's venv);
* the final stage: its ``COPY`` steps, then the ``CMD`` under the final ``ENV``
  with ``PORT`` set to a free port, until ``/healthz`` answers 200; then the
  ``HEALTHCHECK`` command itself must exit 0.

The final stage's ``RUN`` (creating the unprivileged user) is not run on this
host: it is checked to do only that, and ``USER`` to be a numeric non-root uid.
Both stages share one temporary root, so ``COPY --from=builder /opt/venv
/opt/venv`` is the same directory (a venv cannot be moved; in the image it is
copied to the same path).

``pip`` uses the machine's configured index (PyPI or a local mirror and its
cache); without one the test skips. It installs the real dependency set from
pyproject.toml, so it takes about 20-40 s.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.support import free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
OFFLINE_MARKERS = ("No matching distribution found", "Could not find a version",
                   "Failed to establish a new connection", "Temporary failure in name resolution")

pytestmark = pytest.mark.slow


@dataclass
class Stage:
    base: str
    name: str | None
    steps: list[tuple[str, str]] = field(default_factory=list)  # (instruction, argument)


def parse(text: str) -> list[Stage]:
    """Instructions of each stage, line continuations joined, comments dropped."""
    lines, buf = [], ""
    for raw in text.splitlines():
        if not buf and raw.lstrip().startswith("#"):
            continue
        if buf and raw.lstrip().startswith("#"):  # a comment inside a continued RUN
            continue
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        buf += raw
        if buf.strip():
            lines.append(buf.strip())
        buf = ""
    stages: list[Stage] = []
    for line in lines:
        instr, _, arg = line.partition(" ")
        instr = instr.upper()
        if instr == "FROM":
            parts = arg.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(parts[0], name))
        elif instr != "ARG":
            stages[-1].steps.append((instr, arg.strip()))
    return stages


def env_pairs(arg: str) -> list[tuple[str, str]]:
    """``ENV a=1 b="two words"`` → [(a, 1), (b, two words)] (the modern form only)."""
    out = []
    for token in shlex.split(arg):
        key, sep, value = token.partition("=")
        assert sep, f"ENV {arg!r}: use the KEY=VALUE form"
        out.append((key, value))
    return out


def expand(value: str, env: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)


def dockerignored(rel: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore reading: a pattern is relative to the context's root (``docs``
    is ./docs, not service/docs; ``*`` stays within one path component) and excludes what
    it matches with everything below it; ``**/`` matches at any depth."""
    parts = rel.strip("/").split("/")
    for pattern in patterns:
        pat = pattern.strip("/").split("/")
        anywhere = pat[0] == "**"
        pat = pat[1:] if anywhere else pat
        starts = range(len(parts)) if anywhere else range(1)
        for s in starts:
            window = parts[s:s + len(pat)]
            if len(window) == len(pat) and all(
                    fnmatch(a, b) for a, b in zip(window, pat, strict=True)):
                return True
    return False


class FakeRoot:
    """A directory that stands for the image's filesystem: /x is <root>/x."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, container_path: str, workdir: str = "/") -> Path:
        full = os.path.normpath(os.path.join(workdir, container_path))
        return self.root / full.lstrip("/")

    def map_env_value(self, value: str) -> str:
        """Container paths in an ENV value (e.g. PATH=/opt/venv/bin:...) moved under the root."""
        parts = []
        for part in value.split(":"):
            parts.append(str(self.path(part)) if part.startswith("/") else part)
        return ":".join(parts)


def copy_from_context(args: list[str], workdir: str, root: FakeRoot, ignore: list[str]) -> None:
    *sources, dest = args
    for src in sources:
        origin = ROOT / src
        target = root.path(dest, workdir)
        if dest.endswith("/") or len(sources) > 1 or (origin.is_file() and target.is_dir()):
            target = target / origin.name
        if origin.is_dir():
            def skip(directory: str, names: list[str]) -> list[str]:
                base = Path(directory).relative_to(ROOT)
                return [n for n in names if dockerignored(str(base / n), ignore)]
            shutil.copytree(origin, target, ignore=skip, dirs_exist_ok=True)
        else:
            assert not dockerignored(src, ignore), f"COPY {src}: excluded by .dockerignore"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target)


def stage_env(stage: Stage, root: FakeRoot, base_path: str) -> tuple[dict[str, str], str]:
    """The stage's ENV with container paths mapped, and its final WORKDIR."""
    env = {"PATH": base_path, "HOME": str(root.path("/root"))}
    workdir = "/"
    for instr, arg in stage.steps:
        if instr == "ENV":
            for key, value in env_pairs(arg):
                env[key] = expand(root.map_env_value(value) if "/" in value else value, env)
        elif instr == "WORKDIR":
            workdir = os.path.join(workdir, arg)
    return env, workdir


def pip_environment() -> dict[str, str]:
    """pip's own settings from this machine (index, find-links, certificates)."""
    return {k: v for k, v in os.environ.items()
            if k.startswith(("PIP_", "SSL_", "REQUESTS_CA", "HTTP_PROXY", "HTTPS_PROXY",
                             "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"))}


def base_python_dir(tmp: Path) -> str:
    """A PATH entry whose ``python`` is the interpreter the project's venv was made from."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    bindir = tmp / "base-bin"
    bindir.mkdir()
    (bindir / "python").symlink_to(base)
    return f"{bindir}:/usr/bin:/bin"


def test_dockerfile_shape():
    """What the issue asks of the image, read from the file (no daemon needed)."""
    stages = parse(DOCKERFILE.read_text())
    assert len(stages) >= 2, "a multi-stage build"
    for stage in stages:
        assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", stage.base), \
            f"{stage.base}: a slim Python base pinned by version"
    final = stages[-1]
    instrs = dict(final.steps)
    user = instrs["USER"].split(":")
    assert user[0].isdigit() and int(user[0]) != 0, "a numeric non-root USER (runAsNonRoot)"
    assert "/healthz" in instrs["HEALTHCHECK"]
    cmd = json.loads(instrs["CMD"])
    assert cmd[:3] == ["gunicorn", "-c", "deploy/gunicorn.conf.py"], cmd
    assert cmd[3] == "service.app:create_app()"
    env = dict(p for i, a in final.steps if i == "ENV" for p in env_pairs(a))
    assert env["KALUKI_DATA_DIR"] == "/data" and '"/data"' in instrs["VOLUME"]
    assert instrs["EXPOSE"] == env["PORT"] == "8000"
    # the final stage's RUN only creates the unprivileged user and its data directory
    for instr, arg in final.steps:
        if instr == "RUN":
            for command in arg.split("&&"):
                assert command.split()[0] in ("groupadd", "useradd", "mkdir", "chown"), command
    # every COPY from the context names a file the context keeps
    ignore = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines()
              if p.strip() and not p.startswith("#")]
    for stage in stages:
        for instr, arg in stage.steps:
            if instr == "COPY" and not arg.startswith("--from"):
                for src in arg.split()[:-1]:
                    assert (ROOT / src).exists() and not dockerignored(src, ignore), src


def test_image_steps_install_and_serve(tmp_path):
    stages = parse(DOCKERFILE.read_text())
    builder, final = stages[0], stages[-1]
    root = FakeRoot(tmp_path / "image")
    root.root.mkdir()
    ignore = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines()
              if p.strip() and not p.startswith("#")]
    base_path = base_python_dir(tmp_path)

    # builder stage: COPY and RUN in order
    env = {"PATH": base_path, "HOME": str(tmp_path / "home")}
    workdir = "/"
    for instr, arg in builder.steps:
        if instr == "ENV":
            for key, value in env_pairs(arg):
                env[key] = expand(root.map_env_value(value) if "/" in value else value, env)
        elif instr == "WORKDIR":
            workdir = os.path.join(workdir, arg)
            root.path(workdir).mkdir(parents=True, exist_ok=True)
        elif instr == "COPY":
            assert not arg.startswith("--from"), "the builder copies from the context only"
            copy_from_context(arg.split(), workdir, root, ignore)
        elif instr == "RUN":
            proc = subprocess.run(["/bin/sh", "-c", arg], cwd=root.path(workdir),
                                  env={**pip_environment(), **env}, capture_output=True,
                                  text=True, timeout=240)
            out = proc.stdout + proc.stderr
            if proc.returncode and any(m in out for m in OFFLINE_MARKERS):
                pytest.skip(f"needs a package index for pip (offline?): {out[-500:]}")
            assert proc.returncode == 0, f"RUN {arg}\n{out[-3000:]}"

    # final stage: COPY (context or builder), then CMD
    env, workdir = stage_env(final, root, base_path)
    for instr, arg in final.steps:
        if instr == "WORKDIR":
            root.path(os.path.join("/", arg)).mkdir(parents=True, exist_ok=True)
        elif instr == "COPY":
            parts = arg.split()
            if parts[0].startswith("--from="):
                src, dest = root.path(parts[1]), root.path(parts[2])
                assert src == dest and src.is_dir(), "the venv is copied to the same path"
            else:
                copy_from_context(parts, workdir_at(final, instr, arg), root, ignore)
    root.path(env_value(final, "KALUKI_DATA_DIR")).mkdir(parents=True, exist_ok=True)
    python = root.path("/opt/venv/bin/python")
    where = subprocess.run([str(python), "-c", "import service; print(service.__file__)"],
                           cwd=root.path(workdir), env=env, capture_output=True, text=True,
                           check=True).stdout
    assert str(root.root) in where, f"the service is imported from the image's venv: {where}"

    port = free_port()
    run_env = {**env, "PORT": str(port), "HOST": "127.0.0.1", "WEB_CONCURRENCY": "1",
               "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
               "GUNICORN_CONTROL_SOCKET": str(tmp_path / "gunicorn.ctl")}
    cmd = json.loads(dict(final.steps)["CMD"])
    log = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen(cmd, cwd=root.path(workdir), env=run_env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        deadline, status = time.monotonic() + 30, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    status = r.status
                    break
            except OSError:
                time.sleep(0.2)
        assert status == 200, (tmp_path / "gunicorn.log").read_text()[-3000:]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
            ready = json.loads(r.read())
        assert ready["status"] == "ok", ready  # the embedded Redis under KALUKI_DATA_DIR
        assert any(root.path("/data").iterdir()), "the embedded Redis writes under /data"
        check = dict(final.steps)["HEALTHCHECK"].split(" CMD ", 1)[1]
        hc = subprocess.run(["/bin/sh", "-c", check], env=run_env, capture_output=True,
                            text=True, timeout=10)
        assert hc.returncode == 0, hc.stderr
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    # and the HEALTHCHECK fails once nothing answers
    hc = subprocess.run(["/bin/sh", "-c", dict(final.steps)["HEALTHCHECK"].split(" CMD ", 1)[1]],
                        env=run_env, capture_output=True, text=True, timeout=10)
    assert hc.returncode != 0


def workdir_at(stage: Stage, instr: str, arg: str) -> str:
    """The WORKDIR in force at the step (instr, arg) of the stage."""
    workdir = "/"
    for i, a in stage.steps:
        if (i, a) == (instr, arg):
            return workdir
        if i == "WORKDIR":
            workdir = os.path.join(workdir, a)
    raise AssertionError(f"{instr} {arg} not in stage")


def env_value(stage: Stage, key: str) -> str:
    return dict(p for i, a in stage.steps if i == "ENV" for p in env_pairs(a))[key]
