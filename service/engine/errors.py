"""Errors: input the engine cannot take (a request to fix, not a ruling).

A ruling that says no is a :class:`~.violations.Violation`, a value. An error is
raised: the input is not something the rules can be applied to at all (text
that is no card, an unknown rule set, a record with a missing field). Every
error the engine raises is an :class:`EngineError`, a ``ValueError`` carrying

* ``code``: stable kebab-case, the same code the API answers with;
* ``field``: where in the input (a dotted path such as ``players.1.cards.0``), or None;
* ``params``: the facts its message is made of.

Its ``str()`` is the English message. The engine decides no HTTP status and
holds no translations: the API maps codes to statuses in one table and
renders messages from the catalogs in ``service/i18n``.

Precise subclasses say what went wrong, the way python-chess splits
``InvalidMoveError`` from ``IllegalMoveError``; catch the base to catch them all.

>>> from .cards import parse_card
>>> try:
...     parse_card("1x")
... except EngineError as exc:
...     (exc.code, type(exc).__name__)
('invalid-card', 'InvalidCard')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

__all__ = ["EngineError"]


class EngineError(ValueError):
    """Input the engine cannot take: ``code``, ``field`` and ``params`` say what and where.

    Subclasses fix ``code`` as a class attribute; a few families whose members
    differ only in code (a record error, a scoring error) take it per instance.
    """

    code: str = "bad-request"
    members: tuple[str, ...] = ()
    """Parameters a client reads as facts of their own (a problem's extension members)."""

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code  # an instance may refine its class's code
        self.field = field
        self.params: Mapping[str, Any] = dict(params or {})

    def at(self, field: str) -> Self:
        """Say where the input was, when the error could not know (a card read from
        ``cards.3`` does not know its index); a field already known is kept."""
        if self.field is None:
            self.field = field
        return self

    @property
    def message(self) -> str:
        """The English message (``str(self)``)."""
        return str(self)
