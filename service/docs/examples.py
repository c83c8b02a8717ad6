"""The request and response example of every operation (``examples.json``), from the README tour.

Each example is a real exchange with the app: ``tests/docs/test_contract.py`` sends every
request and compares the answer with the example (exactly for the stateless operations;
by shape for the match ledger, whose ids, tokens and times differ per run). Placeholders
in paths and headers (``{id}``, ``{token}``, ``{uk}``, ``{uk_token}``) stand for the match
the tour creates; ``"{export}"`` as a request is the ``exportMatch`` answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api.problems import PROBLEM_MEDIA_TYPE
from ..engine.notation import MEDIA_TYPE as NOTATION_MEDIA_TYPE
from ..i18n import LANGUAGES


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


@dataclass(frozen=True)
class Example:
    operation_id: str
    method: str
    path: str
    status: int
    request: Any = None
    response: Any = None
    notation: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)


def _load() -> list[Example]:
    raw = json.loads((Path(__file__).with_name("examples.json")).read_text(encoding="utf-8"))
    out = [Example(operation_id=e["operationId"], method=e["method"], path=e["path"],
                   status=e["status"], request=e["request"], response=e["response"],
                   notation=e.get("notation"), headers=e.get("headers", {}),
                   query=e.get("query", {})) for e in raw]
    export = next(e.response for e in out if e.operation_id == "exportMatch")
    return [Example(**{**e.__dict__, "request": export}) if e.request == "{export}" else e
            for e in out]


TOUR: list[Example] = _load()
EXAMPLES: dict[str, Example] = {e.operation_id: e for e in TOUR}

_PROBLEM_EXAMPLE = EXAMPLES["getProblem"].response if "getProblem" in EXAMPLES else None

# /problems/{code} is a plain Flask route (HTML or JSON by Accept): documented by hand
PROBLEM_PATH: dict[str, Any] = {
    "parameters": [{"in": "path", "name": "code", "required": True,
                    "schema": {"type": "string", "examples": ["invalid-card"]},
                    "description": "a problem code or a violation code"}],
    "get": {
        "summary": "What a problem or violation code means, and how to fix it",
        "description": "The `type` of every problem and violation resolves here. Browsers "
                       "(`Accept: text/html`) get a short page; anything else gets JSON. "
                       "English, or Dutch with `Accept-Language: nl` or `?lang=nl`.",
        "parameters": [{"in": "query", "name": "lang", "required": False,
                        "schema": {"type": "string", "enum": list(LANGUAGES)},
                        "description": "the page's language (overrides Accept-Language)"}],
        "responses": {
            "200": {"description": "The code's description.",
                    "content": {"application/json": {"schema": ref("ProblemType"),
                                                     "example": _PROBLEM_EXAMPLE},
                                "text/html": {"schema": {"type": "string"}}}},
            "default": {"$ref": "#/components/responses/DEFAULT_ERROR"}}},
}

__all__ = ["EXAMPLES", "NOTATION_MEDIA_TYPE", "PROBLEM_MEDIA_TYPE", "PROBLEM_PATH", "TOUR",
           "Example"]
