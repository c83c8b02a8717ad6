"""Cards and their notation (docs/api.md#cards).

A card is written rank then suit: ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (``10`` is
accepted for ``T``), suits ``c d h s`` (``♣ ♦ ♥ ♠`` accepted), case-insensitive.
A joker is ``JK`` (``*`` accepted). Inside a meld a joker may say what it stands
for: ``JK=7h``, or for a set just the rank, ``JK=7``.

>>> parse_card("10h")
Card.parse('Th')
>>> str(parse_card("q♠"))
'Qs'
>>> str(parse_card("*"))
'JK'
>>> str(parse_meld_card("jk=7H"))
'JK=7h'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from .errors import EngineError

T = TypeVar("T")

RANKS = "A23456789TJQK"
"""Rank letters in order; a card's ``rank`` is its 1-based position (A=1, K=13)."""
SUITS = "cdhs"
"""Suit letters: clubs, diamonds, hearts, spades."""

ACE, JACK, QUEEN, KING = 1, 11, 12, 13

_SUIT_ALIASES = {"c": "c", "d": "d", "h": "h", "s": "s", "♣": "c", "♦": "d", "♥": "h", "♠": "s",
                 "♧": "c", "♢": "d", "♡": "h", "♤": "s"}
_RANK_ALIASES = {r.lower(): i + 1 for i, r in enumerate(RANKS)} | {"10": 10}
_JOKER_WORDS = {"jk", "*", "joker"}


class CardError(EngineError):
    """A card could not be read, or the cards could not come from one deck."""

    code = "invalid-card"


class InvalidCard(CardError):
    """Text that is not a card in the notation of docs/api.md#cards."""

    def __init__(self, text: object, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text!r} is not a card: {reason}", params={"text": text, "reason": reason})


