"""The questions the service answers, one function each.

Each function takes a request's values as the client wrote them (a rule-set
name or ``{"base", "overrides"}``, card strings), and does all of a ruling's
work: it resolves the rule set, reads every card (an error names its place:
``cards.3``), checks that the cards can come from one deck, rules, and returns
the complete answer as a typed value, so the caller only renders it. A meld in
an answer is a :class:`Shown`: the meld and whether it is closed under the
rules it was ruled by, so the renderer needs no rule set.

>>> r = rule_meld("kaluki-hunt", ["Jd", "JK", "Kd"])
>>> r.valid, str(r.meld.meld), r.meld.closed
(True, 'Jd JK=Qd Kd', False)
>>> try:
...     rule_meld("kaluki-hunt", ["Jd", "Qz"])
... except CardError as exc:
...     exc.code, exc.field
('invalid-card', 'cards.1')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from . import contracts, referee
from . import melds as m
from . import options as opt
from .cards import Card, CardError, MeldCard, check_deck, parse_card, parse_meld_card, read_each
from .errors import EngineError
from .options import Hint, Option, TurnPhase
from .record import Turn, parse_record, parse_turn, record_to_data
from .referee import Adjudication, HandState, TurnCheck
from .rules import ReleasedJokerMode, RuleSet, RuleSetError, resolve
from .scoring import HandScore, score_hand
from .solver import WORK_BUDGET, Analysis, HandTooLarge
from .solver import analyze as solve
from .violations import Violation

MAX_CARDS = 120
"""More cards than any request needs: more than two full decks with jokers (the API's
schemas refuse longer lists before any ruling)."""

MAX_TABLE = 108
"""More melds than any table holds: the largest deck (4 decks and 10 jokers) in melds of two."""

T = TypeVar("T")


# -- reading a request's values --------------------------------------------------------

def rules_at(spec: object, field: str = "ruleset") -> RuleSet:
    """The rule set a request names; an error names ``field``."""
    try:
        return resolve(spec)
    except RuleSetError as exc:
        raise exc.at(field) from None


def cards_at(texts: Sequence[object], field: str) -> list[Card]:
    """Every card of a list; a bad one raises its error located at its place (``cards.3``)."""
    return read_each(texts, field, parse_card)


def meld_cards_at(texts: Sequence[object], field: str) -> list[MeldCard]:
    """Every card of a meld as written (``JK=7h`` allowed), located like :func:`cards_at`."""
    return read_each(texts, field, parse_meld_card)


def deck_at(cards: Sequence[Card], rules: RuleSet, field: str) -> None:
    """The cards can all come from one deck of the rule set (else ``impossible-cards``
    at ``field``)."""
    try:
        # no seat count: the largest deck (docs/api.md#contract-rule-sets)
        check_deck(cards, *rules.deck_for(None))
    except CardError as exc:
        raise exc.at(field) from None


def table_meld_at(texts: Sequence[object], rules: RuleSet, field: str) -> m.Meld:
    """A meld said to be on the table: read like :func:`rule_meld`, and it must be legal
    (else :class:`.melds.InvalidMeld` located at ``field``).

    A table is sent again on every turn of a hand, so the melds read are remembered
    (:data:`TABLE_MELDS`): per rule set, by identity, and by the cards as written. Only a
    meld that was read is remembered (a refusal is worked out again, to name its field);
    the meld is immutable, and reading it again would give an equal one.
    """
    key = (id(rules), *texts) if all(type(t) is str for t in texts) else None
    if key is not None:
        known = TABLE_MELDS.get(key)
        if known is not None and known[0] is rules:
            return known[1]
    tokens = meld_cards_at(texts, field)
    try:
        meld = m.table_meld(tokens, rules)
    except (CardError, m.InvalidMeld) as exc:
        raise exc.at(field) from None
    if key is not None:
        if len(TABLE_MELDS) >= TABLE_MELDS_MAX:
            TABLE_MELDS.clear()
        TABLE_MELDS[key] = (rules, meld)
    return meld


TABLE_MELDS: dict[tuple[object, ...], tuple[RuleSet, m.Meld]] = {}
"""Table melds read (:func:`table_meld_at`): (id of the rule set, the cards as written) →
(the rule set, the meld). The rule set is kept beside its id so that a new rule set at a
recycled id never meets another's melds."""

TABLE_MELDS_MAX = 8192
"""Melds remembered at most (about 500 bytes each: some 4 MB); then the memory starts afresh."""


