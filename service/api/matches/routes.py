"""/v1/matches (docs/api.md#match-ledgers): parse the request, call the ledger service, render its
answer.

The ledger's work (tokens, idempotency, compare-and-set, export, import) is
:class:`service.ledger.service.LedgerService`; its domain errors become problems
here, through the app's one error handler and its table of codes to HTTP statuses
(:data:`service.api.problems.STATUS`).

Writes (hands, buy-ins, delete) need ``Authorization: Bearer <token>``, the
write secret returned once by ``POST /v1/matches``. Appends need an
``Idempotency-Key``: a retry with the same key and body answers the first
201 byte for byte and changes nothing; the same key with another body is 422.
Only successful appends are remembered, so a refused request (409, 412, 422)
may be retried under the same key. ``If-Match`` takes the match's ``ETag``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from flask import Response, current_app, request
from marshmallow import ValidationError

from ... import settings
from ...engine.match import EntrySource, EntryType
from ...i18n import N_
from ...ledger import get_service, limits
from ...ledger.service import (
    Appended,
    CorrectionEntry,
    HandEntry,
    LedgerService,
    Match,
    match_not_found,
)
from ...web.jsonio import json_response
from ...web.parsing import Blueprint
from ..problems import Problem
from .events import EventHub
from .schemas import (
    ID_RE,
    AppendedSchema,
    AppendHandSchema,
    BuyInSchema,
    CorrectionSchema,
    CreatedSchema,
    CreateMatchSchema,
    EntrySchema,
    ExportSchema,
    ImportSchema,
    MatchSchema,
    MatchScoreSchema,
    PageArgs,
    PageSchema,
    SettlementSchema,
    SheetSchema,
    check_one_hand,
)
from .sheet import sheet, sheet_csv
from .texts import currency_digits

blp = Blueprint("matches", __name__, url_prefix="/v1/matches",
                description="Match ledgers: scored hands in a hash chain, with standings.")

# Domain errors (LedgerError, MatchError, EntryError, …) reach the client through the app's
# one error handler (service/api/problems.py): codes to statuses in its STATUS table.


# -- parsing --------------------------------------------------------------------------------

@blp.before_request
def _import_size() -> None:
    """An export outgrows the app's body limit long before a match ends: imports get their own."""
    if request.endpoint == f"{blp.name}.import_match":
        request.max_content_length = limits(settings.of(current_app)).import_bytes


def _service() -> LedgerService:
    return get_service(current_app)


def _check_id(match_id: str) -> None:
    if not ID_RE.match(match_id):
        raise match_not_found(match_id)


def _bearer() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _if_match() -> Callable[[int, str], bool] | None:
    if "If-Match" not in request.headers:
        return None
    im = request.if_match
    return lambda version, head: im.star_tag or im.contains(etag(version, head).strip('"'))


def _idempotency_key(required: bool) -> str:
    key = request.headers.get("Idempotency-Key", "").strip()
    if not key and required:
        raise Problem("idempotency-key-required", N_("Appending a hand needs an Idempotency-Key "
                                                     "header (a fresh random string per hand)."))
    if len(key) > 255:
        raise Problem("idempotency-key-invalid", "An Idempotency-Key has at most 255 characters.")
    return key


def _parse_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    if not cursor.isdecimal() or len(cursor) > 9:  # isdigit() also takes "³", which int() refuses
        raise Problem("invalid-cursor", "Use the next_cursor of a previous page.",
                      errors={"cursor": ["not a cursor"]})
    return int(cursor)


# -- rendering ------------------------------------------------------------------------------

def etag(version: int, head: str) -> str:
    return f'"{version}.{head[:16]}"'


def view(m: Match) -> dict[str, Any]:
    s = m.state
    return {"id": m.id, "ruleset": m.ruleset, "match_end": m.config.to_dict(),
            "players": list(m.players), "hands_played": s.hands_played, "status": s.status,
            "winner": s.winner, "co_winners": list(s.co_winners),
            "standings": [x.to_dict() for x in s.standings], "version": m.version,
            "head": m.head, "created": m.created, "title": m.title, "names": dict(m.names),
            "stakes": None if m.stakes is None else dict(m.stakes)}


def _appended(a: Appended) -> Response:
    e, m = a.entry, a.match
    if isinstance(e, HandEntry):
        extra: dict[str, Any] = {"hand": m.state.hands_played, "special": e.special,
                                 "scores": e.to_data()["scores"]}
    elif isinstance(e, CorrectionEntry):
        extra = {k: v for k, v in e.to_data().items()
                 if k not in ("seq", "hash", "input", "source")}
    else:
        extra = {"player": e.player}
    doc = {"seq": e.seq, **extra, "hash": e.hash, "match": view(m)}
    resp = json_response(doc, 201, {"Location": f"/v1/matches/{m.id}/hands/{e.seq}",
                                    "ETag": etag(m.version, m.head)})
    if a.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


