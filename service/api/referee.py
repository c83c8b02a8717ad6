"""POST /v1/hands/adjudicate, POST /v1/turns/check and POST /v1/turns/options: the hand
referee (docs/api.md#the-hand-record, docs/api.md#checking-one-turn,
docs/api.md#legal-next-plays).

Thin: reading bodies and rendering rulings. Every rule lives in
:mod:`service.engine.referee`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from flask import Response, request
from marshmallow import Schema, fields, validate

from ..engine import rulings
from ..engine.cards import CardError
from ..engine.errors import EngineError
from ..engine.melds import RUN_ENDS, MeldKind
from ..engine.notation import MEDIA_TYPE, line_of, text_to_data
from ..engine.options import TurnPhase
from ..engine.record import DrawSource
from ..engine.rules import RuleSetError
from ..engine.rulings import MAX_TABLE
from ..engine.scoring import Finish
from ..i18n import N_
from ..web.jsonio import json_response
from ..web.parsing import Blueprint, Bool, Int, hot
from .common import (
    MeldSchema,
    StrictSchema,
    TableMeldField,
    ViolationSchema,
    card_list,
    ruleset_field,
)
from .hands import PlayerScoreSchema
from .problems import MALFORMED_JSON, Problem, engine_problem
from .render import (
    render_adjudication,
    render_turn_check,
    render_turn_options,
)

blp = Blueprint("referee", __name__, url_prefix="/v1",
                description="The hand referee: adjudicate a recorded hand, check one turn.")

T = TypeVar("T")
MAX_CALLS = 100  # granted calls a player has made this deal (call_max is at most 10)

# -- documentation schemas ----------------------------------------------------------------

_CARDS = {"type": "array", "items": {"type": "string"}}
_PLAY = {"oneOf": [
    {"type": "object", "required": ["meld"], "properties": {"meld": {"oneOf": [
        _CARDS, {"type": "object", "properties": {
            "cards": _CARDS, "kind": {"type": "string", "enum": list(MeldKind)}}}]}}},
    {"type": "object", "required": ["build"], "properties": {"build": {
        "type": "object", "properties": {"meld": {"type": "integer"}, "cards": {
            "type": "array", "items": {"oneOf": [{"type": "string"}, {
                "type": "object", "properties": {"card": {"type": "string"},
                                                 "end": {"type": "string",
                                                         "enum": list(RUN_ENDS)}}}]}}}}}},
    {"type": "object", "required": ["release"], "properties": {"release": {
        "type": "object", "properties": {"meld": {"type": "integer"}, "cards": _CARDS}}}},
    {"type": "object", "required": ["lay"], "description": "contract rule sets: going down, the "
     "round's contract as one play (SPEC §3.1)", "properties": {"lay": {
         "type": "array", "items": {"oneOf": [_CARDS, {"type": "object", "properties": {
             "cards": _CARDS, "kind": {"type": "string", "enum": list(MeldKind)}}}]}}}},
    {"type": "object", "required": ["shift"], "description": "joker_shift run_end: the card "
     "takes the place of the run's joker that stands for it; the joker moves to an end",
     "properties": {"shift": {"type": "object", "properties": {
         "meld": {"type": "integer"}, "card": {"type": "string"},
         "end": {"type": "string", "enum": list(RUN_ENDS)}}}}},
]}
_CALL = {"type": "object", "required": ["player", "granted"], "description": (
    "contract rule sets: at the start of the turn, player asks for the discard pile's top card "
    "(SPEC §3.1)"), "properties": {
    "player": {"type": "string"}, "granted": {"type": "boolean"},
    "penalty": {**_CARDS, "description": "the penalty cards from the stock (named when the "
                                         "record has no stock)"}}}
_TURN = {"type": "object", "properties": {
    "player": {"type": "string"},
    "call": _CALL,
    "draw": {"type": "object", "properties": {
        "from": {"type": "string", "enum": list(DrawSource)}, "card": {"type": "string"}}},
    "plays": {"type": "array", "items": _PLAY},
    "discard": {"type": "string"},
    "restock": {**_CARDS, "description": "the new stock, top first, on the turn that draws "
                                         "from an empty stock"}}}


class ResultSchema(Schema):
    winner = fields.String(required=True)
    finish = fields.String(required=True, metadata={"enum": list(Finish)})
    special = Bool(required=True)
    scores = fields.List(fields.Nested(PlayerScoreSchema), required=True)


class HandCards(Schema):
    id = fields.String(required=True)
    cards = fields.List(fields.String(metadata={"x-ref": "Card"}), metadata={
        "description": "left out where the view hides them (?view= another player, "
                       "?spectator=true)"})
    count = Int(required=True, metadata={"description": "how many cards the player holds"})


class StateSchema(Schema):
    table = fields.List(fields.Nested(MeldSchema), required=True)
    hands = fields.List(fields.Nested(HandCards), required=True)
    stock_count = Int(required=True)
    discard_top = fields.String(allow_none=True, required=True)
    discard_count = Int(required=True)
    opened = fields.List(fields.String(), required=True,
                         metadata={"description": "players who have made their first meld"})
    turn = Int(required=True,
                          metadata={"description": "the turn the state stands before"})
    next_player = fields.String(allow_none=True, required=True)
    round = Int(metadata={"description": "contract rule sets only: the deal (1-based)"})
    contract = fields.String(metadata={"description": "contract rule sets only: the round's "
                                                      "contract (\"3344\")"})
    down = fields.List(fields.String(), metadata={
        "description": "contract rule sets only: the players who have gone down"})
    calls_made = fields.Dict(keys=fields.String(), values=Int(), metadata={
        "description": "contract rule sets only: each player's granted calls this deal"})


class StepSchema(Schema):
    turn = Int(allow_none=True,
                          metadata={"description": "the turn (index into turns); null: the deal"})
    played = fields.Dict(allow_none=True, metadata={
        **_TURN, "description": "that turn as the record gives it (canonical cards); null: the deal"})
    state = fields.Nested(StateSchema, metadata={
        "description": "the table after that turn (after the deal); for the violating turn, "
                       "the state just before the violation"})


class AdjudicationSchema(Schema):
    legal = Bool(required=True)
    violations = fields.List(fields.Nested(ViolationSchema), required=True,
                             metadata={"description": "the first violation, with turn and play"})
    result = fields.Nested(ResultSchema, allow_none=True, required=True,
                           metadata={"description": "null unless the hand is over"})
    state = fields.Nested(StateSchema, required=True)
    steps = fields.List(fields.Nested(StepSchema), metadata={
        "description": "only with ?steps=true: the deal, then one step per turn replayed"})


VIEW_PARAMETERS = [
    {"name": "view", "in": "query", "required": False, "schema": {"type": "string"},
     "description": "answer as this player sees the hand: their cards, and for everyone "
                    "else only how many cards they hold (in `state` and every step); another "
                    "player's stock draw shows no card, nor another caller's `penalty` cards (contract "
                    "rule sets). Not with `spectator`."},
    {"name": "spectator", "in": "query", "required": False,
     "schema": {"type": "boolean", "default": False},
     "description": "answer as a spectator sees the hand: no hand's cards, counts only"}]

STEPS_PARAMETER = {
    "name": "steps", "in": "query", "required": False,
    "schema": {"type": "boolean", "default": False},
    "description": "also answer `steps`: the state after the deal and after each turn "
                   "(for viewers that step through the hand)"}


class TurnCheckSchema(StrictSchema):
    ruleset = ruleset_field()
    table = fields.List(TableMeldField(metadata={"x-ref": "TableMeld"}), load_default=list,
                        validate=validate.Length(max=MAX_TABLE),
                        metadata={"description": "the melds on the table, numbered from 0 "
                                                 f"(at most {MAX_TABLE}: every card of the "
                                                 "largest deck in melds of two); a meld its "
                                                 "history closed is {\"cards\", \"closed\": true}"})
    hand = card_list(required=True, metadata={"description": "the player's hand before the draw"})
    opened = Bool(load_default=False)
    laid_before = Bool(load_default=False, metadata={"description": (
        "the player built or released in an earlier turn of this hand without opening "
        "(possible where build_requires_opening is false): going out this turn is then "
        "\"out\", not special (SPEC §3). Implied by opened.")})
    discard_top = fields.String(load_default=None, allow_none=True)
    round = Int(load_default=None, allow_none=True, metadata={"description": (
        "contract rule sets (required there, refused elsewhere): the deal, 1-based")})
    players = fields.List(fields.String(), load_default=None, allow_none=True,
                          validate=validate.Length(min=1, max=16), metadata={"description": (
        "contract rule sets, for calls: the seats in turn order, starting with the player whose "
        "turn it is (the last seat discarded discard_top); without it no call is possible")})
    down = fields.List(fields.String(), load_default=list, validate=validate.Length(max=16),
                       metadata={"description": "the other players who have gone down "
                                                "(opened says whether this player has)"})
    calls_made = fields.Dict(load_default=dict, metadata={
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": MAX_CALLS},
        "description": "each player's granted calls this deal ({player: count})"})
    turn = fields.Dict(required=True, metadata={**_TURN, "example": {
        "draw": {"from": "stock", "card": "Qs"}, "plays": [{"meld": ["Ks", "Kh", "Kd"]}],
        "discard": "3d"}})


class TurnCheckResponse(Schema):
    legal = Bool(required=True)
    violations = fields.List(fields.Nested(ViolationSchema), required=True)
    table = fields.List(fields.Nested(MeldSchema), required=True)
    hand = fields.List(fields.String(metadata={"x-ref": "Card"}), required=True)
    opened = Bool(required=True)
    finished = Bool(required=True)
    finish = fields.String(allow_none=True, required=True,
                           metadata={"enum": [*Finish, None]})


# -- helpers ---------------------------------------------------------------------------

def _engine(fn: Callable[[], T]) -> T:
    """Run an engine reader; its errors become 422 problems naming the field."""
    try:
        return fn()
    except (CardError, RuleSetError) as exc:
        raise exc.at("record") from None


def _read_record_body(lines: dict[str, int] | None = None) -> dict[str, Any]:
    """The record's JSON form; for the text notation ``lines`` gets each field's line."""
    raw = request.get_data(cache=True)
    if request.mimetype == MEDIA_TYPE:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Problem("invalid-notation", "the hand record is not UTF-8 text",
                          errors={"body": ["not UTF-8"]}) from None
        return _engine(lambda: text_to_data(text, lines))
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Problem("malformed-json", MALFORMED_JSON) from None
    if not isinstance(data, dict):
        raise Problem("validation-error", "a hand record is a JSON object",
                      errors={"body": ["a hand record is a JSON object"]})
    return data


# -- endpoints -------------------------------------------------------------------------

def _with_line(fn: Callable[[], T], lines: dict[str, int] | None) -> T:
    """Run ``fn``; a problem about a record read from notation (``lines`` not None: the
    line of each field) also names its ``line``."""
    try:
        return fn()
    except (Problem, EngineError) as exc:
        problem = exc if isinstance(exc, Problem) else engine_problem(exc)
        fields_named = list(problem.errors or ())
        if lines is not None and fields_named and "line" not in problem.extra:
            field = fields_named[0]
            line = (int(field[5:]) if field.startswith("line ") and field[5:].isdigit()
                    else line_of(lines, field))
            if line is not None:
                problem.extra["line"] = line
        raise problem from None


def _flag(name: str) -> bool:
    value = request.args.get(name, "false")
    if value not in ("true", "false"):
        raise Problem("validation-error", N_("The request does not match the schema; see 'errors'."),
                      errors={f"query.{name}": ["Not a valid boolean: write true or false."]})
    return value == "true"


def _steps_asked() -> bool:
    """``?steps=true`` (read by hand: a query schema cost every adjudication ~80 µs)."""
    if not request.environ.get("QUERY_STRING"):
        return False
    return _flag("steps")


def _view_asked() -> tuple[str | None, bool]:
    """``?view=P`` and ``?spectator=true`` (docs/api.md#views): not both."""
    if not request.environ.get("QUERY_STRING"):
        return None, False
    view = request.args.get("view")
    spectator = _flag("spectator")
    if view is not None and spectator:
        raise Problem("validation-error", N_("The request does not match the schema; see 'errors'."),
                      errors={"query": ["view and spectator exclude each other: give one"]})
    return view, spectator


@blp.route("/hands/adjudicate", methods=["POST"])
@blp.doc(parameters=[STEPS_PARAMETER, *VIEW_PARAMETERS], requestBody={"required": True, "content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/HandRecord"}},
    MEDIA_TYPE: {"schema": {"type": "string", "description": "the hand in text notation "
                                                             "(docs/notation.md)"}}}})
