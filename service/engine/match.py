"""Match standings and match end (docs/api.md#match-ledgers): pure rules, no storage.

A match is a sequence of ledger events (scored hands and buy-ins) folded over
a :class:`MatchState`. The same fold runs when a hand is appended and when an
exported ledger is imported and re-scored, so both always agree.

How a match ends (``match_end``):

* ``goal``: the match ends after the first hand in which some player reaches
  ``goal_points`` points. Winner: the player with the most points; ties
  broken as below.
* ``elimination``: after each hand, a player whose penalty *exceeds*
  ``elimination_over`` is eliminated and plays no further hands. The match
  ends when one player remains; that player wins. With ``buy_ins`` an
  eliminated player may buy back in, re-entering with the highest penalty of
  the players still in, at most ``buy_ins_max`` times per player, and only
  while at least ``buy_in_min_players`` players would be at the table counting
  the one buying in (``kaluki-uk``: once, and 3, so the first player out of a
  three-player game may come back but head-to-head never allows one).
* ``hands``: the match ends after ``match_hands`` hands.
* ``contracts`` (docs/api.md#contract-rule-sets): one hand per contract, each appended as the next
  round (its ``round`` one more than the hands entered so far, else ``wrong-round``); the
  match ends after the last round, the lowest total penalty wins, and on a tie
  ``winner`` is null and ``co_winners`` lists the tied players.

Tie rule (goal and hands): most points, then least penalty, then most hands
won. Players still level after that share the win: ``winner`` is null and
``co_winners`` lists them in seating order.

>>> cfg = MatchEnd("goal", goal_points=50)
>>> s = new_state(["ann", "bob"])
>>> s = apply_hand(s, cfg, "ann", [("ann", 30, 0), ("bob", 0, 0)])
>>> s = apply_hand(s, cfg, "bob", [("ann", 0, 0), ("bob", 55, 0)])
>>> str(s.status), s.winner
('finished', 'bob')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from . import referee, rulings
from .errors import EngineError
from .players import PlayerIdError, player_id, player_ids
from .record import RecordError, parse_record
from .rules import InvalidParameter, InvalidRound, MatchEnd, MatchEndMode, RuleSet
from .scoring import Finish, HandScore, check_seats
from .violations import Violation


class MatchStatus(StrEnum):
    """A match is in progress until its match-end rule finishes it (docs/api.md#match-ledgers)."""

    IN_PROGRESS = "in_progress"
    FINISHED = "finished"


IN_PROGRESS, FINISHED = MatchStatus.IN_PROGRESS, MatchStatus.FINISHED


class MatchError(EngineError):
    """An event the match cannot take (a finished match, a buy-in the rules refuse) or a
    match setting out of range; ``code`` says which."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message, code=code, field=field)


def match_end_of(rules: RuleSet, overrides: Mapping[str, Any] | None = None) -> MatchEnd:
    """The match end in force: the rule set's (:attr:`.RuleSet.match_end`), with a match's
    own settings by their published names in place of its (a None value keeps the rule
    set's). A setting out of range is a :class:`MatchError` ``invalid-parameter`` naming it.

    >>> from .rules import CATALOG
    >>> match_end_of(CATALOG["kaluki-51"], {"match_end": "hands", "goal_points": None}).to_dict()
    ... # doctest: +NORMALIZE_WHITESPACE
    {'match_end': 'hands', 'goal_points': 500, 'elimination_over': 150, 'match_hands': 10,
     'buy_ins': False, 'buy_ins_max': 1, 'buy_in_min_players': 3}
    """
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        end = rules.match_end.with_overrides(given)
    except InvalidParameter as exc:
        raise MatchError("invalid-parameter", str(exc), exc.params["name"]) from None
    if (end.mode is MatchEndMode.CONTRACTS) is not rules.is_contract:
        reason = ("a contract rule set's match ends after its last contract (match_end "
                  "contracts)" if rules.is_contract else
                  "match_end contracts needs a rule set with contracts")
        raise MatchError("invalid-parameter", f"match_end: {reason}", "match_end")
    return replace(end, rounds=rules.rounds)


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    points: int = 0
    penalty: int = 0
    eliminated: bool = False
    hands_won: int = 0
    buy_ins: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "points": self.points, "penalty": self.penalty,
                "eliminated": self.eliminated, "hands_won": self.hands_won,
                "buy_ins": self.buy_ins}


@dataclass(frozen=True, slots=True)
class MatchState:
    standings: tuple[Standing, ...]
    hands_played: int = 0
    status: str = IN_PROGRESS
    winner: str | None = None
    co_winners: tuple[str, ...] = ()
    # (hand seq, seq of its latest correction), by hand seq (docs/api.md#scorekeeping corrected_by)
    corrected: tuple[tuple[int, int], ...] = ()
    voided_rounds: int = 0
    """Contract matches: rounds whose hand was voided (each used its deal,
    docs/api.md#contract-rule-sets)."""

    @property
    def rounds_dealt(self) -> int:
        """The rounds dealt so far: every hand entered, voided ones included."""
        return self.hands_played + self.voided_rounds

    def corrected_by(self, seq: int) -> int | None:
        return next((c for h, c in self.corrected if h == seq), None)

    @property
    def players(self) -> list[str]:
        return [s.player for s in self.standings]

    @property
    def active(self) -> list[str]:
        return [s.player for s in self.standings if not s.eliminated]

    def to_dict(self) -> dict[str, Any]:
        out = {"standings": [s.to_dict() for s in self.standings],
               "hands_played": self.hands_played, "status": self.status,
               "winner": self.winner, "co_winners": list(self.co_winners)}
        if self.corrected:
            out["corrected"] = [list(pair) for pair in self.corrected]
        if self.voided_rounds:
            out["voided_rounds"] = self.voided_rounds
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MatchState:
        return cls(standings=tuple(Standing(**s) for s in d["standings"]),
                   hands_played=d["hands_played"], status=d["status"], winner=d["winner"],
                   co_winners=tuple(d.get("co_winners", ())),
                   corrected=tuple((int(h), int(c)) for h, c in d.get("corrected", ())),
                   voided_rounds=int(d.get("voided_rounds", 0)))


def new_state(players: Sequence[str]) -> MatchState:
    """A match's first state; player ids normalised (:mod:`.players`)."""
    try:
        ids = player_ids(players, "players")
    except PlayerIdError as exc:
        raise MatchError(exc.code, str(exc), exc.field) from None
    return MatchState(tuple(Standing(p) for p in ids))


def new_match(players: Sequence[str], rules: RuleSet) -> MatchState:
    """A match's first state under ``rules``: as many players as the rule set seats
    (``players_min``..``players_max``, else :class:`.ScoringError` ``player-count``),
    their ids normalised (:func:`new_state`)."""
    check_seats(len(players), rules)
    return new_state(players)


def _ranked_best(standings: Sequence[Standing]) -> list[Standing]:
    """The players level at the top: most points, least penalty, most hands won."""
    def key(s: Standing) -> tuple[int, int, int]:
        return (-s.points, s.penalty, -s.hands_won)
    best = min(key(s) for s in standings)
    return [s for s in standings if key(s) == best]


def _finish(state: MatchState, contenders: Sequence[Standing]) -> MatchState:
    top = _ranked_best(contenders)
    if len(top) == 1:
        return replace(state, status=FINISHED, winner=top[0].player, co_winners=())
    return replace(state, status=FINISHED, winner=None, co_winners=tuple(s.player for s in top))


def provisional_winners(state: MatchState, end: MatchEnd) -> list[str]:
    """The winner(s) of the match, or of the match if it ended now (docs/api.md#scorekeeping
    settlement in progress): by the tie rule over every player (goal, hands), or over the players
    still in (elimination: least penalty, then most points, then most hands won)."""
    if state.status == FINISHED:
        return [state.winner] if state.winner is not None else list(state.co_winners)
    if end.mode == MatchEndMode.ELIMINATION:
        still_in = [s for s in state.standings if not s.eliminated] or list(state.standings)

        def key(s: Standing) -> tuple[int, int, int]:
            return (s.penalty, -s.points, -s.hands_won)
        best = min(key(s) for s in still_in)
        return [s.player for s in still_in if key(s) == best]
    return [s.player for s in _ranked_best(state.standings)]


def _require_open(state: MatchState) -> None:
    if state.status == FINISHED:
        raise MatchError("match-finished", "the match is finished; it takes no more hands or buy-ins")


def apply_hand(state: MatchState, end: MatchEnd, winner: str,
               scores: Sequence[tuple[str, int, int]], round: int | None = None) -> MatchState:
    """Add one scored hand ``(player, points, penalty)`` and settle the match end.

    The hand must be played by exactly the players still in the match; a ``round``
    (contract matches, docs/api.md#contract-rule-sets) must be the next one (else ``wrong-round``).
    """
    _require_open(state)
    _check_round(state, round)
    ids = [pid for pid, _, _ in scores]
    if sorted(ids) != sorted(state.active):
        raise MatchError("hand-players", "a hand is played by exactly the players still in the "
                         f"match ({', '.join(state.active)}), not {', '.join(ids)}",
                         "players")
    delta = {pid: (pts, pen) for pid, pts, pen in scores}
    standings = []
    for s in state.standings:
        if s.player in delta:
            pts, pen = delta[s.player]
            s = replace(s, points=s.points + pts, penalty=s.penalty + pen,
                        hands_won=s.hands_won + (s.player == winner))
        standings.append(s)
    state = replace(state, standings=tuple(standings), hands_played=state.hands_played + 1)
    return _settle(state, end)


def _check_round(state: MatchState, round: int | None) -> None:
    dealt = state.rounds_dealt
    if round is not None and round != dealt + 1:
        raise MatchError("wrong-round", f"this hand must be round {dealt + 1} (one more than "
                         f"the {dealt} hand(s) entered, voided ones included), not {round}",
                         "round")


def void_round(state: MatchState, end: MatchEnd, round: int | None = None) -> MatchState:
    """A contract round whose hand was voided: it scored nothing but used its deal, so the
    next hand is the round after it and the match may end with it
    (docs/api.md#contract-rule-sets)."""
    _require_open(state)
    _check_round(state, round)
    return _settle(replace(state, voided_rounds=state.voided_rounds + 1), end)


def _settle(state: MatchState, end: MatchEnd) -> MatchState:
    if end.mode == MatchEndMode.GOAL:
        if any(s.points >= end.goal_points for s in state.standings):
            return _finish(state, state.standings)
    elif end.mode == MatchEndMode.HANDS:
        if state.hands_played >= end.match_hands:
            return _finish(state, state.standings)
    elif end.mode == MatchEndMode.CONTRACTS:
        if state.rounds_dealt >= end.rounds:  # the last contract dealt: lowest penalty wins
            least = min(s.penalty for s in state.standings)
            top = [s.player for s in state.standings if s.penalty == least]
            if len(top) == 1:
                return replace(state, status=FINISHED, winner=top[0], co_winners=())
            return replace(state, status=FINISHED, winner=None, co_winners=tuple(top))
    else:  # MatchEndMode.ELIMINATION
        standings = tuple(replace(s, eliminated=True)
                          if not s.eliminated and s.penalty > end.elimination_over else s
                          for s in state.standings)
        state = replace(state, standings=standings)
        remaining = [s for s in standings if not s.eliminated]
        if len(remaining) == 1:
            return replace(state, status=FINISHED, winner=remaining[0].player, co_winners=())
        if not remaining:  # cannot happen with the catalog's scoring; least penalty wins
            return _finish(state, sorted(standings, key=lambda s: s.penalty)[:1])
    return state


def replay(players: Sequence[str], end: MatchEnd,
           events: Sequence[tuple[str, Any, Any]]) -> MatchState:
    """Fold ``("hand", winner, scores)`` and ``("buy-in", player, None)`` events from the start."""
    state = new_state(players)
    for kind, a, b in events:
        state = apply_hand(state, end, a, b) if kind == "hand" else apply_buy_in(state, end, a)
    return state


def apply_buy_in(state: MatchState, end: MatchEnd, player: str) -> MatchState:
    """An eliminated player buys back in at the highest penalty still in the match."""
    _require_open(state)
    try:
        player = player_id(player, "player")
    except PlayerIdError as exc:
        raise MatchError(exc.code, str(exc), exc.field) from None
    if end.mode != MatchEndMode.ELIMINATION or not end.buy_ins:
        raise MatchError("buy-ins-not-allowed", "this match allows no buy-ins")
    by_player = {s.player: s for s in state.standings}
    if player not in by_player:
        raise MatchError("unknown-player", f"{player!r} does not play in this match", "player")
    if not by_player[player].eliminated:
        raise MatchError("player-not-eliminated", f"{player!r} is still in the match")
    if by_player[player].buy_ins >= end.buy_ins_max:
        raise MatchError("buy-ins-exhausted", f"{player!r} has used the {end.buy_ins_max} "
                         f"buy-in(s) a player may make in this match")
    remaining = [s for s in state.standings if not s.eliminated]
    if len(remaining) + 1 < end.buy_in_min_players:
        raise MatchError("buy-ins-closed", f"a buy-in needs {end.buy_in_min_players} players at "
                         f"the table, counting the one buying in; {len(remaining) + 1} would be")
    top = max(s.penalty for s in remaining)
    standings = tuple(replace(s, eliminated=False, penalty=top, buy_ins=s.buy_ins + 1)
                      if s.player == player else s for s in state.standings)
    return replace(state, standings=standings)


# -- ledger entries: scoring a hand's input, re-scoring a whole ledger ----------------------

class EntryType(StrEnum):
    """What a ledger entry is (docs/api.md#match-ledgers, docs/api.md#scorekeeping)."""

    HAND = "hand"
    BUY_IN = "buy-in"
    CORRECTION = "correction"


class EntrySource(StrEnum):
    """How a hand (or its correction) was given: a scored hand, or a record adjudicated."""

    SCORE = "score"
    RECORD = "record"


SOURCES = tuple(EntrySource)


class EntryError(EngineError):
    """A hand's input that cannot be scored: ``field`` says where, ``cause`` is the
    engine's own error (a card, rule-set, scoring or record error), ``violation`` the
    first rule an illegal hand record breaks."""

    field: str

    def __init__(self, code: str, message: str, field: str, cause: ValueError | None = None,
                 violation: Violation | None = None) -> None:
        super().__init__(message, code=code, field=field)
        self.cause = cause
        self.violation = violation


@dataclass(frozen=True, slots=True)
class ScoredHand:
    """What one hand adds to a match: its winner, finish and every player's score."""

    winner: str
    finish: Finish
    score: HandScore
    round: int | None = None  # a contract match's round (docs/api.md#contract-rule-sets)

    @property
    def deltas(self) -> list[tuple[str, int, int]]:
        return [(s.id, s.points, s.penalty) for s in self.score.scores]

    def scores_data(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.score.scores]


def score_input(ruleset: Any, rules: RuleSet, source: EntrySource, body: Mapping[str, Any],
                field: str = "") -> ScoredHand:
    """Score a hand given as ``score`` (winner, finish, the cards each player holds; its
    shape already checked) or as a hand ``record`` (adjudicated; it must be legal and
    finished). Errors are :class:`EntryError` naming the field under ``field``."""
    def at(path: str) -> str:
        return f"{field}.{path}" if field and path else (field or path)

    round_ = body.get("round")
    if rules.is_contract or round_ is not None:  # the next round is apply_hand's to check
        if round_ is None or not isinstance(round_, int) or isinstance(round_, bool):
            try:
                rules.check_round(round_)
            except EngineError as exc:
                raise EntryError(exc.code, str(exc), at("round"), exc) from None
        elif not rules.is_contract:
            bad = InvalidRound(round_, 0)
            raise EntryError(bad.code, str(bad), at("round"), bad)
    if source == EntrySource.SCORE:  # scored as POST /v1/hands/score scores it
        try:
            score = rulings.score(rules, body["winner"], body["finish"], body["players"])
        except EngineError as exc:
            raise EntryError(exc.code, str(exc), exc.field or "players", exc) from None
        return ScoredHand(body["winner"], Finish(body["finish"]), score, round_)
    try:
        record = parse_record({**body, "ruleset": ruleset})  # the match's rule set, always
    except RecordError as exc:
        raise EntryError(exc.code, str(exc), at(exc.field), exc) from None
    except ValueError as exc:  # a card or rule-set error, with the field it was read at
        raise EntryError(getattr(exc, "code", "invalid-record"), str(exc),
                         at(getattr(exc, "field", "")), exc) from None
    adj = referee.adjudicate(record)
    if not adj.legal:
        raise EntryError("illegal-record", "The hand record breaks a rule; see 'violations'.",
                         field, violation=adj.violation)
    try:  # a record appended to a match must be legal and finished (the referee's rule)
        result = referee.finished_result(adj)
    except RecordError as exc:
        raise EntryError(exc.code, str(exc), at(exc.field), exc) from None
    return ScoredHand(result.winner, result.finish, result.score, round_)


# -- typed ledger events and corrections (docs/api.md#scorekeeping) ----------------------------

@dataclass(frozen=True, slots=True)
class HandEvent:
    """A scored hand as the ledger holds it: ``scores`` are ``(player, points, penalty)``."""

    seq: int
    winner: str
    scores: tuple[tuple[str, int, int], ...]
    finish: str = "out"
    special: bool = False
    round: int | None = None
    """Contract matches (docs/api.md#contract-rule-sets): the round it was dealt in."""


@dataclass(frozen=True, slots=True)
class BuyInEvent:
    seq: int
    player: str


@dataclass(frozen=True, slots=True)
class CorrectionEvent:
    """A correction of the hand ``corrects`` (always the original hand's seq): the hand as
    it should have been, or ``None`` when it is voided (it never counted)."""

    seq: int
    corrects: int
    hand: HandEvent | None


Event = HandEvent | BuyInEvent | CorrectionEvent


class ReplayError(MatchError):
    """Folding a ledger fails at entry ``seq`` (an entry the corrected ledger makes
    impossible); ``code`` is the refusal's own (``match-finished``, ``hand-players``,
    ``player-not-eliminated`` …)."""

    def __init__(self, code: str, message: str, seq: int, field: str | None = None) -> None:
        super().__init__(code, message, field)
        self.seq = seq


def _hand_event(seq: int, e: Mapping[str, Any]) -> HandEvent:
    given = e.get("input")
    round_ = given.get("round") if isinstance(given, Mapping) else None
    return HandEvent(seq, e["winner"], tuple((s["id"], s["points"], s["penalty"])
                                             for s in e["scores"]),
                     e.get("finish", "out"), bool(e.get("special", False)),
                     round_ if isinstance(round_, int) and not isinstance(round_, bool) else None)


def event_of(e: Mapping[str, Any]) -> Event:
    """The typed event of a stored ledger entry (as recorded: no re-scoring)."""
    seq = e["seq"]
    if e["type"] == EntryType.BUY_IN:
        return BuyInEvent(seq, e["player"])
    if e["type"] == EntryType.CORRECTION:
        return CorrectionEvent(seq, e["corrects"], None if e.get("void") else _hand_event(seq, e))
    return _hand_event(seq, e)


def effective(events: Iterable[Event]) -> list[HandEvent | BuyInEvent]:
    """The ledger as if every hand had been entered right: each hand in its place as its
    latest correction says (left out when voided), buy-ins in theirs, corrections gone.

    >>> h = HandEvent(0, "ann", (("ann", 5, 0), ("bob", 0, 3)))
    >>> fix = HandEvent(2, "bob", (("ann", 0, 4), ("bob", 6, 0)))
    >>> [e.winner for e in effective([h, BuyInEvent(1, "cy"), CorrectionEvent(2, 0, fix)])
    ...  if isinstance(e, HandEvent)]
    ['bob']
    >>> effective([h, CorrectionEvent(1, 0, None)])
    []
    """
    slots: dict[int, HandEvent | BuyInEvent | None] = {}
    for ev in events:
        if isinstance(ev, CorrectionEvent):
            slots[ev.corrects] = ev.hand
        else:
            slots[ev.seq] = ev
    return [ev for _, ev in sorted(slots.items()) if ev is not None]


def _corrections(events: Iterable[Event]) -> tuple[tuple[int, int], ...]:
    latest: dict[int, int] = {}
    for ev in events:
        if isinstance(ev, CorrectionEvent):
            latest[ev.corrects] = ev.seq
    return tuple(sorted(latest.items()))


def fold_events(players: Sequence[str], end: MatchEnd, events: Sequence[Event]) -> MatchState:
    """The match after ``events``, every correction applied: standings, match end,
    buy-ins (re-entering at the penalty the re-fold gives) and the winner are re-folded
    from the start. An event the folded match cannot take raises :class:`ReplayError`
    naming its seq (for a corrected hand, the original hand's seq).

    In a contract match (docs/api.md#contract-rule-sets) a voided hand still used its deal: the next
    hand is the round after it, and the match ends after the last round dealt; a correction keeps
    the corrected hand's round."""
    state = new_state(players)
    slots: dict[int, HandEvent | BuyInEvent | None] = {}
    rounds: dict[int, int | None] = {}
    for ev in events:
        if isinstance(ev, CorrectionEvent):
            slots[ev.corrects] = ev.hand
        else:
            slots[ev.seq] = ev
            if isinstance(ev, HandEvent):
                rounds[ev.seq] = ev.round
    for seq, slot in sorted(slots.items()):
        try:
            if slot is None:  # voided: it never counted (a contract round still used its deal)
                if end.mode is MatchEndMode.CONTRACTS:
                    state = void_round(state, end, rounds.get(seq))
            elif isinstance(slot, BuyInEvent):
                state = apply_buy_in(state, end, slot.player)
            else:
                round_ = rounds.get(seq) if end.mode is MatchEndMode.CONTRACTS else None
                state = apply_hand(state, end, slot.winner, slot.scores, round_)
        except MatchError as exc:
            raise ReplayError(exc.code, str(exc), seq, exc.field) from None
    corrected = _corrections(events)
    return replace(state, corrected=corrected) if corrected else state


def check_correction_target(entries: Sequence[Mapping[str, Any]], seq: int) -> int:
    """The original hand a correction of entry ``seq`` corrects: ``seq`` itself for a hand,
    the hand it corrects for a correction (a correction of a correction corrects the
    latest version of the same hand). A buy-in is not a hand: :class:`MatchError`
    ``invalid-correction``."""
    target = entries[seq]
    if target.get("type") == EntryType.CORRECTION:
        return int(target["corrects"])
    if target.get("type") != "hand":
        raise MatchError("invalid-correction", f"entry {seq} is a {target.get('type')}, not a "
                         "hand: only hands are corrected", "seq")
    return seq


def rescore(ruleset: Any, rules: RuleSet, players: Sequence[str], end: MatchEnd,
            entries: Sequence[Mapping[str, Any]]) -> MatchState:
    """Re-score every entry of a ledger under its rule set and replay the match.

    Each hand's (and each correction's) recorded winner, finish and scores must equal
    its re-score (else :class:`MatchError` ``rescore-mismatch``); a hand's input that
    cannot be scored raises :class:`EntryError` naming ``entries.<i>.input``. A
    correction must correct an earlier hand by its own seq, with a reason. The
    players must fit the rule set's seats (:func:`new_match`).
    """
    new_match(players, rules)
    events: list[Event] = []
    for i, e in enumerate(entries):
        where = f"entries.{i}"
        kind = e.get("type")
        if kind == EntryType.BUY_IN:
            if not isinstance(e.get("player"), str):
                raise MatchError("invalid-entry", f"entry {i} names no player", where)
            events.append(BuyInEvent(i, e["player"]))
            continue
        if kind == EntryType.CORRECTION:
            target = e.get("corrects")
            if (type(target) is not int or not 0 <= target < i
                    or entries[target].get("type") != "hand"
                    or not isinstance(e.get("reason"), str)):
                raise MatchError("invalid-entry", f"entry {i} is not a correction of an "
                                 "earlier hand", where)
            if e.get("void") is True:
                if any(k in e for k in ("input", "scores", "source")):
                    raise MatchError("invalid-entry", f"entry {i} voids and scores", where)
                events.append(CorrectionEvent(i, target, None))
                continue
        elif kind != "hand":
            raise MatchError("invalid-entry", f"entry {i} is neither a hand, a buy-in nor a "
                             "correction", where)
        body = e.get("input")
        if e.get("source") not in SOURCES:
            raise MatchError("invalid-entry", f"entry {i} has no source", where)
        if not isinstance(body, Mapping):
            raise MatchError("invalid-entry", f"entry {i} has no input", f"{where}.input")
        hand = score_input(ruleset, rules, EntrySource(e["source"]), body, f"{where}.input")
        if (hand.winner, hand.finish, hand.score.special, hand.scores_data()) != (
                e.get("winner"), e.get("finish"), e.get("special"), e.get("scores")):
            raise MatchError("rescore-mismatch", f"entry {i}: its recorded scores differ from "
                             "a re-score under the match's rule set", where)
        scored = HandEvent(i, hand.winner, tuple(hand.deltas), hand.finish, hand.score.special,
                           hand.round)
        events.append(scored if kind == EntryType.HAND
                      else CorrectionEvent(i, e["corrects"], scored))
    try:
        return fold_events(players, end, events)
    except ReplayError as exc:
        raise MatchError("rescore-mismatch", f"replaying the ledger fails at entry {exc.seq}: "
                         f"{exc}", "entries") from None


def fold(players: Sequence[str], end: MatchEnd,
         entries: Iterable[Mapping[str, Any]]) -> MatchState:
    """The state after ``entries`` as recorded (no re-scoring: they were scored when
    appended), corrections applied (:func:`fold_events`)."""
    return fold_events(players, end, [event_of(e) for e in entries])
