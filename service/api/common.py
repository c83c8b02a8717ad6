"""What every resource shares: the rule-set and card-list fields, and the documented
shapes of melds, violations and problems (their rendering is :mod:`.render`)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from ..engine.melds import MeldKind
from ..engine.rulings import MAX_CARDS
from ..web.parsing import Bool, FastField, Int


class RuleSetField(FastField):
    """A catalog name or ``{"base": NAME, "overrides": {...}}``; resolved in the view."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, (str, dict)):
            return value
        raise ValidationError("a rule set is a catalog name or {\"base\": NAME, \"overrides\": {...}}")


RULESET_DOC = {"x-ref": "RuleSetRef"}  # a $ref in the document (service/docs/contract.py)


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


def card_list(min_len: int = 0, ref: str = "Card", **kw: Any) -> fields.List[Any]:
    """A list of cards; ``ref`` names the documented item schema (``Card`` or ``MeldCard``)."""
    return fields.List(fields.String(metadata={"x-ref": ref}),
                       validate=validate.Length(min=min_len, max=MAX_CARDS), **kw)


def ruleset_field() -> RuleSetField:
    return RuleSetField(required=True, metadata=RULESET_DOC)


class TableMeldField(FastField):
    """A table meld: its cards, or ``{"cards": [...], "closed": true}`` when its history
    closed it (docs/api.md#legal-next-plays; ``closed`` false is the cards alone)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) is list and len(value) <= MAX_CARDS and all(type(x) is str for x in value):
            return value
        if type(value) is dict and "cards" in value and set(value) <= {"cards", "closed"}:
            cards, closed = value["cards"], value.get("closed", False)
            if (type(cards) is list and len(cards) <= MAX_CARDS
                    and all(type(x) is str for x in cards) and type(closed) is bool):
                return {"cards": list(cards), "closed": closed}
        raise ValidationError("a table meld is a list of cards, or {\"cards\": [cards], "
                              "\"closed\": true|false}")


# -- response schemas (documentation) --------------------------------------------------

class ViolationSchema(Schema):
    """A broken rule: its code, a message, its page, and the facts the message cites."""

    code = fields.String(required=True, metadata={"example": "run-too-short"})
    message = fields.String(required=True, metadata={"description": "English, or Dutch for "
                                                                    "Accept-Language: nl"})
    type = fields.String(required=True, metadata={
        "example": "/problems/run-too-short", "description": "the code's page"})
    turn = Int(metadata={"description": "adjudicate: 0-based index into turns"})
    play = Int(allow_none=True, metadata={
        "description": "adjudicate: 0-based index into the turn's plays; null for the draw, "
                       "the discard or the turn as a whole"})

    class Meta:
        unknown = "include"


class JokerSchema(Schema):
    index = Int(required=True, metadata={"description": "position in cards"})
    as_ = fields.String(data_key="as", required=True, metadata={
        "example": "Qd", "description": "the card it stands for (a rank alone in a set)"})


class MeldSchema(Schema):
    kind = fields.String(required=True, metadata={"enum": list(MeldKind)})
    cards = fields.List(fields.String(metadata={"x-ref": "MeldCard"}), required=True,
                        metadata={"example": ["Jd", "JK=Qd", "Kd"]})
    rank = fields.String(metadata={"description": "sets only"})
    suit = fields.String(metadata={"description": "runs only"})
    points = Int(required=True)
    jokers = fields.List(fields.Nested(JokerSchema), required=True)
    closed = Bool(required=True,
                            metadata={"description": "no joker can ever be released from it"})


class ProblemSchema(Schema):
    """RFC 9457 problem details, as every error of this API is answered."""

    type = fields.String(required=True, metadata={"example": "/problems/invalid-card"})
    title = fields.String(required=True, metadata={"example": "Invalid card"})
    status = Int(required=True, metadata={"example": 422})
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable kebab-case code",
                                                  "example": "invalid-card"})
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                         metadata={"description": "field path → messages (schema failures)"})
    request_id = fields.String(metadata={
        "description": "this request's id, as in the X-Request-ID response header and the logs",
        "example": "5f0c7e1d9b2a4c6e8f00112233445566"})

    class Meta:
        unknown = "include"
