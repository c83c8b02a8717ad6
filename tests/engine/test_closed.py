"""``closed`` comes from the rule that rules on releases (docs/api.md#melds ``closed``,
docs/api.md#joker-release; issue 19 item 2).

docs/api.md#melds: a meld's ``closed`` (sets: no joker can ever be released from it). The
property: ``melds.is_closed`` is true exactly when ``melds.release`` refuses every lay
of naturals the deck could still hold (every multiset of the meld's rank for a set, every
card and pair of cards for a run, with a card of another rank or suit among them).
"""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import DECK_52, RANKS, SUITS, Card
from service.engine.rules import CATALOG, RuleSet, resolve


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    base = draw(st.sampled_from(sorted(CATALOG)))
    over = draw(st.fixed_dictionaries({}, optional={
        "release_set": st.sampled_from(["never", "one_missing", "all_missing"]),
        "release_closed_four": st.booleans(),
        "release_run": st.sampled_from(["never", "exact"]),
        "set_distinct_suits": st.booleans(),
        "set_max": st.integers(4, 6),
    }))
    return resolve({"base": base, "overrides": over})


@st.composite
def set_melds(draw: st.DrawFn) -> tuple[RuleSet, m.Meld]:
    rules = draw(rule_sets())
    rank = draw(st.sampled_from(RANKS))
    n = draw(st.integers(rules.set_min, rules.effective_set_max))
    if rules.set_distinct_suits:
        suits = list(draw(st.permutations(SUITS)))[:n]
    else:
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=n, max_size=n))
        # no more copies of a card than the deck holds
        suits = [s for i, s in enumerate(suits) if suits[:i + 1].count(s) <= rules.decks]
    cards = [rank + s for s in suits]
    for i in draw(st.sets(st.integers(1, max(len(cards) - 1, 1)), max_size=2)):
        if i < len(cards):
            cards[i] = "JK"
    ruling = m.validate(cards, rules, "set")
    assume(ruling.meld is not None)  # too short once the deck's copies are counted
    meld = ruling.meld
    assert meld is not None
    if draw(st.booleans()):
        # a set closed by its history: what a release leaves (all_missing, two jokers, one natural)
        for s in SUITS:
            after = m.release(meld, [Card(RANKS.index(rank) + 1, s)], rules)
            if after.legal and after.meld.joker_count:
                meld = after.meld
                break
    return rules, meld


def _set_lays(meld: m.SetMeld, rules: RuleSet) -> list[list[Card]]:
    """Every multiset of naturals of the set's rank the deck still holds (up to 5), and each
    with a card of another rank added."""
    left = Counter({Card(meld.rank, s): rules.decks for s in SUITS})
    left.subtract(Counter(meld.naturals))
    pool = [c for c, k in left.items() for _ in range(max(k, 0))]
    lays = {tuple(sorted(x)) for k in range(1, 6) for x in itertools.combinations(pool, k)}
    other = Card(meld.rank % 13 + 1, "c")
    return [list(x) for x in lays] + [[*x, other] for x in lays] + [[other]]


@settings(max_examples=300)
@given(set_melds())
def test_closed_exactly_when_no_release_frees_a_joker_of_a_set(case: tuple[RuleSet, m.Meld]) -> None:
    """Issue 19 item 2: ``closed`` is true exactly when no release can free a joker."""
    rules, meld = case
    assert isinstance(meld, m.SetMeld)
    frees = any(m.release(meld, lay, rules).legal for lay in _set_lays(meld, rules))
    assert m.is_closed(meld, rules) is (meld.joker_count > 0 and not frees)


@st.composite
def run_melds(draw: st.DrawFn) -> tuple[RuleSet, m.Meld]:
    rules = draw(rule_sets())
    suit = draw(st.sampled_from(SUITS))
    n = draw(st.integers(rules.run_min, rules.run_min + 3))
    start = draw(st.integers(2, 14 - n))
    cards = [RANKS[v - 1] + suit for v in range(start, start + n)]
    for i in draw(st.sets(st.integers(0, n - 1), max_size=2)):
        cards[i] = "JK=" + cards[i]
    ruling = m.validate(cards, rules, "run")
    assume(ruling.meld is not None)  # two jokers side by side where run_jokers_adjacent is false
    return rules, ruling.meld


