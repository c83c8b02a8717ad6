"""The game: one hand of Kaluki as a state that takes actions (docs/api.md#the-hand-record).

A :class:`Game` is built from a rule set, the players (in turn order), their
dealt hands and, optionally, the stock (top first) and the discard pile (top
last). Every action the rules know has three methods, the way pokerkit's
``State`` has them:

* ``verify_meld(...)`` answers the first rule the action would break, as a
  :class:`~.violations.Violation` (the code and parameters the referee
  reports), or None;
* ``can_meld(...)`` is the same question as a bool;
* ``meld(...)`` does it: it raises :class:`IllegalPlay` (carrying the
  violation) and changes nothing when the action is illegal, else applies it,
  appends an :class:`Operation` to :attr:`Game.operations` and returns it.

The actions are :meth:`~Game.restock`, :meth:`~Game.draw`,
:meth:`~Game.meld`, :meth:`~Game.build`, :meth:`~Game.release`,
:meth:`~Game.open` (the opening melds are counted), :meth:`~Game.go_out` and
:meth:`~Game.discard`; in a contract rule set (docs/api.md#contract-rule-sets) also
:meth:`~Game.call` (before the draw), :meth:`~Game.lay` (going down: the
round's contract, which replaces the opening) and :meth:`~Game.shift` (a run's
joker moved to its end). :meth:`Game.replay` rebuilds the same state from an
operations log. An action that does not exist in the current :class:`Phase`
and breaks no rule of its own (a second draw, going out with cards in hand) is
an :class:`ActionError`, not a ruling.

The turn, phase by phase (:attr:`Game.phase`, like OpenSpiel's gin rummy):

* ``DRAW``: the player to move draws from the stock or the discard pile. A
  stock draw from an empty stock first turns the discard pile but its top card
  over into a new stock (:meth:`~Game.restock`, its own operation).
* ``PLAY``: melds, builds and releases; the turn ends with a discard.
* ``OPENING``: the player, not yet opened, has laid melds this turn; they are
  counted against ``opening_min_points`` at the first action that is not a
  meld (:meth:`~Game.open`, done by that action when not called first).
* ``OUT``: the player has laid their last card; :meth:`~Game.go_out` checks
  the turn's duties (pickup, released jokers) and ends the hand.
* ``OVER``: a player has no cards left; every action is ``hand-already-over``.

>>> from service.engine.cards import parse_cards
>>> from service.engine.melds import as_tokens
>>> from service.engine.rules import CATALOG
>>> game = Game(CATALOG["kaluki-hunt"], ["ann", "bob"],
...             [parse_cards("Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h".split()),
...              parse_cards("2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac".split())])
>>> game.phase, game.actor
(<Phase.DRAW: 'draw'>, 'ann')
>>> game.verify_discard(Card.parse("8h")).code
'draw-missing'
>>> op = game.draw("stock", Card.parse("Qc"))
>>> type(op).__name__, op.player, str(op.card)
('Drawing', 'ann', 'Qc')
>>> game.can_meld(as_tokens(["Kh", "Ks", "Qc"]))
False
>>> game.verify_meld(as_tokens(["Kh", "Ks", "Qc"])).message()
'These cards are neither a set (one rank) nor a run (one suit in sequence).'
>>> op = game.meld(as_tokens(["Kh", "Ks", "Kd"]))
>>> game.phase, str(game.table[0])
(<Phase.OPENING: 'opening'>, 'Kh Ks Kd')
>>> op = game.discard(Card.parse("8h"))
>>> game.phase, game.actor, game.opened, str(game.discard_top)
(<Phase.DRAW: 'draw'>, 'bob', ('ann',), '8h')
>>> [type(op).__name__ for op in game.operations]
['Drawing', 'Melding', 'Discarding']
>>> again = Game.replay(CATALOG["kaluki-hunt"], ["ann", "bob"],
...                     [parse_cards("Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h".split()),
...                      parse_cards("2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac".split())],
...                     operations=game.operations)
>>> again.state == game.state
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum, unique

from . import contracts
from . import melds as m
from .cards import JOKER, Card, MeldCard, card_at, full_deck
from .errors import EngineError
from .record import (
    DISCARD,
    STOCK,
    BuildPlay,
    LayPlay,
    MeldPlay,
    Play,
    RecordError,
    ReleasePlay,
)
from .rules import FinalDiscardMode, JokerShiftMode, PickupMode, ReleasedJokerMode, RuleSet
from .scoring import Finish
from .shift import not_shiftable
from .shift import shift as shift_joker
from .violations import Violation

# the modes the turn rules test, looked up once (an enum member lookup costs on Python 3.11)
_FINAL_DISCARD = FinalDiscardMode.REQUIRED
_ANY_MELD, _NEW_MELD, _TO_HAND = (ReleasedJokerMode.ANY_MELD, ReleasedJokerMode.NEW_MELD,
                                  ReleasedJokerMode.HAND)
_MELD_SAME_TURN, _NEW_MELD_SAME_TURN = PickupMode.MELD_SAME_TURN, PickupMode.NEW_MELD_SAME_TURN
_RUN_END = JokerShiftMode.RUN_END

__all__ = ["ActionError", "Building", "Calling", "Discarding", "Drawing", "Game", "GameState",
           "GoingOut", "IllegalPlay", "Laying", "Melding", "Opening", "Operation", "Phase",
           "Releasing", "Restocking", "Shifting"]


@unique
class Phase(StrEnum):
    """Where the turn stands: what the player to move may do next."""

    DRAW = "draw"
    """The turn starts: restock (when the stock is empty) and draw."""
    OPENING = "opening"
    """Melds laid this turn toward the player's opening, not yet counted."""
    PLAY = "play"
    """Meld, build, release; the turn ends with a discard."""
    OUT = "out"
    """The player has laid their last card: the turn's duties, then out."""
    OVER = "over"
    """A player has gone out: the hand is over."""


