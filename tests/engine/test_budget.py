"""The solver's work budget (issue 14): catalog hands never meet it, widening overrides do."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.engine.cards import full_deck, parse_cards
from service.engine.rules import CATALOG, resolve
from service.engine.solver import WORK_BUDGET, SearchTooLarge, analyze

AMPLIFICATION = {"base": "kaluki-hunt", "overrides": {
    "hand_size": 20, "jokers": 8, "decks": 4, "run_min": 2, "set_min": 2, "ace": "around"}}
AMPLIFICATION_CARDS = ["JK"] * 8 + [r + "h" for r in "A23456789TJQK"]

# the costliest hands a hill-climb over each catalog rule set found (bench/hostile.py's
# method, applied to the engine's own work count)
WORST_CATALOG_HANDS = {
    "kaluki-51": "7c 7c 7h 7s 8c 8h 9c Ac JK JK Jc Kc Qc Tc",
    "kaluki-hunt": "9c 9c 9d Ac Ad JK JK Jc Jd Kc Kd Qc Qd Tc",
    "kaluki-uk": "Ah As JK JK Jc Jh Js Kh Ks Qc Qh Qs Tc Ts",
    "kalooki-40": "8d 8s 8s 9d 9s 9s JK JK Jd Js Qd Qs Td Ts",
}


CLASSIC = sorted(n for n, r in CATALOG.items() if not r.is_contract)


def test_the_amplification_body_is_refused() -> None:
    with pytest.raises(SearchTooLarge) as info:
        analyze(parse_cards(AMPLIFICATION_CARDS), resolve(AMPLIFICATION))
    assert info.value.code == "search-too-large" and info.value.budget == WORK_BUDGET
    assert f"{WORK_BUDGET:,}" in str(info.value)


def test_work_is_counted_not_timed() -> None:
    """The same request meets the same budget every time: refused below its work, answered
    at it (found by bisection, then checked twice)."""
    rules = CATALOG["kaluki-hunt"]
    hand = parse_cards(WORST_CATALOG_HANDS["kaluki-hunt"].split())
    lo, hi = 0, WORK_BUDGET
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            analyze(hand, rules, budget=mid)
            hi = mid
        except SearchTooLarge:
            lo = mid + 1
    for _ in range(2):
        analyze(hand, rules, budget=lo)
        with pytest.raises(SearchTooLarge):
            analyze(hand, rules, budget=lo - 1)


@pytest.mark.parametrize("name", sorted(WORST_CATALOG_HANDS))
def test_the_worst_catalog_hands_use_a_fraction_of_the_budget(name: str) -> None:
    hand = parse_cards(WORST_CATALOG_HANDS[name].split())
    analyze(hand, CATALOG[name], budget=WORK_BUDGET // 4)  # four times the headroom


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(CLASSIC), data=st.data(), opened=st.booleans())
def test_catalog_hands_are_never_refused(name: str, data: st.DataObject, opened: bool) -> None:
    rules = CATALOG[name]
    deck = full_deck(rules.decks, rules.jokers)
    size = data.draw(st.integers(0, rules.hand_size + 1), label="size")
    picks = data.draw(st.lists(st.integers(0, len(deck) - 1), min_size=size, max_size=size,
                               unique=True), label="cards")
    analyze([deck[i] for i in picks], rules, opened)  # raises SearchTooLarge if refused


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(CLASSIC), data=st.data())
def test_dense_catalog_hands_are_never_refused(name: str, data: st.DataObject) -> None:
    """Hands from two suits and five ranks (both jokers in): melds overlap the most."""
    rules = CATALOG[name]
    low = data.draw(st.integers(1, 13), label="low")
    suits = data.draw(st.lists(st.sampled_from("cdhs"), min_size=1, max_size=2, unique=True))
    pool = [f"{'A23456789TJQK'[(low + i - 1) % 13]}{s}" for i in range(5) for s in suits]
    naturals = data.draw(st.lists(st.sampled_from(pool), min_size=0, max_size=12), label="cards")
    hand = parse_cards([*naturals, "JK", "JK"])
    assume(all(hand.count(c) <= rules.decks for c in hand if not c.is_joker))
    analyze(hand, rules)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), opened=st.booleans())
def test_jamaican_hands_are_never_refused(data: st.DataObject, opened: bool) -> None:
    """kalooki-jamaica (docs/api.md#contract-rule-sets): a hand of its deal size + 1 from the
    three-to-four-seat deck (2 decks, 4 jokers), any round, is analysed within the budget."""
    rules = CATALOG["kalooki-jamaica"]
    round_ = data.draw(st.integers(1, rules.rounds), label="round")
    deck = full_deck(*rules.deck_for(4))
    size = rules.deal_size(round_) + 1
    picks = data.draw(st.lists(st.integers(0, len(deck) - 1), min_size=size, max_size=size,
                               unique=True), label="cards")
    analyze([deck[i] for i in picks], rules, opened, round=round_)
