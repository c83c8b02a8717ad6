"""Properties that hold for every input (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import (
    DECK_52,
    JOKER,
    RANKS,
    SUITS,
    Card,
    ImpossibleCards,
    InvalidCard,
    check_deck,
    parse_card,
    parse_meld_card,
)
from service.engine.rules import CATALOG, RuleSet
from service.engine.scoring import card_value, score_hand

rulesets = st.sampled_from([r for r in CATALOG.values() if not r.is_contract])
naturals = st.sampled_from(DECK_52)
cards = st.one_of(naturals, st.just(JOKER))


@given(cards)
def test_card_format_parse_round_trip(card: Card) -> None:
    """docs/api.md#cards: responses use the canonical form, and it reads back as the same card."""
    assert parse_card(str(card)) == card
    assert parse_card(str(card).lower()) == card


_UNICODE = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@given(naturals, st.booleans(), st.booleans())
def test_every_accepted_spelling_reads_the_same(card: Card, unicode: bool, ten: bool) -> None:
    """docs/api.md#cards: '10' for 'T', unicode suits, any case."""
    rank = "10" if ten and card.rank == 10 else RANKS[card.rank - 1]
    suit = _UNICODE[card.suit] if unicode else card.suit
    assert parse_card((rank + suit).upper()) == card


@given(st.text(max_size=4))
def test_parse_card_accepts_only_cards(text: str) -> None:
    try:
        card = parse_card(text)
    except InvalidCard:
        return
    assert str(card) in {r + s for r in RANKS for s in SUITS} | {"JK"}


@given(naturals, st.booleans())
def test_meld_card_round_trip(card: Card, rank_only: bool) -> None:
    text = "JK=" + (RANKS[card.rank - 1] if rank_only else str(card))
    assert str(parse_meld_card(text)) == text


@given(st.lists(cards, max_size=12), st.integers(1, 2), st.integers(0, 4))
def test_deck_check_counts_copies(hand: list[Card], decks: int, jokers: int) -> None:
    """docs/api.md#cards impossible-cards: exactly when some card exceeds its copies."""
    over = any(hand.count(c) > (jokers if c.is_joker else decks) for c in hand)
    if over:
        with pytest.raises(ImpossibleCards) as exc:
            check_deck(hand, decks, jokers)
        bad = exc.value
        assert bad.limit == (jokers if bad.card.is_joker else decks)
        assert bad.count == hand.count(bad.card) > bad.limit
    else:
        check_deck(hand, decks, jokers)


def _value_of(mc: object, meld: m.Meld, i: int, rules: RuleSet) -> int:
    """A card's value inside a meld, from first principles (docs/api.md#cards)."""
    rank = meld.rank if meld.kind == m.SET else m.rank_of_value(meld.start + i)
    assert rank is not None
    if rank == 1:
        low = meld.kind == m.RUN and meld.start + i == 1
        v = rules.ace_low_value if low else rules.card_values.ace
    else:
        v = rules.card_values.face if rank >= 10 else rank
    if getattr(mc, "is_joker", False) and rules.joker_opening_value != "represented":
        return int(rules.joker_opening_value)
    return v


@st.composite
def runs(draw: st.DrawFn) -> tuple[RuleSet, list[str]]:
    rules = draw(rulesets)
    n = draw(st.integers(rules.run_min, 13))
    lo = 1 if rules.ace in ("low", "high_or_low") else 2
    hi = 14 if rules.ace != "low" else 13
    start = draw(st.integers(lo, hi - n + 1))
    suit = draw(st.sampled_from(SUITS))
    texts = [RANKS[m.rank_of_value(start + i) - 1] + suit for i in range(n)]
    jokers = draw(st.sets(st.integers(0, n - 1), max_size=min(2, n - 1)))
    texts = ["JK" if i in jokers else t for i, t in enumerate(texts)]
    if draw(st.booleans()):
        texts.reverse()
    return rules, texts


