"""Every message the service can answer, for translators: ``python -m service.i18n.extract``.

Writes ``service/i18n/messages.pot``, the gettext template a new catalog
starts from (``pybabel init -i service/i18n/messages.pot -d service/i18n/locale
-l de``; ``make messages`` also brings existing catalogs up to date). Its
entries come from two places:

* Babel's Python extractor over ``service/`` for the strings marked in the
  code: ``N_(message)`` and ``N_(message, context)``, and ``Doc(text, …)`` on
  the problem pages;
* the engine's catalogs, which it does not mark (it knows nothing of
  translation): every violation code's message (context: the code) and its
  rule (context ``rule``), and every engine or ledger error code's detail
  (context: the code, msgid ``{detail}``, the error's own English message).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from ..api.problems import DETAIL_CODES, ENGINE_DETAIL
from ..engine import violations

ROOT = Path(__file__).resolve().parents[1]  # service/
POT = Path(__file__).resolve().parent / "messages.pot"
# N_(message) and N_(message, context), by argument count; Doc(text, ...)
KEYWORDS: dict[str, Any] = {"N_": {1: (1,), 2: (1, (2, "c"))}, "Doc": (1,)}

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)  # a fixed date: the template changes with its texts only
Entry = tuple[str | None, str]


def marked() -> list[tuple[Entry, str]]:
    """(context, message) of every string marked in the code, with where it is."""
    out: list[tuple[Entry, str]] = []
    for filename, _lineno, message, _comments, context in extract_from_dir(
            str(ROOT), method_map=[("**.py", "python")], keywords=KEYWORDS,
            comment_tags=(), strip_comment_tags=True):
        if filename.startswith("i18n/") or not isinstance(message, str) or not message:
            continue
        out.append(((context, message), f"service/{filename}"))
    return out


def engine_entries() -> list[tuple[Entry, str]]:
    """The violation codes' messages and rules, and the detail of every error code."""

    out: list[tuple[Entry, str]] = []
    for c in violations.CODES.values():
        out.append(((c.code, c.message), f"violation {c.code}"))
        out.append((("rule", c.rule), f"rule of {c.code}"))
    for code in DETAIL_CODES:
        out.append(((code, ENGINE_DETAIL), f"detail of {code}: the error's own English message"))
    return out


def entries() -> list[tuple[Entry, str]]:
    """Every (context, message) once, in a stable order, with where each comes from."""
    seen: dict[Entry, str] = {}
    for key, where in marked() + engine_entries():
        seen.setdefault(key, where)
    return list(seen.items())


def template() -> bytes:
    cat = Catalog(project="kaluki", version="1", copyright_holder="kaluki", fuzzy=False,
                  creation_date=EPOCH, revision_date=EPOCH, msgid_bugs_address="")
    for (context, message), where in entries():
        cat.add(message, context=context, auto_comments=[where])
    buf = BytesIO()
    write_po(buf, cat, width=100, include_lineno=False)
    return buf.getvalue()


def main() -> int:
    POT.write_bytes(template())
    print(f"{POT.relative_to(ROOT.parent)}: {len(entries())} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
