"""One-card builds answer without the placement search, and answer what it answers.

``melds.build`` rules on one card added to a run with ``melds._build_run_one`` (the two
places the card can take, filled and checked directly) instead of ``melds._build_run``
(the window search, tests/engine/test_build_search.py); on a set, the one path sets have.
The properties here compare the whole answer of ``build`` for one card with the search's
on the same table meld: validity, the resulting meld (cards, start, points, ``locked``, as
written) and every violation with its code, params and where; and ``melds._reads_as_run``
with ``melds._legal_run`` (the check the search makes of a grown run) on any run, legal or
not. ``FAST_EXAMPLES`` sets how many examples each property tries (300 by default).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import JOKER, RANKS, SUITS, MeldCard, parse_meld_card
from service.engine.errors import EngineError
from service.engine.rules import CATALOG, RuleSet, resolve
from tests.engine.strategies import set_naturals

EXAMPLES = int(os.environ.get("FAST_EXAMPLES", "300"))
FAST = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

OVERRIDES = st.fixed_dictionaries({}, optional={
    "ace": st.sampled_from(["high", "low", "high_or_low", "around"]),
    "ace_low_value": st.integers(0, 20),
    "joker_opening_value": st.one_of(st.just("represented"), st.integers(0, 30)),
    "run_min": st.integers(2, 5),
    "run_max": st.integers(3, 14),
    "run_min_naturals": st.integers(1, 3),
    "run_jokers_adjacent": st.booleans(),
    "set_distinct_suits": st.booleans(),
    "set_max": st.one_of(st.none(), st.integers(4, 6)),
    "build_requires_opening": st.booleans(),
})


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    """Every catalog rule set, as it is or with overrides of what builds read."""
    base = draw(st.sampled_from(sorted(CATALOG)))
    if draw(st.sampled_from(["catalog", "overrides", "overrides"])) == "catalog":
        return CATALOG[base]
    over = draw(OVERRIDES)
    # every ace mode often, whatever the base
    over["ace"] = draw(st.sampled_from(["high", "low", "high_or_low", "around", over.get("ace")]))
    if over["ace"] is None:
        del over["ace"]
    if draw(st.booleans()):  # jokers kept apart, as in kalooki-jamaica
        over["run_jokers_adjacent"] = False
    if draw(st.booleans()):  # runs that need more naturals
        over["run_min_naturals"] = draw(st.sampled_from([2, 3]))
    try:
        return resolve({"base": base, "overrides": over})
    except EngineError:  # an override the rule set refuses (run_min_naturals > run_min, ...)
        assume(False)
        raise


def _text(v: int, suit: str) -> str:
    return RANKS[(v - 1) % 13] + suit


@st.composite
def table_runs(draw: st.DrawFn, rules: RuleSet) -> m.RunMeld:
    """A legal run on the table (read like a table meld), now and then with jokers, with
    its ends anywhere the rule set's aces allow, sometimes closed by its history."""
    suit = draw(st.sampled_from(SUITS))
    for _ in range(30):
        n = draw(st.integers(rules.run_min, max(rules.run_min, rules.effective_run_max)))
        top = 13 if rules.ace == "around" else max(1, 14 - n + 1)
        start = draw(st.one_of(st.sampled_from([1, top]), st.integers(1, top)))  # ends: aces
        cards = [_text(v, suit) for v in range(start, start + n)]
        ends = st.sampled_from([0, n - 1])  # a joker at an end, often: what a card meets
        for i in draw(st.sets(st.one_of(ends, st.integers(0, n - 1)), max_size=3)):
            cards[i] = draw(st.sampled_from(["JK=" + cards[i], "JK=" + cards[i][0]]))
        ruling = m.validate(cards, rules, "run")
        if ruling.valid:
            meld = ruling.meld
            assert isinstance(meld, m.RunMeld)
            return dataclasses.replace(meld, locked=draw(st.booleans())) if draw(
                st.integers(0, 4)) == 0 else meld
    assume(False)
    raise AssertionError