def table_entry_at(value: object, rules: RuleSet, field: str) -> m.Meld:
    """A table meld as a request gives it: its cards, or ``{"cards", "closed"}`` when its
    history closed it (a closed meld frees no joker, whatever its cards;
    docs/api.md#checking-one-turn)."""
    if isinstance(value, dict):
        meld = table_meld_at(value["cards"], rules, f"{field}.cards")
        return replace(meld, locked=True) if value["closed"] else meld
    assert isinstance(value, Sequence)
    return table_meld_at(value, rules, field)


# -- the answers ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Shown:
    """A meld as an answer shows it: the meld, and whether no joker can ever be released
    from it under the rules it was ruled by (docs/api.md#melds ``closed``)."""

    meld: m.Meld
    closed: bool


def shown(meld: m.Meld, rules: RuleSet) -> Shown:
    return Shown(meld, m.is_closed(meld, rules))


@dataclass(frozen=True, slots=True)
class MeldAnswer:
    """``POST /v1/melds/validate``."""

    valid: bool
    meld: Shown | None
    alternatives: tuple[Shown, ...]
    violations: tuple[Violation, ...]


@dataclass(frozen=True, slots=True)
class OpeningAnswer:
    """``POST /v1/melds/opening``."""

    valid: bool
    points: int
    threshold: int | None
    melds: tuple[Shown | None, ...]
    violations: tuple[Violation, ...]
    contract: str | None = None
    """With a round (a lay): the round's contract, its digits."""


@dataclass(frozen=True, slots=True)
class BuildAnswer:
    """``POST /v1/melds/build``: the resulting meld (unchanged when not valid)."""

    valid: bool
    meld: Shown
    violations: tuple[Violation, ...]


@dataclass(frozen=True, slots=True)
class ReleaseAnswer:
    """``POST /v1/jokers/release``: ``must_use`` is where a freed joker must go."""

    legal: bool
    released: int
    meld: Shown
    must_use: ReleasedJokerMode
    violations: tuple[Violation, ...]


@dataclass(frozen=True, slots=True)
class AnalysisAnswer:
    """``POST /v1/hands/analyze``: the best arrangement and what the hand can do."""

    melds: tuple[Shown, ...]
    analysis: Analysis


# -- the rulings ----------------------------------------------------------------------

def rule_meld(ruleset: object, cards: Sequence[object], kind: str | None = None) -> MeldAnswer:
    """Is this a legal meld, which reading, what does each joker stand for (docs/api.md#melds)?"""
    rules = rules_at(ruleset)
    tokens = meld_cards_at(cards, "cards")
    deck_at(m.validate_deck(tokens), rules, "cards")
    r = m.validate(tokens, rules, kind)
    return MeldAnswer(r.valid, shown(r.meld, rules) if r.meld else None,
                      tuple(shown(a, rules) for a in r.alternatives), tuple(r.violations))


def rule_opening(ruleset: object, melds: Sequence[Mapping[str, Any]],
                 round_: int | None = None) -> OpeningAnswer:
    """Do these melds, laid together as a first meld, reach the opening threshold? In a
    contract rule set (``round_``) they are a lay, checked against the round's contract
    (docs/api.md#contract-rule-sets: ``threshold`` None, ``contract`` its digits). ``melds``: each
    ``{"cards": [...], "kind": "set" | "run" | None}``."""
    rules = rules_at(ruleset)
    token_lists = [meld_cards_at(e["cards"], f"melds.{i}") for i, e in enumerate(melds)]
    if sum(len(t) for t in token_lists) > MAX_CARDS:
        raise EngineError("too many cards", code="validation-error", field="melds")
    round_ = rules.check_round(round_)  # round-required / invalid-round
    deck_at(m.opening_deck(token_lists), rules, "melds")
    kinds = [e.get("kind") for e in melds]
    if round_ is not None:
        lay = contracts.lay(token_lists, rules, round_, kinds)
        return OpeningAnswer(lay.valid, lay.points, None,
                             tuple(shown(x, rules) if x else None for x in lay.melds),
                             tuple(lay.violations), lay.contract)
    r = m.opening(token_lists, rules, kinds)
    return OpeningAnswer(r.valid, r.points, r.threshold,
                         tuple(shown(x, rules) if x else None for x in r.melds),
                         tuple(r.violations))


