"""Melds on the table and the cards a request draws from one deck (service.engine.melds)."""

from __future__ import annotations

import pytest

from service.engine import melds as m
from service.engine.cards import ImpossibleCards, check_deck, parse_cards
from service.engine.rules import CATALOG

HUNT = CATALOG["kaluki-hunt"]


def test_a_table_meld_is_read_as_validate_reads_it() -> None:
    assert m.table_meld(["Jd", "JK", "Kd"], HUNT) == m.validate(["Jd", "JK", "Kd"], HUNT).meld
    assert isinstance(m.table_meld(["7c", "7d", "JK"], HUNT), m.SetMeld)


def test_a_table_meld_must_be_legal() -> None:
    """docs/api.md#checking-one-turn (build, release, a turn's table): a meld said to lie on the
    table that breaks a rule is refused with that rule (invalid-meld), not ruled on."""
    with pytest.raises(m.InvalidMeld) as e:
        m.table_meld(["7c", "8d", "9h"], HUNT)
    assert (e.value.code, e.value.violation.code) == ("invalid-meld", "not-a-meld")
    assert str(e.value) == "the table meld is not legal: " + e.value.violation.message()


def test_a_table_meld_comes_from_one_deck() -> None:
    with pytest.raises(ImpossibleCards) as e:
        m.table_meld(["7c", "7c", "7c"], CATALOG["kaluki-uk"].with_overrides(
            {"set_distinct_suits": False, "decks": 2}))
    assert e.value.code == "impossible-cards" and e.value.count == 3


def test_which_cards_come_from_one_deck_per_request() -> None:
    """A build and a release check the table meld's cards with the cards played on it; an
    opening checks all its melds together; a meld alone checks its own cards."""
    meld = m.table_meld(["5h", "6h", "7h"], HUNT)
    five, seven = parse_cards(["5h"]), parse_cards(["7h"])
    tokens = m.as_tokens(five + seven)
    with pytest.raises(ImpossibleCards):  # 5h 6h 7h and 5h 7h: fine; once more 5h is three
        check_deck(m.build_deck(meld, tokens + m.as_tokens(five)), HUNT.decks, HUNT.jokers)
    check_deck(m.build_deck(meld, tokens), HUNT.decks, HUNT.jokers)
    assert m.release_deck(meld, five) == parse_cards(["5h", "6h", "7h", "5h"])
    assert m.opening_deck([tokens, m.as_tokens(five)]) == parse_cards(["5h", "7h", "5h"])
    assert m.validate_deck(tokens) == five + seven
