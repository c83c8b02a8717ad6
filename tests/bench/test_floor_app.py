"""The append floor (bench/floor_app.py) does the one script a durable append needs: each append
bumps the match's version by one, pushes the entry and answers 201."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_floor_append_bumps_the_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("KALUKI_DATA_DIR", str(tmp_path))
    from bench import floor_app

    monkeypatch.setattr(floor_app, "_client", None)
    client = floor_app.app.test_client()
    answers = [client.post("/v1/matches/m1/hands", json={"score": {"n": i}}) for i in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert [a.get_json()["version"] for a in answers] == [1, 2, 3]
    assert floor_app._client.llen("floor:{m1}:entries") == 3
    floor_app._client.shutdown(nosave=True)
