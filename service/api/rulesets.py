"""GET /v1/rulesets, GET /v1/rulesets/{name}: the catalog (docs/api.md#the-catalog)."""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, fields

from ..engine.rules import CATALOG, PARAMS, RuleSet
from ..i18n import N_
from ..web.jsonio import dumps, json_response
from ..web.parsing import Blueprint, Int
from .problems import Problem

blp = Blueprint("rulesets", __name__, url_prefix="/v1/rulesets",
                description="The rule-set catalog: every parameter, its value and what it means.")


class RuleSetSummarySchema(Schema):
    name = fields.String(required=True, metadata={"example": "kaluki-51"})
    source = fields.String(required=True)
    players = fields.List(Int(), required=True, metadata={"description": "[min, max]"})
    href = fields.String(required=True)


class RuleSetListSchema(Schema):
    rulesets = fields.List(fields.Nested(RuleSetSummarySchema), required=True)


class RuleSetSchema(Schema):
    name = fields.String(required=True)
    source = fields.String(required=True)
    parameters = fields.Dict(keys=fields.String(), required=True,
                             metadata={"description": "parameter → value"})
    descriptions = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                               metadata={"description": "parameter → one-line description, with the "
                                                        "values it takes (overrides outside them are 422)"})


def summary(r: RuleSet) -> dict[str, Any]:
    return {"name": r.name, "source": r.source, "players": [r.players_min, r.players_max],
            "href": f"/v1/rulesets/{r.name}"}


def detail(r: RuleSet) -> dict[str, Any]:
    return {"name": r.name, "source": r.source, "parameters": r.to_dict(),
            "descriptions": {p.name: p.described for p in PARAMS}}


_LIST = dumps({"rulesets": [summary(r) for r in CATALOG.values()]})
_DETAIL = {name: dumps(detail(r)) for name, r in CATALOG.items()}


@blp.route("")
@blp.response(200, RuleSetListSchema)
def list_rulesets() -> Response:
    """List the catalog."""
    return json_response(_LIST)


@blp.route("/<string:name>")
@blp.response(200, RuleSetSchema)
@blp.alt_response(404, description="No such rule set (problem `unknown-ruleset`).")
def get_ruleset(name: str) -> Response:
    """Every parameter of one rule set, with its value and a one-line description."""
    body = _DETAIL.get(name)
    if body is None:
        raise Problem("unknown-ruleset", N_("unknown rule set {name!r}; see /v1/rulesets"),
                      params={"name": name}, status=404)
    return json_response(body)
