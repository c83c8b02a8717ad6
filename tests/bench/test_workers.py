"""bench/workers.py: the rule behind deploy/gunicorn.conf.py's worker model, and the pooling."""

from __future__ import annotations

import pytest

from bench import workers


def _row(model: str, rps: float, p99: float, processes: int, p50: float = 5.0) -> dict:
    return {"model": model, "workers": processes, "threads": 1,
            "validate": {"rps": rps, "p99_ms": p99, "p50_ms": p50}}


def test_pick_winner_throughput_under_tail_guard() -> None:
    rows = [_row("fast-tail", 1200, 30, 2), _row("a", 1000, 12, 2), _row("b", 990, 10, 3),
            _row("c", 800, 10, 5)]
    assert workers.pick_winner(rows)["model"] == "a"  # b is tied on rps but has more processes


def test_pick_winner_keeps_p99_within_three_p50() -> None:
    """The issue's tail target (p99 <= 3 x p50) rules a model out before throughput counts."""
    rows = [_row("quick-but-spiky", 1300, 14, 2, p50=4), _row("steady", 1000, 12, 2, p50=5)]
    assert workers.pick_winner(rows)["model"] == "steady"  # 14 <= 1.5 x 12, but 14 > 3 x 4


def test_pooled_compares_models_within_each_run() -> None:
    """Two runs of very different speed: the per-run ranking survives pooling."""
    history = []
    for date, scale in (("slow run", 1.0), ("fast run", 3.0)):
        for k, w, t in workers.WORKER_MODELS:
            model = workers.model_label(k, w, t)
            rps = (1100 if model in ("gthread 2x2", "gevent 3") else 1000) * scale
            for app in ("validate", "baseline"):
                history.append({"date": date, "model": model, "workers": w, "threads": t,
                                "app": app, "rps": rps, "p50_ms": 4 / scale,
                                "p99_ms": 10 / scale, "cpu_us": 300, "load1": 1})
    rows = {r["model"]: r for r in workers.pooled(history)}
    assert rows["gthread 2x2"]["validate"]["rps"] == pytest.approx(1.1)
    assert rows["sync 2"]["validate"]["rps"] == pytest.approx(1.0)
    assert rows["sync 2"]["validate"]["p99_ms"] == pytest.approx(1.0)
    assert rows["sync 2"]["validate"]["tail"] == pytest.approx(2.5)
    # only the models slow clients cannot starve compete: gthread 2x2 is faster, not eligible
    assert workers.pick_winner(list(rows.values()))["model"] == "gevent 3"
    others = [r for r in rows.values() if not r["model"].startswith("gevent")]
    assert workers.pick_winner(others)["model"] == "gthread 2x2"


def test_model_labels() -> None:
    assert [workers.model_label(k, w, t) for k, w, t in (("sync", 2, 1), ("gthread", 2, 4))] \
        == ["sync 2", "gthread 2x4"]
    assert workers.model_label(*workers.WORKER_MODELS[-1]) == "gevent 3"


def test_pooled_counts_only_runs_of_every_model() -> None:
    """A run that measured one model only (a partial run) leaves the pool empty."""
    history = [{"date": "partial", "model": "sync 2", "workers": 2, "threads": 1, "app": app,
                "rps": 1000, "p50_ms": 4, "p99_ms": 10, "cpu_us": 300, "load1": 1}
               for app in ("validate", "baseline")]
    assert workers.pooled(history) == []
