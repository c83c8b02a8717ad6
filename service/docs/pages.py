"""``GET /problems/{code}``: what each problem and violation code means, for people and programs.

Every problem's ``type`` and every violation's ``type`` is ``/problems/{code}``. A
browser (``Accept: text/html``) gets a short page: what the code means, an example
request that causes it and how to fix it, in English or Dutch (``Accept-Language: nl``
or ``?lang=nl``). Anything else gets JSON with the same description. The pages carry a
strict Content-Security-Policy: no script at all, styles only from ``/problems.css``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from babel import Locale
from flask import Flask, Response, request

from ..api.problems import TITLES, Problem, status_of
from ..api.problems import title as problem_title
from ..engine import violations as v
from ..i18n import LANGUAGES, N_, gettext
from ..web.jsonio import dumps
from ..web.language import language

PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")
CSS = (Path(__file__).resolve().parent / "static" / "problems.css").read_bytes()


@dataclass(frozen=True)
class Doc:
    text: str  # what it means, and how to fix it (English; translated in service/i18n)
    example: str = ""  # a request that causes it (HTTP, abridged)


_V = "POST /v1/melds/validate\n"
_T = "POST /v1/turns/check\n"
_M = "POST /v1/matches/{id}/hands\n"

PROBLEM_DOCS: Mapping[str, Doc] = {
    "bad-request": Doc("The request cannot be read. Check the method, path and body against "
                       "the API description (/docs)."),
    "malformed-json": Doc("The body is not valid JSON (an empty body, and one that is not "
                          "UTF-8, are not JSON either). Send a JSON object in UTF-8; check "
                          "quotes and commas.",
                          _V + "Content-Type: application/json\n\n{\"ruleset\": \"kaluki-51\","),
    "not-found": Doc("No resource at this path. Check the path (every endpoint is under /v1).",
                     "GET /v1/meld"),
    "method-not-allowed": Doc("The path exists but not with this method; the Allow header "
                              "lists the methods it takes.", "GET /v1/melds/validate"),
    "payload-too-large": Doc("The body is larger than the service accepts (MAX_BODY_BYTES, "
                             "256 KiB by default). Send less."),
    "unsupported-media-type": Doc(
        "The body is not sent as application/json (adjudicate also takes "
        "text/vnd.kaluki.hand). Set the Content-Type header.",
        _V + "Content-Type: text/plain\n\nruleset=kaluki-51"),
    "not-acceptable": Doc("The service cannot answer in a type the Accept header allows. "
                          "Accept application/json."),
    "validation-error": Doc("The JSON breaks the schema: a missing field, a field of the wrong "
                            "type or an unknown field. 'errors' names each field.",
                            _V + '{"ruleset": "kaluki-51"}'),
    "invalid-card": Doc("A card is not written in the card notation: rank (A 2-9 T J Q K, 10) "
                        "then suit (c d h s), or JK for a joker.",
                        _V + '{"ruleset": "kaluki-51", "cards": ["Qz", "Qs", "Qh"]}'),
    "impossible-cards": Doc("The cards cannot all come from one deck of the rule set (too "
                            "many copies of a card). Remove the extra copies.",
                            _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7h", "7h"]}'),
    "unknown-ruleset": Doc("No rule set by that name. GET /v1/rulesets lists the catalog.",
                           _V + '{"ruleset": "gin", "cards": ["7h", "7s", "7d"]}'),
    "unknown-parameter": Doc("An override names a parameter the rule sets do not have. "
                             "GET /v1/rulesets/{name} lists every parameter.",
                             _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_mn": 3}},'
                                  ' "cards": ["9c", "Tc", "Jc"]}'),
    "invalid-parameter": Doc("An override's value is of the wrong type or out of range.",
                             _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_min": 99}},'
                                  ' "cards": ["9c", "Tc", "Jc"]}'),
    "invalid-ruleset": Doc("The rule set is neither a catalog name nor {base, overrides}: an "
                           "unknown key, or a base or overrides of the wrong type.",
                           _V + '{"ruleset": {"base": "kaluki-51", "rules": {}}, '
                                '"cards": ["7h", "7s", "7d"]}'),
    "player-count": Doc("The number of players is outside the rule set's seats "
                        "(players_min..players_max).",
                        "POST /v1/matches\n" + '{"ruleset": "kaluki-51", "players": ["ann"]}'),
    "invalid-player-id": Doc("A player id is not an identifier: ids are 1 to 64 characters, "
                             "normalised to NFC, with no whitespace, control, zero-width, "
                             "bidi-override or '#' characters. Use a plain name such as \"ann\".",
                             "POST /v1/matches\n" + '{"ruleset": "kaluki-51", '
                                                    '"players": ["ann smith", "bob"]}'),
    "hand-not-finished": Doc("A hand record appended to a match must be legal and finished: "
                             "some player must have gone out. Append the record once the hand "
                             "is over, or send its score."),
    "body-incomplete": Doc("The body ended before its Content-Length: the connection closed or "
                           "stalled mid-body. Nothing was ruled on or written; send the whole "
                           "body again."),
    "request-timeout": Doc("The body arrived too slowly (REQUEST_BODY_TIMEOUT, 10 s by default). "
                           "Nothing was ruled on or written; send it again in one go."),
    "duplicate-player": Doc("A player appears twice. Give each player a distinct id.",
                            "POST /v1/matches\n" + '{"ruleset": "kaluki-51", '
                                                   '"players": ["ann", "ann"]}'),
    "unknown-winner": Doc("The winner is not one of the hand's players.",
                          "POST /v1/hands/score\n" + '{"ruleset": "kaluki-hunt", "winner": "zed",'
                          ' "finish": "out", "players": [{"id": "kim", "cards": []}, '
                          '{"id": "lou", "cards": ["Qs"]}]}'),
    "winner-holds-cards": Doc("The winner still holds cards; a winner has none left.",
                              "POST /v1/hands/score\n" + '{"ruleset": "kaluki-hunt", "winner": '
                              '"kim", "finish": "out", "players": [{"id": "kim", "cards": ["2c"]},'
                              ' {"id": "lou", "cards": ["Qs"]}]}'),
    "invalid-finish": Doc("finish is \"out\" or \"special\"."),
    "invalid-meld": Doc("A meld said to be on the table (build, release, turn check) is not a "
                        "legal meld; the problem's 'violations' say why. As a violation in an "
                        "opening: one of the melds is not legal.",
                        "POST /v1/melds/build\n" + '{"ruleset": "kaluki-hunt", "meld": ["5h", '
                        '"9c", "Kd"], "cards": ["8h"]}'),
    "invalid-record": Doc("The hand record cannot be read: a missing or malformed field. "
                          "'errors' names it.",
                          "POST /v1/hands/adjudicate\n" + '{"ruleset": "kaluki-hunt", '
                          '"players": ["ann", "bob"]}'),
    "invalid-notation": Doc("A line of the text notation cannot be read (docs/notation.md).",
                            "POST /v1/hands/adjudicate\nContent-Type: text/vnd.kaluki.hand\n\n"
                            "ruleset kaluki-hunt\nshuffle"),
    "deal-size": Doc("A player was dealt more or fewer cards than the rule set's hand_size."),
    "round-required": Doc("A contract rule set (one with 'contracts') needs 'round', the "
                          "1-based deal: it picks the contract and the deal size.",
                          "POST /v1/melds/opening\n" + '{"ruleset": "kalooki-jamaica", '
                          '"melds": [["7c", "7d", "7h"]]}'),
    "invalid-round": Doc("'round' is outside 1 to len(contracts), or was given to a rule set "
                         "without contracts."),
    "wrong-round": Doc("In a contract match each appended hand is the next round: its 'round' "
                       "is one more than the number of hands entered so far."),
    "unknown-player": Doc("The record (or the view asked for, ?view=) names a player who is "
                          "not in 'players'."),
    "missing-card": Doc("A record needs a card it does not give (a stock draw without its card "
                        "when there is no stock)."),
    "hand-too-large": Doc("The hand holds more than hand_size + 1 cards (in a contract rule "
                          "set: the round's deal size + 1 + call_max × (1 + "
                          "call_penalty_cards))."),
    "search-too-large": Doc("The overrides make the search for the best arrangement larger "
                            "than the service will do; ask with smaller decks or hands."),
    "rate-limited": Doc("Too many requests from this client. Wait Retry-After seconds; the "
                        "RateLimit headers say what is left."),
    "ledger-unavailable": Doc("The match store (Redis) cannot be reached or is out of memory "
                              "(nothing was written), or it took a write but could not copy it "
                              "to its replicas in time. Retry after Retry-After seconds with "
                              "the same Idempotency-Key: nothing is written twice."),
    "ledger-busy": Doc("Too many concurrent writes to one match. Retry after Retry-After."),
    "match-not-found": Doc("No match with this id: it may have expired. Import its export to "
                           "restore it.",
                           "GET /v1/matches/no-such-match"),
    "match-exists": Doc("The import's id holds a live match: an import never overwrites one. "
                        "Delete it first (with its token), or keep the live one."),
    "match-finished": Doc("The match is over; it takes no more hands."),
    "match-full": Doc("The match holds LEDGER_MAX_HANDS entries (hands and buy-ins); start a "
                      "new match."),
    "entry-too-large": Doc("The hand would make a ledger entry larger than "
                           "LEDGER_MAX_ENTRY_BYTES; send a shorter record, or its score."),
    "token-required": Doc("This write needs the match's token: Authorization: Bearer <token>.", _M + "Idempotency-Key: hand-1\n\n{\"score\": …}"),
    "token-invalid": Doc("The token is not this match's. Use the token createMatch returned."),
    "precondition-failed": Doc("If-Match does not match the match's ETag: someone wrote first. "
                               "Read the match again and retry."),
    "idempotency-key-required": Doc("Appending a hand needs an Idempotency-Key header: a fresh "
                                    "random string per hand, kept across retries.",
                                    _M + "Authorization: Bearer <token>\n\n{\"score\": …}"),
    "idempotency-key-invalid": Doc("An Idempotency-Key has at most 255 characters."),
    "idempotency-key-reused": Doc("This Idempotency-Key was used for another body. Use a fresh "
                                  "key for a new hand."),
    "invalid-cursor": Doc("Use the next_cursor of a previous page.",
                          "GET /v1/matches/{id}/hands?cursor=abc"),
    "entry-not-found": Doc("The match has no entry with that number."),
    "invalid-entry": Doc("An export entry is neither a hand nor a buy-in, or lacks its input."),
    "chain-broken": Doc("The export's hash chain does not verify: an entry was changed."),
    "signature-invalid": Doc("The export is not one this service signed, or was changed."),
    "rescore-mismatch": Doc("Re-scoring the export's hands gives other scores than recorded."),
    "hand-players": Doc("The hand's players are not the match's players still in the game."),
    "invalid-hand": Doc("The hand does not fit the match."),
    "illegal-record": Doc("The hand record breaks a rule; 'violations' names the first."),
    "buy-ins-not-allowed": Doc("The rule set has no buy-ins."),
    "buy-ins-closed": Doc("A buy-in needs buy_in_min_players at the table, counting the player "
                          "buying in (kaluki-uk: 3, so never head to head)."),
    "buy-ins-exhausted": Doc("The player has made the buy_ins_max buy-ins a player may make in "
                             "this match (kaluki-uk: 1)."),
    "player-not-eliminated": Doc("Only an eliminated player may buy back in."),
    "invalid-currency": Doc("The stakes' currency is not an ISO 4217 code (write it in "
                            "capitals, e.g. EUR, GBP, JPY)."),
    "correction-conflict": Doc("With this correction a later entry of the match could not "
                               "have happened (a buy-in of a player no longer eliminated, a "
                               "hand after the match would have ended). Correct or void the "
                               "later entry first."),
    "invalid-correction": Doc("Only a hand can be corrected, with exactly one of score, record "
                              "and void, and a reason."),
    "no-stakes": Doc("The match was created without stakes, so there is nothing to settle."),
    "too-many-subscribers": Doc("This instance holds as many event streams as it may "
                                "(EVENTS_MAX_SUBSCRIBERS). Reconnect after Retry-After."),
    "internal-error": Doc("Something went wrong on the service's side; it is logged. Retry, "
                          "and report it if it persists."),
    "service-unavailable": Doc("The service cannot answer now. Retry later."),
}

# A violation is a ruling (200 with valid/legal false): the fix is a different play.
VIOLATION_EXAMPLES: Mapping[str, str] = {
    "meld-empty": _V + '{"ruleset": "kaluki-51", "cards": []}',
    "not-a-meld": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "9c", "Kd"]}',
    "set-too-short": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7s"], "kind": "set"}',
    "set-too-long": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7s", "7d", "7c", "JK"]}',
    "duplicate-suit": _V + '{"ruleset": "kaluki-51", "cards": ["4c", "4c", "4d"]}',
    "run-too-short": _V + '{"ruleset": "kaluki-51", "cards": ["9c", "Tc", "Jc"]}',
    "mixed-suits": _V + '{"ruleset": "kaluki-hunt", "cards": ["9c", "Th", "Jc"], "kind": "run"}',
    "ace-wraparound": _V + '{"ruleset": "kaluki-hunt", "cards": ["Kh", "Ah", "2h"]}',
    "ace-not-low": _V + '{"ruleset": "kaluki-uk", "cards": ["Ah", "2h", "3h"]}',
    "opening-below-threshold": "POST /v1/melds/opening\n"
                               '{"ruleset": "kaluki-51", "melds": [["2h", "3h", "4h", "5h"]]}',
    "joker-not-releasable": "POST /v1/jokers/release\n"
                            '{"ruleset": "kaluki-hunt", "meld": ["7c", "7d", "JK"], '
                            '"cards": ["7h"]}',
    "no-joker": "POST /v1/jokers/release\n"
                '{"ruleset": "kaluki-hunt", "meld": ["7c", "7d", "7s"], "cards": ["7h"]}',
    "build-does-not-fit": "POST /v1/melds/build\n"
                          '{"ruleset": "kaluki-hunt", "meld": ["5h", "6h", "7h"], "cards": ["Kc"]}',
    "build-before-opening": "POST /v1/melds/build\n"
                            '{"ruleset": "kaluki-51", "meld": ["5h", "6h", "7h", "8h"], '
                            '"cards": ["9h"], "opened": false}',
    "draw-missing": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], '
                         '"turn": {"plays": [], "discard": "2c"}}',
    "card-not-in-hand": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], "turn": '
                             '{"draw": {"from": "stock", "card": "4c"}, "discard": "Kh"}}',
    "discard-missing": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], "turn": '
                            '{"draw": {"from": "stock", "card": "4c"}}}',
}

_FIX = N_("This is a ruling, not an error: the answer is 200 with valid/legal false. "
          "Change the play (the message names what broke) and ask again.", "page")
_CITED = N_("A ruling that says no (valid or legal false) cites this code when a play breaks "
            "this rule.", "page")
# How to fix a problem, by what its status says (the description says what to change)
_FIX_RETRY = N_("Nothing was done. Wait the seconds that Retry-After names, then send the same "
                "request again.", "page")
_FIX_SERVER = N_("Send the request again; if it keeps failing, report it with the answer's "
                 "request_id.", "page")
_FIX_CHANGE = N_("Change the request as described above and send it again: the problem's detail "
                 "(and its errors, where it has them) names what to change.", "page")

# the words of a page (msgctxt "page")
_WORDS = {
    "problem": N_("Problem", "page"), "violation": N_("Rule violation", "page"),
    "status": N_("HTTP status", "page"), "example": N_("An example request that causes it", "page"),
    "fix": N_("How to fix it", "page"), "message": N_("The message reads", "page"),
    "rule": N_("The rule", "page"),
    "back": N_("Every code: GET /v1/violations, and the API description at /docs.", "page"),
    "means": N_("What it means", "page"),
}


def known(code: str) -> bool:
    return code in TITLES or code in PROBLEM_DOCS or code in v.CODES


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def describe(code: str) -> dict[str, object]:
    """The JSON answer: code, type, kind, titles and descriptions in every language."""
    is_problem = code in TITLES or code in PROBLEM_DOCS
    violation = v.CODES.get(code)
    doc = PROBLEM_DOCS.get(code)
    title: dict[str, str] = {}
    description: dict[str, str] = {}
    for lang in LANGUAGES:
        if code in TITLES:
            title[lang] = problem_title(code, lang)
        elif violation is not None:
            title[lang] = _capital(gettext(lang, violation.rule, "rule"))
        else:
            title[lang] = code.replace("-", " ").capitalize()
        parts = []
        if doc is not None:
            parts.append(gettext(lang, doc.text))
        if violation is not None:
            template = gettext(lang, violation.message, code)
            rule = f"{_word('rule', lang)}: {gettext(lang, violation.rule, 'rule')}. "
            parts.append(f"{rule}{_word('message', lang)}: “{template.format_map(_Named())}”")
        description[lang] = " ".join(parts) or title[lang]
    kind = "problem+violation" if is_problem and violation else "problem" if is_problem \
        else "violation"
    body: dict[str, object] = {"type": f"/problems/{code}", "code": code, "kind": kind,
                               "title": title, "description": description}
    if is_problem:
        body["status"] = status_of(code)
    example = (doc.example if doc else "") or VIOLATION_EXAMPLES.get(code, "")
    if example:
        body["example"] = example
    return body


def _word(key: str, lang: str) -> str:
    return gettext(lang, _WORDS[key], "page")


class _Named(dict[str, str]):
    """A message template's fields left as their names: ``{card} is not in {player}'s hand.``"""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_FIELD = re.compile(r"\{(\w+)\}")
# the paths a reader can open from a page's prose (GET, this origin)
_LINKED = re.compile(r"(?<![\w/])(/v1/violations|/v1/rulesets|/docs|/openapi\.json)(?![\w/{])")


def _prose(text: str) -> str:
    """Escaped prose, with the paths it names that a browser can open as links."""
    return _LINKED.sub(r'<a href="\1">\1</a>', html.escape(text))


def _template_html(template: str) -> str:
    """A message template with each {field} as a <var>: “<var>card</var> is not in …”."""
    parts = _FIELD.split(template)
    return "".join(f"<var>{html.escape(p)}</var>" if i % 2 else html.escape(p)
                   for i, p in enumerate(parts))


def _fix_problem(code: str, lang: str) -> str:
    status = status_of(code)
    text = _FIX_RETRY if status in (429, 503) else _FIX_SERVER if status >= 500 else _FIX_CHANGE
    return gettext(lang, text, "page")


def _lang() -> str:
    asked = request.args.get("lang")
    return asked if asked in LANGUAGES else language()


def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "application/problem+json",
                                                "text/html"])
    return best == "text/html"


def render_page(code: str, lang: str) -> str:
    d = describe(code)
    w = {key: _word(key, lang) for key in _WORDS}
    e = html.escape
    title = d["title"][lang]  # type: ignore[index]
    kind = {"problem": w["problem"], "violation": w["violation"],
            "problem+violation": f"{w['problem']} / {w['violation']}"}[d["kind"]]  # type: ignore[index]
    rows = [f"<p class=\"kind\">{e(kind)} <code>{e(code)}</code>"
            + (f" · {w['status']} {d['status']}" if "status" in d else "") + "</p>",
            f"<h2>{e(w['means'])}</h2>"]
    doc = PROBLEM_DOCS.get(code)
    violation = v.CODES.get(code)
    if doc is not None:
        rows.append(f"<p>{_prose(gettext(lang, doc.text))}</p>")
    if violation is not None:  # what a ruling citing it says (the rule: the title, or here)
        rule = (f"{e(w['rule'])}: {e(gettext(lang, violation.rule, 'rule'))}. "
                if code in TITLES else "")
        template = _template_html(gettext(lang, violation.message, code))
        rows.append(f"<p>{rule}{e(gettext(lang, _CITED, 'page'))} {e(w['message'])}: "
                    f"“{template}”</p>")
    if "example" in d:
        rows += [f"<h2>{e(w['example'])}</h2>", f"<pre>{e(str(d['example']))}</pre>"]
    fix = _fix_problem(code, lang) if d["kind"] == "problem" else gettext(lang, _FIX, "page")
    rows += [f"<h2>{e(w['fix'])}</h2>", f"<p>{_prose(fix)}</p>",
             f"<p class=\"more\">{_prose(w['back'])}</p>"]
    others = " · ".join(
        f"<a href=\"/problems/{e(code)}?lang={o}\" hreflang=\"{o}\">{e(_language_name(o))}</a>"
        for o in LANGUAGES if o != lang)
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)} ({e(code)})</title>"
            f"<link rel=\"stylesheet\" href=\"/problems.css\">"
            f"<link rel=\"icon\" type=\"image/png\" href=\"/docs/assets/favicon-32x32.png\">"
            f"</head><body><main>"
            f"<h1>{e(title)}</h1>{''.join(rows)}"
            f"<p class=\"lang\">{others}</p></main></body></html>\n")


def _language_name(lang: str) -> str:
    """A language's name in itself (Babel's CLDR data): ``nl`` is Nederlands."""
    return _capital(Locale.parse(lang).get_display_name(lang) or lang)


def install(app: Flask) -> None:
    @app.route("/problems/<code>")
    def problem_type(code: str) -> Response:
        """What a problem or violation code means: a page for browsers, JSON otherwise."""
        if not known(code):
            raise Problem("not-found", N_("no problem or violation code {code!r}"),
                          params={"code": code})
        lang = _lang()
        if _wants_html():
            resp = Response(render_page(code, lang), mimetype="text/html")
            resp.headers["Content-Security-Policy"] = PAGE_CSP
        else:
            resp = Response(dumps(describe(code)), mimetype="application/json")
        resp.headers["Content-Language"] = lang
        resp.headers["Vary"] = "Accept, Accept-Language"
        return resp

    @app.route("/problems.css")
    def problems_css() -> Response:
        resp = Response(CSS, mimetype="text/css")
        resp.headers["Cache-Control"] = "public, max-age=86400"
        return resp