# -- the documented headers ----------------------------------------------------------------

_TEXT = {"type": "string"}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": True, "schema": _TEXT}
IDEMPOTENCY_KEY_OPTIONAL = {**IDEMPOTENCY_KEY, "required": False}
IF_MATCH = {"in": "header", "name": "If-Match", "required": False, "schema": _TEXT}
AUTHORIZATION = {"in": "header", "name": "Authorization", "required": True,
                 "schema": {"type": "string", "example": "Bearer <token>"}}
CREATED_HEADERS = {"Location": {"schema": _TEXT}, "ETag": {"schema": _TEXT}}
"""A 201's headers: where the new resource is, and the match's new ETag."""


def header_params(*params: dict[str, Any]) -> list[dict[str, Any]]:
    """The request headers an operation documents (copies: apispec may annotate them)."""
    return [dict(p) for p in params]


# -- resources ------------------------------------------------------------------------------

@blp.route("", methods=["POST"])
@blp.arguments(CreateMatchSchema())
@blp.response(201, CreatedSchema, headers=CREATED_HEADERS)
def create(args: dict[str, Any]) -> Response:
    """Start a match: its id, its write token (shown only once) and the match."""
    overrides = {k: v for k, v in args.items()
                 if k not in ("ruleset", "players", "title", "names", "stakes")}
    m, token = _service().create(args["ruleset"], args["players"], overrides,
                                 title=args.get("title"), names=args.get("names"),
                                 stakes=args.get("stakes"))
    body = {"id": m.id, "token": token, "match": view(m)}
    return json_response(body, 201, {"Location": f"/v1/matches/{m.id}",
                                     "ETag": etag(m.version, m.head)})


