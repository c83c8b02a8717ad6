"""Request and response schemas of /v1/matches (docs/api.md#match-ledgers): parsing and
documentation only."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates_schema,
)

from ...engine.match import EntryType, MatchStatus
from ...engine.rules import PARAMS_BY_NAME, Boolean, Choice, Integer, Kind
from ...i18n import N_
from ...ledger.service import EXPORT_FORMAT
from ...web.parsing import Bool, Int
from ..common import StrictSchema, ruleset_field
from ..hands import PlayerScoreSchema, ScoreSchema
from ..problems import Problem
from .texts import AMOUNTS, Amount, DisplayText, currency_digits, decimals, normalise_amount

ID_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_PAGE = 200


def _player_id() -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=64))


# the field for each kind of match-end parameter (the kinds' ranges and choices are the one
# definition: service.engine.rules)
_KIND_FIELDS: dict[type[Kind], Callable[[Any], fields.Field[Any]]] = {
    Integer: lambda kind: Int(validate=validate.Range(kind.minimum, kind.maximum)),
    Boolean: lambda kind: Bool(),
    Choice: lambda kind: fields.String(validate=validate.OneOf(kind.choices)),
}


def _match_end_field(name: str) -> fields.Field[Any]:
    """A match-end setting, read as its rule-set parameter is checked (one definition:
    :class:`service.engine.rules.MatchEnd` and the parameters' kinds)."""
    kind = PARAMS_BY_NAME[name].kind
    return _KIND_FIELDS[type(kind)](kind)


# the settings a match may override, by their published names (engine.rules.MATCH_END_PARAMS)
class MatchEndFields(StrictSchema):
    match_end = _match_end_field("match_end")
    goal_points = _match_end_field("goal_points")
    elimination_over = _match_end_field("elimination_over")
    match_hands = _match_end_field("match_hands")
    buy_ins = _match_end_field("buy_ins")
    buy_ins_max = _match_end_field("buy_ins_max")
    buy_in_min_players = _match_end_field("buy_in_min_players")


class ExportedMatchEnd(MatchEndFields):
    """An export's match end: the settings, and ``rounds`` (contract rule sets: derived from
    the rule set's contracts, written by the export, checked again on import)."""

    rounds = Int(validate=validate.Range(0, 100))


TITLE_MAX = 200
NAME_MAX = 64
REASON_MAX = 500


class StakesSchema(StrictSchema):
    """docs/api.md#scorekeeping: the currency and the amounts, each written to the currency's minor
    unit."""

    currency = fields.String(required=True, metadata={"description": "ISO 4217 code"})
    stake = Amount(metadata={"description": "each player pays this into the pool at the start"})
    buy_in = Amount(metadata={"description": "paid into the pool per buy-in"})
    per_hand = Amount(metadata={"description": "each loser of a hand pays its winner"})
    per_special = Amount(metadata={"description": "in place of per_hand after a special win"})
    per_point = Amount(metadata={"description": "per point of difference between two totals"})

    @validates_schema
    def _digits(self, data: dict[str, Any], **kwargs: Any) -> None:
        digits = currency_digits(data.get("currency", ""))
        if digits is None:
            raise Problem("invalid-currency", N_("{currency!r} is not an ISO 4217 currency "
                                                 "code (e.g. \"EUR\")."),
                          params={"currency": data.get("currency")},
                          errors={"stakes.currency": ["not an ISO 4217 currency code"]})
        bad = {k: [f"at most {digits} decimal(s) in {data['currency']}"]
               for k in AMOUNTS if k in data and decimals(data[k]) > digits}
        if bad:
            raise ValidationError(bad)

    @post_load
    def _normalise(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        digits = currency_digits(data["currency"])
        assert digits is not None
        return {"currency": data["currency"],
                **{k: normalise_amount(data[k], digits) for k in AMOUNTS if k in data}}


def _nfc(text: Any) -> Any:
    return unicodedata.normalize("NFC", text) if isinstance(text, str) else text


class CreateMatchSchema(MatchEndFields):
    ruleset = ruleset_field()
    players = fields.List(_player_id(), required=True, validate=validate.Length(min=1, max=16))
    title = DisplayText(TITLE_MAX, metadata={"description": "the match's title"})
    names = fields.Dict(keys=fields.String(), values=DisplayText(NAME_MAX), metadata={
        "description": "display names: {player id: name}, each a player of the match"})
    stakes = fields.Nested(StakesSchema)

    @validates_schema
    def _names_are_players(self, data: dict[str, Any], **kwargs: Any) -> None:
        players = {_nfc(p) for p in data.get("players", ())}
        bad = {k: ["not a player of this match"] for k in data.get("names", {})
               if _nfc(k) not in players}
        if bad:
            raise ValidationError({"names": bad})

    @post_load
    def _keys(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        if "names" in data:
            data["names"] = {_nfc(k): v for k, v in data["names"].items()}
        return data


class MatchScoreSchema(ScoreSchema):
    """A /hands/score body without ruleset (the match's rule set applies)."""

    class Meta:
        exclude = ("ruleset",)
        unknown = RAISE


class AppendHandSchema(StrictSchema):
    """Exactly one of ``score`` and ``record`` (checked by :func:`check_one_hand`, not a
    schema hook, so that the parser's fast path takes the body)."""

    score = fields.Nested(MatchScoreSchema,
                          metadata={"description": "a /hands/score body without ruleset"})
    record = fields.Dict(metadata={"description": "a hand record without ruleset"})


def check_one_hand(data: dict[str, Any]) -> None:
    """An append's body gives exactly one of ``score`` and ``record`` (a record without
    ``ruleset``): else 422 ``validation-error``."""
    if ("score" in data) == ("record" in data):
        raise Problem("validation-error", N_("The request body does not match the schema; "
                                             "see 'errors'."),
                      errors={"_schema": ["give exactly one of \"score\" and \"record\""]})
    if "ruleset" in data.get("record", {}):
        raise Problem("validation-error", N_("The request body does not match the schema; "
                                             "see 'errors'."),
                      errors={"record.ruleset": ["the match's rule set applies; leave it out"]})


class CorrectionSchema(StrictSchema):
    """docs/api.md#scorekeeping: a reason and exactly one of ``score``, ``record`` and ``void``."""

    reason = DisplayText(REASON_MAX, required=True, metadata={"description": "why (1-500)"})
    score = fields.Nested(MatchScoreSchema,
                          metadata={"description": "the hand as it should have been scored"})
    record = fields.Dict(metadata={"description": "the hand record as it should have been"})
    void = Bool(metadata={"description": "true: the hand never counted"})

    @validates_schema
    def _one(self, data: dict[str, Any], **kwargs: Any) -> None:
        given = [k for k in ("score", "record", "void") if k in data]
        if len(given) != 1:
            raise ValidationError("give exactly one of \"score\", \"record\" and \"void\"",
                                  "_schema")
        if data.get("void") is False:
            raise ValidationError(["only true: leave it out to correct the hand instead"],
                                  "void")
        if "ruleset" in data.get("record", {}):
            raise ValidationError({"ruleset": ["the match's rule set applies; leave it out"]},
                                  "record")


class BuyInSchema(StrictSchema):
    player = fields.String(required=True, validate=validate.Length(min=1, max=64))


class PageArgs(Schema):
    cursor = fields.String(metadata={"description": "opaque; from next_cursor"})
    limit = fields.Integer(load_default=50, validate=validate.Range(1, MAX_PAGE))  # a query string


class StandingSchema(Schema):
    player = fields.String(required=True)
    points = Int(required=True)
    penalty = Int(required=True)
    eliminated = Bool(required=True)
    hands_won = Int(required=True)
    buy_ins = Int(required=True)


class MatchSchema(Schema):
    id = fields.String(required=True)
    ruleset = fields.Raw(required=True, metadata={"x-ref": "RuleSetRef"})
    match_end = fields.Dict(required=True, metadata={
        "description": "match_end, goal_points, elimination_over, match_hands, buy_ins, buy_ins_max, buy_in_min_players in force"})
    players = fields.List(fields.String(), required=True)
    hands_played = Int(required=True)
    status = fields.String(required=True, metadata={"enum": list(MatchStatus)})
    winner = fields.String(allow_none=True, required=True)
    co_winners = fields.List(fields.String(), required=True,
                             metadata={"description": "a shared win"})
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    version = Int(required=True, metadata={"description": "entries in the ledger"})
    head = fields.String(required=True, metadata={"description": "the last entry's hash"})
    created = fields.String(allow_none=True, required=True)
    title = fields.String(allow_none=True, required=True)
    names = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                        metadata={"description": "display names by player id"})
    stakes = fields.Nested(StakesSchema, allow_none=True, required=True)


class CreatedSchema(Schema):
    id = fields.String(required=True)
    token = fields.String(required=True,
                          metadata={"description": "the write secret; shown only once"})
    match = fields.Nested(MatchSchema, required=True)


class EntrySchema(Schema):
    seq = Int(required=True)
    type = fields.String(required=True, metadata={"enum": [t.value for t in EntryType]})
    hash = fields.String(required=True)
    corrects = Int(metadata={"description": "corrections: the seq of the hand corrected"})
    reason = fields.String(metadata={"description": "corrections: why"})
    void = Bool(metadata={"description": "corrections: the hand never counted"})
    corrected_by = Int(metadata={"description": "hands: the seq of the latest correction "
                                                "(not part of the hashed entry)"})

    class Meta:
        unknown = "include"


class AppendedSchema(Schema):
    seq = Int(required=True)
    type = fields.String(metadata={"enum": [EntryType.CORRECTION.value],
                                   "description": "corrections only"})
    corrects = Int(metadata={"description": "corrections: the seq of the hand corrected"})
    reason = fields.String(metadata={"description": "corrections: why"})
    void = Bool(metadata={"description": "corrections: the hand never counted"})
    winner = fields.String(metadata={"description": "corrections that score the hand"})
    finish = fields.String(metadata={"description": "corrections that score the hand"})
    hand = Int(metadata={"description": "hands: the 1-based hand number"})
    player = fields.String(metadata={"description": "buy-ins: who bought back in"})
    hash = fields.String(required=True)
    special = Bool(metadata={"description": "hands only"})
    scores = fields.List(fields.Nested(PlayerScoreSchema), metadata={"description": "hands only"})
    match = fields.Nested(MatchSchema, required=True)


class PageSchema(Schema):
    items = fields.List(fields.Nested(EntrySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class AnsweredKeySchema(Schema):
    key = fields.String()
    fingerprint = fields.String(metadata={"description": "SHA-256 of the request"})
    seq = Int(metadata={"description": "the entry the key appended"})


class ExportSchema(Schema):
    format = fields.String(metadata={"example": EXPORT_FORMAT})
    id = fields.String()
    ruleset = fields.Raw()
    match_end = fields.Dict()
    players = fields.List(fields.String())
    created = fields.String()
    title = fields.String(allow_none=True)
    names = fields.Dict(keys=fields.String(), values=fields.String())
    stakes = fields.Nested(StakesSchema, allow_none=True)
    token_sha256 = fields.String()
    entries = fields.List(fields.Nested(EntrySchema))
    head = fields.String()
    version = Int()
    standings = fields.List(fields.Nested(StandingSchema))
    idempotency = fields.List(fields.Nested(AnsweredKeySchema), metadata={
        "description": "the Idempotency-Keys the match answered, restored by an import so "
                       "that a retry replays"})
    signature = fields.String(metadata={
        "description": "HMAC-SHA256 (hex) under the service's signing key, over the "
                       "canonical JSON of the export without `signature` and `entries` "
                       "(the entries are bound by `head`)"})

    class Meta:
        unknown = "include"


class ImportSchema(StrictSchema):
    format = fields.String(required=True, validate=validate.Equal(EXPORT_FORMAT))
    id = fields.String(required=True, validate=validate.Regexp(ID_RE))
    ruleset = ruleset_field()
    match_end = fields.Nested(ExportedMatchEnd, required=True)
    players = fields.List(_player_id(), required=True, validate=validate.Length(min=1, max=16))
    created = fields.String(load_default=None, allow_none=True)
    title = DisplayText(TITLE_MAX, load_default=None, allow_none=True)
    names = fields.Dict(keys=fields.String(), values=DisplayText(NAME_MAX), load_default=None,
                        allow_none=True)
    stakes = fields.Nested(StakesSchema, load_default=None, allow_none=True)
    token_sha256 = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"))
    entries = fields.List(fields.Dict(), required=True, validate=validate.Length(max=100_000))
    head = fields.String(required=True)
    version = Int(load_default=None)
    # what the exporter saw; checked against the re-score when present
    standings = fields.List(fields.Dict(), load_default=None)
    hands_played = Int(load_default=None)
    status = fields.String(load_default=None)
    winner = fields.String(load_default=None, allow_none=True)
    idempotency = fields.List(fields.Dict(), load_default=list, validate=validate.Length(
        max=100_000), metadata={"description": "the Idempotency-Keys answered: "
                                               "{key, fingerprint, seq}"})
    signature = fields.String(load_default=None, metadata={
        "description": "HMAC-SHA256 (hex) by the service; an import without a valid one "
                       "is 422 signature-invalid"})


class CellSchema(Schema):
    points = Int(required=True)
    penalty = Int(required=True)


class SheetPlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "display name (else the id)"})


class SheetRowSchema(Schema):
    seq = Int(required=True, metadata={"description": "the hand's (original) seq"})
    round = Int(allow_none=True, metadata={"description": "where the rule set has rounds"})
    winner = fields.String(required=True)
    finish = fields.String(required=True)
    corrected = Bool(required=True, metadata={"description": "shown as corrected"})
    cells = fields.Dict(keys=fields.String(), values=fields.Nested(CellSchema), required=True,
                        metadata={"description": "by player id: what the hand added"})


class SheetSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(allow_none=True, required=True)
    players = fields.List(fields.Nested(SheetPlayerSchema), required=True)
    rows = fields.List(fields.Nested(SheetRowSchema), required=True)
    totals = fields.Dict(keys=fields.String(), values=fields.Nested(CellSchema), required=True,
                         metadata={"description": "by player id: the standings"})


class BalanceSchema(Schema):
    player = fields.String(required=True)
    amount = fields.String(required=True, metadata={
        "description": "decimal, to the minor unit; positive: receives"})


class TransferSchema(Schema):
    from_ = fields.String(required=True, data_key="from")
    to = fields.String(required=True)
    amount = fields.String(required=True, metadata={"description": "decimal, to the minor unit"})


class SettlementSchema(Schema):
    currency = fields.String(required=True)
    final = Bool(required=True, metadata={"description": "false while the match is in progress"})
    balances = fields.List(fields.Nested(BalanceSchema), required=True,
                           metadata={"description": "every player, summing to exactly zero"})
    transfers = fields.List(fields.Nested(TransferSchema), required=True,
                            metadata={"description": "the fewest payments that settle them"})
