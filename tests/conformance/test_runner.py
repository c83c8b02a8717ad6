"""The conformance runner (``python -m service.conformance``): it passes this service,
in-process and over HTTP against gunicorn, and it fails, located, on a changed ruling."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time

import pytest

from service.conformance import corpus as cp
from service.conformance.__main__ import main
from service.conformance.runner import Answer, FlaskTransport, run, select
from tests.ledger.servers import ROOT, Gunicorn


@pytest.fixture(scope="module")
def server():
    """gunicorn on a free port, stopped by its pid."""
    with tempfile.TemporaryDirectory() as data:
        g = Gunicorn(None, workers=2, threads=4,
                     extra_env={"KALUKI_DATA_DIR": data, "RATELIMIT_ENABLED": "false"})
        try:
            g.wait()
            yield g
        finally:
            g.stop()


def test_the_runner_passes_gunicorn(server):
    """The whole corpus over HTTP, through the command line, as any server is checked."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "service.conformance", "--url", server.base],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    total = len(cp.load())
    assert f"{total}/{total} cases agree, 0 disagree" in proc.stdout
    print(f"runner: {total} cases against gunicorn in {took:.1f} s")  # the number for the report


def test_only_selects_by_id_or_endpoint(cases):
    assert {cp.endpoint(c) for c in select(cases, ["POST /v1/hands/score"])} == {
        "POST /v1/hands/score"}
    assert all(c["id"].startswith("validate/kaluki-51/") for c in select(cases, ["validate/kaluki-51/*"]))
    assert select(cases, ["no-such-case-anywhere"]) == []
    assert main(["--url", "http://127.0.0.1:1", "--only", "no-such-case-anywhere"]) == 2


def test_a_changed_ruling_fails_located(app, cases, monkeypatch, capsys):
    """One engine function ruled differently (a hand's penalty value, one point more): the
    runner fails and names each disagreeing case's id, method and path, with the diff."""
    from service.engine import scoring

    real = scoring.hand_value
    monkeypatch.setattr(scoring, "hand_value", lambda cards, rules: real(cards, rules) + 1)
    chosen = select(cases, ["POST /v1/hands/score"])
    result = run(FlaskTransport(app), chosen, jobs=1)
    assert not result.ok and result.failures
    report = result.report()
    first = result.failures[0]
    assert f"FAIL {first.case['id']}: POST /v1/hands/score" in report
    assert "/scores/" in report and "hand_value" in report and "expected" in report
    assert f"{len(result.failures)} disagree" in report


def test_a_server_that_answers_differently_is_reported_with_a_diff(cases):
    class Liar:
        def send(self, method, path, headers, data):
            return Answer(200, "application/json", {"valid": True, "violations": []})

    chosen = select(cases, ["validate/kaluki-hunt/*"])[:5]
    result = run(Liar(), chosen, jobs=2)
    assert len(result.failures) == sum(
        1 for c in chosen if c["expected"]["body"] != {"valid": True, "violations": []})
    assert all(f"FAIL {f.case['id']}: POST /v1/melds/validate" in f.report()
               for f in result.failures)


def test_free_fields_are_free_and_the_rest_exact():
    case = {"expected": {"status": 422, "media_type": "application/problem+json",
                         "body": {"code": "invalid-card", "status": 422, "detail": "x",
                                  "errors": {"cards.0": ["x"]}}},
            "compare": {"free": cp.FREE_PROBLEM}}
    ok = {"code": "invalid-card", "status": 422, "detail": "anders", "request_id": "r1",
          "errors": {"cards.0": ["y"]}, "title": "Ongeldige kaart"}
    assert cp.compare(case, 422, "application/problem+json", ok) == []
    assert cp.compare(case, 400, "application/problem+json", ok) == [("status", 422, 400)]
    wrong = {**ok, "code": "impossible-cards"}
    assert cp.compare(case, 422, "application/problem+json", wrong) == [
        ("/code", "invalid-card", "impossible-cards")]
    extra = {**ok, "hint": 1}
    assert cp.compare(case, 422, "application/problem+json", extra) == [("/hint", cp.MISSING, 1)]
    assert cp.compare(case, 422, "application/problem+json", extra, allow_extra=True) == []
