"""The OpenAPI document as client generators want it, finished from what flask-smorest builds.

flask-smorest and apispec describe the schemas and routes; this module adds, in one
place, what a generated client depends on: stable ``operationId``s and tags, the
``bearerAuth`` scheme on exactly the operations that take the match token, the shared
``Problem`` schema on every error each operation can answer, reused components
(``Card``, ``MeldCard``, ``RuleSetRef``, ``HandRecord`` …), a request and a response
example per operation (from the README tour; ``tests/docs/test_contract.py`` sends
each request to the app and compares the answer with its example), and correct
content types. Schemas mark a reference with ``x-ref`` metadata (``{"x-ref": "Card"}``);
:func:`finish` turns every such node into a ``$ref``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..api.health import Readiness
from ..api.matches.routes import EVENTS_EXAMPLE
from ..api.problems import PROBLEM_MEDIA_TYPE, TITLES
from ..engine.melds import RUN_ENDS, MeldKind
from ..engine.notation import MEDIA_TYPE
from ..engine.record import DrawSource
from ..engine.rules import PARAMS
from ..i18n import LANGUAGES
from .examples import EXAMPLES, PROBLEM_PATH
from .pages import CodeKind

NOTATION_MEDIA_TYPE = MEDIA_TYPE
METHODS = ("get", "put", "post", "delete", "patch")


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


# -- reusable schemas -----------------------------------------------------------------

_RANK = r"(?:[2-9AaTtJjQqKk]|10)"
_SUIT = "[CcDdHhSs♣♦♥♠♧♢♡♤]"
_JOKER = r"(?:[Jj][Kk]|\*|[Jj][Oo][Kk][Ee][Rr])"
CARD_PATTERN = f"^(?:{_RANK}{_SUIT}|{_JOKER})$"
MELD_CARD_PATTERN = f"^(?:{_RANK}{_SUIT}|{_JOKER}(?:={_RANK}{_SUIT}?)?)$"


_CARDS = {"type": "array", "items": ref("Card")}
_MELD_CARDS = {"type": "array", "items": ref("MeldCard")}

SCHEMAS: dict[str, dict[str, Any]] = {
    "Card": {
        "type": "string", "pattern": CARD_PATTERN, "examples": ["Qs", "Th", "JK"],
        "description": "A card: rank `A 2-9 T J Q K` (`10` for `T`) then suit `c d h s` "
                       "(`♣ ♦ ♥ ♠` accepted), case-insensitive; a joker is `JK` (or `*`). "
                       "Responses use the canonical form (`Th`, `As`, `JK`)."},
    "MeldCard": {
        "type": "string", "pattern": MELD_CARD_PATTERN, "examples": ["7h", "JK", "JK=Qd", "JK=7"],
        "description": "A card inside a meld: a `Card`, or a joker that says what it stands "
                       "for (`JK=7h`; for a set the rank is enough: `JK=7`)."},
    "RuleSetOverrides": {
        "type": "object", "additionalProperties": False,
        "description": "Rule-set parameters to change (names and ranges as in "
                       "`GET /v1/rulesets/{name}`).",
        "properties": {p.name: {**p.kind.json_schema(), "description": p.description}
                       for p in PARAMS}},
    "RuleSetRef": {
        "description": "A catalog rule-set name, or a catalog rule set with overrides.",
        "examples": ["kaluki-51", {"base": "kaluki-51", "overrides": {"run_min": 3}}],
        "oneOf": [
            {"type": "string", "description": "a catalog name (`GET /v1/rulesets`)",
             "examples": ["kaluki-51"]},
            {"type": "object", "required": ["base"], "additionalProperties": False,
             "properties": {"base": {"type": "string", "examples": ["kaluki-51"]},
                            "overrides": {"anyOf": [ref("RuleSetOverrides"),
                                                    {"type": "null"}]}}}]},
    "BuildCard": {
        "description": "A card added to a meld, or `{card, end}` to say which end of a run.",
        "oneOf": [ref("MeldCard"),
                  {"type": "object", "required": ["card"], "additionalProperties": False,
                   "properties": {"card": ref("MeldCard"),
                                  "end": {"type": "string", "enum": list(RUN_ENDS)}}}]},
    "MeldInput": {
        "description": "A meld as sent: its cards, or `{cards, kind}` to pin the reading.",
        "oneOf": [_MELD_CARDS,
                  {"type": "object", "required": ["cards"], "additionalProperties": False,
                   "properties": {"cards": _MELD_CARDS,
                                  "kind": {"type": "string", "enum": list(MeldKind)}}}]},
    "Play": {
        "description": "One play of a turn: lay a new meld, build on a table meld (numbered "
                       "from 0 in the order laid), or release a joker from one.",
        "oneOf": [
            {"type": "object", "title": "meld", "required": ["meld"],
             "properties": {"meld": ref("MeldInput")}},
            {"type": "object", "title": "build", "required": ["build"],
             "properties": {"build": {"type": "object", "required": ["meld", "cards"],
                                      "properties": {"meld": {"type": "integer", "minimum": 0},
                                                     "cards": {"type": "array",
                                                               "items": ref("BuildCard")}}}}},
            {"type": "object", "title": "release", "required": ["release"],
             "properties": {"release": {"type": "object", "required": ["meld", "cards"],
                                        "properties": {"meld": {"type": "integer", "minimum": 0},
                                                       "cards": _CARDS}}}},
            {"type": "object", "title": "lay", "required": ["lay"], "description": (
                "contract rule sets (SPEC §3.1): going down, the round's contract as one play"),
             "properties": {"lay": {"type": "array", "items": ref("MeldInput")}}},
            {"type": "object", "title": "shift", "required": ["shift"], "description": (
                "contract rule sets, joker_shift run_end (SPEC §3.1): the card takes the place "
                "of the run's joker that stands for it; the joker moves to `end`"),
             "properties": {"shift": {"type": "object", "required": ["meld", "card"],
                                      "properties": {
                                          "meld": {"type": "integer", "minimum": 0},
                                          "card": ref("Card"),
                                          "end": {"type": "string", "enum": list(RUN_ENDS)}}}}}]},
    "TableMeld": {
        "description": "A meld on the table: its cards, or `{cards, closed: true}` when its "
                       "history closed it (no joker can ever be released from it).",
        "oneOf": [_MELD_CARDS,
                  {"type": "object", "required": ["cards"], "additionalProperties": False,
                   "properties": {"cards": _MELD_CARDS, "closed": {"type": "boolean"}}}]},
    "Option": {
        "description": "One legal next play, in the hand record's own shape: a draw (without "
                       "its card), a play (meld, one-card build, release; in a contract rule "
                       "set the lay and shifts), or a discard.",
        "oneOf": [
            {"type": "object", "title": "draw", "required": ["draw"], "additionalProperties": False,
             "properties": {"draw": {"type": "object", "required": ["from"],
                                     "additionalProperties": False, "properties": {
                                         "from": {"type": "string",
                                                  "enum": list(DrawSource)}}}}},
            ref("Play"),
            {"type": "object", "title": "discard", "required": ["discard"],
             "additionalProperties": False, "properties": {"discard": ref("Card")}}]},
    "Turn": {
        "type": "object",
        "description": "One turn: the draw, the plays in order, the discard.",
        "properties": {
            "player": {"type": "string", "description": "who plays (hand records)"},
            "call": {"type": "object", "required": ["player", "granted"], "description": (
                "contract rule sets (SPEC §3.1): before the draw, `player` asks for the discard "
                "pile's top card"), "properties": {
                    "player": {"type": "string"}, "granted": {"type": "boolean"},
                    "penalty": {**_CARDS, "description": "the penalty cards from the stock "
                                                         "(named when the record has no stock)"}}},
            "draw": {"type": "object", "required": ["from"], "properties": {
                "from": {"type": "string", "enum": list(DrawSource)}, "card": ref("Card")}},
            "plays": {"type": "array", "items": ref("Play")},
            "discard": ref("Card"),
            "restock": {**_CARDS, "description": "the new stock, top first, on the turn that "
                                                 "draws from an empty stock"}},
        "examples": [{"player": "ann", "draw": {"from": "stock", "card": "Qs"},
                      "plays": [{"meld": ["Ks", "Kh", "Kd"]}], "discard": "3d"}]},
    "MatchHandRecord": {
        "type": "object", "required": ["players", "deal"],
        "description": "A hand record without `ruleset` (the match's rule set applies).",
        "properties": {
            "round": {"type": "integer", "minimum": 1, "description": (
                "contract rule sets (required there, refused elsewhere): the deal, 1-based")},
            "players": {"type": "array", "items": {"type": "string"},
                        "description": "in turn order, starting with the first to play"},
            "deal": {"type": "object", "additionalProperties": _CARDS,
                     "description": "player → the cards dealt"},
            "stock": {**_CARDS, "description": "optional: the undealt cards, top first"},
            "discard": {**_CARDS, "description": "optional: the starting discard pile, top last"},
            "turns": {"type": "array", "items": ref("Turn")}}},
    "HandRecord": {
        "description": "A whole hand: rule set, players, deal and turns (SPEC §5).",
        "allOf": [{"type": "object", "required": ["ruleset"],
                   "properties": {"ruleset": ref("RuleSetRef")}},
                  ref("MatchHandRecord")]},
    "Health": {"type": "object", "required": ["status"],
               "properties": {"status": {"type": "string", "enum": [Readiness.OK]}}},
    "Readiness": {"type": "object", "required": ["status"],
                  "properties": {"status": {"type": "string",
                                            "enum": list(Readiness)},
                                 "reason": {"type": "string", "description": (
                                     "why not ready, with no paths or addresses (the "
                                     "detail is in the service's log)")},
                                 "notes": {"type": "array", "items": {"type": "string"},
                                           "description": "ready, but worth knowing: a "
                                           "volatile Redis accepted by ALLOW_VOLATILE_REDIS, "
                                           "a signing key kept in Redis"}},
                  "additionalProperties": True},
    "ProblemType": {
        "type": "object", "required": ["type", "code", "title", "kind", "description"],
        "properties": {
            "type": {"type": "string", "examples": ["/problems/invalid-card"]},
            "code": {"type": "string", "examples": ["invalid-card"]},
            "kind": {"type": "string", "enum": list(CodeKind)},
            "status": {"type": "integer", "description": "problems only: the HTTP status"},
            "title": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": f"language → title ({', '.join(LANGUAGES)})"},
            "description": {"type": "object", "additionalProperties": {"type": "string"},
                            "description": "language → what it means and how to fix it"}}},
}

# -- operations ---------------------------------------------------------------------------

_CODES_422_BODY = ("`validation-error` (the body breaks the schema), `invalid-card`, "
                   "`impossible-cards`, `unknown-ruleset`, `unknown-parameter`, "
                   "`invalid-parameter`, `invalid-ruleset`")


@dataclass(frozen=True)
class Op:
    operation_id: str
    tag: str
    problems: dict[int, str] = field(default_factory=dict)
    auth: str | None = None  # "required", "optional" or None
    body: bool = False  # takes a JSON body: 400, 413, 415 apply
    ledger: bool = False  # uses Redis: 503 applies
    idempotent: bool = False  # a ledger write that is safe to send twice (see _idempotent)


def _ops() -> dict[tuple[str, str], Op]:
    body_422 = _CODES_422_BODY
    m = "/v1/matches/{match_id}"
    no_match = "No such match (`match-not-found`); it may have expired: import its export."
    return {
        ("get", "/healthz"): Op("getHealth", "Probes"),
        ("get", "/readyz"): Op("getReadiness", "Probes"),
        ("get", "/v1/rulesets"): Op("listRuleSets", "Rule sets"),
        ("get", "/v1/rulesets/{name}"): Op("getRuleSet", "Rule sets", {
            404: "No such rule set (`unknown-ruleset`)."}),
        ("get", "/v1/violations"): Op("listViolations", "Violations"),
        ("get", "/problems/{code}"): Op("getProblem", "Problems", {
            404: "No such problem or violation code (`not-found`)."}),
        ("post", "/v1/melds/validate"): Op("validateMeld", "Melds", {422: body_422}, body=True),
        ("post", "/v1/melds/opening"): Op("checkOpening", "Melds", {
            422: body_422 + ", `round-required`, `invalid-round` (contract rule sets: `round` is the deal)"}, body=True),
        ("post", "/v1/melds/build"): Op("buildOnMeld", "Melds", {
            422: body_422 + ", `invalid-meld` (the table meld is not legal)"}, body=True),
        ("post", "/v1/jokers/release"): Op("releaseJoker", "Jokers", {
            422: body_422 + ", `invalid-meld` (the table meld is not legal)"}, body=True),
        ("post", "/v1/hands/score"): Op("scoreHand", "Hands", {
            422: body_422 + ", `player-count`, `duplicate-player`, `unknown-winner`, "
                 "`winner-holds-cards`, `invalid-round` (a `round` the rule set has not)"},
            body=True),
        ("post", "/v1/hands/analyze"): Op("analyzeHand", "Hands", {
            422: body_422 + ", `hand-too-large`, `search-too-large` (the search would exceed "
                 "the solver's budget under these overrides), `round-required`, `invalid-round` (contract rule sets: `round` is the deal)"}, body=True),
        ("post", "/v1/hands/adjudicate"): Op("adjudicateHand", "Hands", {
            415: "Neither `application/json` nor `text/vnd.kaluki.hand` "
                 "(`unsupported-media-type`).",
            422: body_422 + ", `invalid-record`, `invalid-notation`, `deal-size`, "
                 "`unknown-player`, `missing-card`, `player-count`, `search-too-large`, "
                 "`round-required`, `invalid-round` (contract rule sets: `round` is the deal)"},
            body=True),
        ("post", "/v1/turns/check"): Op("checkTurn", "Turns", {
            422: body_422 + ", `invalid-meld` (a table meld is not legal), `invalid-record`, "
                 "`hand-too-large`, `unknown-player` (a call by a player not in `players`), "
                 "`round-required`, `invalid-round` (contract rule sets: `round` is the deal)"}, body=True),
        ("post", "/v1/turns/options"): Op("listTurnOptions", "Turns", {
            422: body_422 + ", `invalid-meld` (a table meld is not legal), `invalid-record`, "
                 "`hand-too-large`, `search-too-large` (the search would exceed the solver's "
                 "budget), `unknown-player` (a call by a player not in `players`), `round-required`, `invalid-round` (contract rule sets: `round` is the deal)"},
            body=True),
        ("post", "/v1/matches"): Op("createMatch", "Matches", {
            422: body_422 + ", `player-count`, `duplicate-player`"}, body=True, ledger=True),
        ("post", "/v1/matches/import"): Op("importMatch", "Matches", {
            401: "The id was deleted or expired and no token was sent (`token-required`).",
            403: "The token is not this match's (`token-invalid`).",
            409: "The id holds another ledger (`match-exists`).",
            413: "The export is larger than `LEDGER_IMPORT_MAX_BYTES` (`payload-too-large`).",
            422: body_422 + ", `signature-invalid` (not an export this service signed), "
                 "`chain-broken`, `rescore-mismatch`, `invalid-entry`, `match-full`"},
            auth="optional", body=True, ledger=True, idempotent=True),
        ("get", m): Op("getMatch", "Matches", {404: no_match}, ledger=True),
        ("delete", m): Op("deleteMatch", "Matches", {
            401: "No token (`token-required`).", 403: "Wrong token (`token-invalid`).",
            404: no_match, 412: "Stale `If-Match` (`precondition-failed`)."},
            auth="required", ledger=True),
        ("post", m + "/buy-ins"): Op("buyIn", "Matches", {
            400: "`Idempotency-Key` longer than 255 characters (`idempotency-key-invalid`), "
                 "or a body that is not JSON (`malformed-json`).",
            401: "No token (`token-required`).", 403: "Wrong token (`token-invalid`).",
            404: no_match,
            409: "`buy-ins-not-allowed`, `buy-ins-closed`, `player-not-eliminated`, "
                 "`match-finished`.",
            412: "Stale `If-Match` (`precondition-failed`).",
            422: "`validation-error`, `idempotency-key-reused` (the key was used for another "
                 "body)"}, auth="required", body=True, ledger=True),
        ("get", m + "/export"): Op("exportMatch", "Matches", {
            401: "No token (`token-required`).", 403: "Wrong token (`token-invalid`).",
            404: no_match}, auth="required", ledger=True),
        ("get", m + "/hands"): Op("listHands", "Matches", {
            404: no_match, 422: "`validation-error` (limit), `invalid-cursor`."}, ledger=True),
        ("post", m + "/hands"): Op("appendHand", "Matches", {
            400: "`Idempotency-Key` missing (`idempotency-key-required`) or longer than 255 "
                 "characters (`idempotency-key-invalid`), or a body that is not JSON "
                 "(`malformed-json`).",
            401: "No token (`token-required`).", 403: "Wrong token (`token-invalid`).",
            404: no_match,
            409: "The match is finished (`match-finished`) or full (`match-full`, "
                 "`LEDGER_MAX_HANDS`).",
            412: "Stale `If-Match` (`precondition-failed`).",
            422: body_422 + ", `idempotency-key-reused` (the key was used for another body), "
                 "`illegal-record` (with `violations`), `invalid-record`, `hand-players`, "
                 "`winner-holds-cards`, `unknown-winner`"},
            auth="required", body=True, ledger=True),
        ("get", m + "/hands/{seq}"): Op("getHand", "Matches", {
            404: no_match + " Or no such entry (`entry-not-found`)."}, ledger=True),
        ("get", m + "/events"): Op("streamEvents", "Matches", {
            404: no_match, 422: "A `Last-Event-ID` or `after` that is not an event id "
                                "(`invalid-cursor`).",
            503: "Redis is unreachable (`ledger-unavailable`), or this instance serves "
                 "`EVENTS_MAX_SUBSCRIBERS` streams (`too-many-subscribers`). Retry after "
                 "`Retry-After` seconds."}, ledger=True),
        ("get", m + "/sheet"): Op("getSheet", "Matches", {404: no_match}, ledger=True),
        ("get", m + "/settlement"): Op("getSettlement", "Matches", {
            404: no_match, 409: "The match has no stakes (`no-stakes`)."}, ledger=True),
        ("post", m + "/hands/{seq}/corrections"): Op("correctHand", "Matches", {
            400: "`Idempotency-Key` missing (`idempotency-key-required`) or longer than 255 "
                 "characters (`idempotency-key-invalid`), or a body that is not JSON "
                 "(`malformed-json`).",
            401: "No token (`token-required`).", 403: "Wrong token (`token-invalid`).",
            404: no_match + " Or no such entry (`entry-not-found`).",
            409: "A later entry would become impossible (`correction-conflict`), or the match "
                 "is full (`match-full`).",
            412: "Stale `If-Match` (`precondition-failed`).",
            422: body_422 + ", `invalid-correction` (the entry is not a hand), "
                 "`idempotency-key-reused`, `illegal-record` (with `violations`), "
                 "`hand-players`, `winner-holds-cards`, `unknown-winner`"},
            auth="required", body=True, ledger=True),
    }


OPERATIONS = _ops()

TAGS = [
    {"name": "Melds", "description": "Rule on melds: one meld, an opening, a build."},
    {"name": "Jokers", "description": "Free jokers from melds on the table."},
    {"name": "Hands", "description": "Whole hands: score, analyze, adjudicate a record."},
    {"name": "Turns", "description": "Rule on one turn, statelessly."},
    {"name": "Matches", "description": "Match ledgers: scored hands in a hash chain, with "
                                       "standings. Writes take the match's token."},
    {"name": "Rule sets", "description": "The rule-set catalog: every parameter, its value "
                                         "and what it means."},
    {"name": "Violations", "description": "The published list of violation codes."},
    {"name": "Problems", "description": "What each problem and violation code means."},
    {"name": "Probes", "description": "Liveness and readiness for orchestrators."},
]

_STATUS_TEXT = {
    400: "The body is not JSON (`malformed-json`).",
    413: "The body is larger than `MAX_BODY_BYTES` (`payload-too-large`).",
    415: "The body is not `application/json` (`unsupported-media-type`).",
    429: "Over the rate limit (`rate-limited`): wait `Retry-After` seconds.",
    503: "Redis is unreachable (`ledger-unavailable`) or the match is too busy "
         "(`ledger-busy`); nothing was written. Retry after `Retry-After` seconds.",
}

_HEADERS = {
    "Retry-After": {"description": "seconds to wait before retrying",
                    "schema": {"type": "integer", "minimum": 0}},
    "RateLimit": {"description": "the client's remaining quota (IETF RateLimit fields)",
                  "schema": {"type": "string"}},
    "RateLimit-Policy": {"description": "the quota policy", "schema": {"type": "string"}},
    "WWW-Authenticate": {"schema": {"type": "string", "examples": ['Bearer realm="kaluki-matches"']}},
}


def _statuses(op: Op) -> dict[int, str]:
    out: dict[int, str] = {}
    if op.body:
        out.update({400: _STATUS_TEXT[400], 413: _STATUS_TEXT[413], 415: _STATUS_TEXT[415]})
    if op.tag != "Probes":
        out[429] = _STATUS_TEXT[429]
    if op.ledger:
        out[503] = _STATUS_TEXT[503]
    out.update(op.problems)
    return dict(sorted(out.items()))


_CODE = re.compile(r"`([a-z]+(?:-[a-z]+)+)`")


def _idempotent(method: str, meta: Op | None) -> bool:
    """``x-idempotent``: the operation may be sent twice with the effect of once, so a client
    may retry it when the answer is lost or says "come back later" (429, 503). A read; a
    ruling (a pure function of its body, it touches no ledger); or a ledger write the table
    marks (an import: the same export twice answers 200). Appends are safe to repeat only
    under their ``Idempotency-Key`` header parameter, which says so itself."""
    return method == "get" or (meta is not None and (meta.idempotent or not meta.ledger))


def _problem_example(status: int, description: str) -> dict[str, Any]:
    code = _CODE.search(description)
    name = code.group(1) if code else "bad-request"
    title = TITLES.get(name, name.replace("-", " ").capitalize())
    return {"type": f"/problems/{name}", "title": title,
            "status": status, "code": name,
            "detail": description.replace("`", "").split(" (")[0].rstrip(".") + "."}


def _problem_response(status: int, description: str) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {PROBLEM_MEDIA_TYPE: {
        "schema": ref("Problem"), "example": _problem_example(status, description)}}}
    headers = {}
    if status in (429, 503):
        headers["Retry-After"] = _HEADERS["Retry-After"]
    if status == 429:
        headers["RateLimit"] = _HEADERS["RateLimit"]
        headers["RateLimit-Policy"] = _HEADERS["RateLimit-Policy"]
    if status == 401:
        headers["WWW-Authenticate"] = _HEADERS["WWW-Authenticate"]
    if headers:
        response["headers"] = headers
    return response


# -- finishing ---------------------------------------------------------------------------

def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def _resolve_refs(node: Any) -> Any:
    """Every ``{"x-ref": NAME, ...}`` becomes ``{"$ref": …}`` (keeping its description)."""
    if isinstance(node, list):
        return [_resolve_refs(v) for v in node]
    if not isinstance(node, dict):
        return node
    if "x-ref" in node:
        out: dict[str, Any] = ref(node["x-ref"])
        if "description" in node:
            out["description"] = node["description"]
        return out
    return {k: _resolve_refs(v) for k, v in node.items()}


def _plain(text: str) -> str:
    return text.replace("``", "`")


def _request_schemas(spec: dict[str, Any]) -> set[str]:
    """Names of the component schemas a request body reaches (for dropping defaults)."""
    schemas = spec["components"]["schemas"]
    todo = [node.get("$ref", "") for item in spec["paths"].values() for op in item.values()
            if isinstance(op, dict) for node in _walk(op.get("requestBody", {}))]
    seen: set[str] = set()
    while todo:
        name = todo.pop().rpartition("/")[2]
        if not name or name in seen or name not in schemas:
            continue
        seen.add(name)
        todo.extend(n.get("$ref", "") for n in _walk(schemas[name]))
    return seen


def _drop_defaults(schema: dict[str, Any]) -> None:
    """A request field's default goes into its description, not ``default``.

    Generators such as openapi-typescript make a property with a ``default`` mandatory
    in a component schema, so ``{ruleset, cards}`` would not type-check as a
    validateMeld body.
    """
    for prop in schema.get("properties", {}).values():
        if "default" in prop:
            d = prop.pop("default")
            if d is not None and d != []:
                text = "true" if d is True else "false" if d is False else str(d)
                prop["description"] = (prop.get("description", "") + f" (default: {text})").strip()


# path parameters as in the tour's examples (the match id is the examples' placeholder)
PATH_EXAMPLES: dict[str, Any] = {"match_id": "c2VjcmV0LW1hdGNo", "name": "kaluki-51", "seq": 0,
                                 "code": "invalid-card"}


def finish(raw: dict[str, Any]) -> dict[str, Any]:
    """The served document: ``raw`` (flask-smorest's) finished for client generators."""
    spec: dict[str, Any] = _resolve_refs(copy.deepcopy(raw))
    components = spec.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(copy.deepcopy(SCHEMAS))
    components["securitySchemes"] = {"bearerAuth": {
        "type": "http", "scheme": "bearer",
        "description": "The match's write token, returned once by `createMatch`: "
                       "`Authorization: Bearer <token>`."}}
    # flask-smorest's per-status components are replaced by per-operation problems
    components["responses"] = {k: v for k, v in components.get("responses", {}).items()
                               if k == "DEFAULT_ERROR"}
    spec["paths"]["/problems/{code}"] = PROBLEM_PATH
    spec["tags"] = TAGS
    _fix_content_types(spec)
    for name in _request_schemas(spec):
        _drop_defaults(schemas[name])
    for path, item in spec["paths"].items():
        for p in item.get("parameters", []):
            if p["in"] == "path" and p["name"] in PATH_EXAMPLES:
                p["example"] = PATH_EXAMPLES[p["name"]]
        for method, op in item.items():
            if method not in METHODS:
                continue
            for key in ("summary", "description"):
                if key in op:
                    op[key] = _plain(op[key])
            meta = OPERATIONS.get((method, path))
            if _idempotent(method, meta):
                op["x-idempotent"] = True
            if meta is None:  # a route this table does not know yet (tests/docs/test_contract.py)
                continue
            op["operationId"] = meta.operation_id
            op["tags"] = [meta.tag]
            params = [p for p in op.get("parameters", []) if p.get("name") != "Authorization"]
            if params:
                op["parameters"] = params
            else:
                op.pop("parameters", None)
            if meta.auth == "required":
                op["security"] = [{"bearerAuth": []}]
            elif meta.auth == "optional":
                op["security"] = [{"bearerAuth": []}, {}]
            if meta.tag != "Probes":  # the probes answer JSON, not problems
                responses = {k: v for k, v in op["responses"].items()
                             if k == "default" or int(k) < 400}
                for status, text in _statuses(meta).items():
                    responses[str(status)] = _problem_response(status, text)
                op["responses"] = responses
            example = EXAMPLES.get(meta.operation_id)
            if example is not None:
                _apply_example(op, example)
    return spec


def _apply_example(op: dict[str, Any], example: Any) -> None:
    if example.request is not None:
        content = op["requestBody"]["content"]
        content["application/json"]["example"] = example.request
        if example.notation is not None and NOTATION_MEDIA_TYPE in content:
            content[NOTATION_MEDIA_TYPE]["example"] = example.notation
    for p in op.get("parameters", []):
        if p["in"] == "header" and p["name"] in example.headers:
            p["example"] = example.headers[p["name"]]
        if p["in"] == "query" and p["name"] in example.query:
            p["example"] = example.query[p["name"]]
    response = op["responses"][str(example.status)]
    if example.response is not None:
        response["content"]["application/json"]["example"] = example.response


def _fix_content_types(spec: dict[str, Any]) -> None:
    paths = spec["paths"]
    schemas = spec["components"]["schemas"]
    # the probes answer JSON, not problems: 200, and 503 when Redis is away
    paths["/healthz"]["get"]["responses"] = {"200": {
        "description": "The process is alive.",
        "content": {"application/json": {"schema": ref("Health"),
                                         "example": {"status": "ok"}}}}}
    paths["/readyz"]["get"]["responses"] = {
        "200": {"description": "Redis answers.", "content": {"application/json": {
            "schema": ref("Readiness"), "example": {"status": "ok"}}}},
        "503": {"description": "Not ready: Redis does not answer, could lose acknowledged "
                               "hands, or the server is draining before a stop (retry after "
                               "`Retry-After`).",
                "headers": {"Retry-After": _HEADERS["Retry-After"]},
                "content": {"application/json": {"schema": ref("Readiness"), "example": {
                    "status": "unavailable", "reason": "Error 111 connecting to …. Connection refused."}}}}}
    adjudicate = paths["/v1/hands/adjudicate"]["post"]["requestBody"]["content"]
    adjudicate[NOTATION_MEDIA_TYPE]["schema"] = {
        "type": "string", "description": "the hand in the text notation (docs/notation.md)"}
    schemas["AppendHand"]["properties"]["record"] = {
        **ref("MatchHandRecord"), "description": "a hand record without `ruleset`"}
    schemas["AppendHand"]["description"] = "Exactly one of `score` and `record`."
    schemas["AppendHand"]["oneOf"] = [{"required": ["score"]}, {"required": ["record"]}]
    turn = schemas["TurnCheck"]["properties"]["turn"]
    schemas["TurnCheck"]["properties"]["turn"] = {**ref("Turn"), **(
        {"description": turn["description"]} if "description" in turn else {})}
    # the score sheet: JSON, or CSV by Accept
    sheet = paths["/v1/matches/{match_id}/sheet"]["get"]["responses"]["200"]
    sheet["content"]["text/csv"] = {"schema": {"type": "string"}, "example": (
        "seq,winner,finish,Kim points,Kim penalty,Lou points,Lou penalty\r\n"
        "0,Lou,out,0,10,20,0\r\ntotal,,,0,10,20,0\r\n")}
    # the live events: a stream, in two media types
    events = paths["/v1/matches/{match_id}/events"]["get"]["responses"]["200"]
    events["content"] = {
        "text/event-stream": {"schema": {"type": "string"}, "example": EVENTS_EXAMPLE},
        "application/x-ndjson": {"schema": {"type": "string"}, "example": (
            '{"id": 0, "event": "hand", "data": {"entry": {…}, "match": {…}}}\n'
            '{"event": "heartbeat"}\n')}}
    # DELETE answers no body
    for code, response in paths["/v1/matches/{match_id}"]["delete"]["responses"].items():
        if code == "204":
            response.pop("content", None)
