"""POST /v1/melds/validate, /v1/melds/opening, /v1/melds/build (docs/api.md#melds,
docs/api.md#rulings-200-with-valid--legal)."""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, ValidationError, fields, validate

from ..engine import rulings
from ..engine.melds import RUN_ENDS, MeldKind
from ..engine.rulings import MAX_CARDS
from ..web.jsonio import json_response
from ..web.parsing import Blueprint, Bool, FastField, Int
from .common import (
    MeldSchema,
    StrictSchema,
    ViolationSchema,
    card_list,
    ruleset_field,
)
from .render import render_build, render_meld_ruling, render_opening

blp = Blueprint("melds", __name__, url_prefix="/v1/melds",
                description="Rule on melds: one meld, an opening, a build.")

KIND = fields.String(validate=validate.OneOf(list(MeldKind)), load_default=None,
                     metadata={"description": "read the cards as this kind only"})


class ValidateSchema(StrictSchema):
    ruleset = ruleset_field()
    cards = card_list(required=True, ref="MeldCard", metadata={"example": ["Jd", "JK", "Kd"]})
    kind = KIND


class ValidateResponse(Schema):
    valid = Bool(required=True)
    meld = fields.Nested(MeldSchema, allow_none=True, required=True,
                         metadata={"description": "the reading (null when there is none)"})
    alternatives = fields.List(fields.Nested(MeldSchema), required=True,
                               metadata={"description": "other legal readings"})
    violations = fields.List(fields.Nested(ViolationSchema), required=True)


@blp.ruling("/validate", ValidateSchema(), ValidateResponse)
def validate_meld(args: dict[str, Any]) -> Response:
    """Is this a legal meld? Which kind, what do its jokers stand for, what is it worth?"""
    ruling = rulings.rule_meld(args["ruleset"], args["cards"], args["kind"])
    return json_response(render_meld_ruling(ruling))


class MeldEntry(FastField):
    """A meld in an opening: a list of cards, or ``{"cards": [...], "kind": "set"|"run"}``."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, list) and all(isinstance(c, str) for c in value):
            return {"cards": value, "kind": None}
        if isinstance(value, dict) and set(value) <= {"cards", "kind"} and isinstance(
                value.get("cards"), list) and all(isinstance(c, str) for c in value["cards"]) \
                and value.get("kind") in (None, "set", "run"):
            return {"cards": value["cards"], "kind": value.get("kind")}
        raise ValidationError("a meld is a list of cards or {\"cards\": [...], \"kind\": \"set\"|\"run\"}")


class OpeningSchema(StrictSchema):
    ruleset = ruleset_field()
    melds = fields.List(MeldEntry(metadata={"x-ref": "MeldInput"}),
                        required=True, validate=validate.Length(min=1, max=40),
                        metadata={"example": [["Kh", "Ks", "JK"], ["9c", "Tc", "Jc", "Qc"]]})
    round = Int(load_default=None, metadata={
        "description": "contract rule sets (SPEC §3.1): the deal, 1-based; the melds are then a "
                       "lay checked against its contract (required there, refused elsewhere)"})


class OpeningResponse(Schema):
    valid = Bool(required=True)
    points = Int(required=True)
    threshold = Int(required=True, allow_none=True,
                    metadata={"description": "opening_min_points; null for a lay (with round)"})
    contract = fields.String(metadata={"description": "with round: the round's contract (digits: "
                                                      "3 a three, 4 a four)", "example": "3344"})
    melds = fields.List(fields.Nested(MeldSchema, allow_none=True), required=True,
                        metadata={"description": "each meld read, null where it is not legal"})
    violations = fields.List(fields.Nested(ViolationSchema), required=True)


@blp.ruling("/opening", OpeningSchema(), OpeningResponse)
def opening(args: dict[str, Any]) -> Response:
    """Do these melds, laid together as a first meld, reach the opening threshold?"""
    ruling = rulings.rule_opening(args["ruleset"], args["melds"], args["round"])
    return json_response(render_opening(ruling))


class BuildCard(FastField):
    """A card, or ``{"card": "5h", "end": "low"|"high"}`` to say which end of a run."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            return {"card": value, "end": None}
        if isinstance(value, dict) and set(value) <= {"card", "end"} and isinstance(
                value.get("card"), str) and value.get("end") in (None, *RUN_ENDS):
            return {"card": value["card"], "end": value.get("end")}
        raise ValidationError("a card, or {\"card\": \"5h\", \"end\": \"low\"|\"high\"}")


class BuildSchema(StrictSchema):
    ruleset = ruleset_field()
    meld = card_list(required=True, ref="MeldCard", metadata={"description": "the meld on the table",
                                              "example": ["5h", "6h", "7h"]})
    cards = fields.List(BuildCard(metadata={"x-ref": "BuildCard"}),
        required=True, validate=validate.Length(min=1, max=MAX_CARDS),
        metadata={"example": ["8h", {"card": "4h", "end": "low"}]})
    opened = Bool(load_default=True)


class BuildResponse(Schema):
    valid = Bool(required=True)
    meld = fields.Nested(MeldSchema, required=True,
                         metadata={"description": "the resulting meld (unchanged when invalid)"})
    violations = fields.List(fields.Nested(ViolationSchema), required=True)


@blp.ruling("/build", BuildSchema(), BuildResponse)
def build(args: dict[str, Any]) -> Response:
    """Add cards to a meld on the table (a card that fits both ends of a run goes high)."""
    ruling = rulings.rule_build(args["ruleset"], args["meld"], args["cards"], args["opened"])
    return json_response(render_build(ruling))
