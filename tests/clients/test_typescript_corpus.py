"""The SDK against a sample of the conformance corpus (docs/corpus.md, issue 25), and the
corpus example for client developers (``clients/typescript/examples/corpus-check.mjs``).

Needs node >= 20 and npm, as ``tests/clients/test_typescript.py`` (whose fixtures, in tests/clients/conftest.py, these
reuse: the locked dev dependencies, the strict compile of ``test/*.ts``)."""

from __future__ import annotations

import json
import tempfile

from service.conformance import corpus as cp
from tests.clients.sdk import SDK, run
from tests.ledger.servers import ROOT, Gunicorn


def test_a_sample_of_the_corpus_through_the_sdk(node, compiled):
    with tempfile.TemporaryDirectory() as data:
        server = Gunicorn(None, workers=1, threads=4,
                          extra_env={"KALUKI_DATA_DIR": data, "RATELIMIT_ENABLED": "false"})
        try:
            server.wait()
            proc = run([node, str(compiled / "test" / "corpus.js"), server.base,
                         str(cp.CORPUS_DIR), "7"], timeout=120)
        finally:
            server.stop()
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ok"] is True and result["sent"] >= 100, result


def test_the_corpus_example_agrees_with_its_toy_validator(node):
    proc = run([node, str(SDK / "examples" / "corpus-check.mjs"), str(ROOT / "corpus")],
                timeout=60)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["checked"] >= 10 and result["disagree"] == 0, result