def rule_build(ruleset: object, meld: Sequence[object], cards: Sequence[Mapping[str, Any]],
               opened: bool = True) -> BuildAnswer:
    """Add cards to a meld on the table. ``cards``: each ``{"card": text, "end": "low" |
    "high" | None}``."""
    rules = rules_at(ruleset)
    table = table_meld_at(meld, rules, "meld")
    added = meld_cards_at([c["card"] for c in cards], "cards")
    deck_at(m.build_deck(table, added), rules, "cards")
    placed = [m.Placed(t, c.get("end")) for t, c in zip(added, cards, strict=True)]
    r = m.build(table, placed, rules, opened)
    return BuildAnswer(r.valid, shown(r.meld, rules), tuple(r.violations))


def rule_release(ruleset: object, meld: Sequence[object], cards: Sequence[object],
                 opened: bool = True) -> ReleaseAnswer:
    """Lay naturals on a table meld to free its jokers (docs/api.md#joker-release)."""
    rules = rules_at(ruleset)
    table = table_meld_at(meld, rules, "meld")
    laid = cards_at(cards, "cards")
    deck_at(m.release_deck(table, laid), rules, "cards")
    r = m.release(table, laid, rules, opened)
    return ReleaseAnswer(r.legal, r.released, shown(r.meld, rules), rules.released_joker,
                         tuple(r.violations))


def score(ruleset: object | RuleSet, winner: str, finish: str,
          players: Sequence[Mapping[str, Any]], round_: int | None = None) -> HandScore:
    """Score a finished hand from the cards each player still holds
    (docs/api.md#end-of-hand-scoring). ``players``: each ``{"id", "cards"}``; a match ledger passes
    its resolved rule set (and checks the round itself). ``round_``, optional in a contract rule
    set, must be one of its rounds (``invalid-round``)."""
    rules = ruleset if isinstance(ruleset, RuleSet) else rules_at(ruleset)
    if round_ is not None:
        rules.check_round(round_)
    hands = [(p["id"], cards_at(p["cards"], f"players.{i}.cards")) for i, p in enumerate(players)]
    try:
        return score_hand(rules, winner, finish, hands)
    except EngineError as exc:
        raise exc.at("players") from None


def analyze(ruleset: object, cards: Sequence[object], opened: bool = False,
            round_: int | None = None) -> AnalysisAnswer:
    """The best arrangement of a hand, found exactly (docs/api.md#analyzing-a-hand); in a
    contract rule set ``round_`` picks the contract (docs/api.md#contract-rule-sets)."""
    rules = rules_at(ruleset)
    hand = cards_at(cards, "cards")
    try:
        a = solve(hand, rules, opened, round=round_)
    except HandTooLarge as exc:
        raise exc.at("cards") from None
    return AnalysisAnswer(tuple(shown(x, rules) for x in a.melds), a)


# -- turns -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """``POST /v1/turns/check``: the turn's ruling, the table after it (each meld shown)."""

    check: TurnCheck
    table: tuple[Shown, ...]


@dataclass(frozen=True, slots=True)
class OptionsAnswer:
    """``POST /v1/turns/options``: the turn so far ruled, then every legal next play, whether
    the turn could end now, the hint (its melds shown) and, in a contract rule set, who may
    call the discard now (``callers``; None elsewhere)."""

    violation: Violation | None
    phase: TurnPhase
    options: tuple[Option, ...]
    can_end: bool
    hint: Hint | None
    hint_melds: tuple[Shown, ...]
    callers: tuple[str, ...] | None

    @property
    def legal(self) -> bool:
        return self.violation is None

    @property
    def options_data(self) -> list[dict[str, Any]]:
        """Each option in the hand record's own shape (docs/api.md#legal-next-plays)."""
        return [opt.option_to_data(o) for o in self.options]


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """What ``/turns/check`` and ``/turns/options`` both take, as the client wrote it."""

    ruleset: object
    table: Sequence[object]
    hand: Sequence[object]
    opened: bool
    discard_top: object | None
    turn: Mapping[str, Any]
    laid_before: bool = False
    round: int | None = None
    players: Sequence[str] | None = None
    down: Sequence[str] = ()
    calls_made: Mapping[str, int] | None = None


