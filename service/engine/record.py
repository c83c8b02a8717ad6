"""Hand records: their types and their JSON form (docs/api.md#the-hand-record).

A *hand record* names a rule set, the players (in turn order), the deal and,
optionally, the stock (top first) and the starting discard pile (top last),
then one entry per turn: who plays, the draw, the plays (``meld``, ``build``,
``release``) and the discard. :func:`parse_record` reads the JSON form,
raising :class:`RecordError` for a record that is not well formed (or the
engine's ``CardError`` / ``RuleSetError``, each with a ``field``);
:func:`record_to_data` writes the canonical form back. Ruling on a record is
the referee's job (:mod:`.referee`).

>>> r = parse_record({"ruleset": "kaluki-hunt", "players": ["ann", "bob"],
...     "deal": {"ann": ["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "2d", "3d", "4d", "5s", "6s", "7s", "8h"],
...              "bob": ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9d", "Td", "Jd", "Qd", "Ad", "Ac"]},
...     "turns": [{"player": "ann", "draw": {"from": "stock", "card": "Qc"},
...                "plays": [{"meld": ["Kh", "Ks", "Kd"]}], "discard": "8h"}]})
>>> [str(c) for c in r.turns[0].plays[0].cards]
['Kh', 'Ks', 'Kd']
>>> record_to_data(r)["turns"][0]["plays"]
[{'meld': ['Kh', 'Ks', 'Kd']}]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from . import melds as m
from .cards import Card, CardError, MeldCard, check_deck, parse_card, parse_meld_card, read_each
from .errors import EngineError
from .melds import RUN_ENDS
from .players import PlayerIdError, player_id, player_ids
from .rules import RuleSet, resolve
from .scoring import check_seats


class RecordError(EngineError):
    """A hand record (or turn) that is not well formed: ``code`` and ``field`` say how and where."""

    code = "invalid-record"

    field: str

    def __init__(self, code: str, message: str, field: str = "record") -> None:
        super().__init__(message, code=code, field=field)


# -- the record ------------------------------------------------------------------------

class DrawSource(StrEnum):
    """Where a draw comes from (docs/api.md#the-hand-record)."""

    STOCK = "stock"
    DISCARD = "discard"


STOCK, DISCARD = DrawSource.STOCK, DrawSource.DISCARD


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


@dataclass(frozen=True, slots=True)
class LayPlay:
    """Going down in a contract rule set (docs/api.md#contract-rule-sets): the round's contract, as
    one play."""

    melds: tuple[MeldPlay, ...]


@dataclass(frozen=True, slots=True)
class ShiftPlay:
    """A joker shift (docs/api.md#contract-rule-sets): ``card`` takes the place of the run's joker
    that stands for it, and the joker moves to ``end`` of the same run (None: high, else low)."""

    meld: int
    card: Card
    end: str | None = None


Play = MeldPlay | BuildPlay | ReleasePlay | LayPlay | ShiftPlay


@dataclass(frozen=True, slots=True)
class Call:
    """A call at the start of a turn (docs/api.md#contract-rule-sets): ``player`` asks for the
    discard pile's top card; ``penalty`` names the penalty cards from the stock (None: not
    named)."""

    player: str
    granted: bool
    penalty: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    player: str
    draw: Draw | None
    plays: tuple[Play, ...] = ()
    discard: Card | None = None
    restock: tuple[Card, ...] | None = None
    call: Call | None = None


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
    round: int | None = None  # a contract rule set's deal, 1-based (docs/api.md#contract-rule-sets)


# -- parsing ---------------------------------------------------------------------------

MAX_TURNS = 2000
MAX_MELD = 14
"""Cards in one meld as written: a run is at most 13 (plus a joker's slack)."""
MAX_LAY = 8
"""Melds in one lay: a contract has at most this many threes and fours."""


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
    except CardError as exc:
        raise exc.at(where) from None


def _index(v: Any, where: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise RecordError("invalid-record", f"{where} must be a meld number (0 or more)", where)
    return v


def _parse_meld(body: Any, where: str) -> MeldPlay:
    """A meld: a card list or ``{cards, kind}`` (``where`` names it)."""
    kind = None
    if isinstance(body, Mapping):
        body = _obj(body, where, {"cards", "kind"})
        kind = body.get("kind")
        if kind not in (None, m.SET, m.RUN):
            raise RecordError("invalid-record", f"{where}.kind is \"set\" or \"run\"",
                              f"{where}.kind")
        body = _req(body, "cards", where)
    cards = _list(body, where, 1, MAX_MELD)
    toks = read_each(cards, where, parse_meld_card)
    return MeldPlay(tuple(toks), kind)


def _parse_play(p: Any, where: str) -> Play:
    if not isinstance(p, Mapping) or len(p) != 1:
        raise RecordError("invalid-record", f"{where}: a play is {{\"meld\"}}, {{\"build\"}}, "
                          "{\"release\"}, {\"lay\"} or {\"shift\"}", where)
    (verb, body), = p.items()
    if verb == "meld":
        return _parse_meld(body, f"{where}.meld")
    if verb == "lay":
        melds = _list(body, f"{where}.lay", 1, MAX_LAY)
        return LayPlay(tuple(_parse_meld(x, f"{where}.lay.{i}") for i, x in enumerate(melds)))
    if verb == "shift":
        body = _obj(body, f"{where}.shift", {"meld", "card", "end"})
        idx = _index(_req(body, "meld", f"{where}.shift"), f"{where}.shift.meld")
        card = _card(_req(body, "card", f"{where}.shift"), f"{where}.shift.card")
        end = body.get("end")
        if end not in (None, *RUN_ENDS):
            raise RecordError("invalid-record", "end is \"low\" or \"high\"", f"{where}.shift.end")
        return ShiftPlay(idx, card, end)
    if verb == "build":
        body = _obj(body, f"{where}.build", {"meld", "cards"})
        idx = _index(_req(body, "meld", f"{where}.build"), f"{where}.build.meld")
        placed = []
        for i, c in enumerate(_list(_req(body, "cards", f"{where}.build"), f"{where}.build.cards", 1, 14)):
            end = None
            if isinstance(c, Mapping):
                c2 = _obj(c, f"{where}.build.cards.{i}", {"card", "end"})
                end = c2.get("end")
                if end not in (None, *RUN_ENDS):
                    raise RecordError("invalid-record", "end is \"low\" or \"high\"",
                                      f"{where}.build.cards.{i}.end")
                c = _req(c2, "card", f"{where}.build.cards.{i}")
            try:
                tok = parse_meld_card(c)
            except CardError as exc:
                raise exc.at(f"{where}.build.cards.{i}") from None
            placed.append(m.Placed(tok, end))
        return BuildPlay(idx, tuple(placed))
    if verb == "release":
        body = _obj(body, f"{where}.release", {"meld", "cards"})
        idx = _index(_req(body, "meld", f"{where}.release"), f"{where}.release.meld")
        return ReleasePlay(idx, _cards(_req(body, "cards", f"{where}.release"),
                                       f"{where}.release.cards", 1))
    raise RecordError("invalid-record", f"{where}: unknown play {verb!r} (meld, build, release, "
                      "lay, shift)", where)


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
    t = _obj(t, where, {"player", "call", "draw", "plays", "discard", "restock"})
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
    call = _parse_call(t["call"], f"{where}.call", players) if t.get("call") is not None else None
    return Turn(player, draw, plays, discard, restock, call)


def _parse_call(c: Any, where: str, players: Sequence[str] | None) -> Call:
    c = _obj(c, where, {"player", "granted", "penalty"})
    try:
        caller = player_id(_req(c, "player", where), f"{where}.player")
    except PlayerIdError as exc:
        raise RecordError(exc.code, str(exc), exc.field) from None
    if players is not None and caller not in players:
        raise RecordError("unknown-player", f"{where}.player: {caller!r} is not a player",
                          f"{where}.player")
    granted = _req(c, "granted", where)
    if not isinstance(granted, bool):
        raise RecordError("invalid-record", f"{where}.granted must be true or false",
                          f"{where}.granted")
    penalty = None
    if c.get("penalty") is not None:  # [] is no card named, as when left out
        penalty = _cards(c["penalty"], f"{where}.penalty", max_len=20) or None
    return Call(caller, granted, penalty)


def parse_record(data: Mapping[str, Any]) -> HandRecord:
    """Read a JSON hand record (docs/api.md#the-hand-record). Raises :class:`RecordError`, or the
    engine's ``CardError`` / ``RuleSetError`` (each with a ``field``), for a malformed record."""
    data = _obj(data, "record", {"ruleset", "players", "deal", "stock", "discard", "turns",
                                 "round"})
    spec = _req(data, "ruleset", "")
    rules = resolve(spec)
    # round-required / invalid-round (docs/api.md#contract-rule-sets)
    round_ = rules.check_round(data.get("round"))
    players = _ids(_list(_req(data, "players", ""), "players", 1, 16), "players")
    check_seats(len(players), rules)  # the one seat rule (a ScoringError, player-count)
    # a contract round's deal size (docs/api.md#contract-rule-sets), else hand_size
    size = rules.deal_size(round_)
    decks, jokers = rules.deck_for(len(players))
    deck_size = decks * 52 + jokers
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
        if len(cards) != size:
            raise RecordError("deal-size", f"deal: {p!r} gets {len(cards)} cards, not "
                              f"{size}", f"deal.{p}")
        deal.append(cards)
    stock = _cards(data["stock"], "stock", max_len=deck_size) \
        if data.get("stock") is not None else None
    discard = _cards(data.get("discard") or [], "discard", max_len=deck_size)
    everything = [c for h in deal for c in h] + list(stock or ()) + list(discard)
    try:
        check_deck(everything, decks, jokers)
    except CardError as exc:
        raise exc.at("deal") from None
    turns = tuple(parse_turn(t, f"turns.{i}", stock is None, players)
                  for i, t in enumerate(_list(data.get("turns", []), "turns", 0, MAX_TURNS)))
    if not rules.is_contract:
        for i, t in enumerate(turns):
            for j, play in enumerate(t.plays):
                if isinstance(play, LayPlay):
                    raise RecordError("invalid-record", "a lay (going down) is a play of contract "
                                      "rule sets only (SPEC §3.1)", f"turns.{i}.plays.{j}")
    return HandRecord(spec, rules, tuple(players), tuple(deal), stock, discard, turns, round_)


# -- back to JSON ----------------------------------------------------------------------

def play_to_data(p: Play) -> dict[str, Any]:
    if isinstance(p, MeldPlay):
        return {"meld": _meld_data(p)}
    if isinstance(p, BuildPlay):
        return {"build": {"meld": p.meld, "cards": [
            {"card": str(c.token), "end": c.end} if c.end else str(c.token) for c in p.cards]}}
    if isinstance(p, ReleasePlay):
        return {"release": {"meld": p.meld, "cards": [str(c) for c in p.cards]}}
    if isinstance(p, LayPlay):
        return {"lay": [_meld_data(x) for x in p.melds]}
    shift: dict[str, Any] = {"meld": p.meld, "card": str(p.card)}
    if p.end is not None:
        shift["end"] = p.end
    return {"shift": shift}


def _meld_data(p: MeldPlay) -> list[str] | dict[str, Any]:
    cards = [str(c) for c in p.cards]
    return {"cards": cards, "kind": p.kind} if p.kind else cards


def call_to_data(c: Call) -> dict[str, Any]:
    out: dict[str, Any] = {"player": c.player, "granted": c.granted}
    if c.penalty is not None:
        out["penalty"] = [str(x) for x in c.penalty]
    return out


def turn_to_data(t: Turn) -> dict[str, Any]:
    out: dict[str, Any] = {"player": t.player}
    if t.call is not None:
        out["call"] = call_to_data(t.call)
    if t.restock is not None:
        out["restock"] = [str(c) for c in t.restock]
    if t.draw is not None:
        out["draw"] = {"from": str(t.draw.source)}
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
    if r.round is not None:
        out["round"] = r.round
    if r.stock is not None:
        out["stock"] = [str(c) for c in r.stock]
    if r.discard:
        out["discard"] = [str(c) for c in r.discard]
    out["turns"] = [turn_to_data(t) for t in r.turns]
    return out


__all__ = ["DISCARD", "MAX_TURNS", "STOCK", "BuildPlay", "Call", "Draw", "HandRecord", "LayPlay",
           "MeldPlay", "Play", "RecordError", "ReleasePlay", "ShiftPlay", "Turn", "call_to_data",
           "parse_record", "parse_turn", "play_to_data", "record_to_data", "turn_to_data"]