@settings(max_examples=100)
@given(run_melds())
def test_closed_exactly_when_no_release_frees_a_joker_of_a_run(case: tuple[RuleSet, m.Meld]) -> None:
    """Issue 19 item 2 for runs: every card and every pair of cards of the deck."""
    rules, meld = case
    lays = [[c] for c in DECK_52] + [list(x) for x in itertools.combinations(DECK_52, 2)
                                     if x[0].suit == meld.suit or x[1].suit == meld.suit]
    frees = any(m.release(meld, lay, rules).legal for lay in lays)
    assert m.is_closed(meld, rules) is (meld.joker_count > 0 and not frees)


def test_the_oracle_case_of_issue_19() -> None:
    """Issue 19 item 2: under kaluki-51 with set_distinct_suits false and set_max 4, JK 3c
    3h 3d is closed, as the release itself rules (three naturals and a joker, S0)."""
    rules = resolve({"base": "kaluki-51", "overrides": {"set_distinct_suits": False, "set_max": 4}})
    meld = m.validate(["JK", "3c", "3h", "3d"], rules).meld
    assert meld is not None
    assert m.is_closed(meld, rules) is True
    assert not m.release(meld, [Card(3, "s")], rules).legal
    # three naturals of two suits and a joker: the same rule (S0: three naturals and a joker)
    meld = m.validate(["JK", "3c", "3c", "3d"], rules).meld
    assert meld is not None
    assert m.is_closed(meld, rules) is not any(
        m.release(meld, [Card(3, s)], rules).legal for s in SUITS)


def test_two_naturals_on_a_closed_four_of_repeated_suits_are_refused() -> None:
    """Found by the property above (it was an uncaught StopIteration, a 500 at
    /v1/jokers/release): under all_missing with release_closed_four and repeated suits, two
    naturals on three naturals and a joker are refused like one_missing's extra natural
    (README: a release lays one natural per joker it frees)."""
    rules = resolve({"base": "kalooki-40", "overrides": {
        "set_distinct_suits": False, "set_max": 4, "release_closed_four": True}})
    meld = m.validate(["Ac", "JK", "Ad", "Ad"], rules).meld
    assert meld is not None
    ruling = m.release(meld, [Card(1, "c"), Card(1, "s")], rules)
    assert (ruling.legal, ruling.violations[0].code) == (False, "joker-not-releasable")
    assert ruling.violations[0].params["reason"] == "more cards than jokers"
    assert m.release(meld, [Card(1, "s")], rules).legal
    assert m.is_closed(meld, rules) is False


def test_a_closed_meld_still_takes_builds() -> None:
    """Issue 19 item 6: ``closed`` is about jokers only (docs/api.md#melds: no joker can ever be
    released from it); a closed meld takes builds like any other
    (docs/api.md#rulings-200-with-valid--legal build: up to set_max, at a run's ends), so no build
    is refused for being closed and the catalog has no ``meld-closed`` code."""
    from service.engine.violations import CODES

    cases = [
        ({"base": "kaluki-51", "overrides": {"set_distinct_suits": False, "set_max": 5}},
         "JK 3c 3h 3d", "3s"),
        ({"base": "kaluki-hunt", "overrides": {"release_set": "never"}}, "7c 7d JK", "7h"),
        ({"base": "kaluki-hunt", "overrides": {"release_run": "never"}}, "5h JK=6h 7h", "8h"),
    ]
    for rs, table, card in cases:
        rules = resolve(rs)
        meld = m.validate(table.split(), rules).meld
        assert meld is not None and m.is_closed(meld, rules), (rs, table)
        built = m.build(meld, [m.Placed(m.as_tokens([card])[0])], rules)
        assert built.valid, built.violations
        assert len(built.meld.cards) == len(meld.cards) + 1
    # a closed four of distinct suits is full: the build is refused for its size, set-too-long
    rules = CATALOG["kaluki-51"]
    meld = m.validate(["7c", "7d", "7h", "JK"], rules).meld
    assert meld is not None and m.is_closed(meld, rules)
    refused = m.build(meld, [m.Placed(m.as_tokens(["7s"])[0])], rules)
    assert [v.code for v in refused.violations] == ["set-too-long"]
    assert "meld-closed" not in CODES
