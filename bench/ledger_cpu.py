"""Per-append cost in-process: ``python -m bench.ledger_cpu [--instances 2]``.

Appends ``bench/bodies/match_hand.json`` to one match through the Flask test client on
the embedded Redis and prints the Redis calls per append (every ``LedgerStore`` call is
counted) and the app process's CPU per append (``time.process_time``; min and median of
five runs of 300, after 200 warm-up appends). With ``--instances 2`` two apps on one
Redis take turns, as two instances behind a balancer would (the worker that writes never
wrote the match last). Less sensitive to a busy machine than wall-clock throughput.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from service.app import create_app

BODIES = Path(__file__).resolve().parent / "bodies"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--per-run", type=int, default=300)
    opts = ap.parse_args()
    data_dir = tempfile.mkdtemp(prefix="ledger-cpu-")
    apps = [create_app({"TESTING_NO_METRICS": True, "KALUKI_DATA_DIR": data_dir,
                        "LEDGER_SIGNING_KEY": "k" * 32, "RATELIMIT_ENABLED": False,
                        "LEDGER_MAX_HANDS": 1_000_000}) for _ in range(opts.instances)]
    clients = [a.test_client() for a in apps]
    created = clients[0].post("/v1/matches", data=(BODIES / "match_create.json").read_bytes(),
                              content_type="application/json").get_json()
    mid, token = created["id"], created["token"]
    body = (BODIES / "match_hand.json").read_bytes()
    calls = [0]
    for a in apps:
        store = a.extensions["kaluki_ledger"].get()
        inner = store._call

        def counted(op: str, fn: Any, *args: Any, _inner: Any = inner, **kw: Any) -> Any:
            calls[0] += 1
            return _inner(op, fn, *args, **kw)

        store._call = counted

    def run(n: int) -> None:
        for i in range(n):
            r = clients[i % len(clients)].post(
                f"/v1/matches/{mid}/hands", data=body, content_type="application/json",
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})
            assert r.status_code == 201, r.data

    run(200)
    calls[0] = 0
    cpu = []
    for _ in range(opts.runs):
        t0 = time.process_time()
        run(opts.per_run)
        cpu.append((time.process_time() - t0) / opts.per_run * 1e6)
    cpu.sort()
    print(f"instances {opts.instances}: Redis calls per append "
          f"{calls[0] / (opts.runs * opts.per_run):.2f}; app CPU µs per append min {cpu[0]:.0f} "
          f"median {cpu[len(cpu) // 2]:.0f}")


if __name__ == "__main__":
    main()
