"""The hand referee: replay a recorded hand and rule on it (docs/api.md#the-hand-record).

A hand record (:mod:`.record`, read by :func:`.record.parse_record`) is played
on a :class:`.game.Game` through its public actions. :func:`adjudicate`
returns the first rule broken (with ``turn`` and ``play``) and the state just
before it, or, for a legal finished hand, the winner, the finish
(``out``/``special``) and the scores (docs/api.md#end-of-hand-scoring). :func:`check_turn` rules on
one turn without a record.

How a turn is judged, precisely:

* **Turn order.** Players act in the order listed, first player first; a turn
  by anyone else is ``out-of-turn``. Once a player has no cards the hand is
  over: any later play, discard or turn is ``hand-already-over``.
* **Draw.** Every turn starts with a draw (``draw-missing``). With ``stock``
  given, a stock draw takes the stock's top card (naming another card is
  ``stock-mismatch``; the card may be omitted). Without ``stock``, a stock draw
  names its card, and the card must still be unseen: the deck minus the deal,
  the discard pile and every card drawn since (``card-not-in-stock``). A draw
  from the discard pile takes its top card (``discard-pile-empty``,
  ``discard-draw-mismatch``).
* **Stock exhaustion.** When a player draws from an empty stock, the discard
  pile but its top card becomes the new stock (``stock-empty`` when the pile
  has fewer than two cards). That turn's ``restock`` field gives the new stock
  order, top first; it must hold exactly the pile under its top card
  (``restock-mismatch``). When the stock order is known (``stock`` given) the
  ``restock`` order is required, so every later draw is determined; without
  ``stock`` it is optional (the new stock is then known as a set of cards, and
  draws keep naming their card). A ``restock`` on any other turn is
  ``restock-mismatch``.
* **Plays.** Every card played must be in the player's hand at that moment
  (``card-not-in-hand``). A meld must be legal (the meld's own code, e.g.
  ``run-too-short``); builds and releases are ruled by :func:`.melds.build` and
  :func:`.melds.release` (``build-before-opening``, ``joker-not-releasable``,
  ...); a build or release on a meld that is not on the table is
  ``no-such-meld``. Table melds are numbered from 0 in the order laid.
* **Opening.** A player is *opened* once their melds reach
  ``opening_min_points`` (0: their first meld opens them). The melds a player
  lays in their opening turn are summed, and the sum is checked at the first
  moment the player does something other than ``meld`` in that turn: a build
  or a release (the fault is then at that play), the discard or the end of the
  turn (the fault has ``play: null``). Melds laid after the check are ordinary
  melds. So a player may lay several melds and only then build or release;
  a build or release before any meld is ruled by ``build_requires_opening`` /
  ``release_requires_opening`` alone.
* **Discard pickup.** A card taken from the discard pile: ``free``: no
  obligation; ``meld_same_turn``: a copy of it must be laid on the table (meld,
  build or release) that turn (``pickup-not-melded``); ``new_meld_same_turn``:
  in a new meld that turn (``pickup-not-in-new-meld``). Under every mode the
  card just taken may not be discarded the same turn (``discard-just-taken``;
  copies of one card are indistinguishable, so discarding any copy of it is the
  fault).
* **Released jokers.** A released joker goes to the player's hand. Unless
  ``released_joker`` is ``hand``, it must be laid again the same turn: in any
  meld laid or built (``any_meld``) or in a new meld (``new_meld``); a joker so
  laid after the release counts as the released one. Otherwise the turn ends
  with ``released-joker-unused``.
* **End of turn.** A turn ends with a discard (``discard-missing``) unless the
  player has no cards left. Laying one's last card on the table ends the hand
  only when ``final_discard`` is ``optional``; otherwise it is
  ``final-discard-required``. The last turn of a record may stop before its
  discard: it is a turn in progress and its end-of-turn duties are not yet
  checked.
* **Special win.** A player who goes out in the turn of their first meld, having
  laid nothing before in the hand, wins ``special`` (Kaluki, Hunt, Kalookie); the
  builds, releases and discard of that same turn still count with it (docs/api.md#special-wins;
  S1/S3 "alle kaarten … in een keer"). A player who built or released in an
  earlier turn (where ``build_requires_opening`` is false) goes ``out``, as does
  one who goes out by builds alone, with no meld of their own (no first meld).
* **Contract rule sets** (docs/api.md#contract-rule-sets; the record carries ``round``). Going down
  is the ``lay`` play, ruled by :func:`.contracts.lay`; before it a ``meld`` is
  ``contract-not-met`` and a build ``build-before-opening``; after it a
  ``meld`` or a second lay is ``contract-extra-meld`` (unless
  ``melds_after_contract``). A ``shift`` is ruled by :func:`.shift.shift`
  (``joker-not-shiftable``, down players only). A turn's ``call`` comes before
  its draw (``call-not-allowed``, ``call-no-discard``, ``call-own-turn``,
  ``call-own-discard``, ``call-after-down``, ``call-limit``, in that order; a
  refusal by a down player who may not take the discard is
  ``discard-after-down``); a granted caller takes the discard and the penalty
  cards (named like a stock draw's: the stock's next cards, ``stock-mismatch``;
  ``missing-card`` without a stock), then the draw must be from the stock, and
  after a refused call from the discard pile (``call-refused-draw``). A down
  player's discard pickup is ``discard-after-down`` and a joker discard
  ``joker-discard`` where the rule set says so. Down-and-out is the special win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from . import melds as m
from .cards import Card, check_deck
from .game import Game, IllegalPlay, Phase
from .players import player_id, player_ids
from .record import HandRecord, RecordError, Turn
from .rules import RuleSet
from .scoring import Finish, HandScore, score_hand
from .solver import HandTooLarge
from .violations import Violation

T = TypeVar("T")

# -- rulings ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandState:
    """The table as it stands: melds, every hand, stock size, discard pile, who has opened."""

    table: tuple[m.Meld, ...]
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    stock_count: int
    discard_top: Card | None
    discard_count: int
    opened: tuple[str, ...]
    turn: int  # index of the next turn (or of the turn in which the violation lies)
    next_player: str | None
    # contract rule sets (docs/api.md#contract-rule-sets): None / () in every other rule set
    round: int | None = None
    contract: str | None = None
    down: tuple[str, ...] = ()
    calls_made: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class HandResult:
    winner: str
    finish: Finish
    score: HandScore


@dataclass(frozen=True, slots=True)
class Adjudication:
    legal: bool
    violation: Violation | None
    result: HandResult | None
    state: HandState


@dataclass(frozen=True, slots=True)
class TurnCheck:
    legal: bool
    violation: Violation | None
    table: tuple[m.Meld, ...]
    hand: tuple[Card, ...]
    opened: bool
    finish: Finish | None  # when the player went out this turn

    @property
    def finished(self) -> bool:
        return self.finish is not None


# -- playing a recorded turn on the game -----------------------------------------------

_OPENING, _OVER = Phase.OPENING, Phase.OVER  # (enum members are slow to look up)


def _state(g: Game, turn: int) -> HandState:
    return HandState(
        table=g.table,
        hands=g.hands,
        stock_count=g.stock_count,
        discard_top=g.discard_top,
        discard_count=len(g.discard_pile),
        opened=g.opened,
        turn=turn,
        next_player=None if g.winner else g.players[turn % len(g.players)],
        round=g.round, contract=g.contract,
        down=g.opened if g.round is not None else (),
        calls_made=g.calls_made if g.round is not None else ())


def _play_turn(g: Game, i: int, turn: Turn, complete: bool) -> Violation | None:
    """Play recorded turn ``i`` on the game; the first rule it breaks, at ``turn``/``play``.
    A turn that is not ``complete`` (the record's last) may stop before its discard."""
    j: int | None = None
    try:
        draw = turn.draw
        if draw is None:  # the turn stops before its draw
            if turn.call is not None:
                g.call(turn.call.player, turn.call.granted, turn.call.penalty)
            v = g.verify_end_turn()
            return None if v is None else Violation(v.code, v.params, {"turn": i, "play": None})
        if turn.call is not None:
            g.call(turn.call.player, turn.call.granted, turn.call.penalty)
        g.draw(draw.source, draw.card, turn.restock)
        for j, play in enumerate(turn.plays):
            g.play(play)
            if not g.cards_left and g.phase is not _OVER:
                j = None
                if g.phase is _OPENING:
                    g.open()
                g.go_out()
        j = None
        if turn.discard is None:
            v = g.verify_end_turn() if complete else None
            return None if v is None else Violation(v.code, v.params, {"turn": i, "play": None})
        if g.phase is _OPENING:
            g.open()
        g.discard(turn.discard)
    except IllegalPlay as exc:
        v = exc.violation
        return Violation(v.code, v.params, {"turn": i, "play": j})
    return None


# -- public entry points ---------------------------------------------------------------

def adjudicate(record: HandRecord, steps: list[HandState] | None = None) -> Adjudication:
    """Replay a hand record; the first violation (with the state just before it), or
    the ruling on a legal record (with the result when the hand is finished).

    ``steps``, when given, receives the state after the deal and after each turn
    ruled legal; for an illegal record, last, the state just before the violation
    (the adjudication's own ``state``).
    """
    rules = record.rules
    g = Game(rules, record.players, record.deal, record.stock, record.discard,
             round=record.round)
    if steps is not None:
        steps.append(_state(g, 0))
    last = len(record.turns) - 1
    for i, turn in enumerate(record.turns):
        v = g.verify_actor(turn.player)
        if v is not None:
            violation: Violation | None = Violation(v.code, v.params, {"turn": i, "play": None})
        else:
            violation = _play_turn(g, i, turn, i < last)
        if violation is not None:
            state = _state(g, i)
            if steps is not None:
                steps.append(state)
            return Adjudication(False, violation, None, state)
        if steps is not None:
            steps.append(_state(g, i + 1))
    result = None
    if g.winner is not None:
        assert g.finish is not None
        score = score_hand(rules, g.winner, g.finish, [(p, g.hand(p)) for p in record.players])
        result = HandResult(g.winner, g.finish, score)
    return Adjudication(True, None, result, _state(g, len(record.turns)))


def finished_result(a: Adjudication) -> HandResult:
    """The result of a legal record that a match ledger may take: a record appended to a
    match must be legal and finished, so one whose hand is still being played (nobody has
    gone out) is a :class:`RecordError` ``hand-not-finished``."""
    if a.result is None:
        where = f"turns.{a.state.turn - 1}" if a.state.turn else "turns"
        raise RecordError("hand-not-finished", "the hand is not finished: no player has gone out, "
                          "and a match takes only finished hands", where)
    return a.result


def check_turn(rules: RuleSet, table: Sequence[m.Meld], hand: Sequence[Card], opened: bool,
               discard_top: Card | None, turn: Turn, laid_before: bool = False, *,
               round: int | None = None, players: Sequence[str] | None = None,
               down: Sequence[str] = (), calls_made: Mapping[str, int] | None = None
               ) -> TurnCheck:
    """Rule on one complete turn without a record: ``hand`` is the player's hand before
    the draw, ``opened`` whether they have opened (laid their first melds) before,
    ``laid_before`` whether they built or released in an earlier turn of this hand
    without opening (then going out is ``out``, not special: docs/api.md#special-wins); an opened
    player has laid before by definition.
    A stock draw must name its card, which must not exceed the deck's copies.

    In a contract rule set (docs/api.md#contract-rule-sets) ``round`` is required; ``players`` are
    the seats in turn order starting with the player whose turn it is (so the last seat
    discarded ``discard_top``), ``down`` the other players who have gone down and
    ``calls_made`` each player's granted calls this deal. Without ``players`` no call
    is possible."""
    g, player = _turn_setup(rules, table, hand, opened, discard_top, turn.player or None,
                            laid_before, round, players, down, calls_made)
    turn = Turn(player, turn.draw, turn.plays, turn.discard, turn.restock, turn.call)
    seats = g.players
    v = g.verify_actor(player)
    violation = (Violation(v.code, v.params, {"turn": 0, "play": None}) if v is not None
                 else _in_body_turn(lambda: _play_turn(g, 0, turn, complete=True)))
    me = seats[0] if player not in g.players else player
    return TurnCheck(violation is None, violation, g.table, g.hand(me), me in g.opened,
                     g.finish if violation is None else None)


def _turn_setup(rules: RuleSet, table: Sequence[m.Meld], hand: Sequence[Card], opened: bool,
                discard_top: Card | None, player: str | None, laid_before: bool,
                round: int | None, players: Sequence[str] | None, down: Sequence[str],
                calls_made: Mapping[str, int] | None) -> tuple[Game, str]:
    """The stateless game of :func:`check_turn` and :func:`turn_game`, every argument
    checked the one way (``round-required``/``invalid-round``, player ids,
    ``unknown-player``, a contract hand's cap, the deck), and the player whose turn it
    is (``player``, else the first seat, else ``"player"``)."""
    round = rules.check_round(round)  # round-required / invalid-round
    seats = player_ids(players, "players") if players else []
    down = [player_id(p, f"down.{i}") for i, p in enumerate(down)]
    calls_made = {player_id(p, f"calls_made.{p}"): n for p, n in (calls_made or {}).items()}
    player = player or (seats[0] if seats else "player")
    if not seats:
        seats = [player]
    for where, names in (("down", down), ("calls_made", calls_made)):
        for name in names:
            if name not in seats:
                raise RecordError("unknown-player", f"{where}: {name!r} is not one of players",
                                  f"{where}.{name}")
    if round is not None and len(hand) + 1 > rules.hand_cap(round):
        raise HandTooLarge(rules, len(hand) + 1, "hand", rules.hand_cap(round))
    decks, jokers = rules.deck_for(len(players) if players else None)
    check_deck([c for meld in table for c in meld.physical()] + list(hand)
               + ([discard_top] if discard_top else []), decks, jokers)
    hands: list[Sequence[Card]] = [hand if p == seats[0] else () for p in seats]
    opened_now = [seats[0]] if opened else []
    g = Game(rules, seats, hands, None, [discard_top] if discard_top else [],
             table, [*opened_now, *(p for p in down if p != seats[0])],
             [seats[0]] if laid_before else [], round=round, calls_made=calls_made,
             discarded_by=seats[-1] if len(seats) > 1 and discard_top else None,
             deck=(decks, jokers))
    return g, player


def turn_game(rules: RuleSet, table: Sequence[m.Meld], hand: Sequence[Card], opened: bool,
              discard_top: Card | None, player: str | None = None, laid_before: bool = False,
              *, round: int | None = None, players: Sequence[str] | None = None,
              down: Sequence[str] = (), calls_made: Mapping[str, int] | None = None) -> Game:
    """The game :func:`check_turn` plays a turn on, from the same arguments checked the
    same way (``round``, ``players``, ``down``, ``calls_made`` for contract rule sets):
    the start of ``/turns/options`` (:func:`play_turn_so_far`). ``player`` defaults to
    the first of ``players``, else ``"player"``."""
    return _turn_setup(rules, table, hand, opened, discard_top, player, laid_before, round,
                       players, down, calls_made)[0]


def play_turn_so_far(g: Game, turn: Turn) -> Violation | None:
    """Play a turn that may be unfinished (no draw yet, some plays, no discard) on ``g``:
    the first rule it breaks so far (with ``turn`` 0 and ``play``), as :func:`check_turn`
    rules on the plays it has; a turn that has not drawn yet has broken nothing but a
    turn by another player than the one to move (``out-of-turn``) or a call the rules
    refuse (contract rule sets: a call may stand before the draw)."""
    v = g.verify_actor(turn.player) if turn.player else None
    if v is not None:
        return Violation(v.code, v.params, {"turn": 0, "play": None})
    if turn.draw is None and not turn.plays and turn.discard is None and turn.restock is None:
        call = turn.call
        if call is None:
            return None
        try:
            _in_body_turn(lambda: g.call(call.player, call.granted, call.penalty))
        except IllegalPlay as exc:
            return Violation(exc.violation.code, exc.violation.params, {"turn": 0, "play": None})
        return None
    return _in_body_turn(lambda: _play_turn(g, 0, turn, complete=False))


def _in_body_turn(fn: Callable[[], T]) -> T:
    """Run ``fn`` on a request body's one turn: a :class:`.record.RecordError` it raises is
    located in ``turn.…`` (the body's field), not a record's ``turns.0.…``."""
    try:
        return fn()
    except RecordError as exc:
        if not exc.field.startswith("turns.0."):
            raise
        raise RecordError(exc.code, str(exc), "turn." + exc.field[len("turns.0."):]) from None


__all__ = ["Adjudication", "HandResult", "HandState", "TurnCheck", "adjudicate", "check_turn",
           "finished_result", "play_turn_so_far", "turn_game"]