# enum members are slow to look up (3.11): the hot paths use these
_DRAW, _OPENING, _PLAY, _OUT, _OVER = Phase.DRAW, Phase.OPENING, Phase.PLAY, Phase.OUT, Phase.OVER


class IllegalPlay(EngineError):
    """An action that breaks a rule; :attr:`violation` says which (the game is unchanged)."""

    code = "illegal-play"

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message(), params=violation.params)
        self.violation = violation


class ActionError(EngineError):
    """An action that does not exist in the game's phase (a second draw, going out with
    cards in hand, counting an opening with no opening melds laid)."""

    code = "invalid-action"


# -- operations ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Operation:
    """One thing done to the game, by ``player``; :meth:`Game.apply` does it again."""

    player: str


@dataclass(frozen=True, slots=True)
class Restocking(Operation):
    cards: tuple[Card, ...] | None  # the new stock, top first (None: its order is not known)


@dataclass(frozen=True, slots=True)
class Drawing(Operation):
    source: str  # "stock" | "discard"
    card: Card  # the card drawn


@dataclass(frozen=True, slots=True)
class Melding(Operation):
    cards: tuple[MeldCard, ...]
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class Building(Operation):
    meld: int
    cards: tuple[m.Placed, ...]


@dataclass(frozen=True, slots=True)
class Releasing(Operation):
    meld: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Laying(Operation):
    """Going down (contract rule sets): the round's contract as one play."""

    melds: tuple[tuple[tuple[MeldCard, ...], str | None], ...]  # (cards, kind) per meld


@dataclass(frozen=True, slots=True)
class Shifting(Operation):
    """A joker shift: ``card`` takes the joker's place in ``meld``, the joker moves to ``end``."""

    meld: int
    card: Card
    end: str | None = None


@dataclass(frozen=True, slots=True)
class Calling(Operation):
    """A call at the start of ``player``'s turn: ``caller`` asks for the discard; granted,
    they take it and ``penalty`` from the stock."""

    caller: str
    granted: bool
    penalty: tuple[Card, ...] | None = None  # the penalty cards taken (None: refused)


@dataclass(frozen=True, slots=True)
class Opening(Operation):
    points: int  # what the opening melds counted


@dataclass(frozen=True, slots=True)
class GoingOut(Operation):
    finish: Finish


