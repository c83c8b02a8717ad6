"""The hand solver (issue 4) against a brute-force referee and hand-made hard cases."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.cards import JOKER, RANKS, SUITS, Card, ImpossibleCards, parse_cards
from service.engine.melds import validate
from service.engine.rules import CATALOG, RuleSet
from service.engine.scoring import card_value
from service.engine.solver import Analysis, HandTooLarge, analyze
from tests.engine.oracle import all_melds, judge

RULESETS = [r for r in CATALOG.values() if not r.is_contract]  # contract sets: test_solver_contracts
VARIANTS = [
    CATALOG["kaluki-hunt"].with_overrides({"ace": "around"}, name="around"),
    CATALOG["kalooki-40"].with_overrides({"ace": "around"}, name="around-low-ace-1"),
    CATALOG["kaluki-hunt"].with_overrides({"ace": "low", "run_max": 4}, name="low-short"),
    CATALOG["kaluki-uk"].with_overrides(
        {"set_distinct_suits": False, "set_max": 5, "decks": 3}, name="any-suits"),
    CATALOG["kaluki-51"].with_overrides(
        {"set_min_naturals": 2, "run_min_naturals": 2, "run_min": 3,
         "card_values": {"joker": 0}}, name="two-naturals"),
    CATALOG["kalooki-40"].with_overrides(
        {"joker_opening_value": 0, "final_discard": "optional", "opening_min_points": 30},
        name="joker-zero"),
]


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def check_arrangement(hand: Sequence[Card], rules: RuleSet, a: Analysis) -> None:
    """Every meld is one melds.validate lays out identically; melds and deadwood are the hand."""
    laid: list[Card] = []
    for meld in a.melds:
        ruling = validate(list(meld.cards), rules, meld.kind)
        assert ruling.valid, (str(meld), ruling.violations)
        assert ruling.meld == meld, (str(meld), str(ruling.meld))
        assert all(c.as_rank is not None for c in meld.cards if c.is_joker)
        laid.extend(meld.physical())
    assert Counter(laid + list(a.deadwood)) == Counter(hand)
    assert a.melded_count == len(laid)
    assert a.deadwood_value == sum(card_value(c, rules) for c in a.deadwood)
    assert a.points == sum(m.points for m in a.melds)


def agree(hand: Sequence[Card], rules: RuleSet, opened: bool = False) -> Analysis:
    a = analyze(hand, rules, opened)
    check_arrangement(hand, rules, a)
    v = judge(hand, rules, opened)
    got = (a.deadwood_value, a.melded_count, a.points, a.opening_points,
           a.can_open, a.can_go_out, a.can_special)
    want = (v.deadwood_value, v.melded_count, v.points, v.opening_points,
            v.can_open, v.can_go_out, v.can_special)
    assert got == want, ([str(c) for c in hand], rules.name, opened)
    return a


def dense_hand(rng: random.Random, size: int, jokers: int) -> list[Card]:
    """A hand from a narrow slice of the deck (few ranks, few suits), so melds overlap."""
    width = rng.randint(3, 6)
    low = rng.randint(1, 13)
    ranks = [(low + i - 1) % 13 + 1 for i in range(width)]
    suits = rng.sample(SUITS, rng.randint(1, 4))
    pool = [Card(r, s) for r in ranks for s in suits] * 2
    naturals = rng.sample(pool, min(len(pool), size - jokers))
    return naturals + [JOKER] * jokers


@pytest.mark.parametrize("rules", RULESETS + VARIANTS, ids=lambda r: r.name)
@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_agrees_with_the_referee_on_random_hands(rules: RuleSet, jokers: int) -> None:
    rng = random.Random(f"{rules.name}/{jokers}")
    for n in range(24):
        hand = dense_hand(rng, rng.randint(7, 9), jokers)
        agree(hand, rules, opened=n % 2 == 1)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULESETS + VARIANTS), seed=st.integers(0, 2**32),
       size=st.integers(1, 10), jokers=st.integers(0, 2), opened=st.booleans())
def test_agrees_with_the_referee_property(rules: RuleSet, seed: int, size: int, jokers: int,
                                          opened: bool) -> None:
    rng = random.Random(seed)
    agree(dense_hand(rng, size, min(jokers, size)), rules, opened)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULESETS + VARIANTS), seed=st.integers(0, 2**32),
       size=st.integers(1, 10), jokers=st.integers(0, 2))
def test_opened_means_no_special_and_no_threshold(rules: RuleSet, seed: int, size: int,
                                                  jokers: int) -> None:
    """docs/api.md#analyzing-a-hand: a player who has opened has made their first meld, so no
    special win is left (can_special false) and going out needs no threshold; one who has not
    opened goes out only by laying an opening, so can_go_out equals can_special.
    The oracle agrees on every field for both values of ``opened``."""
    hand = dense_hand(random.Random(seed), size, min(jokers, size))
    opened = agree(hand, rules, opened=True)
    assert opened.can_special is False
    free = RuleSet(**{**{f: getattr(rules, f) for f in rules.__dataclass_fields__},
                      "opening_min_points": 0})
    assert analyze(hand, free, opened=True).can_go_out is opened.can_go_out
    fresh = agree(hand, rules, opened=False)
    assert fresh.can_go_out is fresh.can_special
    assert not fresh.can_go_out or opened.can_go_out  # a first meld that goes out would do later too


# -- hand-made hard cases ----------------------------------------------------------------------

HUNT, K51, UK, K40 = (CATALOG[n] for n in ("kaluki-hunt", "kaluki-51", "kaluki-uk", "kalooki-40"))


def test_overlapping_runs_and_sets_with_duplicates() -> None:
    hand = cards("4h 5h 6h 7h 5c 5d 6c 6d 7c 7d 5h 6s 7s")
    a = agree(hand, HUNT)
    assert a.deadwood_value == 0 and a.melded_count == 13
    assert a.can_go_out is True  # 4h is spare: 5h 6h 7h still runs, so it can be discarded
    b = agree(hand + cards("Ks"), HUNT)
    assert b.deadwood == tuple(cards("Ks")) and b.can_go_out and b.can_special


def test_two_copies_of_a_run() -> None:
    hand = cards("3d 4d 5d 6d 7d 3d 4d 5d 6d 7d Qs")
    a = agree(hand, K51)
    assert [str(c) for c in a.deadwood] == ["Qs"] and len(a.melds) == 2


def test_two_jokers_bridge_gaps() -> None:
    hand = cards("2s 5s 8s 9s JK JK Ah")
    a = agree(hand, HUNT)
    # 2s JK JK 5s (or 5s .. 9s with both jokers) melds five or six naturals
    assert a.deadwood_value <= 11 + 2


def test_melds_out_but_under_the_threshold_is_no_special() -> None:
    hand = cards("2c 3c 4c 2d 2h 2s 5h")  # 9 + 6 = 15 points, 40 needed
    a = agree(hand, K40, opened=False)
    assert a.deadwood == tuple(cards("5h"))
    assert a.can_open is False and a.can_special is False and a.can_go_out is False
    b = agree(hand, K40, opened=True)
    assert b.can_go_out is True and b.can_special is False


def test_meld_everything_only_when_the_last_discard_is_optional() -> None:
    hand = cards("Qc Qd Qh Kc Kd Kh")
    assert agree(hand, K51, opened=True).can_go_out is True  # final_discard optional
    assert agree(hand, HUNT, opened=True).can_go_out is False  # nothing to discard


def test_the_joker_belongs_in_the_set_not_the_run() -> None:
    # run 9h Th JK(Jh) leaves Ac Ad (22); the set Ac Ad JK and 9h Th ... leaves 19
    hand = cards("9h Th Ac Ad")
    hand.append(JOKER)
    a = agree(hand, HUNT)
    kinds = {m.kind: m for m in a.melds}
    assert set(kinds) == {"set"} and kinds["set"].rank == 1
    assert a.deadwood_value == 19


def test_ace_high_and_low_follow_the_rule_set() -> None:
    low = cards("As 2s 3s 9c")
    assert agree(low, UK).deadwood_value == 11 + 2 + 3 + 9  # ace high only: A 2 3 is no run
    assert agree(low, K40).deadwood_value == 9
    corner = cards("Qs Ks As 2s 3s 9c")
    assert agree(corner, UK).deadwood_value == 2 + 3 + 9  # Q K A
    assert agree(corner, K40).deadwood_value == 2 + 3 + 9  # Q K A, never K A 2
    around = VARIANTS[0]
    assert agree(corner, around).deadwood_value == 9  # Q K A 2 3
    assert agree(corner, around).melded_count == 5


def test_opening_counts_jokers_as_the_rule_set_says() -> None:
    hand = cards("Kc Kd 7h 8h") + [JOKER]
    # kaluki-51: joker 25 -> Kc Kd JK = 45 < 51; hunt: no threshold
    assert agree(hand, K51).can_open is False
    assert agree(hand, HUNT).can_open is True
    bigger = cards("Kc Kd Qs Qh") + [JOKER]
    assert agree(bigger, K51).can_open is False  # only one joker: 45 or 45
    assert agree(bigger + cards("Qd"), K51).can_open is True  # Qs Qh Qd + Kc Kd JK = 75


def test_same_answer_in_any_order() -> None:
    hand = cards("5h 6h 7h 7c 7d 8h 9h JK 2c 2d 2s Ks")
    first = analyze(hand, HUNT)
    for seed in range(5):
        shuffled = list(hand)
        random.Random(seed).shuffle(shuffled)
        assert analyze(shuffled, HUNT) == first


def test_empty_and_single_card_hands() -> None:
    empty = analyze([], HUNT)
    assert empty.melds == () and not (empty.can_open or empty.can_go_out or empty.can_special)
    one = agree(cards("Ks"), HUNT, opened=True)
    assert one.can_go_out and not one.can_special
    assert agree(cards("Ks"), HUNT, opened=False).can_go_out is False


def test_impossible_cards_are_refused() -> None:
    with pytest.raises(ImpossibleCards):
        analyze(cards("Ks Ks Ks"), HUNT)
    with pytest.raises(ImpossibleCards):
        analyze([JOKER] * 3, HUNT)


def test_every_rank_and_suit_is_reachable() -> None:
    # one full suit: the solver lays it as long runs under every catalog rule set
    for rules in RULESETS:
        hand = [Card(r, "s") for r in range(1, len(RANKS) + 1)]
        a = analyze(hand, rules)
        check_arrangement(hand, rules, a)
        assert a.deadwood_value == 0


def test_the_referees_shortcut_finds_the_same_melds() -> None:
    rng = random.Random("shortcut")
    for rules in RULESETS + VARIANTS:
        for _ in range(6):
            hand = dense_hand(rng, 8, rng.randint(0, 2))
            assert all_melds(hand, rules, exhaustive=False) == all_melds(hand, rules)


@pytest.mark.parametrize("rules", RULESETS + VARIANTS, ids=lambda r: r.name)
def test_long_runs_agree_with_the_referee(rules: RuleSet) -> None:
    """One suit, long stretches, jokers: the runs the solver leaves out (those that split in
    two legal runs) must never change an answer."""
    rng = random.Random(f"long/{rules.name}")
    for n in range(6):
        jokers = n % 3
        suit = rng.choice(SUITS)
        low = rng.randint(1, 13)
        ranks = [(low + i - 1) % 13 + 1 for i in range(rng.randint(6, 8))]
        naturals = [Card(r, suit) for r in rng.sample(ranks, len(ranks) - rng.randint(0, 2))]
        if n % 4 == 3:
            naturals.append(rng.choice(naturals))  # a duplicate
        agree(naturals[:8 - jokers] + [JOKER] * jokers, rules, opened=n % 2 == 0)


def test_long_runs_are_shown_whole() -> None:
    hand = cards("4s 5s 6s 7s 8s 9s Ts Js 2c")
    a = agree(hand, HUNT)
    assert [str(m) for m in a.melds] == ["4s 5s 6s 7s 8s 9s Ts Js"]


def test_runs_that_cannot_be_cut_are_kept() -> None:
    two_naturals = next(r for r in VARIANTS if r.name == "two-naturals")
    # 5h JK JK 8h 9h Th: no cut leaves two naturals and three cards on both sides
    a = agree(cards("5h 8h 9h Th 2c") + [JOKER, JOKER], two_naturals)
    assert a.deadwood == tuple(cards("2c"))
    corner = next(r for r in VARIANTS if r.name == "around-low-ace-1")
    # J Q K A 2 3: the ace counts 11 inside the run but only 1 at the head of A 2 3
    b = agree(cards("Js Qs Ks As 2s 3s 9c"), corner)
    assert b.points == 10 + 10 + 10 + 11 + 2 + 3
    dear_low_ace = corner.with_overrides({"ace_low_value": 20}, name="around-low-ace-20")
    # now J Q K and A 2 3 are worth more apart (30 + 25) than joined (46): shown apart
    c = agree(cards("Js Qs Ks As 2s 3s 9c"), dear_low_ace)
    assert c.points == 55 and len(c.melds) == 2


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_more_jokers_than_the_catalog_deals(rules: RuleSet) -> None:
    """With four jokers in the deck runs can be mostly jokers (and cut only where the
    halves keep a natural each)."""
    four = rules.with_overrides({"jokers": 4}, name=rules.name + "+4-jokers")
    rng = random.Random(f"jokers/{rules.name}")
    for n in range(6):
        agree(dense_hand(rng, rng.randint(6, 8), 3 + n % 2), four, opened=n % 2 == 0)


def test_a_hand_holds_at_most_hand_size_plus_one_cards() -> None:
    """docs/api.md#analyzing-a-hand: a hand after its draw holds hand_size + 1 cards; more is
    refused (hand-too-large) before anything else is read."""
    rules = CATALOG["kaluki-hunt"]
    analyze(full_deck_cards(rules.hand_size + 1), rules)
    with pytest.raises(HandTooLarge) as e:
        analyze(full_deck_cards(rules.hand_size + 2), rules)
    assert (e.value.code, e.value.field, e.value.params) == (
        "hand-too-large", "cards", {"limit": 14, "count": 15})


def full_deck_cards(n: int) -> list[Card]:
    return [Card(rank, suit) for suit in SUITS for rank in range(1, 14)][:n]
