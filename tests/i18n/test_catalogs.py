"""The message catalogs (service/i18n): complete, consistent, and a language is one file."""

from __future__ import annotations

import shutil
import string
import subprocess
import sys
from io import BytesIO
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from service import i18n
from service.api.problems import ENGINE_DETAIL, TITLES
from service.engine import violations as v
from service.i18n import extract

ROOT = Path(__file__).resolve().parents[2]


def _fields(text: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text)
            if name}


def test_the_template_is_current() -> None:
    """messages.pot lists exactly what the code can answer (run ``make messages`` when not)."""
    committed = read_po(BytesIO(extract.POT.read_bytes()))
    fresh = read_po(BytesIO(extract.template()))
    assert [(m.context, m.id) for m in committed if m.id] == [(m.context, m.id) for m in fresh
                                                               if m.id]


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE])
def test_every_catalog_translates_every_message(lang: str) -> None:
    """Every title, message, rule and page text has a translation; an error's ``{detail}`` may
    go untranslated (the English message is then quoted as it is)."""
    table = i18n.catalog(lang)
    wanted = [key for key, _ in extract.entries()]
    missing = [key for key in wanted if key not in table and key[1] != ENGINE_DETAIL]
    assert not missing, missing
    stale = sorted(set(table) - set(wanted), key=str)
    assert not stale, f"entries nothing answers: {stale}"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE])
def test_a_translation_names_only_facts_its_message_has(lang: str) -> None:
    for (context, message), translated in i18n.catalog(lang).items():
        if message == ENGINE_DETAIL:
            continue  # an error's facts are its params: the API tests answer each in Dutch
        assert _fields(translated) <= _fields(message), (context, message, translated)


def test_dutch_is_spoken_and_english_is_the_source() -> None:
    assert i18n.LANGUAGES[0] == "en" and "nl" in i18n.LANGUAGES
    assert i18n.best_language("nl-NL,nl;q=0.9,en;q=0.5") == "nl"
    assert i18n.best_language("de, fr;q=0.5") == "en"
    assert i18n.best_language(None) == "en"


def test_every_violation_and_title_reads_in_dutch() -> None:
    for c in v.CODES.values():
        assert i18n.gettext("nl", c.message, c.code) != c.message, c.code
        assert i18n.gettext("nl", c.rule, "rule") != c.rule, c.code
    for code, title in TITLES.items():
        assert i18n.gettext("nl", title, "title") != title, code


def test_a_missing_fact_stays_visible() -> None:
    assert i18n.render("en", "{card} does not fit this meld.", {}) == "{card} does not fit this meld."


def test_a_third_language_is_one_catalog_file(tmp_path: Path) -> None:
    """Copy the service, add ``locale/de/…/messages.po`` and nothing else: it speaks German."""
    shutil.copytree(ROOT / "service", tmp_path / "service",
                    ignore=shutil.ignore_patterns("__pycache__"))
    de = tmp_path / "service" / "i18n" / "locale" / "de" / "LC_MESSAGES"
    de.mkdir(parents=True)
    (de / "messages.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        'msgctxt "title"\nmsgid "Not found"\nmsgstr "Nicht gefunden"\n\n'
        'msgid "No such resource."\nmsgstr "Diese Ressource gibt es nicht."\n', encoding="utf-8")
    probe = ("from service.app import create_app\n"
             "c = create_app({'TESTING': True, 'RATELIMIT_ENABLED': False}).test_client()\n"
             "r = c.get('/v1/nothing', headers={'Accept-Language': 'de'})\n"
             "b = r.get_json(force=True)\n"
             "print(r.headers['Content-Language'], b['title'], b['detail'], sep='|')\n"
             "r = c.get('/v1/violations')\n"
             "print(sorted(r.get_json()['violations'][0]['message']))\n"
             "js = c.get('/console/assets/strings.js').get_data(as_text=True)\n"
             "print(js.rsplit('LANGS = ', 1)[1].strip())\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0] == "de|Nicht gefunden|Diese Ressource gibt es nicht."
    assert out[1] == "['de', 'en', 'nl']"
    assert out[2] == '["en","de","nl"];'  # the console offers it too (a button per language)
