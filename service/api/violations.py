"""GET /v1/violations: every violation code a ruling may cite
(docs/api.md#rulings-200-with-valid--legal)."""

from __future__ import annotations

from flask import Response
from marshmallow import Schema, fields

from ..engine import violations as v
from ..i18n import LANGUAGES, gettext
from ..web.jsonio import json_response
from ..web.parsing import Blueprint

blp = Blueprint("violations", __name__, url_prefix="/v1/violations",
                description="The published list of violation codes.")


class CodeSchema(Schema):
    code = fields.String(required=True, metadata={"example": "run-too-short"})
    rule = fields.String(required=True)
    message = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                          metadata={"description": "message templates by language (en, nl)"})
    type = fields.String(required=True, metadata={"description": "the code's page",
                                                  "example": "/problems/run-too-short"})


class CodeListSchema(Schema):
    violations = fields.List(fields.Nested(CodeSchema), required=True)


@blp.route("")
@blp.response(200, CodeListSchema)
def list_violations() -> Response:
    """Every violation code, the rule it stands for and its message templates."""
    body = {"violations": [{"code": c.code, "rule": c.rule,
                            "message": {lang: gettext(lang, c.message, c.code) for lang in LANGUAGES},
                            "type": f"/problems/{c.code}"}
                           for c in v.CODES.values()]}
    return json_response(body)
