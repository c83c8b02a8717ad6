"""Bytes per hand in Redis (MEMORY USAGE), and the cost of a full-size export/import.

``python -m bench.ledger_memory``: appends small score hands and maximum-size
hand records to matches on a throwaway embedded Redis and reports what each
hand costs in Redis memory (the match's keys summed), then exports a full
match and times its import (server CPU in-process, so this measures the work,
not the network).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
import uuid

import orjson
import redis

from service.app import create_app
from service.engine.rules import CATALOG
from service.engine.selfplay import play_hand
from service.ledger.embedded import ensure_server
from service.ledger.store import keys, tomb_key

SMALL = {"score": {"winner": "kim", "finish": "out",
                   "players": [{"id": "kim", "cards": []}, {"id": "lou", "cards": ["Qs", "4d"]}]}}


def usage(r: redis.Redis, mid: str) -> int:
    return sum(r.memory_usage(k, samples=0) or 0 for k in r.scan_iter(f"*{{match:{mid}}}*"))


def cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def roundtrip(c, r, label: str, bodies) -> None:
    """Append every body to one match, export it, delete it, import it: sizes and CPU."""
    res = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                      "match_hands": 10_000}).get_json()
    mid, token = res["id"], res["token"]
    auth = {"Authorization": f"Bearer {token}"}
    n = 0
    for body in bodies:
        resp = c.post(f"/v1/matches/{mid}/hands", json=body,
                      headers={**auth, "Idempotency-Key": uuid.uuid4().hex})
        if resp.status_code == 201:
            n += 1
        elif resp.get_json()["code"] == "match-full":
            break
    ex = c.get(f"/v1/matches/{mid}/export", headers=auth)
    c.delete(f"/v1/matches/{mid}", headers=auth)
    t, u = time.perf_counter(), cpu()
    imp = c.post("/v1/matches/import", data=ex.data, content_type="application/json",
                 headers=auth)
    wall, used = time.perf_counter() - t, cpu() - u
    print(f"{label}: {n} hands, export {len(ex.data):,} B; import {imp.status_code} in "
          f"{wall * 1000:.0f} ms wall, {used * 1000:.0f} ms CPU")
    r.delete(*keys(mid), tomb_key(mid))


def records(n: int):
    seed = 0
    made = 0
    while made < n:
        data = play_hand(CATALOG["kaluki-hunt"], ["kim", "lou"], seed=seed)
        seed += 1
        data.pop("ruleset")
        made += 1
        yield {"record": data}


def main() -> None:
    tmp = tempfile.mkdtemp(prefix="ledger-memory-")
    url = ensure_server(tmp)
    os.environ.setdefault("ALLOW_VOLATILE_REDIS", "true")
    app = create_app({"TESTING_NO_METRICS": True, "LEDGER_REDIS_URL": url,
                      "RATELIMIT_ENABLED": False})
    c = app.test_client()
    r = redis.Redis.from_url(url)
    n = 200
    res = c.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                      "match_hands": 10_000}).get_json()
    mid, token = res["id"], res["token"]
    empty = usage(r, mid)
    for _ in range(n):
        resp = c.post(f"/v1/matches/{mid}/hands", json=SMALL, headers={
            "Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})
        assert resp.status_code == 201, resp.get_json()
    full = usage(r, mid)
    print(f"empty match: {empty} B; {n} small score hands: {(full - empty) / n:.0f} B per hand")
    small = [orjson.loads(e) for e in r.lrange(keys(mid)[1], 0, 0)][0]
    print(f"a small hand's entry: {len(orjson.dumps(small))} B of JSON")
    t = time.perf_counter()
    ex = c.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    t_export = time.perf_counter() - t
    c.delete(f"/v1/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
    t = time.perf_counter()
    imp = c.post("/v1/matches/import", data=ex.data, content_type="application/json",
                 headers={"Authorization": f"Bearer {token}"})
    assert imp.status_code == 201, imp.get_json()
    t_import = time.perf_counter() - t
    print(f"export of {n} hands: {len(ex.data)} B in {t_export * 1000:.0f} ms; "
          f"import: {imp.status_code} in {t_import * 1000:.0f} ms")
    r.delete(*keys(mid), tomb_key(mid))
    roundtrip(c, r, "1000 score hands", [SMALL] * 1000)
    roundtrip(c, r, "1000 self-play hand records", records(1000))


if __name__ == "__main__":
    main()