@given(runs())
@settings(max_examples=300)
def test_meld_points_are_the_sum_of_card_values(case: tuple[RuleSet, list[str]]) -> None:
    """docs/api.md#cards: a meld's points are its cards' values (jokers at joker_opening_value)."""
    rules, texts = case
    ruling = m.validate(texts, rules, "run")
    assert ruling.valid, (texts, ruling.violations)
    meld = ruling.meld
    assert meld is not None
    assert meld.points == sum(_value_of(c, meld, i, rules) for i, c in enumerate(meld.cards))
    # every joker stands for the card missing at its place
    for i, c in enumerate(meld.cards):
        assert c.as_rank == m.rank_of_value(meld.start + i) if c.is_joker else c.as_rank is None


@st.composite
def sets(draw: st.DrawFn) -> tuple[RuleSet, list[str]]:
    rules = draw(rulesets)
    rank = draw(st.integers(1, 13))
    suits = draw(st.lists(st.sampled_from(SUITS), min_size=1, max_size=4, unique=True))
    jokers = draw(st.integers(0, 4 - len(suits)))
    assume(rules.set_min <= len(suits) + jokers <= rules.set_max)
    texts = [RANKS[rank - 1] + s for s in suits] + ["JK"] * jokers
    return rules, draw(st.permutations(texts))


@given(sets())
def test_set_points_are_the_sum_of_card_values(case: tuple[RuleSet, list[str]]) -> None:
    rules, texts = case
    ruling = m.validate(texts, rules, "set")
    assert ruling.valid, ruling.violations
    meld = ruling.meld
    assert meld is not None
    assert meld.points == sum(_value_of(c, meld, i, rules) for i, c in enumerate(meld.cards))


@given(runs(), st.sampled_from(DECK_52 + (JOKER,)))
def test_a_build_stays_a_legal_meld(case: tuple[RuleSet, list[str]], card: Card) -> None:
    """Whatever a build accepts, validate accepts as the same run."""
    rules, texts = case
    meld = m.validate(texts, rules, "run").meld
    assert meld is not None
    ruling = m.build(meld, [m.Placed(m.as_tokens([card])[0])], rules)
    if ruling.valid:
        again = m.validate([str(c) for c in ruling.meld.cards], rules, "run")
        assert again.valid and again.meld is not None
        assert (again.meld.start, again.meld.points) == (ruling.meld.start, ruling.meld.points)
        assert len(ruling.meld.cards) == len(meld.cards) + 1


@st.composite
def hands(draw: st.DrawFn) -> tuple[RuleSet, str, str, list[tuple[str, list[Card]]]]:
    rules = draw(rulesets)
    n = draw(st.integers(rules.players_min, rules.players_max))
    deck = [c for c in DECK_52 for _ in range(rules.decks)] + [JOKER] * rules.jokers
    pool = draw(st.permutations(deck))
    players = []
    at = 0
    for i in range(n):
        k = draw(st.integers(0, 13))
        players.append((f"p{i}", list(pool[at:at + k])))
        at += k
    winner = draw(st.integers(0, n - 1))
    players[winner] = (players[winner][0], [])
    return rules, f"p{winner}", draw(st.sampled_from(["out", "special"])), players


@given(hands())
@settings(max_examples=200)
def test_scoring_conserves(case: tuple[RuleSet, str, str, list[tuple[str, list[Card]]]]) -> None:
    """docs/api.md#end-of-hand-scoring: hand values are card sums; winner_collects passes exactly
    the losers' values to the winner; penalties are hand value × 1 or × special_multiplier; nothing
    else moves."""
    rules, winner, finish, players = case
    result = score_hand(rules, winner, finish, players)
    special = finish == "special"
    by_id = {s.id: s for s in result.scores}
    for pid, held in players:
        assert by_id[pid].hand_value == sum(card_value(c, rules) for c in held)
    losers = [s for s in result.scores if s.id != winner]
    w = by_id[winner]
    if rules.scoring == "winner_collects":
        assert w.points == sum(s.hand_value for s in losers)
        assert all(s.points == (-rules.special_flat if special else 0) for s in losers)
        assert all(s.penalty == 0 for s in result.scores)
    else:
        mult = rules.special_multiplier if special else 1
        assert all(s.penalty == s.hand_value * mult and s.points == 0 for s in losers)
        assert w.penalty == 0
        expected = 0 if rules.scoring == "penalty" else (
            rules.special_bonus if special else rules.out_bonus)
        assert w.points == expected
