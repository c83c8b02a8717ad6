"""GET /console: the referee console, a page where a person settles a disputed hand.

The page is static (``service/console/static``: HTML, hand-written ES modules, CSS,
example records) and talks only to this service's own API. It is a plain Flask
blueprint, registered outside flask-smorest, so it stays out of the OpenAPI document.
Every response carries a strict Content-Security-Policy: no inline scripts or
styles, nothing fetched from another origin. A hand record never reaches the
server in a URL: the page sends it in a POST body and keeps its permalink in the
URL fragment, which browsers do not send.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import orjson
from flask import Blueprint, Response, send_from_directory

from ..i18n import LANGUAGES, N_, gettext

STATIC = Path(__file__).resolve().parent.parent / "console" / "static"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

bp = Blueprint("console", __name__)

# The page's own words (msgctxt "console"), by key; rulings and problems come from the API
# in the language the page asks for. Translations: service/i18n/locale/<lang>/…/messages.po.
STRINGS: dict[str, str] = {
    "title": N_("Kaluki referee console", "console"),
    "record-heading": N_("Hand record", "console"),
    "record-label": N_("Hand record", "console"),
    "record-hint": N_("Paste or drop a hand record: JSON, or the text notation (text/vnd.kaluki.hand).", "console"),
    "examples": N_("Examples:", "console"),
    "ex-hunt": N_("Hunt (README)", "console"),
    "ex-illegal": N_("Illegal: card not in hand", "console"),
    "ex-restock": N_("Illegal: three turns, restock", "console"),
    "ex-joker": N_("Joker release (JSON)", "console"),
    "ex-jamaica": N_("Jamaican: call, lay, shift", "console"),
    "submit": N_("Rule on this hand", "console"),
    "busy": N_("Asking the referee…", "console"),
    "ruling-heading": N_("Ruling", "console"),
    "permalink": N_("Link to this ruling", "console"),
    "copy-link": N_("Copy link", "console"),
    "copied": N_("Link copied.", "console"),
    "open-link": N_("Open", "console"),
    "copy-failed": N_("Copy failed: select the link and copy it.", "console"),
    "steps-heading": N_("The hand, turn by turn", "console"),
    "first": N_("First step", "console"),
    "prev": N_("Previous step", "console"),
    "next": N_("Next step", "console"),
    "last": N_("Last step", "console"),
    "keys-hint": N_("Keys: ← → step, Home / End jump.", "console"),
    "table": N_("Table", "console"),
    "discard-top": N_("Discard pile", "console"),
    "stock": N_("Stock", "console"),
    "hands": N_("Hands", "console"),
    "checker-heading": N_("Meld checker", "console"),
    "checker-cards": N_("Cards", "console"),
    "checker-ruleset": N_("Rule set", "console"),
    "checker-kind": N_("Reading", "console"),
    "kind-any": N_("best", "console"),
    "kind-set": N_("set", "console"),
    "kind-run": N_("run", "console"),
    "checker-opened": N_("already opened", "console"),
    "check-meld": N_("Check meld", "console"),
    "check-hand": N_("Best arrangement", "console"),
    "footer": N_("Nothing is stored: the ruling comes from POST /v1/hands/adjudicate, and the link keeps the record in the URL fragment, which never reaches the server.", "console"),
    "legal": N_("Legal", "console"),
    "legal-unfinished": N_("Legal so far: the hand is not finished.", "console"),
    "legal-note": N_("The record breaks no rule.", "console"),
    "illegal-note": N_("This record is illegal: it breaks a rule (below).", "console"),
    "illegal": N_("Not legal", "console"),
    "first-violation": N_("First violation", "console"),
    "at-turn-play": N_("turn {turn}, play {play}", "console"),
    "at-turn": N_("turn {turn} (its draw, discard or the turn as a whole)", "console"),
    "show-turn": N_("Show this turn", "console"),
    "show-line": N_("Select in the record", "console"),
    "record-line": N_("Record line {line}", "console"),
    "problem-page": N_("What this code means", "console"),
    "winner": N_("Winner", "console"),
    "finish": N_("Finish", "console"),
    "finish-out": N_("went out", "console"),
    "finish-special": N_("special win (every card in the turn of the first meld)", "console"),
    "player": N_("Player", "console"),
    "hand-value": N_("Hand value", "console"),
    "points": N_("Points", "console"),
    "penalty": N_("Penalty", "console"),
    "step-deal": N_("The deal", "console"),
    "step-turn": N_("Turn {turn} · {player}", "console"),
    "step-of": N_("step {k} of {n}", "console"),
    "breaks-rule": N_("breaks a rule", "console"),
    "draw-stock": N_("Draws from the stock", "console"),
    "draw-discard": N_("Takes from the discard pile", "console"),
    "no-draw": N_("No draw", "console"),
    "meld": N_("Melds", "console"),
    "meld-kind": N_("Melds ({kind})", "console"),
    "build": N_("Builds on meld {meld}", "console"),
    "release": N_("Releases from meld {meld}", "console"),
    "discard": N_("Discards", "console"),
    "restock": N_("Restocks ({count} cards)", "console"),
    "no-discard": N_("No discard", "console"),
    "violation-here": N_("✗ here: {code}", "console"),
    "not-reached": N_("not reached", "console"),
    "state-after": N_("The table after this turn", "console"),
    "state-deal": N_("The table after the deal", "console"),
    "state-before": N_("The table just before the violation", "console"),
    "empty": N_("empty", "console"),
    "no-melds": N_("No melds on the table.", "console"),
    "cards-count": N_("{n} cards", "console"),
    "card-count-1": N_("1 card", "console"),
    "opened": N_("opened", "console"),
    # contract rule sets (docs/api.md#contract-rule-sets)
    "down": N_("down", "console"),
    "calls-made": N_("{count} call(s)", "console"),
    "call-granted": N_("{player} calls the discard: granted", "console"),
    "call-refused": N_("{player} calls the discard: refused", "console"),
    "lay": N_("Goes down ({count} melds)", "console"),
    "shift": N_("Shifts the joker of meld {meld} ({end} end)", "console"),
    "high": N_("high", "console"),
    "low": N_("low", "console"),
    "round-contract": N_("round {round}, contract {contract}", "console"),
    "to-play": N_("to play", "console"),
    "out": N_("out", "console"),
    "meld-caption": N_("Meld {i} · {kind} · {points} points", "console"),
    "set": N_("set", "console"),
    "run": N_("run", "console"),
    "closed": N_("closed", "console"),
    "input-problem": N_("The referee could not read this record", "console"),
    "at-line": N_("line {line}", "console"),
    "at-field": N_("at {field}", "console"),
    "no-problem-text": N_("The service answered {status}.", "console"),
    "network-error": N_("The service could not be reached.", "console"),
    "valid-meld": N_("A legal meld", "console"),
    "invalid-meld": N_("Not a legal meld", "console"),
    "alternatives": N_("Other readings", "console"),
    "deadwood": N_("Left over: {value} points", "console"),
    "no-deadwood": N_("Nothing left over.", "console"),
    "can-open": N_("can open", "console"),
    "can-go-out": N_("can go out", "console"),
    "can-special": N_("can win specially", "console"),
    "yes": N_("yes", "console"),
    "no": N_("no", "console"),
    "enter-cards": N_("Type some cards first, e.g. Jd JK Kd.", "console"),
    "empty-title": N_("Nothing to rule on", "console"),
    "empty-record": N_("The box is empty: paste a hand record (JSON or the text notation), drop a file on it, or pick an example.", "console"),
    "not-record-title": N_("Not a hand record", "console"),
    "not-record": N_("This is JSON, but {what}, not a hand record: a hand record in JSON is one object, {\"ruleset\": …, \"players\": …, \"deal\": …}.", "console"),
    "json-array": N_("an array", "console"),
    "json-string": N_("a string", "console"),
    "json-number": N_("a number", "console"),
    "json-boolean": N_("true or false", "console"),
    "json-null": N_("null", "console"),
    "play-n": N_("Play {n}", "console"),
    "faulty-card": N_("the card at fault", "console"),
    "bad-link": N_("This link holds no readable record.", "console"),
    "view-label": N_("Seen as", "console"),
    "view-referee": N_("the referee (every hand)", "console"),
    "view-spectator": N_("a spectator (no hand)", "console"),
    "view-player": N_("{player} (their own cards only)", "console"),
    "options-heading": N_("What could be played here", "console"),
    "options-before-draw": N_("{player}, before the draw", "console"),
    "options-after-draw": N_("{player}, after drawing {card} (as the record goes on)", "console"),
    "options-count": N_("{n} legal plays", "console"),
    "options-more": N_("and {n} more", "console"),
    "options-none": N_("No legal play.", "console"),
    "options-hidden": N_("The cards of {player} are hidden in this view.", "console"),
    "options-at-violation": N_("This step stops at a violation: see the ruling.", "console"),
    "options-over": N_("The hand is over.", "console"),
    "opt-draw-stock": N_("Draw from the stock", "console"),
    "opt-draw-discard": N_("Take the discard pile's top card", "console"),
    "opt-meld": N_("Lay", "console"),
    "opt-build": N_("Build on meld {meld}:", "console"),
    "opt-release": N_("Free a joker of meld {meld} with", "console"),
    "opt-discard": N_("Discard", "console"),
    "opt-end-low": N_("low end", "console"),
    "opt-end-high": N_("high end", "console"),
    "opt-lay": N_("Go down with", "console"),
    "opt-shift": N_("Shift the joker of meld {meld}: lay {card}, the joker to the", "console"),
    "options-callers": N_("May call the discard: {players}", "console"),
    "options-no-callers": N_("Nobody may call the discard.", "console"),
    # the match page (/console/matches/{id}, static/match.html and match.js)
    "m-match-title": N_("Match", "console"),
    "m-standings-heading": N_("Standings", "console"),
    "m-sheet-heading": N_("Score sheet", "console"),
    "m-csv-link": N_("Download as CSV", "console"),
    "m-corrections-heading": N_("Corrections", "console"),
    "m-token-label": N_("Match token", "console"),
    "m-seq-label": N_("Hand (seq)", "console"),
    "m-reason-label": N_("Reason", "console"),
    "m-void-label": N_("Void the hand", "console"),
    "m-score-label": N_("Or the hand as it should have been (a score body, JSON)", "console"),
    "m-correct-submit": N_("Correct this hand", "console"),
    "m-player": N_("Player", "console"),
    "m-points": N_("points", "console"),
    "m-penalty": N_("penalty", "console"),
    "m-winner": N_("winner", "console"),
    "m-finish": N_("finish", "console"),
    "m-total": N_("total", "console"),
    "m-corrected": N_("corrected", "console"),
    "m-finished": N_("Finished: {winner} won.", "console"),
    "m-in-progress": N_("In progress: {hands} hands played.", "console"),
    "m-voided": N_("voided", "console"),
    "m-rescored": N_("scored again, {winner} won", "console"),
    "m-correction-line": N_("#{seq} corrects hand {hand}: {what} ({reason})", "console"),
    "m-live": N_("Live: updated.", "console"),
    "m-ended": N_("The match is over; live updates stopped.", "console"),
    "m-deleted": N_("This match was deleted.", "console"),
    "m-bad-json": N_("The score is not valid JSON.", "console"),
    "m-corrected-ok": N_("Corrected (entry {seq}).", "console"),
}


@cache
def strings_module() -> bytes:
    """``strings.js``: the page's words in every language the catalogs speak, as an ES module."""
    table = {lang: {key: gettext(lang, text, "console") for key, text in STRINGS.items()}
             for lang in LANGUAGES}
    return (b"// Generated by service/docs/console.py from the message catalogs (service/i18n).\n"
            b"export const STRINGS = " + orjson.dumps(table) + b";\n"
            b"export const LANGS = " + orjson.dumps(list(LANGUAGES)) + b";\n")


@bp.after_request
def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.route("/console")
def page() -> Response:
    """The console page."""
    response = send_from_directory(STATIC, "index.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/console/matches/<match_id>")
def match_page(match_id: str) -> Response:
    """A match: standings, the score sheet, corrections with their reasons, live."""
    response = send_from_directory(STATIC, "match.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/console/assets/strings.js")
def strings() -> Response:
    """The page's words, from the message catalogs."""
    response = Response(strings_module(), mimetype="text/javascript")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@bp.route("/console/assets/<path:filename>")
def asset(filename: str) -> Response:
    """The page's scripts, styles and example records."""
    return send_from_directory(STATIC, filename, max_age=300)