@dataclass(frozen=True, slots=True)
class Discarding(Operation):
    card: Card


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything a game holds, as one comparable value (:attr:`Game.state`)."""

    phase: Phase
    turn: int
    actor: str | None
    table: tuple[m.Meld, ...]
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    stock: tuple[Card, ...] | None  # top first, when its order is known
    unseen: tuple[Card, ...] | None  # the stock's cards, when only they are known
    discard: tuple[Card, ...]  # top last
    opened: tuple[str, ...]
    laid: tuple[str, ...]  # players who laid cards on the table in an earlier turn
    winner: str | None
    finish: Finish | None
    taken: Card | None  # the card taken from the discard pile this turn
    opening_points: int
    jokers_pending: int
    round: int | None = None  # a contract rule set's deal (docs/api.md#contract-rule-sets)
    calls_made: tuple[tuple[str, int], ...] = ()  # granted calls this deal, in seat order
    called: bool | None = None  # this turn's call: granted, refused, None (none)


# -- the game --------------------------------------------------------------------------

class _Cards:
    """A multiset of cards as 53 counts by :attr:`Card.index` (fast: no hashing)."""

    __slots__ = ("n", "size")

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self.n = [0] * 53
        self.size = 0
        for c in cards:
            self.n[c.index] += 1
            self.size += 1

    def count(self, card: Card) -> int:
        return self.n[card.index]

    def add(self, card: Card, k: int = 1) -> None:
        self.n[card.index] += k
        self.size += k

    def take(self, card: Card) -> None:
        self.n[card.index] -= 1
        self.size -= 1

    def cards(self) -> tuple[Card, ...]:
        return tuple(sorted(card_at(i) for i, k in enumerate(self.n) for _ in range(k)))


def _v(code: str, **params: object) -> Violation:
    return Violation(code, params)


class Game:
    """One hand being played (see the module docstring).

    ``table``, ``opened`` and ``laid_before`` start a game in the middle of a hand:
    the melds already on the table, the players who have opened, and those who
    built or released in an earlier turn without opening (then going out is
    ``out``, not special: docs/api.md#special-wins).

    In a contract rule set (docs/api.md#contract-rule-sets) ``round`` (1-based) picks the contract;
    *opened* means *down* (the contract laid). ``calls_made`` gives each player's
    granted calls so far this deal, ``discarded_by`` who discarded the discard
    pile's top card (None: nobody, the pile's first card), ``deck`` the
    ``(decks, jokers)`` the hand is played with (default: the rule set's deck for
    this many seats).
    """

    def __init__(self, rules: RuleSet, players: Sequence[str], hands: Sequence[Sequence[Card]],
                 stock: Sequence[Card] | None = None, discard: Sequence[Card] = (),
                 table: Sequence[m.Meld] = (), opened: Sequence[str] = (),
                 laid_before: Sequence[str] = (), *, round: int | None = None,
                 calls_made: Mapping[str, int] | None = None, discarded_by: str | None = None,
                 deck: tuple[int, int] | None = None) -> None:
        self.rules = rules
        self._round = rules.check_round(round)
        self._contract = rules.contract(self._round) if self._round is not None else None
        self._calls: dict[str, int] = {p: 0 for p in players}
        if calls_made:
            self._calls.update(calls_made)
        self._players = tuple(players)
        self._hands: dict[str, _Cards] = {p: _Cards(h) for p, h in zip(players, hands, strict=True)}
        self._table: list[m.Meld] = list(table)
        self._pile: list[Card] = list(discard)
        # who discarded each card of the pile (None: nobody; the pile's first cards)
        self._pile_by: list[str | None] = [None] * len(self._pile)
        if self._pile_by:
            self._pile_by[-1] = discarded_by
        self._opened: set[str] = set(opened)
        self._melded: set[str] = set(opened)  # players who laid a meld of their own
        self._laid: set[str] = {*opened, *laid_before}  # laid cards on the table before this turn
        self._stock_known = stock is not None
        self._stock_list: list[Card] = list(reversed(stock)) if stock is not None else []
        self._stock_pool = _Cards()
        if stock is None:
            decks, jokers = deck if deck is not None else rules.deck_for(len(self._players))
            self._stock_pool = _Cards(full_deck(decks, jokers))
            for c in [*(c for h in hands for c in h), *self._pile,
                      *(c for meld in self._table for c in meld.physical())]:
                self._stock_pool.take(c)
        self._winner: str | None = None
        self._finish: Finish | None = None
        self._turn = 0
        self.operations: list[Operation] = []
        """Every action done, in order: :meth:`replay` takes them."""
        self._begin_turn()

    def _begin_turn(self) -> None:
        p = self._players[self._turn % len(self._players)]
        self._actor = p
        self._hand = self._hands[p]
        self._phase = _DRAW
        # a special win needs nothing laid before (docs/api.md#special-wins)
        self._fresh = p not in self._laid
        self._opening_points = 0
        self._taken: Card | None = None
        self._pickup_laid = False
        self._pickup_in_new = False
        self._jokers_pending = 0
        self._called: bool | None = None  # this turn's call: granted, refused or none

    @classmethod
    def replay(cls, rules: RuleSet, players: Sequence[str], hands: Sequence[Sequence[Card]],
               stock: Sequence[Card] | None = None, discard: Sequence[Card] = (),
               operations: Iterable[Operation] = (), *, table: Sequence[m.Meld] = (),
               opened: Sequence[str] = (), laid_before: Sequence[str] = (),
               round: int | None = None, calls_made: Mapping[str, int] | None = None,
               discarded_by: str | None = None, deck: tuple[int, int] | None = None) -> Game:
        """The game built as :class:`Game` is, with ``operations`` applied in order."""
        game = cls(rules, players, hands, stock, discard, table, opened, laid_before,
                   round=round, calls_made=calls_made, discarded_by=discarded_by, deck=deck)
        for op in operations:
            game.apply(op)
        return game

    def copy(self) -> Game:
        """An independent game in the same state (its operations log copied too): what
        :mod:`.options` tries a play on without changing this one. Every list, set, dict
        and card multiset the game holds is copied (their items are immutable)."""
        def dup(v: object) -> object:
            if isinstance(v, _Cards):
                c = _Cards()
                c.n, c.size = list(v.n), v.size
                return c
            if isinstance(v, dict):
                return {k: dup(x) for k, x in v.items()}
            if isinstance(v, (list, set)):
                return type(v)(v)
            return v

        other = object.__new__(Game)
        other.__dict__.update({k: dup(v) for k, v in self.__dict__.items()})
        other._hand = other._hands[self._actor]
        return other

    def apply(self, op: Operation) -> Operation:
        """Do an operation again (by its player, who must be the one to move)."""
        v = self.verify_actor(op.player)
        if v is not None:
            raise IllegalPlay(v)
        if isinstance(op, Drawing):
            return self.draw(op.source, op.card)
        if isinstance(op, Restocking):
            return self.restock(op.cards)
        if isinstance(op, Melding):
            return self.meld(op.cards, op.kind)
        if isinstance(op, Building):
            return self.build(op.meld, op.cards)
        if isinstance(op, Releasing):
            return self.release(op.meld, op.cards)
        if isinstance(op, Opening):
            return self.open()
        if isinstance(op, GoingOut):
            return self.go_out()
        if isinstance(op, Discarding):
            return self.discard(op.card)
        if isinstance(op, Calling):
            return self.call(op.caller, op.granted, op.penalty)
        if isinstance(op, Laying):
            return self.lay(op.melds)
        if isinstance(op, Shifting):
            return self.shift(op.meld, op.card, op.end)
        raise ActionError(f"not an operation: {op!r}")

    # -- views ---------------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int:
        """The index of the turn being played (from 0); the winning turn once over."""
        return self._turn

    @property
    def actor(self) -> str | None:
        """Whose turn it is (None once the hand is over)."""
        return None if self._phase is _OVER else self._actor

    @property
    def cards_left(self) -> int:
        """How many cards the player whose turn it is (or was, once over) holds."""
        return self._hand.size

    def hand(self, player: str) -> tuple[Card, ...]:
        """A player's cards, sorted."""
        return self._hands[player].cards()

    @property
    def hands(self) -> tuple[tuple[str, tuple[Card, ...]], ...]:
        """Every player's cards, sorted, in seat order."""
        return tuple((p, self._hands[p].cards()) for p in self._players)

    @property
    def table(self) -> tuple[m.Meld, ...]:
        """The melds on the table, numbered from 0 in the order laid."""
        return tuple(self._table)

    @property
    def stock_count(self) -> int:
        return len(self._stock_list) if self._stock_known else self._stock_pool.size

    @property
    def stock(self) -> tuple[Card, ...] | None:
        """The stock, top first, when its order is known."""
        return tuple(reversed(self._stock_list)) if self._stock_known else None

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, top last."""
        return tuple(self._pile)

    @property
    def discard_top(self) -> Card | None:
        return self._pile[-1] if self._pile else None

    @property
    def opened(self) -> tuple[str, ...]:
        """The players who have opened, in seat order."""
        return tuple(p for p in self._players if p in self._opened)

    @property
    def winner(self) -> str | None:
        return self._winner

    @property
    def round(self) -> int | None:
        """A contract rule set's deal (1-based); None in other rule sets."""
        return self._round

    @property
    def contract(self) -> str | None:
        """The round's contract as published (``"3344"``); None in other rule sets."""
        return self.rules.contract_text(self._round) if self._round is not None else None

    @property
    def calls_made(self) -> tuple[tuple[str, int], ...]:
        """Each player's granted calls this deal, in seat order."""
        return tuple((p, self._calls.get(p, 0)) for p in self._players)

    @property
    def called(self) -> bool | None:
        """This turn's call: True granted, False refused, None no call (yet)."""
        return self._called

    @property
    def finish(self) -> Finish | None:
        """How the winner went out: ``out`` or ``special``."""
        return self._finish

    @property
    def state(self) -> GameState:
        """The whole state as one value (two games with equal states play on alike)."""
        return GameState(
            phase=self._phase, turn=self._turn, actor=self.actor, table=self.table,
            hands=self.hands, stock=self.stock,
            unseen=None if self._stock_known else self._stock_pool.cards(),
            discard=self.discard_pile, opened=self.opened,
            laid=tuple(p for p in self._players if p in self._laid),
            winner=self._winner, finish=self._finish, taken=self._taken,
            opening_points=self._opening_points, jokers_pending=self._jokers_pending,
            round=self._round, calls_made=self.calls_made if self._round is not None else (),
            called=self._called)

    # -- whose turn ----------------------------------------------------------------------
    def verify_actor(self, player: str) -> Violation | None:
        """May ``player`` act now: the hand is not over and it is their turn."""
        if self._phase is _OVER:
            return _v("hand-already-over", winner=self._winner)
        if player != self._actor:
            return _v("out-of-turn", player=player, expected=self._actor)
        return None

    def can_act(self, player: str) -> bool:
        return self.verify_actor(player) is None

    def verify_end_turn(self) -> Violation | None:
        """May the turn stop here: only once the hand is over (a turn starts with a draw,
        ends with a discard, or with going out)."""
        phase = self._phase
        if phase is _OVER:
            return None
        if phase is _DRAW:
            return _v("draw-missing")
        if phase is _OUT:
            return self.verify_go_out()
        return _v("discard-missing")

    def can_end_turn(self) -> bool:
        return self.verify_end_turn() is None

    # -- common checks -------------------------------------------------------------------
    def _draw_phase(self) -> Violation | None:
        if self._phase is _DRAW:
            return None
        if self._phase is _OVER:
            return _v("hand-already-over", winner=self._winner)
        raise ActionError(f"{self._actor} has drawn this turn", field="draw")

    def _play_phase(self) -> Violation | None:
        phase = self._phase
        if phase is _OVER:
            return _v("hand-already-over", winner=self._winner)
        if phase is _DRAW:
            return _v("draw-missing")
        if phase is _OPENING:
            threshold = self.rules.opening_min_points
            if self._opening_points < threshold:
                return _v("opening-below-threshold", points=self._opening_points,
                          threshold=threshold)
        return None

    def _need(self, cards: Sequence[Card]) -> Violation | None:
        n = self._hand.n
        if len(cards) == 1:
            if n[cards[0].index] < 1:
                return _v("card-not-in-hand", card=str(cards[0]), player=self._actor)
            return None
        wanted: dict[int, int] = {}
        for c in cards:
            i = c.index
            wanted[i] = wanted.get(i, 0) + 1
            if n[i] < wanted[i]:
                return _v("card-not-in-hand", card=str(c), player=self._actor)
        return None

    def _not_down(self, cards: Sequence[MeldCard], kind: str | None) -> Violation:
        """A meld of a player not yet down: the contract is not met
        (docs/api.md#contract-rule-sets), naming what the meld makes against what the contract
        needs."""
        assert self._round is not None
        read = m.validate(cards, self.rules, kind).meld
        threes, fours = contracts.counts([read] if read is not None else [])
        return contracts.contract_not_met(self.rules, self._round, threes, fours)

    def _lay_ruling(self, melds: Sequence[tuple[Sequence[MeldCard], str | None]]
                    ) -> tuple[Violation | None, list[m.Meld]]:
        """The lay against the round's contract: the rules' one lay ruling (engine/contracts)."""
        assert self._round is not None
        ruling = contracts.lay([cards for cards, _ in melds], self.rules, self._round,
                               [kind for _, kind in melds])
        if not ruling.valid:
            first = ruling.violations[0]
            return Violation(first.code, first.params), []
        return None, [x for x in ruling.melds if x is not None]

    def _take_out(self, cards: Sequence[Card]) -> None:
        n = self._hand.n
        for c in cards:
            n[c.index] -= 1
        self._hand.size -= len(cards)

    def _last_card(self, cards: Sequence[Card]) -> Violation | None:
        """Laying one's last card on the table ends the hand only when final_discard is optional."""
        if self.rules.final_discard == _FINAL_DISCARD and len(cards) == self._hand.size:
            return _v("final-discard-required")
        return None

    def _laid_cards(self, cards: Sequence[Card], new: bool) -> None:
        self._laid.add(self._actor)
        taken = self._taken
        if taken is not None and taken in cards:
            self._pickup_laid = True
            self._pickup_in_new = self._pickup_in_new or new
        if self._jokers_pending:
            mode = self.rules.released_joker
            if mode == _ANY_MELD or (mode == _NEW_MELD and new):
                jokers = sum(1 for c in cards if c.is_joker)
                self._jokers_pending = max(0, self._jokers_pending - jokers)

    def _count_opening(self) -> None:
        if self._phase is _OPENING:
            self._opened.add(self._actor)
            self._phase = _PLAY

    def _after_play(self) -> None:
        if self._phase is not _OPENING:
            self._phase = _PLAY if self._hand.size else _OUT

    def _duties(self) -> Violation | None:
        """The turn's duties, checked when it ends: the card taken, the jokers released."""
        taken = self._taken
        if taken is not None:
            mode = self.rules.discard_pickup
            if mode == _MELD_SAME_TURN and not self._pickup_laid:
                return _v("pickup-not-melded", card=str(taken))
            if mode == _NEW_MELD_SAME_TURN and not self._pickup_in_new:
                return _v("pickup-not-in-new-meld", card=str(taken))
        if self._jokers_pending:
            return _v("released-joker-unused", count=self._jokers_pending,
                      must_use=self.rules.released_joker)
        return None

    # -- restock -------------------------------------------------------------------------
    def verify_restock(self, cards: Sequence[Card] | None = None) -> Violation | None:
        """May the discard pile but its top card become the stock, in the order ``cards``
        (top first; None when the stock's order is not known)."""
        v = self._draw_phase()
        if v is not None:
            return v
        if self.stock_count:
            return _v("restock-mismatch", reason="the stock is not empty")
        return self._verify_restock(cards)

    def _verify_restock(self, cards: Sequence[Card] | None) -> Violation | None:
        if len(self._pile) < 2:
            return _v("stock-empty")
        if cards is not None:
            if Counter(cards) != Counter(self._pile[:-1]):
                return _v("restock-mismatch",
                          reason="the new stock must be the discard pile under its top card")
        elif self._stock_known:
            return _v("restock-mismatch", reason="give the new stock order (restock)")
        return None

    def can_restock(self, cards: Sequence[Card] | None = None) -> bool:
        try:
            return self.verify_restock(cards) is None
        except EngineError:
            return False

    def restock(self, cards: Sequence[Card] | None = None) -> Restocking:
        v = self.verify_restock(cards)
        if v is not None:
            raise IllegalPlay(v)
        top, rest = self._pile[-1], self._pile[:-1]
        if cards is not None:
            cards = tuple(cards)
            self._stock_known = True
            self._stock_list = list(reversed(cards))
            self._stock_pool = _Cards()
        else:
            self._stock_pool = _Cards(rest)
        self._pile = [top]
        self._pile_by = self._pile_by[-1:]
        op = Restocking(self._actor, cards)
        self.operations.append(op)
        return op

    # -- draw ----------------------------------------------------------------------------
    def verify_draw(self, source: str, card: Card | None = None,
                    restock: Sequence[Card] | None = None) -> Violation | None:
        """May the player draw from ``source`` (``stock``/``discard``); ``card`` names the
        card (it may be left out but for a stock whose order is not known); ``restock``
        is the new stock's order when the stock is empty (see :meth:`restock`)."""
        if self._phase is not _DRAW:
            return self._draw_phase()
        called = self._called
        if called is not None and (source == DISCARD) is called:
            return _v("call-refused-draw", must="stock" if called else "discard pile",
                      player=self._actor)
        if source == DISCARD:
            if (not self.rules.discard_after_down and self._actor in self._opened
                    and called is None):
                return _v("discard-after-down", player=self._actor)
            if restock is not None:
                return _v("restock-mismatch", reason="the stock is not empty" if self.stock_count
                          else "a restock comes with a stock draw")
            if not self._pile:
                return _v("discard-pile-empty")
            top = self._pile[-1]
            if card is not None and card is not top and card != top:
                return _v("discard-draw-mismatch", top=str(top), card=str(card))
            return None
        if source != STOCK:
            raise ActionError(f"a draw is from the stock or the discard pile, not {source!r}",
                              field="draw.from")
        if not (len(self._stock_list) if self._stock_known else self._stock_pool.size):
            v = self._verify_restock(restock)
            if v is not None:
                return v
            if restock is not None:
                return self._stock_card(card, restock[0], None)
            return self._stock_card(card, None, _Cards(self._pile[:-1]))
        if restock is not None:
            return _v("restock-mismatch", reason="the stock is not empty")
        if self._stock_known:
            top = self._stock_list[-1]
            if card is not None and card is not top and card != top:
                return self._stock_card(card, top, None)
            return None
        return self._stock_card(card, None, self._stock_pool)

    def _stock_card(self, card: Card | None, top: Card | None, pool: _Cards | None) -> Violation | None:
        if pool is None:  # the stock's order is known: ``top`` is drawn
            if card is not None and card is not top and card != top:
                return _v("stock-mismatch", top=str(top), card=str(card))
            return None
        if card is None:
            raise RecordError("missing-card", "without a known stock, a stock draw names its card",
                              f"turns.{self._turn}.draw.card")
        if pool.count(card) <= 0:
            return _v("card-not-in-stock", card=str(card))
        return None

    def can_draw(self, source: str, card: Card | None = None,
                 restock: Sequence[Card] | None = None) -> bool:
        try:
            return self.verify_draw(source, card, restock) is None
        except EngineError:
            return False

    def draw(self, source: str, card: Card | None = None,
             restock: Sequence[Card] | None = None) -> Drawing:
        """Draw; from an empty stock, :meth:`restock` first (its own operation, which
        stands even when the draw from the new stock is then illegal)."""
        if source == STOCK and self._phase is _DRAW and not (
                len(self._stock_list) if self._stock_known else self._stock_pool.size):
            self.restock(restock)
            restock = None
        v = self.verify_draw(source, card, restock)
        if v is not None:
            raise IllegalPlay(v)
        if source == DISCARD:
            drawn = self._pile.pop()
            self._pile_by.pop()
            self._taken = drawn
        elif self._stock_known:
            drawn = self._stock_list.pop()
        else:
            assert card is not None
            drawn = card
            self._stock_pool.take(card)
        self._hand.add(drawn)
        self._phase = _PLAY
        op = Drawing(self._actor, source, drawn)
        self.operations.append(op)
        return op

    # -- meld ----------------------------------------------------------------------------
    def _check_meld(self, cards: Sequence[MeldCard], kind: str | None
                    ) -> tuple[Violation | None, m.Meld | None]:
        phase = self._phase
        if phase is _OVER or phase is _DRAW:
            return self._play_phase(), None
        if self._contract is not None:
            # before going down: the lay, no meld (docs/api.md#contract-rule-sets)
            if self._actor not in self._opened:
                return self._not_down(cards, kind), None
            if not self.rules.melds_after_contract:
                return _v("contract-extra-meld", contract=self.contract), None
        naturals = [tok.card for tok in cards]
        v = self._need(naturals)
        if v is not None:
            return v, None
        ruling = m.validate(cards, self.rules, kind)
        if ruling.meld is None:
            first = ruling.violations[0]
            return Violation(first.code, first.params), None
        return self._last_card(naturals), ruling.meld

    def verify_meld(self, cards: Sequence[MeldCard], kind: str | None = None) -> Violation | None:
        """May the player lay ``cards`` as a new meld (``kind``: read as a set or a run)."""
        return self._check_meld(cards, kind)[0]

    def can_meld(self, cards: Sequence[MeldCard], kind: str | None = None) -> bool:
        return self._check_meld(cards, kind)[0] is None

    def meld(self, cards: Sequence[MeldCard], kind: str | None = None) -> Melding:
        v, meld = self._check_meld(cards, kind)
        if v is not None:
            raise IllegalPlay(v)
        assert meld is not None
        p = self._actor
        if p not in self._opened:
            self._phase = _OPENING
            self._opening_points += meld.points
        self._table.append(meld)
        self._melded.add(p)
        naturals = [tok.card for tok in cards]
        self._take_out(naturals)
        self._laid_cards(naturals, new=True)
        self._after_play()
        op = Melding(p, tuple(cards), kind)
        self.operations.append(op)
        return op

    # -- build ---------------------------------------------------------------------------
    def _check_build(self, meld: int, cards: Sequence[m.Placed]
                     ) -> tuple[Violation | None, m.Meld | None]:
        v = self._play_phase()
        if v is not None:
            return v, None
        if not 0 <= meld < len(self._table):
            return _v("no-such-meld", meld=meld), None
        if self._contract is not None and self._actor not in self._opened:
            # going down is the opening (docs/api.md#contract-rule-sets)
            return _v("build-before-opening"), None
        naturals = [pl.token.card for pl in cards]
        v = self._need(naturals)
        if v is not None:
            return v, None
        opened = self._phase is _OPENING or self._actor in self._opened
        ruling = m.build(self._table[meld], cards, self.rules, opened)
        if not ruling.valid:
            first = ruling.violations[0]
            return Violation(first.code, first.params), None
        return self._last_card(naturals), ruling.meld

    def verify_build(self, meld: int, cards: Sequence[m.Placed]) -> Violation | None:
        """May the player add ``cards`` to table meld number ``meld``."""
        return self._check_build(meld, cards)[0]

    def can_build(self, meld: int, cards: Sequence[m.Placed]) -> bool:
        return self._check_build(meld, cards)[0] is None

    def build(self, meld: int, cards: Sequence[m.Placed]) -> Building:
        v, grown = self._check_build(meld, cards)
        if v is not None:
            raise IllegalPlay(v)
        assert grown is not None
        self._count_opening()
        self._table[meld] = grown
        naturals = [pl.token.card for pl in cards]
        self._take_out(naturals)
        self._laid_cards(naturals, new=False)
        self._after_play()
        op = Building(self._actor, meld, tuple(cards))
        self.operations.append(op)
        return op

    # -- release -------------------------------------------------------------------------
    def _check_release(self, meld: int, cards: Sequence[Card]
                       ) -> tuple[Violation | None, m.ReleaseRuling | None]:
        v = self._play_phase()
        if v is not None:
            return v, None
        if not 0 <= meld < len(self._table):
            return _v("no-such-meld", meld=meld), None
        v = self._need(cards)
        if v is not None:
            return v, None
        opened = self._phase is _OPENING or self._actor in self._opened
        ruling = m.release(self._table[meld], cards, self.rules, opened)
        if not ruling.legal:
            first = ruling.violations[0]
            return Violation(first.code, first.params), None
        return None, ruling

    def verify_release(self, meld: int, cards: Sequence[Card]) -> Violation | None:
        """May the player lay ``cards`` on table meld ``meld`` to free its joker(s)."""
        return self._check_release(meld, cards)[0]

    def can_release(self, meld: int, cards: Sequence[Card]) -> bool:
        return self._check_release(meld, cards)[0] is None

    def release(self, meld: int, cards: Sequence[Card]) -> Releasing:
        """Release: the freed jokers go to the player's hand (and, unless ``released_joker``
        is ``hand``, must be laid again this turn)."""
        v, ruling = self._check_release(meld, cards)
        if v is not None:
            raise IllegalPlay(v)
        assert ruling is not None
        self._count_opening()
        self._table[meld] = ruling.meld
        self._take_out(cards)
        self._hand.add(JOKER, ruling.released)
        self._laid_cards(cards, new=False)
        if self.rules.released_joker != _TO_HAND:
            self._jokers_pending += ruling.released
        self._after_play()
        op = Releasing(self._actor, meld, tuple(cards))
        self.operations.append(op)
        return op

    # -- call (contract rule sets) -------------------------------------------------------
    def verify_call(self, caller: str, granted: bool,
                    penalty: Sequence[Card] | None = None) -> Violation | None:
        """May ``caller`` call the discard pile's top card at the start of this turn
        (docs/api.md#contract-rule-sets); ``granted`` says whether the player to move let them. A
        granted caller also takes ``call_penalty_cards`` from the stock, named in ``penalty``
        (which may be left out when the stock's order is known)."""
        phase = self._phase
        if phase is _OVER:
            return _v("hand-already-over", winner=self._winner)
        if phase is not _DRAW or self._called is not None:
            raise ActionError("a call comes once, at the start of a turn, before its draw",
                              field="call")
        rules = self.rules
        if not rules.call_max:
            return _v("call-not-allowed")
        if caller not in self._hands:
            raise RecordError("unknown-player", f"{caller!r} is not a player (a call needs the "
                              "seats: on /turns/check, players)", f"turns.{self._turn}.call.player")
        if not self._pile:
            return _v("call-no-discard")
        if caller == self._actor:
            return _v("call-own-turn", player=caller)
        if caller == self._pile_by[-1]:
            return _v("call-own-discard", player=caller, card=str(self._pile[-1]))
        if caller in self._opened:
            return _v("call-after-down", player=caller)
        if self._calls.get(caller, 0) >= rules.call_max:
            return _v("call-limit", player=caller, max=rules.call_max)
        if not granted:
            if not rules.discard_after_down and self._actor in self._opened:
                return _v("discard-after-down", player=self._actor)
            if penalty:
                raise RecordError("invalid-record", "a refused call takes no penalty cards",
                                  f"turns.{self._turn}.call.penalty")
            return None
        return self._penalty(penalty)

    def _penalty(self, penalty: Sequence[Card] | None) -> Violation | None:
        """The penalty cards of a granted call: the stock's next ``call_penalty_cards``
        (named like a stock draw's: required when the stock's order is not known)."""
        n = self.rules.call_penalty_cards
        named = tuple(penalty or ())
        where = f"turns.{self._turn}.call.penalty"
        if len(named) > n or (named and len(named) < n):
            raise RecordError("invalid-record", f"a granted call takes {n} penalty card(s) from "
                              "the stock: name all of them or, with a known stock, none", where)
        if self._stock_known:
            if len(self._stock_list) < n:
                return _v("stock-empty")
            for k, card in enumerate(named):
                top = self._stock_list[-1 - k]
                if card is not top and card != top:
                    return _v("stock-mismatch", top=str(top), card=str(card))
            return None
        if len(named) < n:
            raise RecordError("missing-card", "without a known stock, a granted call names its "
                              "penalty cards", where)
        if self._stock_pool.size < n:
            return _v("stock-empty")
        return self._need_from(self._stock_pool, named)

    @staticmethod
    def _need_from(pool: _Cards, cards: Sequence[Card]) -> Violation | None:
        wanted: Counter[int] = Counter()
        for c in cards:
            wanted[c.index] += 1
            if pool.n[c.index] < wanted[c.index]:
                return _v("card-not-in-stock", card=str(c))
        return None

    def can_call(self, caller: str, granted: bool, penalty: Sequence[Card] | None = None) -> bool:
        try:
            return self.verify_call(caller, granted, penalty) is None
        except EngineError:
            return False

    def call(self, caller: str, granted: bool, penalty: Sequence[Card] | None = None) -> Calling:
        """Granted: ``caller`` takes the discard pile's top card and the penalty cards, and
        the player to move must then draw from the stock. Refused: the player to move must
        take that card (docs/api.md#contract-rule-sets)."""
        v = self.verify_call(caller, granted, penalty)
        if v is not None:
            raise IllegalPlay(v)
        taken: tuple[Card, ...] | None = None
        if granted:
            hand = self._hands[caller]
            hand.add(self._pile.pop())
            self._pile_by.pop()
            out = []
            for k in range(self.rules.call_penalty_cards):
                if self._stock_known:
                    c = self._stock_list.pop()
                else:
                    assert penalty is not None
                    c = penalty[k]
                    self._stock_pool.take(c)
                hand.add(c)
                out.append(c)
            taken = tuple(out)
            self._calls[caller] = self._calls.get(caller, 0) + 1
        self._called = granted
        op = Calling(self._actor, caller, granted, taken)
        self.operations.append(op)
        return op

    # -- lay (going down, contract rule sets) ----------------------------------------
    def _check_lay(self, melds: Sequence[tuple[Sequence[MeldCard], str | None]]
                   ) -> tuple[Violation | None, list[m.Meld]]:
        v = self._play_phase()
        if v is not None:
            return v, []
        if self._contract is None:
            raise ActionError("a lay (going down) is a play of contract rule sets only",
                              field="lay")
        if self._actor in self._opened:
            return _v("contract-extra-meld", contract=self.contract), []
        naturals = [tok.card for cards, _ in melds for tok in cards]
        v = self._need(naturals)
        if v is not None:
            return v, []
        v, laid = self._lay_ruling(melds)
        if v is not None:
            return v, []
        return self._last_card(naturals), laid

    def verify_lay(self, melds: Sequence[tuple[Sequence[MeldCard], str | None]]) -> Violation | None:
        """May the player go down with ``melds`` (each ``(cards, kind)``): exactly the
        round's contract, once per deal (docs/api.md#contract-rule-sets)."""
        return self._check_lay(melds)[0]

    def can_lay(self, melds: Sequence[tuple[Sequence[MeldCard], str | None]]) -> bool:
        try:
            return self._check_lay(melds)[0] is None
        except EngineError:
            return False

    def lay(self, melds: Sequence[tuple[Sequence[MeldCard], str | None]]) -> Laying:
        """Go down: the melds join the table in the order listed; the player is down."""
        v, laid = self._check_lay(melds)
        if v is not None:
            raise IllegalPlay(v)
        p = self._actor
        self._table.extend(laid)
        self._opened.add(p)
        self._melded.add(p)
        naturals = [tok.card for cards, _ in melds for tok in cards]
        self._take_out(naturals)
        self._laid_cards(naturals, new=True)
        self._after_play()
        op = Laying(p, tuple((tuple(cards), kind) for cards, kind in melds))
        self.operations.append(op)
        return op

    # -- shift (joker_shift run_end) -------------------------------------------------
    def _check_shift(self, meld: int, card: Card, end: str | None
                     ) -> tuple[Violation | None, m.Meld | None]:
        v = self._play_phase()
        if v is not None:
            return v, None
        if self.rules.joker_shift != _RUN_END:
            return not_shiftable("this rule set has no joker shift (joker_shift none)"), None
        if self._actor not in self._opened:
            return not_shiftable("only a player who is down may shift a joker"), None
        v = self._need([card])
        if v is not None:
            return v, None
        if not 0 <= meld < len(self._table):
            return not_shiftable(f"there is no meld {meld} on the table"), None
        shifted = shift_joker(self._table[meld], card, end, self.rules)
        if isinstance(shifted, Violation):
            return shifted, None
        return self._last_card([card]), shifted

    def verify_shift(self, meld: int, card: Card, end: str | None = None) -> Violation | None:
        """May the player lay ``card`` in the place of the joker of run ``meld`` that stands
        for it, moving the joker to ``end`` (None: high, or low when high cannot be)."""
        return self._check_shift(meld, card, end)[0]

    def can_shift(self, meld: int, card: Card, end: str | None = None) -> bool:
        return self._check_shift(meld, card, end)[0] is None

    def shift(self, meld: int, card: Card, end: str | None = None) -> Shifting:
        v, shifted = self._check_shift(meld, card, end)
        if v is not None:
            raise IllegalPlay(v)
        assert shifted is not None
        self._table[meld] = shifted
        self._take_out([card])
        self._laid_cards([card], new=False)
        self._after_play()
        op = Shifting(self._actor, meld, card, end)
        self.operations.append(op)
        return op

    # -- opening -------------------------------------------------------------------------
    def verify_open(self) -> Violation | None:
        """May the melds laid this turn be counted as the player's opening (phase
        ``OPENING``): they reach ``opening_min_points``."""
        phase = self._phase
        if phase is _OVER or phase is _DRAW:
            return self._play_phase()
        if phase is not _OPENING:
            raise ActionError(f"{self._actor} has laid no opening melds this turn")
        return self._play_phase()

    def can_open(self) -> bool:
        try:
            return self.verify_open() is None
        except EngineError:
            return False

    def open(self) -> Opening:
        v = self.verify_open()
        if v is not None:
            raise IllegalPlay(v)
        points = self._opening_points
        self._opened.add(self._actor)
        self._phase = _PLAY
        self._after_play()
        op = Opening(self._actor, points)
        self.operations.append(op)
        return op

    # -- end of turn ---------------------------------------------------------------------
    def verify_go_out(self) -> Violation | None:
        """May the player, having laid their last card, go out: the turn's duties are met."""
        v = self._play_phase()
        if v is not None:
            return v
        if self._hand.size:
            raise ActionError(f"{self._actor} still holds cards")
        return self._duties()

    def can_go_out(self) -> bool:
        try:
            return self.verify_go_out() is None
        except EngineError:
            return False

    def play(self, play: Play) -> None:
        """Do one recorded play (a hand record's ``plays`` entry): a meld is laid toward the
        opening, which is counted at the first play that is not a meld
        (docs/api.md#rule-sets-and-overrides: ``opening_min_points``)."""
        if isinstance(play, MeldPlay):
            self.meld(play.cards, play.kind)
            return
        if self.phase is Phase.OPENING:  # the opening melds count at the first other play
            self.open()
        if isinstance(play, BuildPlay):
            self.build(play.meld, play.cards)
        elif isinstance(play, ReleasePlay):
            self.release(play.meld, play.cards)
        elif isinstance(play, LayPlay):
            self.lay([(x.cards, x.kind) for x in play.melds])
        else:
            self.shift(play.meld, play.card, play.end)

    def go_out(self) -> GoingOut:
        v = self.verify_go_out()
        if v is not None:
            raise IllegalPlay(v)
        self._count_opening()
        self._end_hand()
        assert self._finish is not None
        op = GoingOut(self._actor, self._finish)
        self.operations.append(op)
        return op

    def _end_hand(self) -> None:
        p = self._actor
        self._winner = p
        self._finish = Finish.SPECIAL if self._fresh and p in self._melded else Finish.OUT
        self._phase = _OVER

    def verify_discard(self, card: Card) -> Violation | None:
        """May the player end their turn by discarding ``card``: the turn's duties are met,
        they hold it, and it is not the card just taken from the discard pile."""
        if self._phase is not _PLAY:
            v = self._play_phase()
            if v is not None:
                return v
        if self._taken is not None or self._jokers_pending:
            v = self._duties()
            if v is not None:
                return v
        if self._hand.n[card.index] <= 0:
            return _v("card-not-in-hand", card=str(card), player=self._actor)
        if card.is_joker and not self.rules.joker_discard:
            return _v("joker-discard")
        if self._taken is not None and card == self._taken:
            return _v("discard-just-taken", card=str(card))
        return None

    def can_discard(self, card: Card) -> bool:
        return self.verify_discard(card) is None

    def discard(self, card: Card) -> Discarding:
        """Discard, ending the turn (and the hand, when it was the player's last card)."""
        v = self.verify_discard(card)
        if v is not None:
            raise IllegalPlay(v)
        if self._phase is _OPENING:
            self._count_opening()
        hand = self._hand
        hand.take(card)
        self._pile.append(card)
        self._pile_by.append(self._actor)
        op = Discarding(self._actor, card)
        self.operations.append(op)
        if not hand.size:
            self._end_hand()
        else:
            self._turn += 1
            self._begin_turn()
        return op
