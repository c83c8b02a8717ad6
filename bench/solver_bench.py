"""Benchmark of the hand solver (issue 4): ``python -m bench.solver_bench`` from the repo root.

* 10,000 random 14-card hands dealt from the full 106-card deck (jokers as dealt),
  each analysed under every classic catalog rule set: p50/p99/max per call (a contract
  rule set's hands, analysed with their round's contract, are bench/contract_bench.py's).
* Hard hands built to make the search work (targets: each under 5 ms).
* Agreement with the brute-force referee of the tests (``tests/engine/oracle.py``)
  on random hands, as many as fit in the time budget.

Times are taken twice: wall clock (``perf_counter``) and the thread's own CPU time
(``thread_time``), which leaves out time the process spent waiting for a core on
a busy machine. The load average at the start is printed with the results.
Prints a markdown section and writes it to ``bench/results/solver.md``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from service.engine.cards import JOKER, SUITS, Card, full_deck, parse_card
from service.engine.rules import CATALOG, RuleSet
from service.engine.solver import Analysis, analyze

TARGET_P50_MS = 0.5
TARGET_P99_MS = 3.0
TARGET_HARD_MS = 5.0

HARD_HANDS: dict[str, str] = {
    "two copies of a 7-card run": "3d 4d 5d 6d 7d 8d 9d 3d 4d 5d 6d 7d 8d 9d",
    "12 consecutive of one suit + 2 jokers": "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh JK JK",
    "A..Q of one suit + 2 jokers (ace both ends)": "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh JK JK",
    "4 suits x 3 consecutive ranks + 2 jokers": "5c 6c 7c 5d 6d 7d 5h 6h 7h 5s 6s 7s JK JK",
    "3 suits x 3 ranks, doubled + 2 jokers": "5c 6c 7c 5d 6d 7d 5h 6h 7h 5c 6d 7h JK JK",
    "3 suits x 4 consecutive ranks + 2 jokers": "9c Tc Jc Qc 9d Td Jd Qd 9h Th Jh Qh JK JK",
    "four-of-a-kind blocks (8 9 T) + 2 jokers": "8c 8d 8h 8s 9c 9d 9h 9s Tc Td Th Ts JK JK",
    "2 3 4 5 in three suits + 2 jokers": "2c 2d 2h 3c 3d 3h 4c 4d 4h 5c 5d 5h JK JK",
    "7s and 8s, c d doubled + 2 jokers": "7c 7d 7h 7s 7c 7d 8c 8d 8h 8s 8c 8d JK JK",
}


def _cards(text: str) -> list[Card]:
    return [JOKER if t == "JK" else parse_card(t) for t in text.split()]


def _time(hand: list[Card], rules: RuleSet, opened: bool = False) -> tuple[float, float, Analysis]:
    """(wall ms, CPU ms, answer) of one call to the solver."""
    w0, c0 = time.perf_counter(), time.thread_time()
    a = analyze(hand, rules, opened)
    return (time.perf_counter() - w0) * 1e3, (time.thread_time() - c0) * 1e3, a


def _pct(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def random_hands(n: int, seed: int) -> list[list[Card]]:
    deck = full_deck(2, 2)
    rng = random.Random(seed)
    return [rng.sample(deck, 14) for _ in range(n)]


def dense_hands(n: int, seed: int) -> list[list[Card]]:
    """14-card hands from narrow slices of the deck (3-7 ranks, 2-4 suits, both decks,
    0-2 jokers): far more melds, overlapping, than a fair deal ever gives."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        low = rng.randint(1, 13)
        ranks = [(low + k - 1) % 13 + 1 for k in range(rng.randint(3, 7))]
        suits = rng.sample(SUITS, rng.randint(2, 4))
        pool = [Card(r, s) for r in ranks for s in suits] * 2
        jokers = rng.randint(0, 2)
        out.append(rng.sample(pool, min(len(pool), 14 - jokers)) + [JOKER] * jokers)
    return out


