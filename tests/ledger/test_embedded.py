"""The embedded Redis: one server per data dir, shared by every worker, data kept across restarts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from service.ledger.embedded import SOCKET_NAME
from tests.ledger.servers import ROOT, Gunicorn


def _servers_for(data_dir: Path) -> list[str]:
    out = subprocess.run(["pgrep", "-f", str(data_dir / SOCKET_NAME)], capture_output=True,
                         text=True)
    return out.stdout.split()


def test_one_server_for_concurrent_starters(tmp_path):
    code = ("import sys; from service.ledger.embedded import ensure_server; "
            "print(ensure_server(sys.argv[1]))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True) for _ in range(4)]
    urls = {p.communicate(timeout=30)[0].strip() for p in procs}
    assert urls == {f"unix://{tmp_path / SOCKET_NAME}"}
    # the starter owned it and stopped it when it exited; nothing is left running
    assert _servers_for(tmp_path) == []


@pytest.mark.slow
def test_gunicorn_shares_one_embedded_server_and_keeps_data(tmp_path):
    env = {"KALUKI_DATA_DIR": str(tmp_path)}
    g = Gunicorn(None, workers=3, extra_env=env).wait()
    try:
        assert len(_servers_for(tmp_path)) == 1
        ids = []
        s = requests.Session()
        for _ in range(6):  # spread over the workers
            r = s.post(g.base + "/v1/matches", json={"ruleset": "kaluki-51", "players": ["a", "b"]})
            assert r.status_code == 201
            ids.append(r.json()["id"])
        assert all(s.get(f"{g.base}/v1/matches/{i}").status_code == 200 for i in ids)
        assert s.get(g.base + "/readyz").json()["status"] == "ok"  # AOF, noeviction
        # every worker signs with the one key kept in the data dir (0600)
        r = s.post(g.base + "/v1/matches", json={"ruleset": "kaluki-51", "players": ["a", "b"]})
        mid, auth = r.json()["id"], {"Authorization": f"Bearer {r.json()['token']}"}
        exports = [s.get(f"{g.base}/v1/matches/{mid}/export", headers=auth).json()
                   for _ in range(6)]
        assert len({e["signature"] for e in exports}) == 1
        assert s.delete(f"{g.base}/v1/matches/{mid}", headers=auth).status_code == 204
        r = s.post(g.base + "/v1/matches/import", json=exports[0], headers=auth)
        assert r.status_code == 201, r.text
        assert oct(os.stat(tmp_path / "signing.key").st_mode & 0o777) == "0o600"
    finally:
        g.stop()
    assert _servers_for(tmp_path) == []  # stopped with the master
    g = Gunicorn(None, workers=2, extra_env=env).wait()
    try:
        assert all(requests.get(f"{g.base}/v1/matches/{i}").status_code == 200 for i in ids)
    finally:
        g.stop()
    assert os.path.exists(tmp_path / "ledger.aof") or os.path.isdir(tmp_path / "appendonlydir")
