"""One endpoint's CPU against bare Flask's in two source trees, interleaved in small batches:
``python -m bench.tree_cpu OLD_TREE [NEW_TREE] [--path /v1/melds/validate --body validate.json]``.

For a change that must not slow the service (a reshaping, say): check the old commit out
(``git worktree add /tmp/old REV``) and compare. One worker process per tree, each with
the tree's app and the bare-Flask baseline (``bench/baseline_app.py``) in-process (Flask
test client, no HTTP), take turns; each batch times 400 baseline requests, then 400 of
the endpoint (``time.process_time``), and reports baseline CPU / endpoint CPU. The
medians over ``--batches`` batches a tree are printed, with quartiles. The batches
alternate, so the machine's drift falls on both trees alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# run in each tree's own process: that tree's service package first on the path
WORKER = r'''
import json, sys, tempfile, time
from pathlib import Path
root, path, name = sys.argv[1:4]
sys.path.insert(0, root)
from bench.baseline_app import app as base
from service.app import create_app
svc = create_app({"KALUKI_DATA_DIR": tempfile.mkdtemp(), "RATELIMIT_ENABLED": False})
body = (Path(root) / "bench" / "bodies" / name).read_bytes()
clients = base.test_client(), svc.test_client()

def per_request(client, url, n):
    start = time.process_time()
    for _ in range(n):
        r = client.post(url, data=body, content_type="application/json")
    assert r.status_code == 200, r.status_code
    return (time.process_time() - start) / n * 1e6

per_request(clients[0], "/echo", 500)
per_request(clients[1], path, 500)
for _ in sys.stdin:
    print(json.dumps([per_request(clients[0], "/echo", 400),
                      per_request(clients[1], path, 400)]), flush=True)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="the tree to compare with (a git worktree of the old commit)")
    ap.add_argument("new", nargs="?", default=str(ROOT), help="default: this tree")
    ap.add_argument("--path", default="/v1/melds/validate")
    ap.add_argument("--body", default="validate.json", help="a file in bench/bodies")
    ap.add_argument("--batches", type=int, default=25)
    args = ap.parse_args()
    trees = {"old": args.old, "new": args.new}
    procs = {name: subprocess.Popen([sys.executable, "-c", WORKER, tree, args.path, args.body],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
             for name, tree in trees.items()}
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    try:
        for i in range(args.batches):
            for name in (("old", "new") if i % 2 else ("new", "old")):
                proc = procs[name]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                if not line:
                    sys.exit(f"the {name} tree's worker stopped (run it by hand to see why)")
                base_us, endpoint_us = json.loads(line)
                rows[name].append((base_us, endpoint_us))
    finally:
        for proc in procs.values():
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=30)
    for name, got in rows.items():
        ratios = [b / e for b, e in got]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"{name} ({trees[name]}): baseline {statistics.median(b for b, _ in got):.0f} µs, "
              f"{args.path} {statistics.median(e for _, e in got):.0f} µs; baseline/endpoint "
              f"CPU median {statistics.median(ratios):.3f} (quartiles {q1:.3f}–{q3:.3f})")


if __name__ == "__main__":
    main()