def bench_random(hands: list[list[Card]], rules_list: Sequence[RuleSet],
                 targets: bool = True) -> list[str]:
    rows = ["| rule set | calls | p50 ms (CPU) | p99 ms (CPU) | max ms (CPU) "
            "| p50 ms (wall) | p99 ms (wall) | max ms (wall) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    every_w: list[float] = []
    every_c: list[float] = []
    for rules in rules_list:
        walls, cpus = [], []
        for i, hand in enumerate(hands):
            w, c, _ = _time(hand, rules, bool(i % 2))
            walls.append(w)
            cpus.append(c)
        every_w += walls
        every_c += cpus
        rows.append(_row(rules.name, walls, cpus))
    rows.append(_row("**all**", every_w, every_c))
    if not targets:
        return rows
    ok = _pct(every_c, 0.5) <= TARGET_P50_MS and _pct(every_c, 0.99) <= TARGET_P99_MS
    rows.append("")
    rows.append(f"Targets p50 <= {TARGET_P50_MS} ms, p99 <= {TARGET_P99_MS} ms (CPU): "
                + ("**met**" if ok else "**missed**"))
    return rows


def _row(name: str, walls: list[float], cpus: list[float]) -> str:
    return (f"| {name} | {len(walls)} | {_pct(cpus, .5):.3f} | {_pct(cpus, .99):.3f} "
            f"| {max(cpus):.3f} | {_pct(walls, .5):.3f} | {_pct(walls, .99):.3f} "
            f"| {max(walls):.3f} |")


def bench_hard(rules_list: Sequence[RuleSet], repeats: int) -> list[str]:
    rows = ["| hand | rule set | deadwood | melded | median ms (CPU) | max ms (CPU) "
            "| median ms (wall) | target |",
            "|---|---|---:|---:|---:|---:|---:|---|"]
    for name, text in HARD_HANDS.items():
        hand = _cards(text)
        for rules in rules_list:
            times = [_time(hand, rules) for _ in range(repeats)]
            cpus = [c for _, c, _ in times]
            walls = [w for w, _, _ in times]
            a = times[0][2]
            verdict = "ok" if statistics.median(cpus) <= TARGET_HARD_MS else "**over**"
            rows.append(f"| {name} | {rules.name} | {a.deadwood_value} | {a.melded_count} "
                        f"| {statistics.median(cpus):.2f} | {max(cpus):.2f} "
                        f"| {statistics.median(walls):.2f} | {verdict} |")
    return rows


def check_oracle(hands: list[list[Card]], rules_list: Sequence[RuleSet],
                 budget_s: float, label: str) -> list[str]:
    """Compare every field with the brute-force referee until the time budget runs out."""
    from tests.engine.oracle import judge

    checked = agreed = 0
    disagreements: list[str] = []
    deadline = time.perf_counter() + budget_s
    for i, hand in enumerate(hands):
        if time.perf_counter() > deadline:
            break
        rules = rules_list[i % len(rules_list)]
        opened = bool((i // len(rules_list)) % 2)
        a = analyze(hand, rules, opened)
        v = judge(hand, rules, opened, exhaustive=False)
        got = (a.deadwood_value, a.melded_count, a.points, a.opening_points,
               a.can_open, a.can_go_out, a.can_special)
        want = (v.deadwood_value, v.melded_count, v.points, v.opening_points,
                v.can_open, v.can_go_out, v.can_special)
        checked += 1
        if got == want:
            agreed += 1
        elif len(disagreements) < 5:
            disagreements.append(f"{' '.join(map(str, hand))} / {rules.name}: {got} != {want}")
    rows = [f"* {label}: **{agreed} of {checked}** agree on every field "
            f"(of {len(hands)}; rule sets in turn, opened alternating; budget {budget_s:.0f} s)."]
    rows += [f"* disagreement: {d}" for d in disagreements]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--dense", type=int, default=2_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeats", type=int, default=25, help="timed calls per hard hand")
    ap.add_argument("--oracle-seconds", type=float, default=900.0)
    ap.add_argument("--dense-oracle-seconds", type=float, default=300.0)
    ap.add_argument("--out", default="bench/results/solver.md")
    args = ap.parse_args(argv)

    # the classic rule sets: a contract rule set's hands are analysed with their round's
    # contract, and measured in bench/contract_bench.py
    rules_list = [r for r in CATALOG.values() if not r.is_contract]
    hands = random_hands(args.hands, args.seed)
    dense = dense_hands(args.dense, args.seed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    gc.collect()
    gc.freeze()  # the dealt hands are the bench's, not the solver's: keep them out of GC passes
    lines = ["## Hand solver (`service/engine/solver.py`)", "",
             f"Python {platform.python_version()}, {os.cpu_count()} cores, in-process, "
             f"load average at start {load:.2f}; seed {args.seed}. "
             "CPU = the calling thread's CPU time (immune to waiting for a core); "
             "wall = perf_counter.", "",
             f"### {args.hands} random 14-card hands from the 106-card deck, every classic catalog "
             "rule set",
             ""]
    lines += bench_random(hands, rules_list)
    lines += ["", f"### {args.dense} dense 14-card hands (narrow slices of the deck, 0-2 jokers)",
              ""]
    lines += bench_random(dense, rules_list, targets=False)
    lines += ["", f"### Hard hands (median of {args.repeats} calls; target {TARGET_HARD_MS} ms)", ""]
    lines += bench_hard(rules_list, args.repeats)
    lines += ["", "### Agreement with the brute-force referee", ""]
    lines += ["Fields compared: deadwood_value, melded_count, points, opening_points, can_open, "
              "can_go_out, can_special (the referee tries every collection of disjoint melds "
              "found by `melds.validate`).", ""]
    lines += check_oracle(hands, rules_list, args.oracle_seconds, "random 14-card deals")
    lines += check_oracle(dense, rules_list, args.dense_oracle_seconds, "dense 14-card hands")
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
