"""Send the corpus's requests to a server and compare its answers with the corpus's.

Standard library only (``http.client``), so any checkout can check any server:
``python -m service.conformance --url http://127.0.0.1:8000``. The same cases also run
in-process through a Flask test client (:class:`FlaskTransport`), as the test suite does.
"""

from __future__ import annotations

import base64
import fnmatch
import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import corpus as cp

USER_AGENT = "kaluki-conformance/1"


@dataclass(frozen=True)
class Answer:
    status: int
    media_type: str | None
    body: Any  # parsed JSON, or the text when it is not JSON


class Transport(Protocol):
    def send(self, method: str, path: str, headers: Mapping[str, str],
             data: bytes | None) -> Answer: ...


def encode(request: Mapping[str, Any]) -> tuple[dict[str, str], bytes | None]:
    """A case's request as headers and body bytes (``body``: JSON; ``text``: sent as is,
    with the case's Content-Type; ``raw``/``raw_base64``: bytes sent as is)."""
    headers = {str(k): str(v) for k, v in (request.get("headers") or {}).items()}
    data: bytes | None = None
    if "body" in request:
        data = json.dumps(request["body"], ensure_ascii=False, separators=(",", ":")).encode()
        if not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
    elif "text" in request:
        data = str(request["text"]).encode("utf-8")
    elif "raw" in request:
        data = str(request["raw"]).encode("utf-8")
    elif "raw_base64" in request:
        data = base64.b64decode(request["raw_base64"])
    return headers, data


def _parse(media_type: str | None, raw: bytes) -> Any:
    if media_type and (media_type.endswith("json") or media_type.endswith("+json")):
        try:
            return json.loads(raw)
        except ValueError:
            pass
    return raw.decode("utf-8", "replace")


class HttpTransport:
    """One keep-alive connection per thread; a 429 waits its Retry-After and retries."""

    def __init__(self, url: str, timeout: float = 30, retries_429: int = 20) -> None:
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.scheme, self.host, self.port = u.scheme, u.hostname, u.port
        self.prefix = u.path.rstrip("/")
        self.timeout = timeout
        self.retries_429 = retries_429
        self._local = threading.local()

    def _conn(self, fresh: bool = False) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None or fresh:
            if conn is not None:
                conn.close()
            cls = (http.client.HTTPSConnection if self.scheme == "https"
                   else http.client.HTTPConnection)
            conn = cls(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def send(self, method: str, path: str, headers: Mapping[str, str],
             data: bytes | None) -> Answer:
        hdrs = {"User-Agent": USER_AGENT, "Accept": "application/json, application/problem+json",
                **headers}
        for attempt in range(self.retries_429 + 1):
            for fresh in (False, True):  # a kept-alive connection the server closed: once more
                conn = self._conn(fresh)
                try:
                    conn.request(method, self.prefix + path, body=data, headers=hdrs)
                    resp = conn.getresponse()
                    raw = resp.read()
                    break
                except (http.client.HTTPException, OSError):
                    if fresh:
                        raise
            if resp.status == 429 and attempt < self.retries_429:
                time.sleep(min(float(resp.getheader("Retry-After") or 1), 5))
                continue
            ctype = resp.getheader("Content-Type")
            media = ctype.split(";")[0].strip().lower() if ctype else None
            return Answer(resp.status, media, _parse(media, raw))
        raise AssertionError("unreachable")


class FlaskTransport:
    """The app in-process (a Flask test client per thread)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._local = threading.local()

    def send(self, method: str, path: str, headers: Mapping[str, str],
             data: bytes | None) -> Answer:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = self.app.test_client()
        resp = client.open(path, method=method, headers=dict(headers), data=data)
        media = resp.mimetype.lower() if resp.mimetype else None
        return Answer(resp.status_code, media, _parse(media, resp.get_data()))


def ask(transport: Transport, request: Mapping[str, Any]) -> Answer:
    headers, data = encode(request)
    return transport.send(request["method"], request["path"], headers, data)


@dataclass
class Failure:
    case: Mapping[str, Any]
    differences: list[tuple[str, Any, Any]]
    error: str | None = None

    def report(self, limit: int = 20) -> str:
        req = self.case["request"]
        lines = [f"FAIL {self.case['id']}: {req['method']} {req['path']}"]
        if self.error:
            lines.append(f"  error: {self.error}")
        for where, exp, act in self.differences[:limit]:
            lines.append(f"  {where}: expected {_short(exp)}, got {_short(act)}")
        if len(self.differences) > limit:
            lines.append(f"  … and {len(self.differences) - limit} more differences")
        return "\n".join(lines)


def _short(v: Any, width: int = 160) -> str:
    s = v if v is cp.MISSING else json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= width else s[: width - 1] + "…"


@dataclass
class Result:
    total: int
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures and self.total > 0

    def report(self) -> str:
        parts = [f.report() for f in self.failures]
        parts.append(f"{self.total - len(self.failures)}/{self.total} cases agree, "
                     f"{len(self.failures)} disagree ({self.seconds:.1f} s)")
        return "\n".join(parts)


def select(cases: Iterable[Mapping[str, Any]], only: Sequence[str] = ()) -> list[Mapping[str, Any]]:
    """The cases whose id or endpoint matches one of the patterns (a glob when it holds
    ``*?[``, else a substring); every case without patterns."""
    out = []
    for c in cases:
        if not only:
            out.append(c)
            continue
        names = (str(c["id"]), cp.endpoint(c))
        for p in only:
            glob = any(ch in p for ch in "*?[")
            if any(fnmatch.fnmatchcase(n, p) if glob else p in n for n in names):
                out.append(c)
                break
    return out


def check(transport: Transport, case: Mapping[str, Any], allow_extra: bool = False) -> Failure | None:
    try:
        got = ask(transport, case["request"])
    except Exception as exc:  # a server that hangs up is a disagreement, located
        return Failure(case, [], f"{type(exc).__name__}: {exc}")
    d = cp.compare(case, got.status, got.media_type, got.body, allow_extra=allow_extra)
    return Failure(case, d) if d else None


def run(transport: Transport, cases: Sequence[Mapping[str, Any]], *, jobs: int = 4,
        allow_extra: bool = False) -> Result:
    start = time.monotonic()
    failures: list[Failure] = []
    if jobs <= 1:
        outcomes: Iterable[Failure | None] = (check(transport, c, allow_extra) for c in cases)
        for f in outcomes:
            if f is not None:
                failures.append(f)
    else:
        with ThreadPoolExecutor(jobs) as pool:
            for f in pool.map(lambda c: check(transport, c, allow_extra), cases):
                if f is not None:
                    failures.append(f)
    return Result(len(cases), failures, time.monotonic() - start)