def _read_turn(req: TurnRequest) -> tuple[RuleSet, list[m.Meld], list[Card], Card | None, Turn]:
    rules = rules_at(req.ruleset)
    table = [table_entry_at(x, rules, f"table.{i}") for i, x in enumerate(req.table)]
    hand = cards_at(req.hand, "hand")
    top = cards_at([req.discard_top], "discard_top")[0] if req.discard_top else None
    try:
        turn = parse_turn(req.turn, "turn")
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None
    return rules, table, hand, top, turn


def check_turn(req: TurnRequest) -> TurnAnswer:
    """Rule on one complete turn, statelessly (docs/api.md#checking-one-turn)."""
    rules, table, hand, top, turn = _read_turn(req)
    try:
        checked = referee.check_turn(rules, table, hand, req.opened, top, turn, req.laid_before,
                                     round=req.round, players=req.players, down=req.down,
                                     calls_made=req.calls_made)
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None
    return TurnAnswer(checked, tuple(shown(x, rules) for x in checked.table))


def turn_options(req: TurnRequest) -> OptionsAnswer:
    """Every legal next play of an unfinished turn (docs/api.md#legal-next-plays), ruled by the
    game that rules ``/turns/check``; the listing and the hint share the solver's budget."""
    rules, table, hand, top, turn = _read_turn(req)
    if not rules.is_contract and len(hand) > rules.hand_size + 1:  # contracts: as /turns/check
        raise HandTooLarge(rules, len(hand), "hand")
    try:
        game = referee.turn_game(rules, table, hand, req.opened, top, turn.player or None,
                                 req.laid_before, round=req.round, players=req.players,
                                 down=req.down, calls_made=req.calls_made)
        player = turn.player or game.players[0]
        turn = Turn(player, turn.draw, turn.plays, turn.discard, turn.restock, turn.call)
        violation = referee.play_turn_so_far(game, turn)
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None
    phase = opt.turn_phase(game, 0)
    if violation is not None:
        return OptionsAnswer(violation, phase, (), False, None, (),
                             () if rules.is_contract else None)
    ended = phase is TurnPhase.ENDED
    work = opt.Work(WORK_BUDGET)
    options = [] if ended else opt.legal_actions(game, work)
    hint = opt.hint(game, ended, work)
    return OptionsAnswer(None, phase, tuple(options), opt.can_end(game, options, ended), hint,
                         tuple(shown(x, rules) for x in hint.analysis.melds) if hint else (),
                         tuple(opt.callers(game)) if rules.is_contract else None)


# -- whole hands -------------------------------------------------------------------------

class UnknownView(EngineError):
    """``?view=P`` names no player of the record (docs/api.md#views)."""

    code = "unknown-player"

    def __init__(self, view: str) -> None:
        super().__init__(f"{view!r} is not a player of this hand", field="query.view",
                         params={"player": view})


@dataclass(frozen=True, slots=True)
class Step:
    """One step of ``?steps=true``: the turn (None: the deal), that turn as recorded (its
    JSON form), the state after it and its table shown."""

    turn: int | None
    played: Mapping[str, Any] | None
    state: HandState
    table: tuple[Shown, ...]


@dataclass(frozen=True, slots=True)
class AdjudicationAnswer:
    """``POST /v1/hands/adjudicate``: the ruling, the state's table shown, the steps when
    asked, and whose cards the answer shows (``shown``: None for the referee's view)."""

    adjudication: Adjudication
    table: tuple[Shown, ...]
    steps: tuple[Step, ...] | None
    shown: frozenset[str] | None


def adjudicate(data: Mapping[str, Any], steps: bool = False, view: str | None = None,
               spectator: bool = False) -> AdjudicationAnswer:
    """Replay a recorded hand (its JSON form) and rule on it (docs/api.md#the-hand-record); ``view``
    / ``spectator`` say whose cards the answer may show (docs/api.md#views)."""
    try:
        record = parse_record(data)
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None
    if spectator:
        who: frozenset[str] | None = frozenset()
    elif view is None:
        who = None
    elif view not in record.players:
        raise UnknownView(view)
    else:
        who = frozenset((view,))
    rules = record.rules
    states: list[HandState] | None = [] if steps else None
    try:
        a = referee.adjudicate(record, states)
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None
    table = tuple(shown(x, rules) for x in a.state.table)
    if states is None:
        return AdjudicationAnswer(a, table, None, who)
    played = record_to_data(record)["turns"]
    return AdjudicationAnswer(a, table, tuple(
        Step(k - 1 if k else None, played[k - 1] if k else None, state,
             tuple(shown(x, rules) for x in state.table))
        for k, state in enumerate(states)), who)
