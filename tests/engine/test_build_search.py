"""Builds do not depend on the order the cards are listed (docs/api.md#rulings-200-with-valid--legal
build; issue 19).

docs/api.md#rulings-200-with-valid--legal: "cards go where they fit, in whatever order makes them
fit: the order they are listed in never changes the ruling; a card that fits both ends of a run is
placed high unless written {"card", "end": "low"}; when several placements of the cards fit,
the one with the most points, then the one that places cards highest".

The reference below reads that sentence literally: every order of the cards is tried,
each card laid in turn at the end it is written for, else high when it fits there,
else low; of the orders that lay every card, the resulting run with the most points
wins, then the one reaching highest. The engine (``melds.build``) never enumerates
orders; the properties check that it answers exactly what the reference answers, and
the same for every permutation.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import RANKS, SUITS, parse_meld_card
from service.engine.rules import CATALOG, RuleSet, resolve
from tests.engine.oracle import one_at_a_time
from tests.engine.strategies import set_naturals

CATALOG_SETS = ["kaluki-51", "kaluki-hunt", "kaluki-uk", "kalooki-40"]


def reference(meld: m.Meld, added: Sequence[m.Placed], rules: RuleSet) -> m.Meld | None:
    """docs/api.md#rulings-200-with-valid--legal read literally: every order, each card high unless
    written low or it does not fit high; the most points, then the highest."""
    results = []
    for order in itertools.permutations(added):
        cur: m.Meld | None = meld
        for p in order:
            assert cur is not None
            cur = one_at_a_time(cur, p, rules)
            if cur is None:
                break
        if cur is not None:
            results.append(cur)
    if not results:
        return None
    return max(results, key=lambda r: (r.points, r.end if isinstance(r, m.RunMeld) else 0))


OVERRIDES = st.fixed_dictionaries({}, optional={
    "ace": st.sampled_from(["high", "low", "high_or_low", "around"]),
    "ace_low_value": st.integers(0, 20),
    "joker_opening_value": st.one_of(st.just("represented"), st.integers(0, 30)),
    "run_max": st.integers(3, 14),
    "set_distinct_suits": st.booleans(),
    "set_max": st.integers(4, 6),
})


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    base = draw(st.sampled_from(CATALOG_SETS))
    if draw(st.booleans()):
        return CATALOG[base]
    over = draw(OVERRIDES)
    if "run_max" in over:
        over["run_max"] = max(over["run_max"], CATALOG[base].run_min)
    return resolve({"base": base, "overrides": over})


@st.composite
def run_builds(draw: st.DrawFn) -> tuple[RuleSet, m.RunMeld, list[m.Placed]]:
    """A legal run on the table and up to four cards to lay on it: its suit's cards near
    it, jokers (plain, declared by card or by rank alone), now and then another suit's card
    or a card written for an end."""
    rules = draw(rule_sets())
    suit = draw(st.sampled_from(SUITS))
    while True:
        n = draw(st.integers(rules.run_min, min(rules.effective_run_max, rules.run_min + 9)))
        start = draw(st.integers(1, 14 - n + 1))
        cards = [RANKS[(v - 1) % 13] + suit for v in range(start, start + n)]
        for i in draw(st.sets(st.integers(0, n - 1), max_size=2)):
            cards[i] = "JK=" + cards[i]
        ruling = m.validate(cards, rules, "run")
        if ruling.valid:
            break
    meld = ruling.meld
    assert isinstance(meld, m.RunMeld)
    near = [RANKS[(v - 1) % 13] + suit for v in range(meld.start - 3, meld.end + 4)]
    card = st.one_of(
        st.sampled_from(near), st.sampled_from(near), st.just("JK"), st.just("JK"),
        st.sampled_from(near).map(lambda c: "JK=" + c),
        st.sampled_from(near).map(lambda c: "JK=" + c[0]),
        st.sampled_from([r + s for r in RANKS for s in SUITS]))
    if draw(st.booleans()):
        texts = draw(st.lists(card, min_size=1, max_size=4))
    else:  # the cards that extend it by a below and b above, some as jokers, maybe one more
        a, b = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        values = [*range(meld.start - a, meld.start), *range(meld.end + 1, meld.end + b + 1)]
        texts = [RANKS[(v - 1) % 13] + suit for v in values][:4]
        for i in draw(st.sets(st.integers(0, max(len(texts) - 1, 0)), max_size=2)):
            if i < len(texts):
                texts[i] = draw(st.sampled_from(["JK", "JK=" + texts[i], "JK=" + texts[i][0]]))
        if not texts or (len(texts) < 4 and draw(st.booleans())):
            texts.append(draw(card))
    ends = draw(st.lists(st.sampled_from([None, None, None, None, "low", "high"]),
                         min_size=len(texts), max_size=len(texts)))
    return rules, meld, [m.Placed(parse_meld_card(t), e) for t, e in zip(texts, ends, strict=True)]


def _answer(ruling: m.BuildRuling) -> tuple[Any, ...]:
    return (ruling.valid, ruling.meld, [(v.code, v.params) for v in ruling.violations])


@settings(max_examples=400)
@given(run_builds(), st.data())
def test_a_run_build_is_the_same_in_every_order(case: tuple[RuleSet, m.RunMeld, list[m.Placed]],
                                                data: st.DataObject) -> None:
    """Issue 19 item 1: every permutation of a build's cards gets the same ruling (codes
    and the facts they cite) and the same resulting meld; and that is
    docs/api.md#rulings-200-with-valid--legal's answer."""
    rules, meld, added = case
    first = m.build(meld, added, rules)
    for order in itertools.permutations(added):
        assert _answer(m.build(meld, list(order), rules)) == _answer(first)
    expected = reference(meld, added, rules)
    if expected is None:
        assert not first.valid and first.meld == meld
    else:
        assert first.valid, first.violations
        assert (first.meld.cards, first.meld.points) == (expected.cards, expected.points)
        assert first.meld == expected


