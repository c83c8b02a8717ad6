"""Player ids: one rule for every place a player is named (scores, records, matches, buy-ins).

An id is normalised to Unicode NFC, so two spellings of one name are one player
(``"rené"`` written with a precomposed ``é`` or with ``e`` and a combining accent).
It is then checked against a rule modelled on RFC 8264's IdentifierClass (the
PRECIS profile behind usernames, ``UsernameCasePreserved``: case is kept):

* 1 to :data:`MAX_LENGTH` characters (code points, after NFC);
* every character is a letter, a mark or a decimal digit (Unicode categories
  ``Lu Ll Lo Lm Mn Mc Nd``), or printable ASCII (``!`` to ``~``) other than
  ``#`` (the hand notation's comment sign, docs/notation.md);
* no whitespace anywhere, not even inside (``"ann smith"`` is refused: the
  notation separates ids by spaces), and so no leading, trailing or
  whitespace-only id; no control, format (zero-width, bidi override), private
  use, surrogate or unassigned characters; no character that has a
  compatibility form (full-width letters, ligatures); no combining mark first.

Answers name players by their normalised id.

>>> player_id("rene\\u0301") == player_id("ren\\u00e9") == "ren\\u00e9"
True
>>> player_id("ann smith")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
PlayerIdError: a player id has no spaces
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .errors import EngineError

__all__ = ["MAX_LENGTH", "PlayerIdError", "player_id", "player_ids"]

MAX_LENGTH = 64
_LETTERS_DIGITS = frozenset({"Lu", "Ll", "Lo", "Lm", "Mn", "Mc", "Nd"})


class PlayerIdError(EngineError):
    """A player id that breaks the rule above (``invalid-player-id``), or two ids naming
    one player (``duplicate-player``)."""

    code = "invalid-player-id"

    field: str

    def __init__(self, code: str, message: str, field: str = "players") -> None:
        super().__init__(message, code=code, field=field)


def _why_not(ch: str) -> str | None:
    """Why ``ch`` cannot be in an id, or None when it can."""
    if "!" <= ch <= "~":
        return "'#' is the notation's comment sign" if ch == "#" else None
    if ch.isspace():
        return "a player id has no spaces"
    cat = unicodedata.category(ch)
    if cat not in _LETTERS_DIGITS:
        return f"U+{ord(ch):04X} ({unicodedata.name(ch, cat)}) is not a letter or digit"
    if unicodedata.normalize("NFKC", ch) != ch:
        return f"U+{ord(ch):04X} has a compatibility form; write {unicodedata.normalize('NFKC', ch)!r}"
    return None


def player_id(text: object, field: str = "player") -> str:
    """The normalised id, or :class:`PlayerIdError` (``invalid-player-id``)."""
    if not isinstance(text, str):
        raise PlayerIdError("invalid-player-id", "a player id is a string", field)
    if len(text) > 4 * MAX_LENGTH:  # long before normalising: NFC never grows a string this much
        raise PlayerIdError("invalid-player-id", f"a player id has at most {MAX_LENGTH} characters",
                            field)
    pid = unicodedata.normalize("NFC", text)
    if not pid:
        raise PlayerIdError("invalid-player-id", "a player id is not empty", field)
    if len(pid) > MAX_LENGTH:
        raise PlayerIdError("invalid-player-id", f"a player id has at most {MAX_LENGTH} characters",
                            field)
    for ch in pid:
        reason = _why_not(ch)
        if reason is not None:
            raise PlayerIdError("invalid-player-id", f"player id {pid!r}: {reason}", field)
    if unicodedata.category(pid[0]) in ("Mn", "Mc"):
        raise PlayerIdError("invalid-player-id", f"player id {pid!r}: starts with a combining mark",
                            field)
    return pid


def player_ids(texts: Iterable[object], field: str = "players") -> list[str]:
    """Every id normalised (errors name ``field.i``); two naming one player are
    ``duplicate-player``."""
    out: list[str] = []
    for i, t in enumerate(texts):
        pid = player_id(t, f"{field}.{i}")
        if pid in out:
            raise PlayerIdError("duplicate-player", f"player {pid!r} appears twice", field)
        out.append(pid)
    return out
