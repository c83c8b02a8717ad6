"""Tables in the documents that are generated from the code: each lives between a BEGIN and
an END marker, and ``python -m <module> --write`` rewrites it (docs/configuration.md from
:mod:`service.settings`, docs/api.md's errors table from :mod:`service.docs.codes_doc`);
a test fails when a committed table is stale."""

from __future__ import annotations

import sys
from collections.abc import Callable


def replaced(current: str, begin: str, end: str, table: str, where: str) -> str:
    """``current`` with the text between its ``begin`` and ``end`` markers set to ``table``."""
    head, sep, rest = current.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        raise SystemExit(f"{where} lacks the markers {begin!r} … {end!r}")
    return f"{head}{begin}\n\n{table}\n{end}{tail}"


def write(path: str, document: Callable[[str], str]) -> None:
    """Rewrite the document at ``path`` with ``document`` (only when it changes)."""
    with open(path, encoding="utf-8") as f:
        current = f.read()
    fresh = document(current)
    if fresh != current:
        with open(path, "w", encoding="utf-8") as f:
            f.write(fresh)


def main(argv: list[str], path: str, markdown: Callable[[], str],
         document: Callable[[str], str]) -> int | None:
    """``--markdown`` prints the table, ``--write`` rewrites the document; None: not ours."""
    if argv == ["--markdown"]:
        sys.stdout.write(markdown())
        return 0
    if argv == ["--write"]:
        write(path, document)
        return 0
    return None
