"""``python -m service.conformance --url URL [--only PATTERN ...]``: check a server against
the corpus; a summary, a diff per failing case (id, method, path); exit 1 on any
disagreement, 2 when no case was selected."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import corpus as cp
from .runner import HttpTransport, run, select


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m service.conformance", description=__doc__)
    ap.add_argument("--url", help="the server's base URL, e.g. http://127.0.0.1:8000")
    ap.add_argument("--summary", action="store_true",
                    help="print the corpus's counts (per endpoint, rule set, code) and stop")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN",
                    help="only cases whose id or 'METHOD /path' matches (a glob with * ? [, "
                         "else a substring); repeatable")
    ap.add_argument("--corpus", type=Path, default=cp.CORPUS_DIR, help="the corpus directory")
    ap.add_argument("--jobs", type=int, default=4, help="requests in flight (default 4)")
    ap.add_argument("--allow-extra", action="store_true",
                    help="answers may carry fields the corpus does not (an implementation "
                         "that says more); this service's own answers are checked without it")
    ap.add_argument("--timeout", type=float, default=30, help="seconds per request")
    args = ap.parse_args(argv)
    if args.summary:
        print(json.dumps({"version": cp.version(args.corpus),
                          "bytes": sum(p.stat().st_size for p in cp.case_files(args.corpus)),
                          **cp.summary(select(cp.load(args.corpus), args.only))}, indent=1))
        return 0
    if not args.url:
        ap.error("--url is required (or --summary)")
    cases = select(cp.load(args.corpus), args.only)
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    result = run(HttpTransport(args.url, args.timeout), cases, jobs=args.jobs,
                 allow_extra=args.allow_extra)
    print(f"corpus {cp.version(args.corpus)} against {args.url}")
    print(result.report())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
