"""The append floor: a bare Flask app that does only the one Redis script a durable append needs.

``POST /v1/matches/<id>/hands`` here parses the JSON body, then runs one Lua script on the
same Redis the service would use (the embedded server's Unix socket under
``KALUKI_DATA_DIR``, or ``REDIS_URL``): bump the match's version, push the entry, publish it;
and answers 201 with a small JSON body. No engine, no schema, no idempotency, no hash chain.
``append rps / floor rps`` is what the service's own append work costs on top of the least a
durable append must do (issue 36: the honest anchor, not bare Flask). Served by ``bench`` with
the production gunicorn config: ``gunicorn -c deploy/gunicorn.conf.py bench.floor_app:app``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import redis
from flask import Flask, Response, request

from service.ledger.embedded import ensure_server

app = Flask(__name__)

_SCRIPT = """
local v = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PUBLISH', KEYS[3], ARGV[1])
return v
"""
_client: Any = None
_script: Any = None


def _redis() -> Any:
    global _client, _script
    if _client is None:
        url = os.environ.get("REDIS_URL") or ensure_server(
            os.environ.get("KALUKI_DATA_DIR", "./var"))
        _client = redis.Redis.from_url(url)
        _script = _client.register_script(_SCRIPT)
    return _script


@app.get("/healthz")
def healthz() -> Response:
    return Response(b'{"status":"ok"}', mimetype="application/json")


@app.post("/v1/matches/<mid>/hands")
def append(mid: str) -> Response:
    body = request.get_json(force=True, silent=False)
    entry = json.dumps({"body": body}, separators=(",", ":"))
    version = _redis()(keys=[f"floor:{{{mid}}}", f"floor:{{{mid}}}:entries",
                             f"floor:{{{mid}}}:events"], args=[entry])
    return Response(json.dumps({"version": int(version)}), status=201,
                    mimetype="application/json")