@blp.response(200, AdjudicationSchema)
def adjudicate() -> Response:
    """Replay a recorded hand: the first violation with the state just before it, or the
    winner, the finish and the scores. Also accepts the text notation (text/vnd.kaluki.hand);
    a problem about a notation record names its `line`. `?steps=true` adds the state after
    the deal and after each turn."""
    steps = _steps_asked()
    view, spectator = _view_asked()
    lines: dict[str, int] | None = {} if request.mimetype == MEDIA_TYPE else None
    data = _with_line(lambda: _read_record_body(lines), lines)
    answer = _with_line(lambda: rulings.adjudicate(data, steps, view, spectator), lines)
    return json_response(render_adjudication(answer))


def _turn_request(args: dict[str, Any]) -> rulings.TurnRequest:
    return rulings.TurnRequest(
        args["ruleset"], args["table"], args["hand"], args["opened"], args["discard_top"],
        args["turn"], args["laid_before"], round=args["round"], players=args["players"],
        down=args["down"], calls_made=args["calls_made"])


def _check_calls_made(args: dict[str, Any]) -> None:
    """``calls_made``'s counts (an untyped Dict keeps the fast loader)."""
    for name, count in args["calls_made"].items():
        if type(count) is not int or not 0 <= count <= MAX_CALLS:
            raise Problem("validation-error", N_("The request does not match the schema; see "
                                                 "'errors'."),
                          errors={f"calls_made.{name}": [
                              f"an integer from 0 to {MAX_CALLS}: the player's granted calls"]})