@st.composite
def set_builds(draw: st.DrawFn) -> tuple[RuleSet, m.SetMeld, list[m.Placed]]:
    rules = draw(rule_sets())
    rank = draw(st.sampled_from(RANKS))
    cards = draw(set_naturals(rules, rank))
    n = len(cards)
    if n > 1 and draw(st.booleans()):
        cards[draw(st.integers(1, n - 1))] = "JK"
    ruling = m.validate(cards, rules, "set")
    assert ruling.valid, (cards, ruling.violations)
    meld = ruling.meld
    assert isinstance(meld, m.SetMeld)
    card = st.one_of(st.sampled_from([rank + s for s in SUITS]), st.just("JK"),
                     st.just("JK=" + rank), st.sampled_from([r + s for r in RANKS for s in SUITS]))
    texts = draw(st.lists(card, min_size=1, max_size=4))
    return rules, meld, [m.Placed(parse_meld_card(t)) for t in texts]


@settings(max_examples=200)
@given(set_builds())
def test_a_set_build_is_the_same_in_every_order(case: tuple[RuleSet, m.SetMeld, list[m.Placed]]) -> None:
    """Issue 19 item 1, sets: the same ruling and the same resulting set for every order
    (a set takes the cards in card order)."""
    rules, meld, added = case
    first = m.build(meld, added, rules)
    for order in itertools.permutations(added):
        assert _answer(m.build(meld, list(order), rules)) == _answer(first)


def _build(rs: Any, table: str, cards: list[Any]) -> m.BuildRuling:
    rules = resolve(rs)
    meld = m.validate(table.split(), rules).meld
    assert meld is not None
    placed = [m.Placed(parse_meld_card(c["card"]), c["end"]) if isinstance(c, dict)
              else m.Placed(parse_meld_card(c)) for c in cards]
    return m.build(meld, placed, rules)


def test_the_oracle_cases_of_issue_19() -> None:
    """Issue 19 item 1: the three order-dependent cases the oracle found, in both orders."""
    cases = [
        ("kalooki-40", "5h 6h 7h", ["JK", "8h"], "5h 6h 7h 8h JK=9h"),
        ("kaluki-uk", "Qh Kh Ah", ["JK", "Jh"], "JK=Th Jh Qh Kh Ah"),
        ("kaluki-hunt", "5h 6h 7h", [{"card": "JK", "end": "low"}, "4h"], "JK=3h 4h 5h 6h 7h"),
    ]
    for rs, table, cards, result in cases:
        for order in (cards, cards[::-1]):
            ruling = _build(rs, table, order)
            assert ruling.valid, (rs, order, ruling.violations)
            assert str(ruling.meld) == result