@st.composite
def table_sets(draw: st.DrawFn, rules: RuleSet) -> m.SetMeld:
    rank = draw(st.sampled_from(RANKS))
    for _ in range(30):
        cards = draw(set_naturals(rules, rank))
        n = len(cards)
        for i in draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=2)):
            if i < n:
                cards[i] = draw(st.sampled_from(["JK", "JK=" + rank]))
        ruling = m.validate(cards, rules, "set")
        if ruling.valid:
            meld = ruling.meld
            assert isinstance(meld, m.SetMeld)
            return meld
    assume(False)
    raise AssertionError


def cards_for(meld: m.Meld) -> st.SearchStrategy[m.Placed]:
    """One card to add: mostly ones that could fit (beyond either end of a run, its
    suit's cards near it, the set's rank), plain jokers, jokers naming a card or only a
    rank (of the meld's suit or another), any card; with or without an end."""
    if isinstance(meld, m.RunMeld):
        suit = meld.suit
        near = [_text(v, suit) for v in range(meld.start - 3, meld.end + 4)]
        ends = [_text(meld.start - 1, suit), _text(meld.end + 1, suit)]
        naturals = st.one_of(st.sampled_from(ends), st.sampled_from(near))
    else:
        naturals = st.sampled_from([RANKS[meld.rank - 1] + s for s in SUITS])
    anything = st.sampled_from([r + s for r in RANKS for s in SUITS])
    if isinstance(meld, m.RunMeld):  # the ranks beyond its ends, in any suit
        ranks = [RANKS[(v - 1) % 13] for v in (meld.start - 1, meld.end + 1)]
        other = st.builds(lambda r, s: r + s, st.sampled_from(ranks), st.sampled_from(SUITS))
    else:
        other = st.sampled_from([RANKS[meld.rank - 1] + s for s in SUITS])
    named = st.one_of(naturals, other, anything).map(lambda c: "JK=" + c)
    by_rank = st.one_of(naturals, anything).map(lambda c: "JK=" + c[0])
    kinds = {"natural": naturals, "joker": st.just("JK"), "named": named, "by rank": by_rank,
             "any": anything}
    # a kind first, then the card: each kind as often as it is listed
    listed = ["natural", "natural", "joker", "joker", "named", "by rank", "any"]
    if meld.cards[0].is_joker or meld.cards[-1].is_joker:  # a joker meeting a joker
        listed += ["joker", "joker", "joker"]
    text = st.sampled_from(listed).flatmap(lambda k: kinds[k])
    end = st.sampled_from([None, None, "low", "high"])
    return st.builds(lambda t, e: m.Placed(parse_meld_card(t), e), text, end)


@st.composite
def one_card_builds(draw: st.DrawFn) -> tuple[RuleSet, m.Meld, m.Placed, bool]:
    rules = draw(rule_sets())
    meld: m.Meld = draw(table_runs(rules) if draw(st.integers(0, 4)) else table_sets(rules))
    return rules, meld, draw(cards_for(meld)), draw(st.integers(0, 19)) != 7


def searched(meld: m.Meld, p: m.Placed, rules: RuleSet, opened: bool) -> m.BuildRuling:
    """The answer without the one-card path: the window search for a run, the set path."""
    if rules.build_requires_opening and not opened:
        return m.BuildRuling(False, meld, (m.Violation("build-before-opening"),))
    if isinstance(meld, m.RunMeld):
        return m._build_run(meld, [p], rules)
    return m._build_set(meld, [p], rules)


def answer(r: m.BuildRuling) -> tuple[Any, ...]:
    """Everything a ruling says, as a client sees it too (cards as written)."""
    meld = r.meld
    return (r, type(meld), str(meld), meld.points, meld.locked,
            meld.start if isinstance(meld, m.RunMeld) else meld.rank,
            [(v.code, dict(v.params), dict(v.where)) for v in r.violations])