@blp.route("/turns/check", methods=["POST"])
@blp.arguments(TurnCheckSchema())
@blp.response(200, TurnCheckResponse)
@hot
def check_turn(args: dict[str, Any]) -> Response:
    """Rule on one turn, statelessly: table, the player's hand before the draw, whether
    they have opened and the discard pile's top card."""
    _check_calls_made(args)
    return json_response(render_turn_check(rulings.check_turn(_turn_request(args))))


# -- legal next plays (docs/api.md#legal-next-plays) -------------------

class TurnOptionsSchema(TurnCheckSchema):
    turn = fields.Dict(load_default=dict, metadata={**_TURN, "description": (
        "the turn so far: it may be unfinished (no draw yet, some plays, no discard); "
        "{} or left out: the turn has not started"), "example": {
        "draw": {"from": "stock", "card": "Qs"}, "plays": [{"meld": ["Ks", "Kh", "Kd"]}]}})


class HintSchema(Schema):
    melds = fields.List(fields.Nested(MeldSchema), required=True)
    deadwood = fields.List(fields.String(metadata={"x-ref": "Card"}), required=True)
    deadwood_value = Int(required=True)
    can_go_out = Bool(required=True, metadata={
        "description": "the player can still go out this turn with the cards held (as "
                       "/hands/analyze: builds on table melds are not counted; before the "
                       "draw: every card held melds, and the card drawn is discarded)"})


