"""POST /v1/hands/score (SPEC §6)."""

from __future__ import annotations

from typing import Any

from flask import current_app
from marshmallow import Schema, fields, validate

from ..engine.scoring import FINISHES, ScoringError, score_hand
from .common import StrictSchema, card_list, cards_at, rules_of, ruleset_field
from .jsonio import dumps
from .parsing import Blueprint
from .problems import from_engine

blp = Blueprint("hands", __name__, url_prefix="/v1/hands",
                description="Whole hands: score the end of a hand.")


class PlayerCardsSchema(StrictSchema):
    id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    cards = card_list(required=True)


class ScoreSchema(StrictSchema):
    ruleset = ruleset_field()
    winner = fields.String(required=True, validate=validate.Length(min=1, max=64))
    finish = fields.String(required=True, validate=validate.OneOf(FINISHES))
    players = fields.List(fields.Nested(PlayerCardsSchema), required=True,
                          validate=validate.Length(min=1, max=16))


class PlayerScoreSchema(Schema):
    id = fields.String()
    hand_value = fields.Integer()
    points = fields.Integer()
    penalty = fields.Integer()


class ScoreResponse(Schema):
    special = fields.Boolean()
    scores = fields.List(fields.Nested(PlayerScoreSchema))


def score_body(args: dict[str, Any], rules: Any) -> dict[str, Any]:
    """Score a /hands/score body (also used by match ledgers)."""
    players = [(p["id"], cards_at(p["cards"], f"players.{i}.cards"))
               for i, p in enumerate(args["players"])]
    try:
        result = score_hand(rules, args["winner"], args["finish"], players)
    except (ScoringError, ValueError) as exc:
        raise from_engine(exc, "players") from None
    return {"special": result.special,
            "scores": [{"id": s.id, "hand_value": s.hand_value, "points": s.points,
                        "penalty": s.penalty} for s in result.scores]}


@blp.route("/score", methods=["POST"])
@blp.arguments(ScoreSchema())  # an instance: webargs would build one per request from a class
@blp.response(200, ScoreResponse)
def score(args: dict[str, Any]):
    """Score a finished hand from the cards each player still holds."""
    rules = rules_of(args["ruleset"])
    return current_app.response_class(dumps(score_body(args, rules)), mimetype="application/json")
