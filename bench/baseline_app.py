"""The baseline: a bare Flask app (no flask-smorest, no marshmallow, no engine).

It parses the same JSON body the real endpoints get and echoes a small JSON
answer, so ``endpoint rps / baseline rps`` shows what the service's own work
(schema, rules, rendering, metrics) costs on top of Flask + gunicorn.
Served by ``bench.run`` with the production gunicorn config:
``gunicorn -c deploy/gunicorn.conf.py bench.baseline_app:app``.
"""

from __future__ import annotations

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.get("/healthz")
def healthz():
    return jsonify(status="ok")


@app.post("/echo")
def echo():
    body = request.get_json(force=True, silent=False)
    return jsonify(ok=True, keys=sorted(body) if isinstance(body, dict) else [],
                   ruleset=body.get("ruleset") if isinstance(body, dict) else None)
