"""``python -m bench.options_bench``: legal next plays (issue 23, ``POST /v1/turns/options``).

Measures, in-process:

* ``/turns/options`` for ``bench/bodies/turnoptions.json`` (a 14-card hand after the draw on a
  12-meld table, kaluki-hunt) through the Flask test client: p50/p90 of the request's CPU
  (``time.thread_time``) and wall time, beside ``/turns/check`` of the same turn ended with a
  discard; and the engine alone (game, turn so far, listing, hint);
* per catalog rule set, how many options typical mid-hand states have: states cut from
  self-play hands at a random point of a random turn after its draw (the ones
  ``tests/engine/test_options.py`` draws), per kind, with the engine's time per state.

Writes the "Legal next plays" section of ``bench/RESULTS.md`` (``--no-write``: print only).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import write_section

BENCH = Path(__file__).resolve().parent
RESULTS_MD = BENCH / "RESULTS.md"
HEADING = "## Legal next plays (issue 23)"
KINDS = ("draw", "lay", "meld", "build", "shift", "release", "discard")


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def endpoint(requests: int) -> dict[str, Any]:
    from service.app import create_app

    client = create_app({"TESTING_NO_METRICS": True, "RATELIMIT_ENABLED": False}).test_client()
    body = json.loads((BENCH / "bodies" / "turnoptions.json").read_text())
    answer = client.post("/v1/turns/options", json=body).get_json()
    ended = {**body, "turn": {**body["turn"], "discard": "2c"}}
    out: dict[str, Any] = {"options": len(answer["options"]), "by_kind": dict(Counter(
        next(iter(o)) for o in answer["options"]))}
    for name, path, b in (("turn-options", "/v1/turns/options", body),
                          ("turn-check", "/v1/turns/check", ended)):
        raw = json.dumps(b).encode()
        cpu, wall = [], []
        for i in range(requests + 50):
            c0, w0 = time.thread_time(), time.perf_counter()
            r = client.post(path, data=raw, content_type="application/json")
            c1, w1 = time.thread_time(), time.perf_counter()
            assert r.status_code == 200, r.get_json()
            if i >= 50:
                cpu.append((c1 - c0) * 1000)
                wall.append((w1 - w0) * 1000)
        out[name] = {"cpu_p50": statistics.median(cpu), "cpu_p90": _pct(cpu, 0.9),
                     "wall_p50": statistics.median(wall), "wall_p90": _pct(wall, 0.9)}
    from service.engine import options as opt
    from service.engine.cards import Card, parse_cards
    from service.engine.melds import table_meld
    from service.engine.record import parse_turn
    from service.engine.referee import play_turn_so_far, turn_game
    from service.engine.rules import CATALOG

    rules = CATALOG[body["ruleset"]]
    table = [table_meld(x, rules) for x in body["table"]]
    hand = parse_cards(body["hand"])
    turn = parse_turn(body["turn"])
    cpu = []
    for i in range(requests + 50):
        c0 = time.thread_time()
        g = turn_game(rules, table, hand, True, Card.parse(body["discard_top"]))
        play_turn_so_far(g, turn)
        work = opt.Work(100_000)
        opt.legal_actions(g, work)
        opt.hint(g, False, work)
        if i >= 50:
            cpu.append((time.thread_time() - c0) * 1000)
    out["engine"] = {"cpu_p50": statistics.median(cpu), "cpu_p90": _pct(cpu, 0.9)}
    return out


def counts(states: int, seed: int) -> dict[str, Any]:
    from service.engine import options as opt
    from service.engine.rules import CATALOG
    from tests.engine.test_options import state_from_selfplay

    out: dict[str, Any] = {}
    for name in sorted(CATALOG):
        rng = random.Random(f"{name}-{seed}")
        rows: list[Counter[str]] = []
        ms: list[float] = []
        while len(rows) < states:
            s = state_from_selfplay(name, rng.randint(0, 100_000), rng.random(),
                                    0.25 + 0.75 * rng.random())
            if s is None or s.draw is None:
                continue
            g = s.game()
            from service.engine.referee import play_turn_so_far

            assert play_turn_so_far(g, s.turn()) is None
            if opt.turn_phase(g, 0) != "play":
                continue
            c0 = time.thread_time()
            work = opt.Work(100_000)
            options = opt.legal_actions(g, work)
            opt.hint(g, False, work)
            ms.append((time.thread_time() - c0) * 1000)
            rows.append(Counter(next(iter(opt.option_to_data(o))) for o in options))
        total = [sum(r.values()) for r in rows]
        out[name] = {"states": len(rows), "median": statistics.median(total),
                     "p90": _pct(total, 0.9), "max": max(total),
                     "kinds": {k: statistics.mean(r[k] for r in rows) for k in KINDS[1:]},
                     "ms_p50": statistics.median(ms), "ms_max": max(ms)}
    return out


def render(e: dict[str, Any], c: dict[str, Any], date: str, notes: list[str] | None = None) -> str:
    o, t, g = e["turn-options"], e["turn-check"], e["engine"]
    lines = [HEADING, "",
             f"Written by `python -m bench.options_bench` on {date}, python "
             f"{sys.version.split()[0]}, in-process (Flask test client), CPU of the request's "
             "thread (`time.thread_time`) and wall time; targets: p50 ≤ 2 ms in-process for a "
             "14-card hand on a 12-meld table.", "",
             f"`bench/bodies/turnoptions.json` (kaluki-hunt, 14 cards after the draw with a "
             f"joker, 12 table melds): {e['options']} options "
             + ", ".join(f"{v} {k}" for k, v in e["by_kind"].items()) + ".", "",
             "| request | CPU p50 ms | CPU p90 ms | wall p50 ms | wall p90 ms |",
             "|---|---:|---:|---:|---:|",
             f"| POST /v1/turns/options | {o['cpu_p50']:.2f} | {o['cpu_p90']:.2f} | "
             f"{o['wall_p50']:.2f} | {o['wall_p90']:.2f} |",
             f"| POST /v1/turns/check (same turn, discarded) | {t['cpu_p50']:.2f} | "
             f"{t['cpu_p90']:.2f} | {t['wall_p50']:.2f} | {t['wall_p90']:.2f} |",
             f"| engine alone (game, turn so far, listing, hint) | {g['cpu_p50']:.2f} | "
             f"{g['cpu_p90']:.2f} | | |", "",
             "Options of typical mid-hand states (self-play hands of every catalog rule set cut "
             "after the draw of a random turn, at a random play; the engine's CPU per state):", "",
             "| rule set | states | options median | p90 | max | mean melds | builds | releases "
             "| lays | shifts | discards | CPU p50 ms | CPU max ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in c.items():
        k = r["kinds"]
        lines.append(f"| {name} | {r['states']} | {r['median']:g} | {r['p90']} | {r['max']} | "
                     f"{k['meld']:.1f} | {k['build']:.1f} | {k['release']:.2f} | "
                     f"{k['lay']:.2f} | {k['shift']:.2f} | "
                     f"{k['discard']:.1f} | {r['ms_p50']:.2f} | {r['ms_max']:.2f} |")
    if notes:
        lines += ["", *(f"* {n}" for n in notes)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--states", type=int, default=100, help="mid-hand states per rule set")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--note", action="append", default=[],
                    help="a line to add under the tables (e.g. the HTTP pair of bench.run)")
    args = ap.parse_args(argv)
    e = endpoint(args.requests)
    c = counts(args.states, args.seed)
    text = render(e, c, datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), args.note)
    print(text)
    if not args.no_write:
        write_section(text, HEADING, RESULTS_MD)
    return 0


if __name__ == "__main__":
    sys.exit(main())
