"""Where one request's time goes: cProfile over N in-process requests (no HTTP server).

    python -m bench.profile                      # /v1/melds/validate, 2000 requests
    python -m bench.profile opening -n 500 --sort cumulative --top 40

Uses Flask's test client with the production app factory (metrics and CORS on, rate
limits off),
so gunicorn's own HTTP parsing is not included; the first request is made
before profiling so start-up work is not counted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import time
from pathlib import Path

BODIES = Path(__file__).with_name("bodies")
# every stateless ruling, by the name of its body in bench/bodies
PATHS = {"validate": "/v1/melds/validate", "opening": "/v1/melds/opening",
         "build": "/v1/melds/build", "release": "/v1/jokers/release",
         "score": "/v1/hands/score", "analyze": "/v1/hands/analyze",
         "adjudicate": "/v1/hands/adjudicate", "turncheck": "/v1/turns/check",
         "turncheck_table": "/v1/turns/check",
         "turnoptions": "/v1/turns/options"}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.profile")
    ap.add_argument("endpoint", nargs="?", default="validate", choices=sorted(PATHS))
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)

    from service.app import create_app

    # rate limits off: the heavy endpoints' limit (40 a second per address) would answer most
    # of the loop with 429s, and their cost is measured by the HTTP bench and bench.hostile
    app = create_app({"RATELIMIT_ENABLED": False})
    client = app.test_client()
    body = json.loads((BODIES / f"{args.endpoint}.json").read_text())
    path = PATHS[args.endpoint]
    first = client.post(path, json=body)
    print(f"{path} -> {first.status_code}")
    t0 = time.perf_counter()
    for _ in range(args.n):
        client.post(path, json=body)
    plain = (time.perf_counter() - t0) / args.n
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.n):
        client.post(path, json=body)
    prof.disable()
    print(f"{args.n} requests in-process: {plain * 1e6:.0f} us each without the profiler "
          f"(~{1 / plain:,.0f} req/s on one core)")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