@blp.route("/<match_id>", methods=["GET"])
@blp.response(200, MatchSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.alt_response(304, description="Not modified (If-None-Match).")
def get(match_id: str) -> Response:
    """The match: standings, status, winner, version and head of the chain."""
    _check_id(match_id)
    m = _service().get(match_id)
    tag = etag(m.version, m.head)
    if request.if_none_match and request.if_none_match.contains(tag.strip('"')):
        return Response(status=304, headers={"ETag": tag})
    return json_response(view(m), headers={"ETag": tag})


@blp.route("/<match_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(parameters=header_params(IF_MATCH))
def delete(match_id: str) -> Response:
    """Delete the match (needs its token)."""
    _check_id(match_id)
    _service().delete(match_id, _bearer(), _if_match())
    return Response(status=204)


@blp.route("/<match_id>/hands", methods=["POST"])
@blp.arguments(AppendHandSchema())
@blp.response(201, AppendedSchema, headers=CREATED_HEADERS)
@blp.doc(parameters=header_params(IDEMPOTENCY_KEY, IF_MATCH, AUTHORIZATION))
def append_hand(args: dict[str, Any], match_id: str) -> Response:
    """Append a scored hand (a score body or a hand record) and answer the new standings."""
    _check_id(match_id)
    check_one_hand(args)
    key = _idempotency_key(required=True)
    source = EntrySource.SCORE if "score" in args else EntrySource.RECORD
    raw = request.get_json()
    return _appended(_service().append_hand(match_id, _bearer(), source=source,
                                            body=raw[source], key=key, request=raw,
                                            if_match=_if_match()))


@blp.route("/<match_id>/buy-ins", methods=["POST"])
@blp.arguments(BuyInSchema())
@blp.response(201, AppendedSchema)
@blp.doc(parameters=header_params(IDEMPOTENCY_KEY_OPTIONAL, IF_MATCH))
def buy_in(args: dict[str, Any], match_id: str) -> Response:
    """An eliminated player buys back in (rule sets with buy_ins; Idempotency-Key optional)."""
    _check_id(match_id)
    key = _idempotency_key(required=False)
    return _appended(_service().buy_in(match_id, _bearer(), player=args["player"], key=key,
                                       request=request.get_json(silent=True),
                                       if_match=_if_match()))


@blp.route("/<match_id>/hands", methods=["GET"])
@blp.arguments(PageArgs(), location="query")
@blp.response(200, PageSchema)
def list_hands(args: dict[str, Any], match_id: str) -> Response:
    """The ledger's entries in order, ``limit`` at a time; follow ``next_cursor``."""
    _check_id(match_id)
    start = _parse_cursor(args.get("cursor"))
    limit = args["limit"]
    items, version, state = _service().page(match_id, start, limit)
    if state.corrected:  # corrected hands show corrected_by (not part of the hashed entry)
        by = dict(state.corrected)
        items = [i if start + n not in by else
                 orjson.dumps({**orjson.loads(i), "corrected_by": by[start + n]}).decode()
                 for n, i in enumerate(items)]
    nxt = str(start + len(items)) if start + len(items) < version else None
    body = b'{"items":[' + b",".join(i.encode("utf-8") for i in items) + b'],"next_cursor":' + \
        orjson.dumps(nxt) + b"}"
    resp = json_response(body)
    if nxt is not None:
        resp.headers["Link"] = f'</v1/matches/{match_id}/hands?cursor={nxt}&limit={limit}>; rel="next"'
    return resp


@blp.route("/<match_id>/hands/<int:seq>", methods=["GET"])
@blp.response(200, EntrySchema)
def get_entry(match_id: str, seq: int) -> Response:
    """One ledger entry by its sequence number; a corrected hand also shows
    ``corrected_by``, the seq of its latest correction (not part of the hashed entry)."""
    _check_id(match_id)
    text, corrected_by = _service().entry(match_id, seq)
    if corrected_by is None:
        return json_response(text.encode("utf-8"))
    return json_response({**orjson.loads(text), "corrected_by": corrected_by})


@blp.route("/<match_id>/hands/<int:seq>/corrections", methods=["POST"])
@blp.arguments(CorrectionSchema())
@blp.response(201, AppendedSchema, headers=CREATED_HEADERS)
@blp.doc(parameters=header_params(IDEMPOTENCY_KEY, IF_MATCH, AUTHORIZATION))
def correct_hand(args: dict[str, Any], match_id: str, seq: int) -> Response:
    """Correct hand ``seq`` (SPEC §7.1): the hand as it should have been (``score`` or
    ``record``) or ``void``, with a ``reason``. One more entry in the chain; the
    standings, match end, buy-ins and winner re-folded. 409 ``correction-conflict`` when a
    later entry would become impossible (nothing changes)."""
    _check_id(match_id)
    key = _idempotency_key(required=True)
    raw = request.get_json()
    source = next((k for k in EntrySource if k in args), None)
    return _appended(_service().correct(match_id, _bearer(), seq=seq, reason=args["reason"],
                                        source=source,
                                        body=raw[source] if source else None, key=key,
                                        request=raw, if_match=_if_match()))


@blp.route("/<match_id>/sheet", methods=["GET"])
@blp.response(200, SheetSchema, description="The sheet: JSON, or RFC 4180 CSV with "
              "`Accept: text/csv`.")
def get_sheet(match_id: str) -> Response:
    """The match as a score sheet: a row per hand as it counts (corrected values; voided
    hands left out), totals, display names. JSON, or RFC 4180 CSV with ``Accept: text/csv``
    (text from clients that could start a spreadsheet formula gets a leading ``'``)."""
    _check_id(match_id)
    m, entries = _service().ledger(match_id)
    best = request.accept_mimetypes.best_match(["application/json", "text/csv"],
                                               default="application/json")
    if best == "text/csv" and request.accept_mimetypes["text/csv"] > \
            request.accept_mimetypes["application/json"]:
        return Response(sheet_csv(m, entries), mimetype="text/csv", headers={
            "Content-Disposition": f'attachment; filename="match-{m.id}.csv"',
            "ETag": etag(m.version, m.head), "Vary": "Accept"})
    doc, _ = sheet(m, entries)
    return json_response(doc, headers={"ETag": etag(m.version, m.head), "Vary": "Accept"})


@blp.route("/<match_id>/settlement", methods=["GET"])
@blp.response(200, SettlementSchema)
def get_settlement(match_id: str) -> Response:
    """Who owes whom under the match's stakes (SPEC §7.1): balances summing to zero and
    the fewest transfers that settle them; ``final`` false while the match is in progress
    (the settlement if it ended now). 409 ``no-stakes`` for a match without stakes."""
    _check_id(match_id)
    s = _service().settlement(match_id, currency_digits)
    return json_response({
        "currency": s.currency, "final": s.final,
        "balances": [{"player": p, "amount": f"{a:f}"} for p, a in s.balances.items()],
        "transfers": [{"from": t.payer, "to": t.payee, "amount": f"{t.amount:f}"}
                      for t in s.transfers]})


EVENTS_EXAMPLE = (
    'retry: 1000\n\nid: 0\nevent: hand\ndata: {"entry": {"seq": 0, "type": "hand", …}, '
    '"match": {"id": "c2VjcmV0LW1hdGNo", "hands_played": 1, …}}\n\n: heartbeat\n\n')
NDJSON = "application/x-ndjson"


def _hub() -> EventHub:
    hub: EventHub | None = current_app.extensions.get("kaluki_events")
    if hub is None:
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        hub = app.extensions["kaluki_events"] = EventHub(
            lambda: get_service(app), view, settings.of(app),
            app.extensions.get("kaluki_events_observer"))
    return hub


def _resume_after() -> int:
    """The seq to resume after: ``Last-Event-ID`` (it wins) or ``?after=``; -1 for all."""
    text = request.headers.get("Last-Event-ID")
    where = "Last-Event-ID"
    if text is None:
        text, where = request.args.get("after"), "after"
    if text is None or text.strip() == "":
        return -1
    text = text.strip()
    if not text.isdecimal() or len(text) > 9:
        raise Problem("invalid-cursor", "Resume after the id (seq) of the last event received.",
                      errors={where: ["not an event id"]})
    return int(text)


@blp.route("/<match_id>/events", methods=["GET"])
@blp.doc(parameters=[
    {"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
     "description": "resume after this event's id (the entry's seq); wins over ?after"},
    {"in": "query", "name": "after", "required": False, "schema": {"type": "integer"},
     "description": "resume after this seq"}])
@blp.response(200, description="The match's entries as they happen: Server-Sent Events, or "
              "NDJSON with `Accept: application/x-ndjson`.", content_type="text/event-stream")
def events(match_id: str) -> Response:
    """Live events (SPEC §7.1): every entry so far (or after ``Last-Event-ID``/``?after``),
    then each new one as it is written on any instance: ``id`` the entry's seq, ``event``
    ``hand``, ``correction``, ``buy-in``, ``finished`` or ``deleted``, ``data``
    ``{"entry", "match"}``. A heartbeat every 15 s; the stream ends after ``finished`` or
    ``deleted``. 503 ``too-many-subscribers`` past ``EVENTS_MAX_SUBSCRIBERS`` per worker."""
    _check_id(match_id)
    after = _resume_after()
    accept = request.accept_mimetypes
    ndjson = accept[NDJSON] > accept["text/event-stream"]
    hub = _hub()
    if not hub.admit():
        raise Problem("too-many-subscribers", N_("This instance serves as many event streams "
                                                 "as it may; reconnect later."))
    frames = hub.stream(match_id, after, ndjson)  # 404 here, before the first byte
    return Response(frames, mimetype=NDJSON if ndjson else "text/event-stream", headers={
        "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@blp.route("/<match_id>/export", methods=["GET"])
@blp.response(200, ExportSchema)
@blp.doc(parameters=header_params(AUTHORIZATION))
def export(match_id: str) -> Response:
    """The whole ledger, signed by the service (needs the token): keep it, and
    ``POST /v1/matches/import`` restores the match with its answered Idempotency-Keys."""
    _check_id(match_id)
    ex, signature = _service().export(match_id, _bearer())
    head = orjson.dumps(ex.header())[:-1]
    body = head + b',"signature":' + orjson.dumps(signature) + b',"entries":[' + \
        b",".join(e.encode("utf-8") for e in ex.entries) + b"]}"
    return json_response(body, headers={
        "ETag": etag(ex.match.version, ex.match.head),
        "Content-Disposition": f'attachment; filename="match-{ex.match.id}.json"',
        "Cache-Control": "no-store"})


def _check_entries(entries: list[Any]) -> None:
    """Each score entry's input must be a /hands/score body (the referee reads records)."""
    score_schema = MatchScoreSchema()
    for i, e in enumerate(entries):
        if isinstance(e, dict) and e.get("type") == EntryType.HAND \
                and e.get("source") == EntrySource.SCORE:
            try:
                # a missing input is None, which load refuses with a ValidationError
                score_schema.load(e.get("input"))  # type: ignore[arg-type]
            except ValidationError as exc:
                raise Problem("invalid-entry", f"entry {i}: its input is not a score body",
                              errors={f"entries.{i}.input": exc.messages}) from None


@blp.route("/import", methods=["POST"])
@blp.arguments(ImportSchema())
@blp.response(201, MatchSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(parameters=header_params(AUTHORIZATION))
def import_match(args: dict[str, Any]) -> Response:
    """Restore a match from its export: check its signature, verify the chain, re-score
    every hand, store it with its answered Idempotency-Keys.

    Only an export this service signed is taken (else 422 `signature-invalid`), with
    the match's token (the export holds only its SHA-256). 201 when restored; 409
    `match-exists` when the id holds a live match; an id deleted or expired is
    restored only with its own token (403 `token-invalid` otherwise). The body limit
    is LEDGER_IMPORT_MAX_BYTES (by default enough for LEDGER_MAX_HANDS entries of
    LEDGER_MAX_ENTRY_BYTES each).
    """
    doc = request.get_json()  # as sent: the signature covers it, not the loaded arguments
    _check_entries(args["entries"])
    m = _service().import_match(doc, _bearer())
    return json_response(view(m), 201, {"Location": f"/v1/matches/{m.id}",
                                        "ETag": etag(m.version, m.head)})