class ImpossibleCards(CardError):
    """More copies of a card than the deck holds."""

    code = "impossible-cards"

    def __init__(self, card: Card, count: int, limit: int) -> None:
        self.card = card
        self.count = count
        self.limit = limit
        super().__init__(f"{count} × {card} cannot come from one deck, which holds {limit}",
                         params={"card": str(card), "count": count, "limit": limit})


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A physical card: a natural (rank 1..13, suit) or a joker (rank 0, suit "")."""

    rank: int
    suit: str
    is_joker: bool = field(init=False, compare=False, repr=False)
    text: str = field(init=False, compare=False, repr=False)
    index: int = field(init=False, compare=False, repr=False)
    """0..51 for naturals (suit-major), 52 for the joker: handy for count vectors."""

    def __post_init__(self) -> None:
        # plain slots, read on every step of meld reading and rendering (and of a replay)
        object.__setattr__(self, "is_joker", self.rank == 0)
        object.__setattr__(self, "text", "JK" if self.rank == 0 else RANKS[self.rank - 1] + self.suit)
        object.__setattr__(self, "index", 52 if self.rank == 0
                           else SUITS.index(self.suit) * 13 + self.rank - 1)

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


JOKER = Card(0, "")
DECK_52: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in range(1, 14))
_BY_INDEX: tuple[Card, ...] = DECK_52 + (JOKER,)


def card_at(index: int) -> Card:
    """The card with the given ``index`` (inverse of :attr:`Card.index`)."""
    return _BY_INDEX[index]


def _split(text: str) -> tuple[str, str]:
    t = text.strip()
    if len(t) < 2:
        raise InvalidCard(text, "too short; write a rank then a suit, like 'Qs' or '10h'")
    return t[:-1], t[-1]


_SPELLINGS: dict[str, Card] = {}  # the common spellings, filled below: a dict hit per card


def parse_rank(text: str) -> int:
    """A rank letter (or ``10``) to its number."""
    r = _RANK_ALIASES.get(text.strip().lower())
    if r is None:
        raise InvalidCard(text, "unknown rank; ranks are A 2-9 T (or 10) J Q K")
    return r


def parse_card(text: object) -> Card:
    """Read one card; raise :class:`InvalidCard` for anything else."""
    known = _SPELLINGS.get(text) if isinstance(text, str) else None
    if known is not None:
        return known
    if not isinstance(text, str):
        raise InvalidCard(text, "a card is a string like 'Qs'")
    low = text.strip().lower()
    if low in _JOKER_WORDS:
        return JOKER
    if "=" in low:
        raise InvalidCard(text, "only a joker inside a meld may say what it stands for")
    rank_text, suit_text = _split(low)
    suit = _SUIT_ALIASES.get(suit_text)
    if suit is None:
        raise InvalidCard(text, "unknown suit; suits are c d h s (or ♣ ♦ ♥ ♠)")
    rank = _RANK_ALIASES.get(rank_text)
    if rank is None:
        raise InvalidCard(text, "unknown rank; ranks are A 2-9 T (or 10) J Q K")
    return Card(rank, suit)


@dataclass(frozen=True, slots=True)
class MeldCard:
    """A card as written inside a meld: a natural, or a joker with an optional declaration.

    ``as_rank``/``as_suit`` are what a joker was declared to stand for
    (``JK=7h`` → 7, "h"; ``JK=7`` → 7, None). Naturals never carry them.
    """

    card: Card
    as_rank: int | None = None
    as_suit: str | None = None
    is_joker: bool = field(init=False, compare=False, repr=False)
    text: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        joker = self.card.rank == 0
        object.__setattr__(self, "is_joker", joker)
        object.__setattr__(self, "text", self.card.text if not joker or self.as_rank is None
                           else "JK=" + RANKS[self.as_rank - 1] + (self.as_suit or ""))

    def __str__(self) -> str:
        return self.text


def parse_meld_card(text: object) -> MeldCard:
    """Read a card as written inside a meld (``JK=7h`` allowed)."""
    known = _MELD_SPELLINGS.get(text) if isinstance(text, str) else None
    if known is not None:
        return known
    if isinstance(text, str) and "=" in text:
        head, _, tail = text.partition("=")
        if head.strip().lower() not in _JOKER_WORDS:
            raise InvalidCard(text, "only a joker may say what it stands for ('JK=7h')")
        tail = tail.strip()
        if not tail:
            raise InvalidCard(text, "say what the joker stands for, like 'JK=7h' or 'JK=7'")
        if tail.lower() in _RANK_ALIASES:
            return MeldCard(JOKER, _RANK_ALIASES[tail.lower()], None)
        stood = parse_card(tail)
        if stood.is_joker:
            raise InvalidCard(text, "a joker cannot stand for a joker")
        return MeldCard(JOKER, stood.rank, stood.suit)
    return MeldCard(parse_card(text))


for _c in _BY_INDEX:
    for _form in {str(_c), str(_c).lower(), str(_c).upper(), str(_c).replace("T", "10")}:
        _SPELLINGS[_form] = _c


_MELD_SPELLINGS: dict[str, MeldCard] = {form: MeldCard(card) for form, card in _SPELLINGS.items()}


def parse_cards(texts: Iterable[object]) -> list[Card]:
    return [parse_card(t) for t in texts]


def read_each(texts: Iterable[object], where: str, parse: Callable[[object], T]) -> list[T]:
    """Read every card of a list; a bad one raises its error located at its place
    (``where.3``), for a record's fields and a request's alike.

    >>> [str(c) for c in read_each(["Qs", "JK=7h"], "cards", parse_meld_card)]
    ['Qs', 'JK=7h']
    >>> try:
    ...     read_each(["Qs", "Qz"], "hand", parse_card)
    ... except InvalidCard as exc:
    ...     exc.field
    'hand.1'
    """
    out = []
    for i, text in enumerate(texts):
        try:
            out.append(parse(text))
        except CardError as exc:
            raise exc.at(f"{where}.{i}") from None
    return out


def format_cards(cards: Iterable[Card | MeldCard]) -> list[str]:
    return [str(c) for c in cards]


def check_deck(cards: Iterable[Card], decks: int, jokers: int) -> None:
    """Raise :class:`ImpossibleCards` if the cards cannot all come from one deck
    of ``decks`` × 52 cards plus ``jokers`` jokers (docs/api.md#cards, ``impossible-cards``)."""
    cards = list(cards)
    texts = [c.text for c in cards]  # a card's text is its identity, and hashes fast
    if min(decks, jokers) >= 1 and len(set(texts)) == len(texts):
        return  # no card twice, and every card may be there once
    for text, n in Counter(texts).items():
        limit = jokers if text == JOKER.text else decks
        if n > limit:
            raise ImpossibleCards(next(c for c in cards if c.text == text), n, limit)


def full_deck(decks: int, jokers: int) -> list[Card]:
    """Every card of the deck, in a fixed order."""
    return [c for _ in range(decks) for c in DECK_52] + [JOKER] * jokers