@FAST
@given(one_card_builds())
def test_one_card_is_what_the_search_answers(case: tuple[RuleSet, m.Meld, m.Placed, bool]) -> None:
    rules, meld, p, opened = case
    fast = m.build(meld, [p], rules, opened)
    assert answer(fast) == answer(searched(meld, p, rules, opened))
    if fast.valid:
        low = isinstance(meld, m.RunMeld) and fast.meld.cards[0] != meld.cards[0]
        event(f"{meld.kind} valid{' low' if low else ''}, {'joker' if p.token.is_joker else 'natural'}")
    else:
        event(f"{meld.kind} refused: {fast.violations[0].code}")
    event(f"ace {rules.ace}")


@st.composite
def any_runs(draw: st.DrawFn) -> tuple[RuleSet, m.RunMeld]:
    """A run as a ``RunMeld`` may hold it, legal or not: a legal table run, one card built
    on it, or the cards of some places (jokers among them) from some start, now and then
    one or two of them not the card at its place, the run's start now and then not theirs."""
    rules = draw(rule_sets())
    if draw(st.booleans()):
        meld = draw(table_runs(rules))
        p = draw(cards_for(meld))
        grown = m._build_run(meld, [p], rules).meld
        assert isinstance(grown, m.RunMeld)
        return rules, grown
    suit = draw(st.sampled_from(SUITS))
    other = draw(st.sampled_from([x for x in SUITS if x != suit]))
    n = draw(st.one_of(st.integers(rules.run_min, rules.run_min + 3), st.integers(1, 15)))
    top = 13 if rules.ace == "around" else max(1, 15 - n)
    start = draw(st.one_of(st.integers(1, top), st.integers(-1, 16)))
    jokers = draw(st.integers(0, 9))  # how many of ten places hold a joker, about

    def natural(rank: int, suit: str) -> MeldCard:
        return parse_meld_card(RANKS[rank - 1] + suit)

    ranks = [(v - 1) % 13 + 1 for v in range(start, start + n)]
    cards = [MeldCard(JOKER, r, suit) if draw(st.integers(0, 9)) < jokers else natural(r, suit)
             for r in ranks]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):  # a card not the one at its place
        i = draw(st.integers(0, n - 1))
        r, nxt = ranks[i], ranks[i] % 13 + 1
        cards[i] = draw(st.sampled_from([
            MeldCard(JOKER), MeldCard(JOKER, r), MeldCard(JOKER, r, other),
            MeldCard(JOKER, nxt, suit), natural(r, other), natural(nxt, suit)]))
    grown = m.RunMeld(suit, draw(st.sampled_from([start, start, (start - 1) % 13 + 1, start + 13])),
                      tuple(cards), draw(st.integers(0, 99)))
    return rules, grown


@FAST
@given(any_runs())
def test_reads_as_run_is_legal_run(case: tuple[RuleSet, m.RunMeld]) -> None:
    rules, run = case
    legal = m._legal_run(run, rules)
    assert m._reads_as_run(run, rules) is legal
    event(f"legal: {legal}")


