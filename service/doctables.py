"""Tables in the documents that are generated from the code: each lives between a BEGIN and
an END marker, and ``python -m <module> --write`` rewrites it (docs/configuration.md from
:mod:`service.settings`, docs/api.md's errors table from :mod:`service.docs.codes_doc`);
a test fails when a committed table is stale."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


def replaced(current: str, begin: str, end: str, table: str, where: str) -> str:
    """``current`` with the text between its ``begin`` and ``end`` markers set to ``table``."""
    head, sep, rest = current.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        raise SystemExit(f"{where} lacks the markers {begin!r} … {end!r}")
    return f"{head}{begin}\n\n{table}\n{end}{tail}"


@dataclass(frozen=True)
class Table:
    """One generated table: the document at ``path``, its markers, the code that writes it
    (``markdown``) and the module that rewrites it (``module``, for the usage line)."""

    path: str
    begin: str
    end: str
    markdown: Callable[[], str]
    module: str
    more: Mapping[str, Callable[[], int]] = field(default_factory=dict)
    """Other commands of the module (``--check``), by their one argument."""

    def document(self, current: str) -> str:
        """``current`` with its table replaced by a fresh one."""
        return replaced(current, self.begin, self.end, self.markdown(), self.path)

    def write(self) -> None:
        """Rewrite the document (only when it changes)."""
        with open(self.path, encoding="utf-8") as f:
            current = f.read()
        fresh = self.document(current)
        if fresh != current:
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(fresh)

    def main(self, argv: list[str]) -> int:
        """``--markdown`` prints the table, ``--write`` rewrites the document."""
        if argv == ["--markdown"]:
            sys.stdout.write(self.markdown())
            return 0
        if argv == ["--write"]:
            self.write()
            return 0
        if len(argv) == 1 and argv[0] in self.more:
            return self.more[argv[0]]()
        usage = " | ".join(["--markdown", "--write", *self.more])
        print(f"usage: python -m {self.module} {usage}", file=sys.stderr)
        return 2
