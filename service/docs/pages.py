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
from enum import StrEnum
from pathlib import Path

from babel import Locale
from flask import Flask, Response, request

from ..api.problems import TITLES, Problem, status_of
from ..api.problems import title as problem_title
from ..engine import violations as v
from ..i18n import LANGUAGES, N_, gettext
from ..problem_codes import CODES, Doc
from ..web.jsonio import dumps
from ..web.language import language

PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")
CSS = (Path(__file__).resolve().parent / "static" / "problems.css").read_bytes()


class CodeKind(StrEnum):
    """What a code names: an error the service answers, a ruling's violation, or both."""

    PROBLEM = "problem"
    VIOLATION = "violation"
    BOTH = "problem+violation"


PROBLEM_DOCS: Mapping[str, Doc] = {c: p.doc for c, p in CODES.items()}
"""Each problem code's page (the one table: service/problem_codes.py)."""

_V = "POST /v1/melds/validate\n"
_T = "POST /v1/turns/check\n"


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
    kind = (CodeKind.BOTH if is_problem and violation else CodeKind.PROBLEM if is_problem
            else CodeKind.VIOLATION)
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
    kind = {CodeKind.PROBLEM: w["problem"], CodeKind.VIOLATION: w["violation"],
            CodeKind.BOTH: f"{w['problem']} / {w['violation']}"}[d["kind"]]  # type: ignore[index]
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
