"""The hand referee: replay a recorded hand and rule on it (SPEC §5, hand record).

A *hand record* names a rule set, the players (in turn order), the deal and,
optionally, the stock (top first) and the starting discard pile (top last),
then one entry per turn: who plays, the draw, the plays (``meld``, ``build``,
``release``) and the discard. :func:`parse_record` reads the JSON form
(raising :class:`RecordError` for a record that is not well formed: a 422),
:func:`adjudicate` replays it and returns the first rule broken (with ``turn``
and ``play``) and the state just before it, or, for a legal finished hand, the
winner, the finish (``out``/``special``) and the scores (SPEC §6).
:func:`check_turn` rules on one turn without a record.

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
  builds, releases and discard of that same turn still count with it (SPEC §3;
  S1/S3 "alle kaarten … in een keer"). A player who built or released in an
  earlier turn (where ``build_requires_opening`` is false) goes ``out``, as does
  one who goes out by builds alone, with no meld of their own (no first meld).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import melds as m
from .cards import (
    JOKER,
    Card,
    MeldCard,
    card_at,
    check_deck,
    full_deck,
    parse_card,
    parse_meld_card,
)
from .errors import EngineError
from .players import PlayerIdError, player_id, player_ids
from .rules import RuleSet, resolve
from .scoring import HandScore, score_hand
from .violations import Code, Violation, register

# -- violation codes ---------------------------------------------------------------------

register(
    Code("out-of-turn", "players act in the order listed, the first player first",
         "It is {expected}'s turn, not {player}'s."),
    Code("hand-already-over", "the hand ends the moment a player has no cards left",
         "The hand is already over: {winner} has no cards left."),
    Code("draw-missing", "every turn starts with a draw from the stock or the discard pile",
         "A turn starts with a draw from the stock or the discard pile."),
    Code("stock-mismatch", "a stock draw takes the stock's top card",
         "The top card of the stock is {top}, not {card}."),
    Code("card-not-in-stock", "a card drawn from the stock must be one not yet seen",
         "{card} cannot come from the stock: every copy is already accounted for."),
    Code("stock-empty", "the stock is refilled from the discard pile but its top card",
         "The stock is empty and the discard pile cannot refill it."),
    Code("restock-mismatch", "a new stock is exactly the discard pile under its top card, "
         "given only when the stock runs out",
         "Wrong restock: {reason}."),
    Code("discard-pile-empty", "a discard draw needs a discard pile",
         "The discard pile is empty."),
    Code("discard-draw-mismatch", "a discard draw takes the pile's top card",
         "The top of the discard pile is {top}, not {card}."),
    Code("card-not-in-hand", "a player plays only cards in their hand at that moment",
         "{card} is not in {player}'s hand."),
    Code("no-such-meld", "builds and releases go on a meld on the table (numbered from 0)",
         "There is no meld {meld} on the table."),
    Code("pickup-not-melded", "discard_pickup meld_same_turn: the card taken from the discard "
         "pile is laid on the table that turn",
         "{card}, taken from the discard pile, must be laid on the table this turn."),
    Code("pickup-not-in-new-meld", "discard_pickup new_meld_same_turn: the card taken from the "
         "discard pile goes into a new meld that turn",
         "{card}, taken from the discard pile, must be part of a new meld this turn."),
    Code("discard-just-taken", "the card just taken from the discard pile is not discarded "
         "the same turn",
         "{card} was just taken from the discard pile and cannot be discarded this turn."),
    Code("released-joker-unused", "a released joker is laid again the same turn "
         "(released_joker any_meld / new_meld)",
         "{count} released joker(s) must be laid again this turn (released_joker: {must_use})."),
    Code("discard-missing", "a turn ends with a discard unless the player has no cards left",
         "The turn must end with a discard."),
    Code("final-discard-required", "final_discard required: the last card goes to the "
         "discard pile",
         "The last card must be discarded, not laid on the table."),
)



class RecordError(EngineError):
    """A hand record (or turn) that is not well formed: ``code`` and ``field`` say how and where."""

    code = "invalid-record"

    field: str

    def __init__(self, code: str, message: str, field: str = "record") -> None:
        super().__init__(message, code=code, field=field)


# -- the record ------------------------------------------------------------------------

STOCK, DISCARD = "stock", "discard"


@dataclass(frozen=True, slots=True)
class Draw:
    source: str  # "stock" | "discard"
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class MeldPlay:
    cards: tuple[MeldCard, ...]
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class BuildPlay:
    meld: int
    cards: tuple[m.Placed, ...]


@dataclass(frozen=True, slots=True)
class ReleasePlay:
    meld: int
    cards: tuple[Card, ...]


Play = MeldPlay | BuildPlay | ReleasePlay


@dataclass(frozen=True, slots=True)
class Turn:
    player: str
    draw: Draw | None
    plays: tuple[Play, ...] = ()
    discard: Card | None = None
    restock: tuple[Card, ...] | None = None


@dataclass(frozen=True)
class HandRecord:
    """A parsed hand record. ``ruleset`` is the rule set as written (name or
    ``{"base", "overrides"}``), ``rules`` the resolved rule set."""

    ruleset: Any
    rules: RuleSet
    players: tuple[str, ...]
    deal: tuple[tuple[Card, ...], ...]  # per player, in ``players`` order
    stock: tuple[Card, ...] | None = None  # top first
    discard: tuple[Card, ...] = ()  # top last
    turns: tuple[Turn, ...] = ()


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


@dataclass(frozen=True, slots=True)
class HandResult:
    winner: str
    finish: str  # "out" | "special"
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
    finish: str | None  # "out" | "special" when the player went out this turn

    @property
    def finished(self) -> bool:
        return self.finish is not None


# -- parsing ---------------------------------------------------------------------------

MAX_TURNS = 2000


def _req(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise RecordError("invalid-record", f"{where}: {key!r} is required", f"{where}.{key}".lstrip("."))
    return data[key]


def _obj(v: Any, where: str, keys: set[str] | None) -> Mapping[str, Any]:
    """``v`` as an object with only the fields ``keys`` (any fields: None)."""
    if not isinstance(v, Mapping):
        raise RecordError("invalid-record", f"{where} must be an object", where)
    extra = set(v) - keys if keys is not None else ()
    if extra:
        raise RecordError("invalid-record", f"{where}: unknown field {sorted(map(str, extra))[0]!r}",
                          where)
    return v


def _ids(v: list[Any], where: str) -> list[str]:
    """Player ids normalised by the one rule of :mod:`.players`."""
    try:
        return player_ids(v, where)
    except PlayerIdError as exc:
        raise RecordError(exc.code, str(exc), exc.field) from None


def _list(v: Any, where: str, min_len: int = 0, max_len: int = 200) -> list[Any]:
    if not isinstance(v, list):
        raise RecordError("invalid-record", f"{where} must be a list", where)
    if not min_len <= len(v) <= max_len:
        raise RecordError("invalid-record", f"{where} must hold {min_len} to {max_len} items", where)
    return v


def _cards(v: Any, where: str, min_len: int = 0, max_len: int = 200) -> tuple[Card, ...]:
    return tuple(_card(c, f"{where}.{i}") for i, c in enumerate(_list(v, where, min_len, max_len)))


def _card(v: Any, where: str) -> Card:
    try:
        return parse_card(v)
    except ValueError as exc:
        exc.field = where  # type: ignore[attr-defined]
        raise


def _index(v: Any, where: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise RecordError("invalid-record", f"{where} must be a meld number (0 or more)", where)
    return v


def _parse_play(p: Any, where: str) -> Play:
    if not isinstance(p, Mapping) or len(p) != 1:
        raise RecordError("invalid-record", f"{where}: a play is {{\"meld\"}}, {{\"build\"}} or "
                          "{\"release\"}", where)
    (verb, body), = p.items()
    if verb == "meld":
        kind = None
        if isinstance(body, Mapping):
            body = _obj(body, f"{where}.meld", {"cards", "kind"})
            kind = body.get("kind")
            if kind not in (None, m.SET, m.RUN):
                raise RecordError("invalid-record", f"{where}.meld.kind is \"set\" or \"run\"",
                                  f"{where}.meld.kind")
            body = _req(body, "cards", f"{where}.meld")
        cards = _list(body, f"{where}.meld", 1, 14)
        toks = []
        for i, c in enumerate(cards):
            try:
                toks.append(parse_meld_card(c))
            except ValueError as exc:
                exc.field = f"{where}.meld.{i}"  # type: ignore[attr-defined]
                raise
        return MeldPlay(tuple(toks), kind)
    if verb == "build":
        body = _obj(body, f"{where}.build", {"meld", "cards"})
        idx = _index(_req(body, "meld", f"{where}.build"), f"{where}.build.meld")
        placed = []
        for i, c in enumerate(_list(_req(body, "cards", f"{where}.build"), f"{where}.build.cards", 1, 14)):
            end = None
            if isinstance(c, Mapping):
                c2 = _obj(c, f"{where}.build.cards.{i}", {"card", "end"})
                end = c2.get("end")
                if end not in (None, "low", "high"):
                    raise RecordError("invalid-record", "end is \"low\" or \"high\"",
                                      f"{where}.build.cards.{i}.end")
                c = _req(c2, "card", f"{where}.build.cards.{i}")
            try:
                tok = parse_meld_card(c)
            except ValueError as exc:
                exc.field = f"{where}.build.cards.{i}"  # type: ignore[attr-defined]
                raise
            placed.append(m.Placed(tok, end))
        return BuildPlay(idx, tuple(placed))
    if verb == "release":
        body = _obj(body, f"{where}.release", {"meld", "cards"})
        idx = _index(_req(body, "meld", f"{where}.release"), f"{where}.release.meld")
        return ReleasePlay(idx, _cards(_req(body, "cards", f"{where}.release"),
                                       f"{where}.release.cards", 1))
    raise RecordError("invalid-record", f"{where}: unknown play {verb!r} (meld, build, release)", where)


def _parse_draw(d: Any, where: str, need_card: bool) -> Draw | None:
    if d is None:
        return None
    d = _obj(d, where, {"from", "card"})
    source = _req(d, "from", where)
    if source not in (STOCK, DISCARD):
        raise RecordError("invalid-record", f"{where}.from is \"stock\" or \"discard\"", f"{where}.from")
    card = _card(d["card"], f"{where}.card") if d.get("card") is not None else None
    if card is None and source == STOCK and need_card:
        raise RecordError("missing-card", "without a known stock, a stock draw names its card",
                          f"{where}.card")
    return Draw(source, card)


def parse_turn(t: Any, where: str = "turn", need_card: bool = True,
               players: Sequence[str] | None = None) -> Turn:
    """Read one turn (``player`` optional when ``players`` is None)."""
    t = _obj(t, where, {"player", "draw", "plays", "discard", "restock"})
    player = t.get("player", "")
    if players is not None or player:
        try:
            player = player_id(_req(t, "player", where), f"{where}.player")
        except PlayerIdError as exc:
            raise RecordError(exc.code, str(exc), exc.field) from None
    if players is not None:
        if player not in players:
            raise RecordError("unknown-player", f"{where}.player: {player!r} is not a player",
                              f"{where}.player")
    elif not isinstance(player, str):
        raise RecordError("invalid-record", f"{where}.player must be a string", f"{where}.player")
    draw = _parse_draw(t.get("draw"), f"{where}.draw", need_card)
    plays = tuple(_parse_play(p, f"{where}.plays.{i}")
                  for i, p in enumerate(_list(t.get("plays", []), f"{where}.plays", 0, 60)))
    discard = _card(t["discard"], f"{where}.discard") if t.get("discard") is not None else None
    restock = None
    if t.get("restock") is not None:
        restock = _cards(t["restock"], f"{where}.restock")
    return Turn(player, draw, plays, discard, restock)


def parse_record(data: Mapping[str, Any]) -> HandRecord:
    """Read a JSON hand record (SPEC §5). Raises :class:`RecordError`, or the engine's
    ``CardError`` / ``RuleSetError`` (each with a ``field``), for a malformed record."""
    data = _obj(data, "record", {"ruleset", "players", "deal", "stock", "discard", "turns"})
    spec = _req(data, "ruleset", "")
    rules = resolve(spec)
    players = _ids(_list(_req(data, "players", ""), "players", 1, 16), "players")
    if not rules.players_min <= len(players) <= rules.players_max:
        raise RecordError("player-count", f"{rules.name} seats {rules.players_min} to "
                          f"{rules.players_max} players, not {len(players)}", "players")
    deal_in = _obj(_req(data, "deal", ""), "deal", None)
    if len(deal_in) > len(players):
        raise RecordError("invalid-record", "deal: more hands than players", "deal")
    keys = _ids(list(deal_in), "deal")
    extra = next((k for k in keys if k not in players), None)
    if extra is not None:
        raise RecordError("invalid-record", f"deal: {extra!r} is not a player", f"deal.{extra}")
    deal_in = dict(zip(keys, deal_in.values(), strict=True))
    deal = []
    for p in players:
        if p not in deal_in:
            raise RecordError("deal-size", f"deal: {p!r} is dealt no cards", f"deal.{p}")
        cards = _cards(deal_in[p], f"deal.{p}")
        if len(cards) != rules.hand_size:
            raise RecordError("deal-size", f"deal: {p!r} gets {len(cards)} cards, not "
                              f"{rules.hand_size}", f"deal.{p}")
        deal.append(cards)
    stock = _cards(data["stock"], "stock", max_len=rules.deck_size) \
        if data.get("stock") is not None else None
    discard = _cards(data.get("discard") or [], "discard", max_len=rules.deck_size)
    everything = [c for h in deal for c in h] + list(stock or ()) + list(discard)
    try:
        check_deck(everything, rules.decks, rules.jokers)
    except ValueError as exc:
        exc.field = "deal"  # type: ignore[attr-defined]
        raise
    turns = tuple(parse_turn(t, f"turns.{i}", stock is None, players)
                  for i, t in enumerate(_list(data.get("turns", []), "turns", 0, MAX_TURNS)))
    return HandRecord(spec, rules, tuple(players), tuple(deal), stock, discard, turns)


# -- back to JSON ----------------------------------------------------------------------

def play_to_data(p: Play) -> dict[str, Any]:
    if isinstance(p, MeldPlay):
        cards = [str(c) for c in p.cards]
        return {"meld": {"cards": cards, "kind": p.kind} if p.kind else cards}
    if isinstance(p, BuildPlay):
        return {"build": {"meld": p.meld, "cards": [
            {"card": str(c.token), "end": c.end} if c.end else str(c.token) for c in p.cards]}}
    return {"release": {"meld": p.meld, "cards": [str(c) for c in p.cards]}}


def turn_to_data(t: Turn) -> dict[str, Any]:
    out: dict[str, Any] = {"player": t.player}
    if t.restock is not None:
        out["restock"] = [str(c) for c in t.restock]
    if t.draw is not None:
        out["draw"] = {"from": t.draw.source}
        if t.draw.card is not None:
            out["draw"]["card"] = str(t.draw.card)
    out["plays"] = [play_to_data(p) for p in t.plays]
    if t.discard is not None:
        out["discard"] = str(t.discard)
    return out


def record_to_data(r: HandRecord) -> dict[str, Any]:
    """The canonical JSON form of a record (``parse_record`` reads it back unchanged)."""
    out: dict[str, Any] = {"ruleset": r.ruleset, "players": list(r.players),
                           "deal": {p: [str(c) for c in h] for p, h in zip(r.players, r.deal, strict=True)}}
    if r.stock is not None:
        out["stock"] = [str(c) for c in r.stock]
    if r.discard:
        out["discard"] = [str(c) for c in r.discard]
    out["turns"] = [turn_to_data(t) for t in r.turns]
    return out


# -- the game --------------------------------------------------------------------------

class _Stop(Exception):
    def __init__(self, violation: Violation) -> None:
        self.violation = violation


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

    def cards(self) -> list[Card]:
        return sorted(card_at(i) for i, k in enumerate(self.n) for _ in range(k))


class _Game:
    """Mutable hand state while replaying."""

    def __init__(self, rules: RuleSet, players: Sequence[str], hands: Sequence[Sequence[Card]],
                 stock: Sequence[Card] | None, pile: Sequence[Card],
                 table: Sequence[m.Meld] = (), opened: Sequence[str] = (),
                 laid_before: Sequence[str] = ()) -> None:
        self.rules = rules
        self.players = list(players)
        self.hands: dict[str, _Cards] = {p: _Cards(h) for p, h in zip(players, hands, strict=True)}
        self.table: list[m.Meld] = list(table)
        self.pile: list[Card] = list(pile)
        self.opened: set[str] = set(opened)
        self.melded: set[str] = set(opened)
        # players who laid cards on the table (meld, build or release) in an earlier turn
        self.laid: set[str] = {*opened, *laid_before}
        self.stock_known = stock is not None
        self.stock_list: list[Card] = list(reversed(stock)) if stock is not None else []
        self.stock_pool = _Cards()
        if stock is None:
            self.stock_pool = _Cards(full_deck(rules.decks, rules.jokers))
            for c in [*(c for h in hands for c in h), *pile,
                      *(c for meld in table for c in meld.physical())]:
                self.stock_pool.take(c)
        self.winner: str | None = None
        self.finish: str | None = None
        self.turn_index = 0

    def stock_count(self) -> int:
        return len(self.stock_list) if self.stock_known else self.stock_pool.size

    def state(self) -> HandState:
        nxt = None if self.winner else self.players[self.turn_index % len(self.players)]
        return HandState(
            table=tuple(self.table),
            hands=tuple((p, tuple(self.hands[p].cards())) for p in self.players),
            stock_count=self.stock_count(),
            discard_top=self.pile[-1] if self.pile else None,
            discard_count=len(self.pile),
            opened=tuple(p for p in self.players if p in self.opened),
            turn=self.turn_index,
            next_player=nxt)


class _TurnRun:
    """One turn being played on a :class:`_Game`."""

    def __init__(self, game: _Game, index: int, turn: Turn, complete: bool) -> None:
        self.g = game
        self.rules = game.rules
        self.i = index
        self.t = turn
        self.p = turn.player
        self.hand = game.hands[turn.player]
        self.complete = complete
        # a special win needs nothing laid before this turn (SPEC §3)
        self.nothing_laid_before = turn.player not in game.laid
        self.opening_points = 0
        self.opening_pending = False
        self.taken: Card | None = None
        self.pickup_laid = False
        self.pickup_in_new = False
        self.jokers_pending = 0

    def fail(self, code: str, play: int | None = None, **params: Any) -> _Stop:
        return _Stop(Violation(code, params, {"turn": self.i, "play": play}))

    def run(self) -> None:
        g, t = self.g, self.t
        if g.winner is not None:
            raise self.fail("hand-already-over", winner=g.winner)
        self.draw()
        for j, play in enumerate(t.plays):
            if g.winner is not None:
                raise self.fail("hand-already-over", j, winner=g.winner)
            if isinstance(play, MeldPlay):
                self.meld(j, play)
            elif isinstance(play, BuildPlay):
                self.build(j, play)
            else:
                self.release(j, play)
            if not self.hand.size:
                self.end_of_turn()
                self.go_out()
        if t.discard is None:
            if g.winner is None and self.complete:
                raise self.fail("discard-missing")
            return
        if g.winner is not None:
            raise self.fail("hand-already-over", winner=g.winner)
        self.end_of_turn()
        card = t.discard
        if self.hand.count(card) <= 0:
            raise self.fail("card-not-in-hand", card=str(card), player=self.p)
        if self.taken is not None and card == self.taken:
            raise self.fail("discard-just-taken", card=str(card))
        self.take_out([card])
        g.pile.append(card)
        if not self.hand.size:
            self.go_out()

    # -- draw ----------------------------------------------------------------------------
    def draw(self) -> None:
        g, t = self.g, self.t
        d = t.draw
        if d is None:
            raise self.fail("draw-missing")
        if d.source == DISCARD:
            if t.restock is not None:
                raise self.fail("restock-mismatch", reason="the stock is not empty" if g.stock_count()
                                else "a restock comes with a stock draw")
            if not g.pile:
                raise self.fail("discard-pile-empty")
            top = g.pile[-1]
            if d.card is not None and d.card != top:
                raise self.fail("discard-draw-mismatch", top=str(top), card=str(d.card))
            g.pile.pop()
            self.taken = top
            self.hand.add(top)
            return
        if g.stock_count() == 0:
            self.restock()
        elif t.restock is not None:
            raise self.fail("restock-mismatch", reason="the stock is not empty")
        if g.stock_known:
            top = g.stock_list[-1]
            if d.card is not None and d.card != top:
                raise self.fail("stock-mismatch", top=str(top), card=str(d.card))
            g.stock_list.pop()
            card = top
        else:
            if d.card is None:
                raise RecordError("missing-card", "without a known stock, a stock draw names its card",
                                  f"turns.{self.i}.draw.card")
            card = d.card
            if g.stock_pool.count(card) <= 0:
                raise self.fail("card-not-in-stock", card=str(card))
            g.stock_pool.take(card)
        self.hand.add(card)

    def restock(self) -> None:
        g, t = self.g, self.t
        if len(g.pile) < 2:
            raise self.fail("stock-empty")
        top, rest = g.pile[-1], g.pile[:-1]
        if t.restock is not None:
            if Counter(t.restock) != Counter(rest):
                raise self.fail("restock-mismatch",
                                reason="the new stock must be the discard pile under its top card")
            g.stock_known = True
            g.stock_list = list(reversed(t.restock))
            g.stock_pool = _Cards()
        elif g.stock_known:
            raise self.fail("restock-mismatch", reason="give the new stock order (restock)")
        else:
            g.stock_pool = _Cards(rest)
        g.pile = [top]

    # -- plays ---------------------------------------------------------------------------
    def need(self, cards: Sequence[Card], j: int) -> None:
        n = self.hand.n
        if len(cards) == 1:
            if n[cards[0].index] < 1:
                raise self.fail("card-not-in-hand", j, card=str(cards[0]), player=self.p)
            return
        wanted: dict[int, int] = {}
        for c in cards:
            i = c.index
            wanted[i] = wanted.get(i, 0) + 1
            if n[i] < wanted[i]:
                raise self.fail("card-not-in-hand", j, card=str(c), player=self.p)

    def take_out(self, cards: Sequence[Card]) -> None:
        n = self.hand.n
        for c in cards:
            n[c.index] -= 1
        self.hand.size -= len(cards)

    def settle_opening(self, j: int | None) -> None:
        """The opening turn's melds are checked against the threshold."""
        if not self.opening_pending:
            return
        self.opening_pending = False
        threshold = self.rules.opening_min_points
        if self.opening_points < threshold:
            raise self.fail("opening-below-threshold", j, points=self.opening_points,
                            threshold=threshold)
        self.g.opened.add(self.p)

    def meld(self, j: int, play: MeldPlay) -> None:
        cards = [tok.card for tok in play.cards]
        self.need(cards, j)
        ruling = m.validate(play.cards, self.rules, play.kind)
        if ruling.meld is None:
            v = ruling.violations[0]
            raise _Stop(Violation(v.code, v.params, {"turn": self.i, "play": j}))
        if self.p not in self.g.opened:
            self.opening_pending = True
            self.opening_points += ruling.meld.points
        self.last_card_check(cards, j)
        self.g.table.append(ruling.meld)
        self.g.melded.add(self.p)
        self.take_out(cards)
        self.laid(cards, new=True)

    def last_card_check(self, cards: Sequence[Card], j: int) -> None:
        """Laying one's last card on the table ends the hand only when final_discard is optional."""
        if self.rules.final_discard == "required" and len(cards) == self.hand.size:
            raise self.fail("final-discard-required", j)

    def laid(self, cards: Sequence[Card], new: bool) -> None:
        self.g.laid.add(self.p)
        if self.taken is not None and self.taken in cards:
            self.pickup_laid = True
            self.pickup_in_new = self.pickup_in_new or new
        if self.jokers_pending:
            mode = self.rules.released_joker
            if mode == "any_meld" or (mode == "new_meld" and new):
                jokers = sum(1 for c in cards if c.is_joker)
                self.jokers_pending = max(0, self.jokers_pending - jokers)

    def table_meld(self, j: int, idx: int) -> m.Meld:
        if idx >= len(self.g.table):
            raise self.fail("no-such-meld", j, meld=idx)
        return self.g.table[idx]

    def build(self, j: int, play: BuildPlay) -> None:
        self.settle_opening(j)
        meld = self.table_meld(j, play.meld)
        cards = [pl.token.card for pl in play.cards]
        self.need(cards, j)
        ruling = m.build(meld, play.cards, self.rules, self.p in self.g.opened)
        if not ruling.valid:
            v = ruling.violations[0]
            raise _Stop(Violation(v.code, v.params, {"turn": self.i, "play": j}))
        self.last_card_check(cards, j)
        self.g.table[play.meld] = ruling.meld
        self.take_out(cards)
        self.laid(cards, new=False)

    def release(self, j: int, play: ReleasePlay) -> None:
        self.settle_opening(j)
        meld = self.table_meld(j, play.meld)
        self.need(play.cards, j)
        ruling = m.release(meld, play.cards, self.rules, self.p in self.g.opened)
        if not ruling.legal:
            v = ruling.violations[0]
            raise _Stop(Violation(v.code, v.params, {"turn": self.i, "play": j}))
        self.g.table[play.meld] = ruling.meld
        self.take_out(play.cards)
        self.hand.add(JOKER, ruling.released)
        self.laid(play.cards, new=False)
        if self.rules.released_joker != "hand":
            self.jokers_pending += ruling.released

    # -- end of turn ---------------------------------------------------------------------
    def end_of_turn(self) -> None:
        self.settle_opening(None)
        mode = self.rules.discard_pickup
        if self.taken is not None:
            if mode == "meld_same_turn" and not self.pickup_laid:
                raise self.fail("pickup-not-melded", card=str(self.taken))
            if mode == "new_meld_same_turn" and not self.pickup_in_new:
                raise self.fail("pickup-not-in-new-meld", card=str(self.taken))
        if self.jokers_pending:
            raise self.fail("released-joker-unused", count=self.jokers_pending,
                            must_use=self.rules.released_joker)

    def go_out(self) -> None:
        g = self.g
        g.winner = self.p
        g.finish = "special" if self.nothing_laid_before and self.p in g.melded else "out"


