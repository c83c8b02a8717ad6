"""RFC 9457 problem details: every error the service returns (SPEC §4).

A problem has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``;
schema failures add ``errors`` (field → messages). Titles and details are
English, or Dutch when the client prefers ``nl`` (``Accept-Language``).
Every problem answered to a request also carries ``request_id``: the id echoed
in its ``X-Request-ID`` header and logged with every line of that request.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.datastructures import LanguageAccept
from werkzeug.exceptions import HTTPException
from werkzeug.http import parse_accept_header

from ..engine.cards import CardError, ImpossibleCards, InvalidCard
from ..engine.players import PlayerIdError
from ..engine.rules import RuleSetError
from ..engine.scoring import ScoringError
from ..logs import request_id
from .jsonio import dumps

PROBLEM_MEDIA_TYPE = "application/problem+json"

# app.extensions[ON_PROBLEM](code, status) is told of every problem answered (metrics)
ON_PROBLEM = "kaluki_on_problem"

# code -> (English title, Dutch title)
TITLES: Mapping[str, tuple[str, str]] = {
    "bad-request": ("Bad request", "Ongeldig verzoek"),
    "malformed-json": ("Malformed JSON", "Ongeldige JSON"),
    "not-found": ("Not found", "Niet gevonden"),
    "method-not-allowed": ("Method not allowed", "Methode niet toegestaan"),
    "payload-too-large": ("Payload too large", "Verzoek te groot"),
    "unsupported-media-type": ("Unsupported media type", "Mediatype niet ondersteund"),
    "not-acceptable": ("Not acceptable", "Niet aanvaardbaar"),
    "validation-error": ("Invalid request body", "Ongeldige inhoud van het verzoek"),
    "invalid-card": ("Invalid card", "Ongeldige kaart"),
    "impossible-cards": ("Impossible cards", "Onmogelijke kaarten"),
    "unknown-ruleset": ("Unknown rule set", "Onbekende spelregels"),
    "unknown-parameter": ("Unknown rule-set parameter", "Onbekende regelparameter"),
    "invalid-parameter": ("Invalid rule-set parameter", "Ongeldige regelparameter"),
    "invalid-ruleset": ("Invalid rule set", "Ongeldige spelregels"),
    "player-count": ("Player count outside the rule set's seats", "Aantal spelers buiten de regels"),
    "duplicate-player": ("Duplicate player", "Dubbele speler"),
    "unknown-winner": ("Unknown winner", "Onbekende winnaar"),
    "winner-holds-cards": ("Winner still holds cards", "Winnaar heeft nog kaarten"),
    "invalid-finish": ("Invalid finish", "Ongeldige afloop"),
    "invalid-meld": ("Invalid table meld", "Ongeldige combinatie op tafel"),
    "invalid-record": ("Invalid hand record", "Ongeldig handverslag"),
    "invalid-notation": ("Invalid hand notation", "Ongeldige handnotatie"),
    "deal-size": ("Wrong deal size", "Verkeerd aantal gedeelde kaarten"),
    "unknown-player": ("Unknown player", "Onbekende speler"),
    "missing-card": ("Missing card", "Ontbrekende kaart"),
    "hand-too-large": ("Hand too large", "Hand te groot"),
    "hand-not-finished": ("Hand not finished", "Hand niet uitgespeeld"),
    "invalid-player-id": ("Invalid player id", "Ongeldige speler-id"),
    "search-too-large": ("Search too large", "Zoekopdracht te groot"),
    # match ledgers
    "ledger-unavailable": ("Match store unavailable", "Wedstrijdopslag niet bereikbaar"),
    "ledger-busy": ("Match store busy", "Wedstrijdopslag bezet"),
    "match-not-found": ("Match not found", "Wedstrijd niet gevonden"),
    "match-exists": ("Match already exists", "Wedstrijd bestaat al"),
    "match-finished": ("Match finished", "Wedstrijd afgelopen"),
    "token-required": ("Token required", "Token vereist"),
    "token-invalid": ("Token invalid", "Ongeldig token"),
    "precondition-failed": ("Precondition failed", "Voorwaarde niet vervuld"),
    "idempotency-key-required": ("Idempotency-Key required", "Idempotency-Key vereist"),
    "idempotency-key-invalid": ("Idempotency-Key invalid", "Ongeldige Idempotency-Key"),
    "idempotency-key-reused": ("Idempotency-Key reused for another body",
                               "Idempotency-Key hergebruikt voor een andere inhoud"),
    "invalid-cursor": ("Invalid cursor", "Ongeldige cursor"),
    "entry-not-found": ("Ledger entry not found", "Regel niet gevonden"),
    "invalid-entry": ("Invalid ledger entry", "Ongeldige regel"),
    "chain-broken": ("Hash chain broken", "Hashketen verbroken"),
    "rescore-mismatch": ("Re-scored hand differs", "Herberekende hand wijkt af"),
    "hand-players": ("Players do not fit the match", "Spelers passen niet bij de wedstrijd"),
    "invalid-hand": ("Invalid hand", "Ongeldige hand"),
    "illegal-record": ("Illegal hand record", "Onreglementair handverslag"),
    "signature-invalid": ("Export signature invalid", "Handtekening van de export ongeldig"),
    "match-full": ("Match full", "Wedstrijd vol"),
    "entry-too-large": ("Ledger entry too large", "Regel te groot"),
    "buy-ins-not-allowed": ("Buy-ins not allowed", "Terugkopen niet toegestaan"),
    "buy-ins-closed": ("Buy-ins closed", "Terugkopen gesloten"),
    "buy-ins-exhausted": ("No buy-ins left", "Geen terugkoop meer over"),
    "player-not-eliminated": ("Player not eliminated", "Speler niet uitgeschakeld"),
    # hostile clients (SPEC §4, §8)
    "body-incomplete": ("Request body incomplete", "Inhoud van het verzoek onvolledig"),
    "request-timeout": ("Request timeout", "Verzoek duurde te lang"),
    "rate-limited": ("Too many requests", "Te veel verzoeken"),
    "internal-error": ("Internal error", "Interne fout"),
    "service-unavailable": ("Service unavailable", "Dienst niet beschikbaar"),
}

# Dutch details for the common codes; {params} come from the exception.
_NL_DETAILS: Mapping[str, str] = {
    "malformed-json": "De inhoud is geen geldige JSON.",
    "not-found": "Deze bron bestaat niet.",
    "method-not-allowed": "Deze methode is hier niet toegestaan.",
    "payload-too-large": "Het verzoek is groter dan {limit} bytes.",
    "unsupported-media-type": "Stuur de inhoud als application/json.",
    "validation-error": "De inhoud voldoet niet aan het schema; zie 'errors'.",
    "invalid-card": "{text} is geen kaart: schrijf rang en kleur, zoals 'Qs' of '10h'.",
    "impossible-cards": "{count} × {card} kan niet uit één spel komen, dat er {limit} heeft.",
    "unknown-ruleset": "Onbekende spelregels {name}.",
    "internal-error": "Er ging iets mis aan onze kant.",
}


# Dutch details for rule-set and hand errors (the English detail is quoted for precision)
_NL_ENGINE: Mapping[str, str] = {
    "unknown-ruleset": "Onbekende spelregels ({detail}); zie /v1/rulesets.",
    "unknown-parameter": "Onbekende regelparameter {field} ({detail}).",
    "invalid-parameter": "Ongeldige waarde voor {field} ({detail}).",
    "invalid-ruleset": "Ongeldige spelregels in {field} ({detail}).",
    "player-count": "Het aantal spelers past niet bij deze spelregels ({detail}).",
    "duplicate-player": "Een speler komt twee keer voor ({detail}).",
    "invalid-player-id": "Ongeldige speler-id in {field} ({detail}).",
    "unknown-winner": "De winnaar is geen speler van deze hand ({detail}).",
    "winner-holds-cards": "De winnaar heeft nog kaarten ({detail}).",
    "invalid-finish": "De afloop is \"out\" of \"special\".",
}


def language() -> str:
    """``nl`` when the client prefers Dutch, else ``en``."""
    try:
        header = request.environ.get("HTTP_ACCEPT_LANGUAGE")
    except RuntimeError:  # outside a request
        return "en"
    return _best_language(header) if header else "en"


@lru_cache(maxsize=256)
def _best_language(header: str) -> str:
    best = LanguageAccept(parse_accept_header(header)).best_match(["en", "nl"], default="en")
    return "nl" if best == "nl" else "en"


class Problem(Exception):
    """Raise anywhere in a view to answer with a problem."""

    def __init__(self, status: int, code: str, detail: str, *, errors: Mapping[str, Any] | None = None,
                 nl: str | None = None, headers: Mapping[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        self.nl = nl
        self.headers = dict(headers or {})
        self.extra = extra

    def to_dict(self, lang: str) -> dict[str, Any]:
        en_title, nl_title = TITLES.get(self.code, (self.code.replace("-", " ").capitalize(),) * 2)
        body: dict[str, Any] = {
            "type": f"/problems/{self.code}",
            "title": nl_title if lang == "nl" else en_title,
            "status": self.status,
            "detail": (self.nl or self.detail) if lang == "nl" else self.detail,
            "code": self.code,
        }
        if self.errors is not None:
            body["errors"] = self.errors
        body.update(self.extra)
        return body

    def response(self) -> Response:
        body = self.to_dict(language())
        rid = request_id.get()
        if rid is not None:
            body["request_id"] = rid
        try:
            hook = current_app.extensions.get(ON_PROBLEM)
        except RuntimeError:  # outside an app
            hook = None
        if hook is not None:
            hook(self.code, self.status)
        resp = Response(dumps(body), status=self.status, mimetype=PROBLEM_MEDIA_TYPE)
        resp.headers["X-Content-Type-Options"] = "nosniff"  # also outside Flask's hooks
        for k, v in self.headers.items():
            resp.headers[k] = v
        resp.headers["Content-Language"] = language()
        return resp


def from_engine(exc: ValueError, field: str) -> Problem:
    """The problem for an engine exception raised while reading ``field``."""
    if isinstance(exc, InvalidCard):
        return Problem(422, "invalid-card", str(exc), errors={field: [str(exc)]},
                       nl=_NL_DETAILS["invalid-card"].format(text=repr(exc.text)))
    if isinstance(exc, ImpossibleCards):
        return Problem(422, "impossible-cards", str(exc), errors={field: [str(exc)]},
                       nl=_NL_DETAILS["impossible-cards"].format(
                           count=exc.count, card=exc.card, limit=exc.limit))
    if isinstance(exc, (RuleSetError, ScoringError, PlayerIdError)):
        nl = _NL_ENGINE.get(exc.code, "").format(field=exc.field, detail=str(exc))
        return Problem(422, exc.code, str(exc), errors={exc.field: [str(exc)]}, nl=nl or None)
    if isinstance(exc, CardError):
        return Problem(422, exc.code, str(exc), errors={field: [str(exc)]})
    return Problem(422, "bad-request", str(exc), errors={field: [str(exc)]})


_HTTP_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed",
               406: "not-acceptable", 408: "request-timeout", 413: "payload-too-large",
               415: "unsupported-media-type", 422: "validation-error", 429: "rate-limited",
               503: "service-unavailable"}


def _http_problem(exc: HTTPException) -> Problem:
    status = exc.code or 500
    code = _HTTP_CODES.get(status, "bad-request" if status < 500 else "internal-error")
    data = getattr(exc, "data", None) or {}
    errors = None
    messages = data.get("messages") if isinstance(data, dict) else None
    if status == 400 and messages and "json" in messages and "Invalid JSON body." in str(messages):
        code = "malformed-json"
    if status == 422 and messages:
        # flask-smorest/webargs: {"json": {field: [...]}}
        raw = messages.get("json", messages) if isinstance(messages, dict) else {"body": messages}
        errors = flatten(raw)
    detail = {
        "malformed-json": "The request body is not valid JSON.",
        "validation-error": "The request body does not match the schema; see 'errors'.",
        "not-found": "No such resource.",
        "method-not-allowed": f"{request.method} is not allowed here.",
        "unsupported-media-type": "Send the body as application/json.",
    }.get(code, exc.description or code)
    nl: str | None
    if status == 413:
        limit = _limit()
        detail = f"The request body is larger than {limit} bytes."
        nl = _NL_DETAILS["payload-too-large"].format(limit=limit)
    else:
        nl = _NL_DETAILS.get(code)
    headers = {}
    if status == 405 and getattr(exc, "valid_methods", None):
        headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
    return Problem(status, code, detail, errors=errors, nl=nl, headers=headers)


def flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """``{"players": {1: {"cards": ["…"]}}}`` → ``{"players.1.cards": ["…"]}``."""
    if isinstance(errors, dict):
        out: dict[str, list[str]] = {}
        for key, value in errors.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        return {prefix or "body": errors}
    return {prefix or "body": [str(errors)]}


def _limit() -> int:
    return int(current_app.config.get("MAX_CONTENT_LENGTH") or 0)


def install(app: Flask) -> None:
    """Route every error through problem details, and make each ``type`` URI resolve."""

    from . import pages  # the code pages import this module

    pages.install(app)

    @app.errorhandler(Problem)
    def _problem(exc: Problem) -> Response:
        return exc.response()

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        return _http_problem(exc).response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return _http(exc)
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return Problem(500, "internal-error", "Something went wrong on our side.",
                       nl=_NL_DETAILS["internal-error"]).response()