def test_most_points_then_highest() -> None:
    """Issue 19 item 4 / docs/api.md#rulings-200-with-valid--legal: As and Ks on 2-Q of spades under
    kalooki-40 give 2-A (95), never A-K (85), in either order."""
    table = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs"
    for order in (["As", "Ks"], ["Ks", "As"]):
        ruling = _build("kalooki-40", table, order)
        assert ruling.valid
        assert str(ruling.meld) == table + " Ks As"
        assert ruling.meld.points == 95


def test_a_card_that_fits_both_ends_goes_high() -> None:
    """docs/api.md#rulings-200-with-valid--legal: a card that fits both ends is placed high unless
    written low, even where low would count more (a low ace counts 11 in kaluki-hunt); written low,
    it goes low."""
    assert str(_build("kaluki-hunt", "2h 3h 4h", ["JK"]).meld) == "2h 3h 4h JK=5h"
    assert str(_build("kaluki-hunt", "2h 3h 4h", [{"card": "JK", "end": "low"}]).meld) == \
        "JK=Ah 2h 3h 4h"
    # the joker fits both ends whenever it is laid, so it goes high in either order
    for order in (["JK", "5h"], ["5h", "JK"]):
        assert str(_build("kaluki-hunt", "2h 3h 4h", order).meld) == "2h 3h 4h 5h JK=6h"
    # an ace on 2-K fits both ends: high (docs/api.md#melds high_or_low)
    assert str(_build("kalooki-40", "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd", ["Ad"]).meld).endswith("Ad")


def test_a_refusal_names_the_same_card_in_every_order() -> None:
    """Issue 19 item 1: a refused build names the first card (in card order) that the best
    placement leaves out, whatever the order given."""
    for order in itertools.permutations(["9c", "Th", "8h"]):
        ruling = _build("kaluki-hunt", "5h 6h 7h", list(order))
        assert [(v.code, v.params) for v in ruling.violations] == [
            ("build-does-not-fit", {"card": "9c"})]
    for order in itertools.permutations(["Ah", "Ac"]):
        ruling = _build("kaluki-hunt", "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", list(order))
        assert [v.code for v in ruling.violations] == ["run-too-long"]


def test_joker_naming_only_its_rank_takes_the_runs_suit() -> None:
    """docs/api.md#melds (issue 19 item 5): a run's joker may name only its rank; the run's suit
    is meant, in a meld and in a build."""
    rules = CATALOG["kaluki-hunt"]
    ruling = m.validate(["9h", "JK=T", "Jh"], rules)
    assert ruling.valid and ruling.meld is not None
    assert [str(c) for c in ruling.meld.cards] == ["9h", "JK=Th", "Jh"]
    assert ruling.meld.jokers() == [(1, "Th")]
    assert m.validate(["9h", "JK=J", "Jh"], rules).violations[0].code == "joker-mismatch"
    built = _build("kaluki-hunt", "9h Th Jh", ["JK=Q"])
    assert built.valid and str(built.meld) == "9h Th Jh JK=Qh"
    built = _build("kaluki-hunt", "9h Th Jh", ["JK=8"])
    assert built.valid and str(built.meld) == "JK=8h 9h Th Jh"
    assert not _build("kaluki-hunt", "9h Th Jh", ["JK=Qd"]).valid


def test_twenty_cards_on_a_twelve_card_run_is_refused_at_once() -> None:
    """The search is bounded by the room on the run, not by the cards given: 20 cards on a
    12-card run try at most three windows (bench/build_bench.py measures it)."""
    cards = ["JK"] * 4 + [r + s for r in "3456" for s in SUITS]
    ruling = _build({"base": "kaluki-hunt", "overrides": {"decks": 4, "jokers": 8}},
                    "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", cards)
    assert [v.code for v in ruling.violations] == ["run-too-long"]
