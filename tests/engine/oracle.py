"""A brute-force referee for the solver: slow, and correct by inspection.

Every sub-multiset of the hand is put to :func:`service.engine.melds.validate`:
as a set (order does not matter), and as a run in every order a run can take
(every rotation of the naturals sorted by rank, covering ace low, ace high and
around-the-corner runs, with the jokers slotted in at every place). Every
collection of disjoint melds found that way is then tried.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from service.engine import melds as m
from service.engine.cards import Card, MeldCard, card_at
from service.engine.melds import validate
from service.engine.rules import RuleSet
from service.engine.scoring import card_value

Multiset = tuple[int, ...]  # sorted card indices (52 = joker)


def meld_points(cards: Sequence[Card], rules: RuleSet) -> int | None:
    """The most points these cards are worth as one meld, or None when they are no meld."""
    best: int | None = None
    ruling = validate(list(cards), rules, "set")
    if ruling.valid:
        assert ruling.meld is not None
        best = ruling.meld.points
    naturals = sorted((c for c in cards if not c.is_joker), key=lambda c: c.rank)
    k = len(cards) - len(naturals)
    if not naturals or len({c.suit for c in naturals}) > 1:
        return best
    if len({c.rank for c in naturals}) < len(naturals):
        return best
    for turn in range(len(naturals)):
        order = naturals[turn:] + naturals[:turn]
        for slots in combinations_with_replacement(range(len(order) + 1), k):
            tokens: list[Card] = []
            for i, c in enumerate(order):
                tokens.extend(Card(0, "") for s in slots if s == i)
                tokens.append(c)
            tokens.extend(Card(0, "") for s in slots if s == len(order))
            ruling = validate(tokens, rules, "run")
            if ruling.valid:
                assert ruling.meld is not None
                pts = max([ruling.meld.points] + [m.points for m in ruling.alternatives])
                best = pts if best is None else max(best, pts)
    return best


@lru_cache(maxsize=200_000)
def _points_of(key: Multiset, rules: RuleSet) -> int | None:
    """:func:`meld_points` of a multiset of card indices, remembered across hands."""
    return meld_points([card_at(i) for i in key], rules)


def all_melds(hand: Sequence[Card], rules: RuleSet, exhaustive: bool = True) -> dict[Multiset, int]:
    """Every meld the hand can form (as a multiset of card indices) and its best points.

    ``exhaustive`` tries every sub-multiset of the hand. Without it only those whose
    natural cards share a rank or share a suit are tried (docs/api.md#melds: a set is one
    rank, a run one suit), which is what makes 14-card hands affordable.
    """
    if exhaustive:
        groups = [list(range(len(hand)))]
    else:
        jokers = [i for i, c in enumerate(hand) if c.is_joker]
        naturals = [i for i, c in enumerate(hand) if not c.is_joker]
        keys = {("rank", hand[i].rank) for i in naturals} | {("suit", hand[i].suit) for i in naturals}
        groups = [[i for i in naturals if getattr(hand[i], kind) == value] + jokers
                  for kind, value in sorted(keys)]
    smallest = min(rules.set_min, rules.run_min)
    largest = max(rules.effective_set_max, rules.effective_run_max)
    out: dict[Multiset, int] = {}
    seen: set[Multiset] = set()
    for group in groups:
        for size in range(smallest, min(len(group), largest) + 1):
            for combo in combinations(group, size):
                cards = [hand[i] for i in combo]
                key = tuple(sorted(c.index for c in cards))
                if key in seen:
                    continue
                seen.add(key)
                pts = _points_of(key, rules)
                if pts is not None:
                    out[key] = pts
    return out


@dataclass(frozen=True)
class Verdict:
    deadwood_value: int
    melded_count: int
    points: int
    opening_points: int
    can_open: bool
    can_go_out: bool
    can_special: bool


def judge(hand: Sequence[Card], rules: RuleSet, opened: bool, exhaustive: bool = True) -> Verdict:
    """Try every collection of disjoint melds and read the answers off them."""
    melds = sorted(all_melds(hand, rules, exhaustive).items())
    by_index = {c.index: c for c in hand}
    threshold = rules.opening_min_points
    optional = rules.final_discard == "optional"
    best: tuple[int, int, int] | None = None
    most = -1
    go_out = special = False

    def visit(start: int, left: Counter[int], melded: int, points: int, count: int) -> None:
        nonlocal best, most, go_out, special
        dead = sum(card_value(by_index[i], rules) * n for i, n in left.items())
        key = (dead, -melded, -points)
        if best is None or key < best:
            best = key
        if count:
            most = max(most, points)
        remaining = sum(left.values())
        finishes = remaining == 1 or (remaining == 0 and optional and count > 0)
        if finishes:
            go_out = True
            if count > 0 and points >= threshold:
                special = True
        for j in range(start, len(melds)):
            cards, pts = melds[j]
            need = Counter(cards)
            if all(left[i] >= n for i, n in need.items()):
                visit(j, left - need, melded + len(cards), points + pts, count + 1)

    visit(0, Counter(c.index for c in hand), 0, 0, 0)
    assert best is not None
    return Verdict(
        deadwood_value=best[0], melded_count=-best[1], points=-best[2],
        opening_points=max(most, 0), can_open=most >= threshold,
        can_go_out=go_out if opened else special, can_special=special and not opened)


# -- builds: one card at a time ------------------------------------------------------------

def one_at_a_time(meld: m.Meld, p: m.Placed, rules: RuleSet) -> m.Meld | None:
    """One card laid on a run at one end, the way a player lays it: at the end it is
    written for, else high when it fits there, else low (the engine's one-card step
    before issue 19). The reference of tests/engine/test_build_search.py, and the step of
    bench/build_bench.py's pre-issue-19 baseline."""
    assert isinstance(meld, m.RunMeld)
    if len(meld.cards) >= rules.effective_run_max:
        return None
    t = p.token
    for end in ([p.end] if p.end else ["high", "low"]):
        v = meld.end + 1 if end == "high" else meld.start - 1
        if rules.ace == "around":
            v = 13 if v < 1 else v
        elif not (1 <= v <= 14) or (v == 1 and rules.ace == "high") or (v == 14 and rules.ace == "low"):
            continue
        rank = m.rank_of_value(v)
        if t.is_joker:
            if t.as_rank is not None and (t.as_rank != rank or (t.as_suit or meld.suit) != meld.suit):
                continue
            card = MeldCard(t.card, rank, meld.suit)
        elif t.card.rank != rank or t.card.suit != meld.suit:
            continue
        else:
            card = t
        cards = (*meld.cards, card) if end == "high" else (card, *meld.cards)
        start = meld.start if end == "high" else v
        return m.RunMeld(meld.suit, start, cards, m.run_points(start, cards, rules),
                         locked=meld.locked)
    return None


def where(ruling: Any) -> tuple[str, int, int | None] | None:
    """A referee ruling's first violation as (code, turn, play), or None for a legal hand."""
    v = ruling.violation
    return (v.code, v.where["turn"], v.where["play"]) if v else None
