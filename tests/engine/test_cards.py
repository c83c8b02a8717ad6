"""Card notation and the deck (docs/api.md#cards): every spelling the contract
accepts reads to one card, every card writes back canonically, and nothing else reads."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine.cards import (
    DECK_52,
    JOKER,
    RANKS,
    SUITS,
    Card,
    ImpossibleCards,
    InvalidCard,
    card_at,
    check_deck,
    full_deck,
    parse_card,
    parse_meld_card,
)

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@pytest.mark.parametrize(("text", "canonical"), [
    ("Qs", "Qs"), ("qs", "Qs"), ("QS", "Qs"), ("10h", "Th"), ("Th", "Th"), ("tH", "Th"),
    ("A♠", "As"), ("7♥", "7h"), ("K♦", "Kd"), ("2♣", "2c"), (" 9d ", "9d"),
    ("JK", "JK"), ("jk", "JK"), ("*", "JK"),
])
def test_every_spelling_the_contract_accepts_reads_canonically(text: str, canonical: str) -> None:
    # docs/api.md#cards: case-insensitive, 10 for T, suit symbols, * for a joker; answers canonical
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("text", ["Qz", "1h", "11h", "Q", "", "JK=7h", "Xx", "10", "hQ"])
def test_anything_else_is_an_invalid_card(text: str) -> None:
    with pytest.raises(InvalidCard) as err:
        parse_card(text)
    assert err.value.code == "invalid-card"


@pytest.mark.parametrize("value", [7, None, ["Qs"], {"card": "Qs"}, 1.5])
def test_a_card_is_a_string(value: object) -> None:
    with pytest.raises(InvalidCard):
        parse_card(value)


@given(st.sampled_from(DECK_52), st.booleans(), st.booleans(), st.booleans())
def test_every_card_round_trips_through_every_spelling(card: Card, lower: bool, ten: bool,
                                                       symbol: bool) -> None:
    rank = RANKS[card.rank - 1]
    rank = "10" if ten and rank == "T" else rank
    text = rank + (SUIT_SYMBOLS[card.suit] if symbol else card.suit)
    text = text.lower() if lower else text
    assert parse_card(text) == card
    assert parse_card(str(card)) == card and str(card) == RANKS[card.rank - 1] + card.suit


def test_the_index_is_a_bijection_onto_0_to_52() -> None:
    cards = list(DECK_52) + [JOKER]
    assert sorted(c.index for c in cards) == list(range(53))
    assert all(card_at(c.index) == c for c in cards)


@pytest.mark.parametrize(("text", "shown", "rank", "suit"), [
    ("JK=7h", "JK=7h", 7, "h"), ("JK=7", "JK=7", 7, None), ("jk=10d", "JK=Td", 10, "d"),
    ("*=Q", "JK=Q", 12, None), ("JK", "JK", None, None), ("Qs", "Qs", None, None),
])
def test_a_joker_in_a_meld_may_say_what_it_stands_for(text: str, shown: str, rank: int | None,
                                                       suit: str | None) -> None:
    # docs/api.md#cards, docs/api.md#melds: JK=7h; for a set only the rank matters (JK=7); a run's
    # JK=Q means its suit
    card = parse_meld_card(text)
    assert (str(card), card.as_rank, card.as_suit) == (shown, rank, suit)


@pytest.mark.parametrize("text", ["Qs=Q", "JK=", "JK=JK", "JK=Qz", "7h=7"])
def test_only_a_joker_declares_and_only_a_card(text: str) -> None:
    with pytest.raises(InvalidCard):
        parse_meld_card(text)


def test_a_deck_is_decks_times_52_plus_jokers() -> None:
    deck = full_deck(2, 4)
    assert len(deck) == 108 and Counter(deck)[JOKER] == 4
    assert all(n == 2 for c, n in Counter(deck).items() if not c.is_joker)


def test_cards_that_could_not_come_from_one_deck_are_impossible() -> None:
    # docs/api.md#cards (impossible-cards): 2 decks + 2 jokers hold two of each card and two jokers
    check_deck([parse_card("Qs")] * 2 + [JOKER] * 2, 2, 2)
    with pytest.raises(ImpossibleCards) as err:
        check_deck([parse_card("Qs")] * 3, 2, 2)
    assert (err.value.code, err.value.count, err.value.limit) == ("impossible-cards", 3, 2)
    with pytest.raises(ImpossibleCards):
        check_deck([JOKER] * 3, 2, 2)
    with pytest.raises(ImpossibleCards):
        check_deck([JOKER], 2, 0)


def test_suits_and_ranks_are_the_contracts() -> None:
    assert (RANKS, SUITS) == ("A23456789TJQK", "cdhs")
