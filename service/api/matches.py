"""Match ledgers (SPEC §7): HTTP only; rules in engine.match, storage in ledger.store.

Writes (hands, buy-ins, delete) need ``Authorization: Bearer <token>``, the
write secret returned once by ``POST /v1/matches``. Appends need an
``Idempotency-Key``: a retry with the same key and body answers the first
201 byte for byte and changes nothing; the same key with another body is 422.
Only successful appends are remembered, so a refused request (409, 412, 422)
may be retried under the same key. ``If-Match`` takes the match's ``ETag``.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import os
import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Response, current_app, request
from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from ..engine.cards import CardError
from ..engine.match import (
    CONFIG_KEYS,
    MatchConfig,
    MatchError,
    MatchState,
    apply_buy_in,
    apply_hand,
    new_state,
    replay,
)
from ..engine.players import PlayerIdError, player_id
from ..engine.rules import MATCH_END_MODES, RuleSetError
from ..engine.scoring import check_seats
from ..ledger import get_store
from ..ledger.chain import GENESIS, ChainError, fingerprint, seal, verify
from ..ledger.store import LedgerStore, LedgerUnavailable
from .common import StrictSchema, rules_of, ruleset_field, violation_dict
from .hands import PlayerScoreSchema, ScoreSchema, score_body
from .parsing import Blueprint, Bool, Int
from .problems import Problem, from_engine, language

blp = Blueprint("matches", __name__, url_prefix="/v1/matches",
                description="Match ledgers: scored hands in a hash chain, with standings.")

EXPORT_FORMAT = "kaluki-ledger/1"
ID_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_PAGE = 200
MAX_SEQ = 2**31  # far beyond any ledger's length
CAS_ATTEMPTS = 200
RETRY_AFTER = "2"
REFEREE = "service.engine.referee"


# -- schemas -----------------------------------------------------------------------------

def _player_id() -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=64))


class MatchEndFields(StrictSchema):
    match_end = fields.String(validate=validate.OneOf(MATCH_END_MODES))
    goal_points = Int(validate=validate.Range(1, 1_000_000))
    elimination_over = Int(validate=validate.Range(1, 1_000_000))
    match_hands = Int(validate=validate.Range(1, 10_000))
    buy_ins = Bool()
    buy_ins_max = Int(validate=validate.Range(1, 100))
    buy_in_min_players = Int(validate=validate.Range(2, 100))


class CreateMatchSchema(MatchEndFields):
    ruleset = ruleset_field()
    players = fields.List(_player_id(), required=True, validate=validate.Length(min=1, max=16))


class MatchScoreSchema(ScoreSchema):
    """A /hands/score body without ruleset (the match's rule set applies)."""

    class Meta:
        exclude = ("ruleset",)
        unknown = RAISE


class AppendHandSchema(StrictSchema):
    score = fields.Nested(MatchScoreSchema,
                          metadata={"description": "a /hands/score body without ruleset"})
    record = fields.Dict(metadata={"description": "a hand record without ruleset"})

    @validates_schema
    def _one(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("score" in data) == ("record" in data):
            raise ValidationError("give exactly one of \"score\" and \"record\"", "_schema")
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
    status = fields.String(required=True, metadata={"enum": ["in_progress", "finished"]})
    winner = fields.String(allow_none=True, required=True)
    co_winners = fields.List(fields.String(), required=True,
                             metadata={"description": "a shared win"})
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    version = Int(required=True, metadata={"description": "entries in the ledger"})
    head = fields.String(required=True, metadata={"description": "the last entry's hash"})
    created = fields.String(allow_none=True, required=True)


class CreatedSchema(Schema):
    id = fields.String(required=True)
    token = fields.String(required=True,
                          metadata={"description": "the write secret; shown only once"})
    match = fields.Nested(MatchSchema, required=True)


class EntrySchema(Schema):
    seq = Int(required=True)
    type = fields.String(required=True, metadata={"enum": ["hand", "buy-in"]})
    hash = fields.String(required=True)

    class Meta:
        unknown = "include"


class AppendedSchema(Schema):
    seq = Int(required=True)
    hand = Int(metadata={"description": "hands: the 1-based hand number"})
    player = fields.String(metadata={"description": "buy-ins: who bought back in"})
    hash = fields.String(required=True)
    special = Bool(metadata={"description": "hands only"})
    scores = fields.List(fields.Nested(PlayerScoreSchema), metadata={"description": "hands only"})
    match = fields.Nested(MatchSchema, required=True)


class PageSchema(Schema):
    items = fields.List(fields.Nested(EntrySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class ExportSchema(Schema):
    format = fields.String(metadata={"example": EXPORT_FORMAT})
    id = fields.String()
    ruleset = fields.Raw()
    match_end = fields.Dict()
    players = fields.List(fields.String())
    created = fields.String()
    token_sha256 = fields.String()
    entries = fields.List(fields.Nested(EntrySchema))
    head = fields.String()
    version = Int()
    standings = fields.List(fields.Nested(StandingSchema))

    class Meta:
        unknown = "include"


class ImportSchema(StrictSchema):
    format = fields.String(required=True, validate=validate.Equal(EXPORT_FORMAT))
    id = fields.String(required=True, validate=validate.Regexp(ID_RE))
    ruleset = ruleset_field()
    match_end = fields.Nested(MatchEndFields, required=True)
    players = fields.List(_player_id(), required=True, validate=validate.Length(min=1, max=16))
    created = fields.String(load_default=None)
    token_sha256 = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"))
    entries = fields.List(fields.Dict(), required=True, validate=validate.Length(max=100_000))
    head = fields.String(required=True)
    version = Int(load_default=None)
    # what the exporter saw; checked against the re-score when present
    standings = fields.List(fields.Dict(), load_default=None)
    hands_played = Int(load_default=None)
    status = fields.String(load_default=None)
    winner = fields.String(load_default=None, allow_none=True)


# -- helpers -----------------------------------------------------------------------------

@blp.before_request
def _import_size() -> None:
    """An export outgrows the app's body limit long before a match ends: imports get their own."""
    if request.endpoint == f"{blp.name}.import_match":
        request.max_content_length = int(current_app.config.get(
            "LEDGER_IMPORT_MAX_BYTES", os.environ.get("LEDGER_IMPORT_MAX_BYTES", 32 * 1024 * 1024)))


@blp.errorhandler(LedgerUnavailable)
def _unavailable(exc: LedgerUnavailable) -> Response:
    return Problem(503, "ledger-unavailable", "The match store (Redis) cannot be reached; "
                   "nothing was written. Retry later with the same Idempotency-Key.",
                   nl="De opslag van partijen (Redis) is onbereikbaar; er is niets "
                      "geschreven. Probeer het later opnieuw met dezelfde Idempotency-Key.",
                   headers={"Retry-After": RETRY_AFTER}).response()


def _store() -> LedgerStore:
    return get_store(current_app)


def _check_id(match_id: str) -> None:
    if not ID_RE.match(match_id):
        raise _not_found(match_id)


def _not_found(match_id: str) -> Problem:
    return Problem(404, "match-not-found", f"No match {match_id!r} (it may have expired; "
                   "import its export to restore it).",
                   nl=f"Geen partij {match_id!r} (misschien verlopen; importeer de export).")


def _load(match_id: str) -> tuple[Any, Any]:
    """The store and the match's state, or a 404 problem."""
    _check_id(match_id)
    store = _store()
    s = store.load(match_id)
    if s is None:
        raise _not_found(match_id)
    return store, s


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _bearer() -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, "token-required", "This write needs the match's token: "
                      "Authorization: Bearer <token>.",
                      nl="Deze wijziging vraagt het token van de partij.",
                      headers={"WWW-Authenticate": 'Bearer realm="kaluki-matches"'})
    return token


def _authorize(expected_hash: str) -> None:
    if not hmac.compare_digest(_token_hash(_bearer()), expected_hash):
        raise Problem(403, "token-invalid", "The token does not open this match.",
                      nl="Het token hoort niet bij deze partij.")


def _match_problem(exc: MatchError) -> Problem:
    errors = {exc.field: [str(exc)]} if exc.field else None
    return Problem(exc.status, exc.code, str(exc), errors=errors)


def etag(version: int, head: str) -> str:
    return f'"{version}.{head[:16]}"'


def _if_match_ok(version: int, head: str) -> bool:
    if "If-Match" not in request.headers:
        return True
    im = request.if_match
    return im.star_tag or im.contains(etag(version, head).strip('"'))


def _config(meta: dict[str, Any]) -> MatchConfig:
    return MatchConfig(**meta["match_end"])


def view(match_id: str, meta: dict[str, Any], state: dict[str, Any], version: int,
         head: str) -> dict[str, Any]:
    return {"id": match_id, "ruleset": meta["ruleset"], "match_end": meta["match_end"],
            "players": meta["players"], "hands_played": state["hands_played"],
            "status": state["status"], "winner": state["winner"],
            "co_winners": state.get("co_winners", []), "standings": state["standings"],
            "version": version, "head": head, "created": meta.get("created")}


def _json(body: bytes | str, status: int = 200, **headers: str) -> Response:
    resp = current_app.response_class(body, status=status, mimetype="application/json")
    for k, v in headers.items():
        resp.headers[k.replace("_", "-")] = v
    return resp


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _score_hand(kind: str, body: Any, ruleset: Any, field: str) -> tuple[str, str, dict[str, Any]]:
    """(winner, finish, {"special", "scores"}) for a score body or a hand record."""
    rules = rules_of(ruleset)
    if kind == "score":
        result = score_body(body, rules)
        return body["winner"], body["finish"], result
    try:
        referee = importlib.import_module(REFEREE)  # built in parallel; optional until it lands
    except ModuleNotFoundError as exc:
        if exc.name != REFEREE:
            raise
        raise Problem(422, "records-unsupported", "This service cannot adjudicate hand records "
                      "yet; send the hand as {\"score\": ...}.",
                      nl="Deze dienst kan nog geen spelverslagen beoordelen; stuur {\"score\": ...}."
                      ) from None
    try:
        record = referee.parse_record({"ruleset": ruleset, **body})
    except (referee.RecordError, CardError, RuleSetError) as exc:  # the card and rule-set
        # errors of a record carry their field too, as the adjudicate endpoint reports them
        f = f"{field}.{exc.field}" if getattr(exc, "field", None) else field
        raise Problem(422, getattr(exc, "code", "invalid-record"), str(exc),
                      errors={f: [str(exc)]}) from None
    adj = referee.adjudicate(record)
    if not adj.legal:
        v = adj.violation
        raise Problem(422, "illegal-record", "The hand record breaks a rule; see 'violations'.",
                      nl="Het spelverslag overtreedt een regel; zie 'violations'.",
                      violations=[violation_dict(v, language())] if v is not None else [])
    try:
        result = referee.finished_result(adj)
    except referee.RecordError as exc:
        raise Problem(422, exc.code, str(exc), errors={f"{field}.{exc.field}": [str(exc)]}) from None
    score = result.score
    return result.winner, result.finish, {
        "special": score.special,
        "scores": [{"id": s.id, "hand_value": s.hand_value, "points": s.points,
                    "penalty": s.penalty} for s in score.scores]}


def _deltas(result: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(s["id"], s["points"], s["penalty"]) for s in result["scores"]]


def _created_response(match_id: str, body: dict[str, Any] | bytes, version: int, head: str,
                      status: int = 201) -> Response:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    return _json(data, status, Location=f"/v1/matches/{match_id}",
                 ETag=etag(version, head))


# -- resources ---------------------------------------------------------------------------

_PROBLEM_DOCS = {
    304: "Not modified (If-None-Match).",
    400: "Idempotency-Key missing or too long (`idempotency-key-required`).",
    401: "No token (`token-required`); send `Authorization: Bearer <token>`.",
    403: "Wrong token (`token-invalid`).",
    404: "No such match (`match-not-found`): it may have expired; import its export.",
    409: "Refused by the match's state: `match-finished`, `buy-ins-not-allowed`, "
         "`player-not-eliminated`, `buy-ins-closed`, `buy-ins-exhausted`, `match-exists`.",
    412: "Stale If-Match (`precondition-failed`).",
    422: "Invalid body, an illegal record (`illegal-record`, with violations), a key reused "
         "with another body (`idempotency-key-reused`), a broken chain (`chain-broken`), "
         "a re-score that differs (`rescore-mismatch`), `records-unsupported`.",
    503: "Redis unreachable (`ledger-unavailable`), with Retry-After; nothing was written.",
}


def _problems(*statuses: int):
    def wrap(fn):
        for status in statuses:
            fn = blp.alt_response(status, description=_PROBLEM_DOCS[status])(fn)
        return fn
    return wrap


@blp.route("", methods=["POST"])
@blp.arguments(CreateMatchSchema())
@blp.response(201, CreatedSchema, headers={"Location": {"schema": {"type": "string"}},
                                           "ETag": {"schema": {"type": "string"}}})
@_problems(422, 503)
def create(args: dict[str, Any]):
    """Start a match: its id, its write token (shown only once) and the match."""
    rules = rules_of(args["ruleset"])
    players = args["players"]
    try:
        check_seats(len(players), rules)
        config = MatchConfig.from_rules(rules, {k: args.get(k) for k in CONFIG_KEYS})
        state = new_state(players)
    except MatchError as exc:
        raise _match_problem(exc) from None
    except ValueError as exc:
        raise from_engine(exc, "players") from None
    match_id = secrets.token_urlsafe(12)
    token = secrets.token_urlsafe(32)
    meta = {"ruleset": args["ruleset"], "players": state.players, "match_end": config.to_dict(),
            "created": _now()}
    created, _ = _store().create(match_id, meta, state.to_dict(), _token_hash(token))
    if not created:  # 96 random bits: practically never
        raise Problem(503, "ledger-unavailable", "Please retry.", headers={"Retry-After": "0"})
    body = {"id": match_id, "token": token,
            "match": view(match_id, meta, state.to_dict(), 0, GENESIS)}
    return _created_response(match_id, body, 0, GENESIS)


@blp.route("/<match_id>", methods=["GET"])
@blp.response(200, MatchSchema, headers={"ETag": {"schema": {"type": "string"}}})
@_problems(304, 404, 503)
def get(match_id: str):
    """The match: standings, status, winner, version and head of the chain."""
    _check_id(match_id)
    s = _store().load(match_id)
    if s is None:
        raise _not_found(match_id)
    tag = etag(s.version, s.head)
    if request.if_none_match and request.if_none_match.contains(tag.strip('"')):
        return Response(status=304, headers={"ETag": tag})
    return _json(orjson.dumps(view(match_id, s.meta, s.state, s.version, s.head)), ETag=tag)


@blp.route("/<match_id>", methods=["DELETE"])
@blp.response(204)
@_problems(401, 403, 404, 412, 503)
def delete(match_id: str):
    """Delete the match (needs its token)."""
    store, s = _load(match_id)
    _authorize(s.token_hash)
    if not _if_match_ok(s.version, s.head):
        raise _stale()
    store.delete(match_id)
    return Response(status=204)


def _stale() -> Problem:
    return Problem(412, "precondition-failed", "If-Match does not match the match's current "
                   "ETag; read it again.",
                   nl="If-Match komt niet overeen met de huidige ETag van de partij.")


def _idempotency_key(required: bool) -> str:
    key = request.headers.get("Idempotency-Key", "").strip()
    if not key and required:
        raise Problem(400, "idempotency-key-required", "Appending a hand needs an "
                      "Idempotency-Key header (a fresh random string per hand).",
                      nl="Een hand toevoegen vraagt een Idempotency-Key-header.")
    if len(key) > 255:
        raise Problem(400, "idempotency-key-invalid", "An Idempotency-Key has at most 255 "
                      "characters.")
    return key


def _replay(prior: str, fp: str) -> Response:
    stored_fp, _, body = prior.partition("\n")
    if not hmac.compare_digest(stored_fp, fp):
        raise Problem(422, "idempotency-key-reused", "This Idempotency-Key was used for another "
                      "request body; use a fresh key for a new request.",
                      nl="Deze Idempotency-Key hoort bij een ander verzoek.")
    doc = orjson.loads(body)
    m = doc["match"]
    resp = _json(body.encode("utf-8"), 201,
                 Location=f"/v1/matches/{m['id']}/hands/{doc['seq']}",
                 ETag=etag(m["version"], m["head"]))
    resp.headers["Idempotent-Replayed"] = "true"
    return resp


def _append(match_id: str, kind: str, build) -> Response:
    """Optimistic append: read, compute in the engine, compare-and-set in one script run.

    ``build(stored, state, config)`` returns (entry without seq/hash, new state, extra
    response fields) or raises a Problem / MatchError.
    """
    _check_id(match_id)
    store = _store()
    key = _idempotency_key(required=(kind == "hand"))
    fp = fingerprint({"kind": kind, "body": request.get_json(silent=True)})
    authorized = False
    for attempt in range(CAS_ATTEMPTS):
        s = store.load(match_id, key or None)
        if s is None:
            raise _not_found(match_id)
        if not authorized:
            _authorize(s.token_hash)
            authorized = True
        if s.prior is not None:
            return _replay(s.prior, fp)
        if not _if_match_ok(s.version, s.head):
            raise _stale()
        config = _config(s.meta)
        try:
            entry_body, new, extra = build(s, MatchState.from_dict(s.state), config)
        except MatchError as exc:
            raise _match_problem(exc) from None
        entry = seal({"seq": s.version, **entry_body}, s.head)
        version = s.version + 1
        doc = {"seq": s.version, **extra, "hash": entry["hash"],
               "match": view(match_id, s.meta, new.to_dict(), version, entry["hash"])}
        body = orjson.dumps(doc).decode()
        res = store.append(match_id, idem_key=key, fingerprint=fp, expected_version=s.version,
                           expected_head=s.head, entry=orjson.dumps(entry).decode(),
                           new_head=entry["hash"], state=new.to_dict(), response=body)
        if res.kind == "ok":
            return _json(body.encode("utf-8"), 201,
                         Location=f"/v1/matches/{match_id}/hands/{s.version}",
                         ETag=etag(version, entry["hash"]))
        if res.kind == "replay":
            assert res.payload is not None
            return _replay(res.payload, fp)
        if res.kind == "missing":
            raise _not_found(match_id)
        time.sleep(min(0.001 * (attempt + 1), 0.02) * secrets.randbelow(100) / 100)
    raise Problem(503, "ledger-busy", "Too many concurrent writes to this match; retry.",
                  headers={"Retry-After": "1"})


@blp.route("/<match_id>/hands", methods=["POST"])
@blp.arguments(AppendHandSchema())
@blp.response(201, AppendedSchema, headers={"Location": {"schema": {"type": "string"}},
                                            "ETag": {"schema": {"type": "string"}}})
@blp.doc(parameters=[
    {"in": "header", "name": "Idempotency-Key", "required": True, "schema": {"type": "string"}},
    {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"}},
    {"in": "header", "name": "Authorization", "required": True,
     "schema": {"type": "string", "example": "Bearer <token>"}}])
@_problems(400, 401, 403, 404, 409, 412, 422, 503)
def append_hand(args: dict[str, Any], match_id: str):
    """Append a scored hand (a score body or a hand record) and answer the new standings."""
    kind = "score" if "score" in args else "record"
    cache: dict[str, Any] = {}

    def build(s, state: MatchState, config: MatchConfig):
        if "scored" not in cache:  # scoring depends only on the body and the rule set
            cache["scored"] = _score_hand(kind, args[kind], s.meta["ruleset"], kind)
        winner, finish, result = cache["scored"]
        new = apply_hand(state, config, winner, _deltas(result))
        entry = {"type": "hand", "source": kind, "input": request.get_json()[kind],
                 "winner": winner, "finish": finish, **result}
        return entry, new, {"hand": new.hands_played, **result}

    return _append(match_id, "hand", build)


@blp.route("/<match_id>/buy-ins", methods=["POST"])
@blp.arguments(BuyInSchema())
@blp.response(201, AppendedSchema)
@_problems(401, 403, 404, 409, 412, 422, 503)
def buy_in(args: dict[str, Any], match_id: str):
    """An eliminated player buys back in (rule sets with buy_ins; Idempotency-Key optional)."""
    try:
        player = player_id(args["player"])
    except PlayerIdError as exc:
        raise from_engine(exc, "player") from None

    def build(s, state: MatchState, config: MatchConfig):
        new = apply_buy_in(state, config, player)
        return {"type": "buy-in", "player": player}, new, {"player": player}

    return _append(match_id, "buy-in", build)


def _parse_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise Problem(422, "invalid-cursor", "Use the next_cursor of a previous page.",
                      errors={"cursor": ["not a cursor"]})
    return int(cursor)


@blp.route("/<match_id>/hands", methods=["GET"])
@blp.arguments(PageArgs(), location="query")
@blp.response(200, PageSchema)
@_problems(404, 422, 503)
def list_hands(args: dict[str, Any], match_id: str):
    """The ledger's entries in order, ``limit`` at a time; follow ``next_cursor``."""
    store, s = _load(match_id)
    start = _parse_cursor(args.get("cursor"))
    limit = args["limit"]
    items = store.entries(match_id, start, start + limit - 1) if start < s.version else []
    nxt = str(start + len(items)) if start + len(items) < s.version else None
    body = b'{"items":[' + b",".join(i.encode("utf-8") for i in items) + b'],"next_cursor":' + \
        orjson.dumps(nxt) + b"}"
    resp = _json(body)
    if nxt is not None:
        resp.headers["Link"] = f'</v1/matches/{match_id}/hands?cursor={nxt}&limit={limit}>; rel="next"'
    return resp


@blp.route("/<match_id>/hands/<int:seq>", methods=["GET"])
@blp.response(200, EntrySchema)
@_problems(404, 503)
def get_entry(match_id: str, seq: int):
    """One ledger entry by its sequence number."""
    _check_id(match_id)
    store = _store()
    items = store.entries(match_id, seq, seq) if seq < MAX_SEQ else []  # Redis takes 64-bit indexes
    if not items:
        if store.load(match_id) is None:
            raise _not_found(match_id)
        raise Problem(404, "entry-not-found", f"Match {match_id!r} has no entry {seq}.",
                      nl=f"Partij {match_id!r} heeft geen entry {seq}.")
    return _json(items[0].encode("utf-8"))


@blp.route("/<match_id>/export", methods=["GET"])
@blp.response(200, ExportSchema)
@_problems(404, 503)
def export(match_id: str):
    """The whole ledger: keep it, and ``POST /v1/matches/import`` restores the match."""
    store, s = _load(match_id)
    entries = store.entries(match_id)
    if len(entries) != s.version:  # appended between the two reads: read again
        s = store.load(match_id)
        if s is None:
            raise _not_found(match_id)
        entries = store.entries(match_id, 0, s.version - 1) if s.version else []
    v = view(match_id, s.meta, s.state, s.version, s.head)
    doc = {"format": EXPORT_FORMAT, "id": match_id, "ruleset": s.meta["ruleset"],
           "match_end": s.meta["match_end"], "players": s.meta["players"],
           "created": s.meta.get("created"), "token_sha256": s.token_hash,
           "version": s.version, "head": s.head, "hands_played": v["hands_played"],
           "status": v["status"], "winner": v["winner"], "standings": v["standings"]}
    head = orjson.dumps(doc)[:-1]
    body = head + b',"entries":[' + b",".join(e.encode("utf-8") for e in entries) + b"]}"
    return _json(body, ETag=etag(s.version, s.head),
                 Content_Disposition=f'attachment; filename="match-{match_id}.json"')


def rescore(doc: dict[str, Any]) -> MatchState:
    """Verify an export's chain and re-score every entry; the rebuilt state (or a 422)."""
    entries = doc["entries"]
    try:
        head = verify(entries)
    except ChainError as exc:
        raise Problem(422, "chain-broken", str(exc), errors={f"entries.{exc.index}": [str(exc)]},
                      nl=f"De hashketen klopt niet bij entry {exc.index}.") from None
    if head != doc["head"]:
        raise Problem(422, "chain-broken", "head is not the last entry's hash",
                      errors={"head": ["does not match the entries"]})
    rules = rules_of(doc["ruleset"])
    try:
        check_seats(len(doc["players"]), rules)
        config = MatchConfig(**{**MatchConfig.from_rules(rules).to_dict(), **doc["match_end"]})
    except MatchError as exc:
        raise _match_problem(exc) from None
    except ValueError as exc:
        raise from_engine(exc, "players") from None
    events = []
    score_schema = MatchScoreSchema()
    for i, e in enumerate(entries):
        field = f"entries.{i}"
        if e.get("type") == "buy-in":
            events.append(("buy-in", e.get("player"), None))
            continue
        if e.get("type") != "hand" or e.get("source") not in ("score", "record"):
            raise Problem(422, "invalid-entry", f"entry {i} is neither a hand nor a buy-in",
                          errors={field: ["unknown entry type"]})
        try:
            body = score_schema.load(e.get("input")) if e["source"] == "score" else e.get("input")
        except ValidationError as exc:
            raise Problem(422, "invalid-entry", f"entry {i}: its input is not a score body",
                          errors={f"{field}.input": exc.messages}) from None
        if not isinstance(body, dict):
            raise Problem(422, "invalid-entry", f"entry {i} has no input",
                          errors={f"{field}.input": ["missing"]})
        winner, finish, result = _score_hand(e["source"], body, doc["ruleset"], f"{field}.input")
        if (winner, finish, result["special"], result["scores"]) != (
                e.get("winner"), e.get("finish"), e.get("special"), e.get("scores")):
            raise Problem(422, "rescore-mismatch", f"entry {i}: its recorded scores differ from "
                          "a re-score under the match's rule set",
                          errors={field: ["recorded scores differ from the re-score"]})
        events.append(("hand", winner, _deltas(result)))
    try:
        state = replay(doc["players"], config, events)
    except MatchError as exc:
        raise Problem(422, "rescore-mismatch", f"replaying the ledger fails: {exc}",
                      errors={"entries": [str(exc)]}) from None
    claimed = {k: doc[k] for k in ("standings", "hands_played", "status", "winner")
               if doc.get(k) is not None}
    mine = state.to_dict()
    for k, v in claimed.items():
        if mine[k] != v:
            raise Problem(422, "rescore-mismatch", f"the export's {k} differ from the re-score",
                          errors={k: ["differs from the re-score of the entries"]})
    return state


@blp.route("/import", methods=["POST"])
@blp.arguments(ImportSchema())
@blp.response(201, MatchSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(parameters=[{"in": "header", "name": "Authorization", "required": True,
                      "schema": {"type": "string", "example": "Bearer <token>"}}])
@_problems(401, 403, 409, 422, 503)
def import_match(args: dict[str, Any]):
    """Restore a match from its export: verify the chain, re-score every hand, store it.

    Needs the match's token (the export holds only its SHA-256). 201 when restored,
    200 when the same ledger is already stored, 409 when the id holds another ledger.
    """
    doc = request.get_json()
    doc = {**args, "entries": doc["entries"], "ruleset": doc["ruleset"],
           "match_end": doc["match_end"]}
    if not hmac.compare_digest(_token_hash(_bearer()), doc["token_sha256"]):
        raise Problem(403, "token-invalid", "The token does not open this match.")
    state = rescore(doc)
    config = MatchConfig(**{**MatchConfig.from_rules(rules_of(doc["ruleset"])).to_dict(),
                            **doc["match_end"]})
    match_id = doc["id"]
    meta = {"ruleset": doc["ruleset"], "players": doc["players"],
            "match_end": config.to_dict(), "created": doc.get("created") or _now()}
    entries = [orjson.dumps(e).decode() for e in doc["entries"]]
    created, head = _store().create(match_id, meta, state.to_dict(), doc["token_sha256"],
                                    entries, doc["head"])
    version = len(entries)
    body = orjson.dumps(view(match_id, meta, state.to_dict(), version, doc["head"]))
    if created:
        return _created_response(match_id, body, version, doc["head"])
    if head == doc["head"]:
        return _created_response(match_id, body, version, doc["head"], status=200)
    raise Problem(409, "match-exists", f"Match {match_id!r} is stored with another ledger.",
                  nl=f"Partij {match_id!r} bestaat al met een ander verloop.")
