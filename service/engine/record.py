"""Hand records: their types and their JSON form (SPEC §5, hand record).

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
from typing import Any

from . import melds as m
from .cards import Card, CardError, MeldCard, check_deck, parse_card, parse_meld_card, read_each
from .errors import EngineError
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
    except CardError as exc:
        raise exc.at(where) from None


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
        toks = read_each(cards, f"{where}.meld", parse_meld_card)
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
            except CardError as exc:
                raise exc.at(f"{where}.build.cards.{i}") from None
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
    check_seats(len(players), rules)  # the one seat rule (a ScoringError, player-count)
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
    except CardError as exc:
        raise exc.at("deal") from None
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


__all__ = ["DISCARD", "MAX_TURNS", "STOCK", "BuildPlay", "Draw", "HandRecord", "MeldPlay", "Play",
           "RecordError", "ReleasePlay", "Turn", "parse_record", "parse_turn", "play_to_data",
           "record_to_data", "turn_to_data"]
