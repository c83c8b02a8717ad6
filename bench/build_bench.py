"""Benchmark of builds (issue 19): ``python -m bench.build_bench`` from the repo root.

``melds.build`` finds where a build's cards go without trying their orders: for a run
it tries every *window* (``a`` cards below the run, ``b`` above; at most 78, for a
2-card run, which has room for 11) from the most cards down, each filled in time
linear in its places (``melds._window``). This measures the worst cases that can be
built against two baselines timed in the same run:

* the one-card-at-a-time greedy that builds used before issue 19 (order-dependent,
  :func:`greedy_build`, laying each card by ``tests.engine.oracle.one_at_a_time``), on
  the same inputs;
* the hand solver on its hard hands (``bench/solver_bench.py``), whose target is 5 ms a
  call: the budget a build must stay within.

Cases: the brief's "20 cards on a 12-card run", hand-built worst cases, and the worst
found by a seeded random search plus hill-climbing over builds of up to 20 cards on
3-card runs (4 decks and 8 jokers, so 20 cards can come from one deck). Times are the
calling thread's CPU time (``thread_time``), median of ``--repeats`` calls. Prints a
markdown section and writes it to ``bench/results/build.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.solver_bench import HARD_HANDS, TARGET_HARD_MS, _cards
from service.engine import melds as m
from service.engine.cards import RANKS, SUITS, parse_meld_card
from service.engine.rules import CATALOG, RuleSet, resolve
from service.engine.solver import analyze
from tests.engine.oracle import one_at_a_time

STRESS = {
    "hunt, 4 decks + 8 jokers": {"base": "kaluki-hunt", "overrides": {"decks": 4, "jokers": 8}},
    "hunt, 4 decks + 8 jokers, around": {"base": "kaluki-hunt",
                                         "overrides": {"decks": 4, "jokers": 8, "ace": "around"}},
}


# -- the baseline: builds before issue 19 (one card at a time, in the order given) ------------

def greedy_build(meld: m.Meld, added: Sequence[m.Placed], rules: RuleSet) -> bool:
    """The pre-issue-19 algorithm: repeatedly lay the first pending card that fits (a
    run's high end first). Order-dependent; kept only as the timing baseline."""
    pending = list(added)
    current = meld
    while pending:
        for p in pending:
            grown = one_at_a_time(current, p, rules)
            if grown is not None:
                current = grown
                pending.remove(p)
                break
        else:
            return False
    return True


# -- timing ------------------------------------------------------------------------------------

def _cpu_ms(fn: Callable[[], Any], repeats: int) -> float:
    """Median CPU ms of one call (each sample times a batch so short calls are measurable)."""
    batch = 10
    samples = []
    for _ in range(repeats):
        c0 = time.thread_time()
        for _ in range(batch):
            fn()
        samples.append((time.thread_time() - c0) * 1e3 / batch)
    return statistics.median(samples)


def _windows(meld: m.Meld, added: Sequence[m.Placed], rules: RuleSet) -> int:
    """How many windows one build fills (an untimed, counted call)."""
    count = 0
    real = m._window

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal count
        count += 1
        return real(*args, **kwargs)

    m._window = counted  # type: ignore[assignment]
    try:
        m.build(meld, added, rules)
    finally:
        m._window = real  # type: ignore[assignment]
    return count


class Case:
    def __init__(self, name: str, rules: RuleSet, table: Sequence[str], cards: Sequence[Any]) -> None:
        self.name = name
        self.rules = rules
        ruling = m.validate(list(table), rules, "run")
        assert ruling.meld is not None, (table, ruling.violations)
        self.meld = ruling.meld
        self.added = [c if isinstance(c, m.Placed) else m.Placed(parse_meld_card(c)) for c in cards]

    def run(self) -> m.BuildRuling:
        return m.build(self.meld, self.added, self.rules)

    def text(self) -> str:
        cards = " ".join(str(p.token) + (f"@{p.end}" if p.end else "") for p in self.added)
        return f"{self.meld} + {cards}"


def hand_built() -> list[Case]:
    k8 = resolve(STRESS["hunt, 4 decks + 8 jokers"])
    around = resolve(STRESS["hunt, 4 decks + 8 jokers, around"])
    run12 = ["2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh"]
    mid = ["7h", "8h", "9h"]
    off = [r + s for r in "3456" for s in "cds"]
    return [
        Case("20 cards on a 12-card run: 4 jokers + 16 naturals (brief)", k8, run12,
             ["JK"] * 4 + [r + s for r in "3456" for s in SUITS]),
        Case("20 cards on a 12-card run: 8 jokers + Ah + 11 others", k8, run12,
             ["JK"] * 8 + ["Ah"] + off[:11]),
        Case("20 cards on a 12-card run, around", around, run12, ["JK"] * 8 + off),
        Case("3-card run + 8 jokers + 12 off-suit (windows up to 10 fill, none legal)", around, mid,
             ["JK"] * 8 + off),
        Case("3-card run + 9 of its suit around a gap (6h) + 11 off-suit", k8, mid,
             ["2h", "3h", "4h", "5h", "Th", "Jh", "Qh", "Kh", "Ah"] + off[:11]),
        Case("3-card run + 8 jokers written low + 12 of its suit", k8, mid,
             [m.Placed(parse_meld_card("JK"), "low")] * 8
             + [r + "h" for r in "23456TJQKA"] + ["2h", "3h"]),
        Case("3-card run + every card of its suit + jokers (fits: 13 cards)", k8, mid,
             [r + "h" for r in "23456TJQ"] + ["JK", "JK"]),
    ]


def _random_case(rng: random.Random, rules: RuleSet, name: str) -> Case:
    suit = rng.choice(SUITS)
    start = rng.randint(2, 11)
    table = [RANKS[v - 1] + suit for v in range(start, start + 3)]
    pool = ([RANKS[r] + suit for r in range(13)] * 2 + ["JK"] * 6
            + ["JK=" + RANKS[r] for r in range(13)] + [RANKS[r] + rng.choice(SUITS) for r in range(13)])
    n = rng.randint(10, 20)
    cards: list[Any] = []
    jokers = 0
    while len(cards) < n:
        c = rng.choice(pool)
        if c.startswith("JK"):
            if jokers == rules.jokers:
                continue
            jokers += 1
        end = rng.choice([None, None, None, "low", "high"])
        cards.append(m.Placed(parse_meld_card(c), end))
    return Case(name, rules, table, cards)


def searched(seed: int, seconds: float) -> Case:
    """The slowest build a random search and hill-climbing find in ``seconds``."""
    rng = random.Random(seed)
    rule_sets = [resolve(s) for s in STRESS.values()]
    best: Case | None = None
    best_ms = -1.0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rules = rng.choice(rule_sets)
        case = _random_case(rng, rules, "searched")
        if best is not None and rng.random() < 0.6:  # climb: mutate the slowest so far
            cards = list(best.added)
            cards[rng.randrange(len(cards))] = _random_case(rng, best.rules, "").added[0]
            try:
                case = Case("searched", best.rules, [str(c) for c in best.meld.cards], cards)
            except AssertionError:
                continue
            if sum(p.token.is_joker for p in cards) > best.rules.jokers:
                continue
        ms = _cpu_ms(case.run, 3)
        if ms > best_ms:
            best, best_ms = case, ms
    assert best is not None
    best.name = f"worst found by search ({seconds:.0f} s, seed {seed})"
    return best


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=25)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--search-seconds", type=float, default=20.0)
    ap.add_argument("--out", default="bench/results/build.md")
    args = ap.parse_args(argv)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cases = hand_built() + [searched(args.seed, args.search_seconds)]
    typical = Case("typical: one card on a 4-card run", CATALOG["kaluki-51"], ["7c", "8c", "9c", "Tc"],
                   ["Jc"])
    cases.append(typical)

    rows = ["| case | cards | ruling | windows filled | build ms (CPU) | greedy ms (CPU) |",
            "|---|---:|---|---:|---:|---:|"]
    worst = 0.0
    for case in cases:
        r = case.run()
        ruling = "valid" if r.valid else r.violations[0].code
        ms = _cpu_ms(case.run, args.repeats)
        g = _cpu_ms(lambda c=case: greedy_build(c.meld, c.added, c.rules), args.repeats)
        worst = max(worst, ms)
        rows.append(f"| {case.name} | {len(case.added)} | {ruling} | "
                    f"{_windows(case.meld, case.added, case.rules)} | {ms:.3f} | {g:.3f} |")

    # the most work a search can do: a 2-card run (run_min 2: room for 11), cards filling
    # every window, and the final legality check forced to refuse each one, so every total
    # is tried: (11 + 1)(11 + 2) / 2 = 78 windows
    bound = Case("bound: every window of a 2-card run filled and refused (forced)",
                 resolve({"base": "kaluki-hunt", "overrides": {"decks": 4, "jokers": 8,
                                                               "run_min": 2}}), ["8h", "9h"],
                 [r + "h" for r in "234567TJQKA"] + ["JK"] * 8 + ["2c"])
    real_legal = m._legal_run
    m._legal_run = lambda run, rules: False  # type: ignore[assignment]
    try:
        bound_ms = _cpu_ms(bound.run, args.repeats)
        bound_g = _cpu_ms(lambda: greedy_build(bound.meld, bound.added, bound.rules), args.repeats)
        bound_windows = _windows(bound.meld, bound.added, bound.rules)
    finally:
        m._legal_run = real_legal  # type: ignore[assignment]
    worst = max(worst, bound_ms)
    rows.append(f"| {bound.name} | {len(bound.added)} | (forced) | {bound_windows} | "
                f"{bound_ms:.3f} | {bound_g:.3f} |")

    solver_rows = ["| hard hand | rule set | solver ms (CPU) |", "|---|---|---:|"]
    solver = []
    for hname, text in list(HARD_HANDS.items())[:4]:
        hand = _cards(text)
        rules = CATALOG["kaluki-hunt"]
        ms = _cpu_ms(lambda h=hand, r=rules: analyze(h, r), max(5, args.repeats // 5))
        solver.append(ms)
        solver_rows.append(f"| {hname} | {rules.name} | {ms:.2f} |")

    searched_case = cases[-2]
    lines = ["## Builds (`melds.build`, issue 19)", "",
             f"Python {platform.python_version()}, {os.cpu_count()} cores, in-process, load average "
             f"at start {load:.2f}; CPU ms = median of {args.repeats} samples (10 calls each) of "
             "the calling thread's CPU time.", "",
             "`windows filled`: how many placements (a cards below, b above) the search filled; "
             "windows needing more jokers than the build has are skipped before filling; "
             "one card fills none (`melds._build_run_one` rules on it without the search). "
             "`greedy`: the pre-issue-19 one-card-at-a-time algorithm on the same cards "
             "(order-dependent, so not the same answers), the baseline.", ""]
    lines += rows
    lines += ["", f"Worst case searched: `{searched_case.text()}` "
              f"under {searched_case.rules.name} ({searched_case.rules.ace}).", "",
              f"### Baseline in the same run: the hand solver's hard hands (target {TARGET_HARD_MS} ms)",
              ""]
    lines += solver_rows
    verdict = "within" if worst <= TARGET_HARD_MS else "**over**"
    lines += ["", f"Worst build {worst:.3f} ms vs the solver's budget of {TARGET_HARD_MS} ms a call "
              f"(its hard hands took {min(solver):.2f}-{max(solver):.2f} ms in this run): {verdict}."]
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