class TurnOptionsResponse(Schema):
    legal = Bool(required=True)
    violations = fields.List(fields.Nested(ViolationSchema), required=True)
    phase = fields.String(required=True, metadata={"enum": list(TurnPhase)})
    options = fields.List(fields.Dict(metadata={"x-ref": "Option"}), required=True, metadata={
        "description": "every legal next play, each in the hand record's own shape "
                       "(empty when the turn is not legal or has ended)"})
    can_end = Bool(required=True, metadata={
        "description": "the turn could end now without another play (a discard is listed, "
                       "or the turn has ended); false in the draw phase"})
    hint = fields.Nested(HintSchema, allow_none=True, required=True, metadata={
        "description": "the best arrangement of the cards held now (null when the turn "
                       "is not legal)"})
    callers = fields.List(fields.String(), metadata={"description": (
        "contract rule sets only (SPEC §3.1): the players who may call the discard pile's top "
        "card now, before this turn's draw ([] when none, or once the turn has its call or "
        "its draw)")})


@blp.route("/turns/options", methods=["POST"])
@blp.arguments(TurnOptionsSchema())
@blp.response(200, TurnOptionsResponse)
@hot
def turn_options(args: dict[str, Any]) -> Response:
    """Every legal next play of an unfinished turn (draws, melds, one-card builds, releases,
    discards; in a contract rule set the lay, shifts and `callers`, with `round`, `players`,
    `down` and `calls_made` as /turns/check takes them), ruled by the engine that rules
    /turns/check, and a hint: the best arrangement of the cards held now."""
    _check_calls_made(args)
    return json_response(render_turn_options(rulings.turn_options(_turn_request(args))))