# -- public entry points ---------------------------------------------------------------

def adjudicate(record: HandRecord, steps: list[HandState] | None = None) -> Adjudication:
    """Replay a hand record; the first violation (with the state just before it), or
    the ruling on a legal record (with the result when the hand is finished).

    ``steps``, when given, receives the state after the deal and after each turn
    ruled legal; for an illegal record, last, the state just before the violation
    (the adjudication's own ``state``).
    """
    rules = record.rules
    g = _Game(rules, record.players, record.deal, record.stock, record.discard)
    if steps is not None:
        steps.append(g.state())
    n = len(record.players)
    last = len(record.turns) - 1
    for i, turn in enumerate(record.turns):
        g.turn_index = i
        expected = record.players[i % n]
        try:
            if g.winner is None and turn.player != expected:
                raise _Stop(Violation("out-of-turn", {"player": turn.player, "expected": expected},
                                      {"turn": i, "play": None}))
            _TurnRun(g, i, turn, complete=i < last).run()
        except _Stop as stop:
            state = g.state()
            if steps is not None:
                steps.append(state)
            return Adjudication(False, stop.violation, None, state)
        g.turn_index = i + 1
        if steps is not None:
            steps.append(g.state())
    result = None
    if g.winner is not None:
        assert g.finish is not None
        score = score_hand(rules, g.winner, g.finish,
                           [(p, g.hands[p].cards()) for p in record.players])
        result = HandResult(g.winner, g.finish, score)
    return Adjudication(True, None, result, g.state())


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
               discard_top: Card | None, turn: Turn, laid_before: bool = False) -> TurnCheck:
    """Rule on one complete turn without a record: ``hand`` is the player's hand before
    the draw, ``opened`` whether they have opened (laid their first melds) before,
    ``laid_before`` whether they built or released in an earlier turn of this hand
    without opening (then going out is ``out``, not special: SPEC §3); an opened
    player has laid before by definition.
    A stock draw must name its card, which must not exceed the deck's copies."""
    player = turn.player or "player"
    turn = Turn(player, turn.draw, turn.plays, turn.discard, turn.restock)
    check_deck([c for meld in table for c in meld.physical()] + list(hand)
               + ([discard_top] if discard_top else []), rules.decks, rules.jokers)
    g = _Game(rules, [player], [hand], None, [discard_top] if discard_top else [],
              table, [player] if opened else [], [player] if laid_before else [])
    violation = None
    try:
        _TurnRun(g, 0, turn, complete=True).run()
    except _Stop as stop:
        violation = stop.violation
    return TurnCheck(violation is None, violation, tuple(g.table),
                     tuple(g.hands[player].cards()), player in g.opened,
                     g.finish if violation is None else None)


__all__ = ["Adjudication", "BuildPlay", "Draw", "HandRecord", "HandResult", "HandState",
           "MeldPlay", "Play", "RecordError", "ReleasePlay", "Turn", "TurnCheck", "adjudicate",
           "check_turn", "finished_result", "parse_record", "parse_turn", "record_to_data"]
