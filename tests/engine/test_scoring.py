"""End-of-hand scoring (service/engine/scoring.py; docs/api.md#end-of-hand-scoring,
docs/api.md#contract-rule-sets): card values, the three scoring modes, the special multiplier and
flat loss, and the checks on who scores."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine.cards import DECK_52, JOKER, parse_cards
from service.engine.rules import CATALOG, resolve
from service.engine.scoring import (
    FINISHES,
    ScoringError,
    card_value,
    hand_value,
    score_hand,
)

HUNT, K51, UK, K40, JAM = (CATALOG[n] for n in (
    "kaluki-hunt", "kaluki-51", "kaluki-uk", "kalooki-40", "kalooki-jamaica"))


def _score(rules, winner, finish, **held):
    s = score_hand(rules, winner, finish, [(p, parse_cards(c)) for p, c in held.items()])
    return {x.id: (x.hand_value, x.points, x.penalty) for x in s.scores}, s.special


def test_card_values_are_the_rule_sets():
    # docs/api.md#cards: ace 11, T J Q K 10, 2-9 face value, the joker per rule set
    assert [card_value(c, HUNT) for c in parse_cards(["As", "Kd", "Th", "9c", "2s"])] == [
        11, 10, 10, 9, 2]
    assert (card_value(JOKER, K51), card_value(JOKER, UK), card_value(JOKER, JAM)) == (25, 15, 50)


def test_jamaican_aces_by_colour():
    # docs/api.md#contract-rule-sets: card_values.ace_red counts the red aces, card_values.ace the
    # black ones
    assert [card_value(c, JAM) for c in parse_cards(["Ah", "Ad", "As", "Ac"])] == [1, 1, 15, 15]


@given(st.lists(st.sampled_from(DECK_52 + (JOKER,)), max_size=12))
def test_a_hand_value_is_the_sum_of_its_cards(cards):
    for rules in (HUNT, K51, UK, K40, JAM):
        assert hand_value(cards, rules) == sum(card_value(c, rules) for c in cards)


def test_winner_collects_with_its_flat_special_loss():
    # docs/api.md#end-of-hand-scoring winner_collects (S0, kaluki-51): the winner gains the losers'
    # hand values (× special_multiplier, 1 here); after a special win each loser also loses
    # special_flat (25), which is not passed to the winner
    out, special = _score(K51, "a", "out", a=[], b=["Qs", "4d"], c=["JK"])
    assert (out, special) == ({"a": (0, 39, 0), "b": (14, 0, 0), "c": (25, 0, 0)}, False)
    sp, special = _score(K51, "a", "special", a=[], b=["Qs", "4d"], c=["JK"])
    assert special and sp == {"a": (0, 39, 0), "b": (14, -25, 0), "c": (25, -25, 0)}


def test_bonus_penalty_doubles_after_a_hunt():
    # docs/api.md#end-of-hand-scoring bonus_penalty (S1, S3): out 20, special 40; losers' penalty
    # ×1, ×2 after a Hunt
    assert _score(HUNT, "kim", "out", kim=[], lou=["Qs", "4d"])[0] == {
        "kim": (0, 20, 0), "lou": (14, 0, 14)}
    assert _score(HUNT, "kim", "special", kim=[], lou=["Qs", "4d"])[0] == {
        "kim": (0, 40, 0), "lou": (14, 0, 28)}


@pytest.mark.parametrize(("rules", "multiplier"), [(UK, 2), (K40, K40.special_multiplier),
                                                   (JAM, 1)])
def test_penalty_scoring_multiplies_after_a_special_win(rules, multiplier):
    # docs/api.md#end-of-hand-scoring penalty: the winner scores 0, each loser's penalty grows by
    # the hand value, × special_multiplier after a special win (docs/api.md#special-wins: kaluki-uk
    # 2; docs/api.md#contract-rule-sets: kalooki-jamaica 1)
    players = {"a": [], "b": ["Qs", "4d"], "c": ["9c"]}
    if rules is JAM:
        players["d"] = ["As"]
    out, _ = _score(rules, "a", "out", **players)
    sp, _ = _score(rules, "a", "special", **players)
    for p, (value, points, penalty) in out.items():
        assert points == 0 and penalty == value
        assert sp[p] == (value, 0, value * multiplier)


def test_superkalooki_doubles_by_override():
    # docs/api.md#contract-rule-sets: special_multiplier 2 is superkalooki's reading, an override of
    # the catalog's 1
    rules = resolve({"base": "kalooki-jamaica", "overrides": {"special_multiplier": 2}})
    assert _score(rules, "a", "special", a=[], b=["Ah", "JK"], c=["As"])[0] == {
        "a": (0, 0, 0), "b": (51, 0, 102), "c": (15, 0, 30)}


@pytest.mark.parametrize(("winner", "held", "code"), [
    ("zed", {"a": [], "b": ["Qs"]}, "unknown-winner"),
    ("a", {"a": ["2c"], "b": ["Qs"]}, "winner-holds-cards"),
    ("a", {"a": []}, "player-count"),
])
def test_who_scores_is_checked(winner, held, code):
    with pytest.raises(ScoringError) as err:
        _score(HUNT, winner, "out", **held)
    assert err.value.code == code


def test_finishes_are_out_and_special():
    assert tuple(str(f) for f in FINISHES) == ("out", "special")
    with pytest.raises(ScoringError) as err:
        _score(HUNT, "a", "hunt", a=[], b=["Qs"])
    assert err.value.code == "invalid-finish"
