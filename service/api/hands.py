"""POST /v1/hands/score (docs/api.md#end-of-hand-scoring) and POST /v1/hands/analyze
(docs/api.md#analyzing-a-hand)."""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, fields, validate

from ..engine import rulings
from ..engine.scoring import FINISHES
from ..web.jsonio import json_response
from ..web.parsing import Blueprint, Bool, Int
from .common import (
    MeldSchema,
    StrictSchema,
    card_list,
    ruleset_field,
)
from .render import render_analysis, render_score

blp = Blueprint("hands", __name__, url_prefix="/v1/hands",
                description="Whole hands: score the end of a hand, find the best arrangement.")


class PlayerCardsSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    cards = card_list(required=True)


class ScoreSchema(StrictSchema):
    ruleset = ruleset_field()
    winner = fields.String(required=True, validate=validate.Length(min=1, max=64))
    finish = fields.String(required=True, validate=validate.OneOf(FINISHES))
    players = fields.List(fields.Nested(PlayerCardsSchema), required=True,
                          validate=validate.Length(min=1, max=16))
    round = Int(load_default=None, metadata={
        "description": "contract rule sets (SPEC §3.1), optional: the deal scored (1-based); in "
                       "a match, the next round"})


class PlayerScoreSchema(Schema):
    id = fields.String(required=True)
    hand_value = Int(required=True, metadata={
        "description": "penalty value of the cards the player still holds"})
    points = Int(required=True, metadata={"description": "added to match points"})
    penalty = Int(required=True, metadata={"description": "added to match penalty"})


class ScoreResponse(Schema):
    special = Bool(required=True)
    scores = fields.List(fields.Nested(PlayerScoreSchema), required=True)


@blp.ruling("/score", ScoreSchema(), ScoreResponse)
def score(args: dict[str, Any]) -> Response:
    """Score a finished hand from the cards each player still holds."""
    score = rulings.score(args["ruleset"], args["winner"], args["finish"], args["players"],
                          args["round"])
    return json_response(render_score(score))


class AnalyzeSchema(StrictSchema):
    ruleset = ruleset_field()
    cards = card_list(required=True, metadata={
        "description": "the hand: at most hand_size + 1 cards (a hand after its draw)",
        "example": ["9c", "Tc", "Jc", "Qc", "Kh", "Ks", "JK", "2d", "5s"]})
    opened = Bool(load_default=False, metadata={
        "description": "the player has already made their first meld: going out needs no "
                       "threshold and no special win is left (can_special false)"})
    round = Int(load_default=None, metadata={
        "description": "contract rule sets (SPEC §3.1): the deal, 1-based (required there, "
                       "refused elsewhere); the opening is then the round's contract"})


class AnalyzeResponse(Schema):
    melds = fields.List(fields.Nested(MeldSchema), required=True)
    deadwood = fields.List(fields.String(metadata={"x-ref": "Card"}), required=True)
    deadwood_value = Int(required=True)
    melded_count = Int(required=True)
    can_open = Bool(required=True)
    can_go_out = Bool(required=True)
    can_special = Bool(required=True)


@blp.ruling("/analyze", AnalyzeSchema(), AnalyzeResponse)
def analyze(args: dict[str, Any]) -> Response:
    """The best arrangement of a hand (lowest deadwood, then most cards melded), found
    exactly, and whether the player can open, go out, or win specially."""
    analysis = rulings.analyze(args["ruleset"], args["cards"], args["opened"], args["round"])
    return json_response(render_analysis(analysis))
