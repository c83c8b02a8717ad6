"""Message catalogs: every title and message the service answers, in every language it speaks.

Source strings are English and live in the code, marked for extraction with
:func:`N_` (or, for violation codes, in ``Code(code, rule, message)``, see
``babel.cfg``). Translations live in gettext catalogs,
``service/i18n/locale/<lang>/LC_MESSAGES/messages.po``, read with Babel when
this module is first imported. Adding a language is adding one catalog file:
its directory name is the language tag clients ask for in ``Accept-Language``.

A message is found by its English text and, where one English text could mean
two things, a context (``msgctxt``): ``title`` for problem titles, ``rule``
for a violation's rule, ``page`` for the words of the code pages, and a code
for the message of that code. Templates use ``str.format`` fields
(``{count}``); a translation may leave fields out but adds none.

>>> gettext("nl", "Not found", "title")
'Niet gevonden'
>>> gettext("en", "Not found", "title")
'Not found'
>>> gettext("xx", "Not found", "title")  # a language without a catalog: English
'Not found'
>>> render("nl", "A run needs at least {min} cards; this one has {count}.",
...        {"min": 4, "count": 3}, "run-too-short")
'Een reeks heeft minstens 4 kaarten nodig; deze heeft er 3.'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

__all__ = ["LANGUAGES", "N_", "Text", "best_language", "catalog", "gettext", "render"]

SOURCE = "en"
"""The language of the source strings: it needs no catalog."""
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"


def N_(message: str, context: str | None = None) -> str:
    """Mark ``message`` (in ``context``) for extraction (``N_:1,2c`` in ``babel.cfg``'s
    keywords); it is returned as is, to be looked up with :func:`gettext` at answer time."""
    return message


def _load(path: Path) -> dict[tuple[str | None, str], str]:
    with path.open("rb") as f:
        po = read_po(f)
    out: dict[tuple[str | None, str], str] = {}
    for msg in po:
        if not msg.id or not msg.string or msg.fuzzy:
            continue  # the header, an untranslated or a fuzzy entry: English serves
        assert isinstance(msg.id, str) and isinstance(msg.string, str)  # no plural forms here
        out[(msg.context, msg.id)] = msg.string
    return out


def _catalogs() -> dict[str, dict[tuple[str | None, str], str]]:
    found = sorted(p for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return {p.parent.parent.name: _load(p) for p in found}


_CATALOGS = _catalogs()

LANGUAGES: tuple[str, ...] = (SOURCE, *sorted(lang for lang in _CATALOGS if lang != SOURCE))
"""Every language the service speaks: English first, then one per catalog."""


def catalog(lang: str) -> Mapping[tuple[str | None, str], str]:
    """The translations of ``lang``, keyed by (context, English text); empty for English."""
    return _CATALOGS.get(lang, {})


def gettext(lang: str, message: str, context: str | None = None) -> str:
    """``message`` in ``lang``: its translation, or the English text when there is none."""
    if lang == SOURCE:
        return message
    table = _CATALOGS.get(lang)
    if table is None:
        return message
    return table.get((context, message), message)


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(lang: str, template: str, params: Mapping[str, Any] | None = None,
           context: str | None = None) -> str:
    """``template`` translated into ``lang`` and filled in with ``params``.

    A field the parameters lack stays as written (``{card}``), so a message is
    never lost to a missing fact.
    """
    text = gettext(lang, template, context)
    if "{" not in text:
        return text
    return text.format_map(_Missing(resolve(params or {}, lang)))


@dataclass(frozen=True, slots=True)
class Text:
    """A message not yet in a language: a template, its facts and its context.

    A message quoting another (a problem's detail quoting a violation's
    message) takes a ``Text`` as a parameter, so each language quotes its own.
    """

    template: str
    params: Mapping[str, Any] = field(default_factory=dict)
    context: str | None = None

    def render(self, lang: str) -> str:
        return render(lang, self.template, self.params, self.context)


def resolve(params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """``params`` with every :class:`Text` among them rendered in ``lang``."""
    return {k: v.render(lang) if isinstance(v, Text) else v for k, v in params.items()}


def best_language(header: str | None) -> str:
    """The language an ``Accept-Language`` header prefers among :data:`LANGUAGES`."""
    return _best(header) if header else SOURCE


@lru_cache(maxsize=256)
def _best(header: str) -> str:
    best = LanguageAccept(parse_accept_header(header)).best_match(list(LANGUAGES), default=SOURCE)
    return best if best in LANGUAGES else SOURCE
