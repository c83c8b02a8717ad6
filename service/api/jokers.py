"""POST /v1/jokers/release (docs/api.md#joker-release,
docs/api.md#rulings-200-with-valid--legal)."""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, fields

from ..engine import rulings
from ..engine.rules import ReleasedJokerMode
from ..web.jsonio import json_response
from ..web.parsing import Blueprint, Bool, Int
from .common import (
    MeldSchema,
    StrictSchema,
    ViolationSchema,
    card_list,
    ruleset_field,
)
from .render import render_release

blp = Blueprint("jokers", __name__, url_prefix="/v1/jokers",
                description="Free jokers from melds on the table.")


class ReleaseSchema(StrictSchema):
    ruleset = ruleset_field()
    meld = card_list(required=True, ref="MeldCard", metadata={"example": ["7c", "7d", "JK"]})
    cards = card_list(1, required=True,
                      metadata={"example": ["7h", "7s"]})
    opened = Bool(load_default=True)


class ReleaseResponse(Schema):
    legal = Bool(required=True)
    released = Int(required=True, metadata={"description": "jokers freed"})
    meld = fields.Nested(MeldSchema, required=True)
    closed = Bool(required=True)
    must_use = fields.String(required=True, metadata={"enum": list(ReleasedJokerMode)})
    violations = fields.List(fields.Nested(ViolationSchema), required=True)


@blp.ruling("/release", ReleaseSchema(), ReleaseResponse)
def release(args: dict[str, Any]) -> Response:
    """Lay naturals on a meld to free its joker(s); says where a freed joker must go."""
    ruling = rulings.rule_release(args["ruleset"], args["meld"], args["cards"], args["opened"])
    return json_response(render_release(ruling))