@pytest.mark.parametrize(("rs", "table", "card", "end", "result"), [
    ("kaluki-hunt", "2h 3h 4h", "JK", None, "2h 3h 4h JK=5h"),
    ("kaluki-hunt", "2h 3h 4h", "JK", "low", "JK=Ah 2h 3h 4h"),
    ("kaluki-hunt", "Jh Qh Kh", "JK", None, "Jh Qh Kh JK=Ah"),
    ("kaluki-uk", "Qh Kh Ah", "JK", None, "JK=Jh Qh Kh Ah"),
    ("kaluki-hunt", "9h Th Jh", "JK=8", None, "JK=8h 9h Th Jh"),
    ("kaluki-hunt", "9h Th Jh", "JK=Qd", None, None),
    ("kaluki-hunt", "2s 3s 4s 5s", "Kh", None, None),
    ({"base": "kaluki-hunt", "overrides": {"ace": "around"}}, "Ah 2h 3h", "Kh", None,
     "Kh Ah 2h 3h"),
    # Jamaican: a joker beside the run's top joker goes low
    ("kalooki-jamaica", "9h Th Jh JK=Qh", "JK", None, "JK=8h 9h Th Jh JK=Qh"),
    ("kalooki-jamaica", "JK=8h 9h Th JK=Jh", "JK", None, None),
])
def test_one_card_cases(rs: Any, table: str, card: str, end: str | None, result: str | None) -> None:
    """Known one-card rulings (docs/rulings.md builds), through the one-card path."""
    rules = resolve(rs)
    meld = m.validate(table.split(), rules, "run").meld
    assert isinstance(meld, m.RunMeld)
    ruling = m.build(meld, [m.Placed(parse_meld_card(card), end)], rules)
    assert ruling == m._build_run(meld, [m.Placed(parse_meld_card(card), end)], rules)
    if result is None:
        assert not ruling.valid and ruling.meld == meld
    else:
        assert ruling.valid, ruling.violations
        assert str(ruling.meld) == result


@FAST
@given(any_runs(), st.data())
def test_one_card_on_any_run_is_what_the_search_answers(case: tuple[RuleSet, m.RunMeld],
                                                         data: st.DataObject) -> None:
    """The same on a ``RunMeld`` that no table would hold (cards out of place, a start
    out of range): the one-card path assumes nothing of the run it is given."""
    rules, run = case
    p = data.draw(cards_for(run))
    try:
        expected = m._build_run(run, [p], rules)
    except Exception as e:  # noqa: BLE001 - the fast path must fail the same way
        with pytest.raises(type(e)):
            m.build(run, [p], rules)
        event(f"raises {type(e).__name__}")
        return
    fast = m.build(run, [p], rules)
    assert answer(fast) == answer(expected)
    event(f"valid: {fast.valid}")


def _run(suit: str, start: int, *cards: MeldCard | str) -> m.RunMeld:
    return m.RunMeld(suit, start, tuple(parse_meld_card(c) if isinstance(c, str) else c
                                        for c in cards))


@pytest.mark.parametrize(("rs", "run", "legal"), [
    ("kaluki-hunt", _run("h", 9, "9h", "JK=Th", "Jh"), True),
    ("kaluki-hunt", _run("h", 9, "9h", MeldCard(JOKER, 10), "Jh"), False),  # JK=T, not JK=Th
    ("kaluki-hunt", _run("h", 9, "9h", "JK=Td", "Jh"), False),
    ("kaluki-hunt", _run("h", 9, "9h", "JK=Jh", "Jh"), False),
    ("kaluki-hunt", _run("h", 8, "9h", "JK=Th", "Jh"), False),  # not its start
    ("kaluki-hunt", _run("h", 12, "Qh", "Kh", "Ah", "JK=2h"), False),  # around only
    ({"base": "kaluki-hunt", "overrides": {"ace": "around"}},
     _run("h", 12, "Qh", "Kh", "Ah", "JK=2h"), True),
    ("kaluki-uk", _run("h", 1, "Ah", "2h", "3h"), False),  # ace high only
    ("kaluki-hunt", _run("h", 9, "9h", "JK=Th", "JK=Jh", "Qh"), True),
    ("kalooki-jamaica", _run("h", 9, "9h", "JK=Th", "JK=Jh", "Qh"), False),  # jokers apart
    ({"base": "kaluki-hunt", "overrides": {"run_min_naturals": 3}},
     _run("h", 9, "9h", "JK=Th", "Jh", "JK=Qh"), False),  # two naturals
    ("kaluki-51", _run("h", 9, "9h", "Th", "Jh"), False),  # run_min 4
])
def test_reads_as_run_cases(rs: Any, run: m.RunMeld, legal: bool) -> None:
    rules = resolve(rs)
    assert m._legal_run(run, rules) is legal
    assert m._reads_as_run(run, rules) is legal
