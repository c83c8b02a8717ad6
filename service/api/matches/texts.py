"""A match's names and stakes as clients write them (docs/api.md#scorekeeping): display text and
money.

Display text (``title``, ``names``) is normalised to Unicode NFC and counted in
code points; control characters (Unicode ``Cc``), surrogates, line and paragraph
separators, and whitespace-only text are refused (422 ``validation-error``).

Stakes: ``currency`` is an ISO 4217 code that Babel's currency data knows
(else 422 ``invalid-currency``); each amount is a decimal string (never a JSON
number) ≥ 0 with at most the currency's minor digits, stored and shown written
to the minor unit (``"5"`` → ``"5.00"`` in EUR, ``"5"`` in JPY).

>>> normalise_amount("5", 2), normalise_amount("0.5", 3), normalise_amount("7", 0)
('5.00', '0.500', '7')
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any

from babel.numbers import get_currency_precision, is_currency
from marshmallow import ValidationError, fields

AMOUNTS = ("stake", "buy_in", "per_hand", "per_special", "per_point")
_AMOUNT_RE = re.compile(r"^[0-9]{1,15}(?:\.[0-9]{1,15})?$")
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_REFUSED = frozenset({"Cc", "Cs", "Zl", "Zp"})


def display_text(value: Any, max_len: int) -> str:
    """``value`` as display text (NFC), or :class:`ValidationError` saying why not."""
    if not isinstance(value, str):
        raise ValidationError("Not a valid string.")
    text = unicodedata.normalize("NFC", value)
    if not 1 <= len(text) <= max_len:
        raise ValidationError(f"Length must be between 1 and {max_len} characters.")
    for ch in text:
        if unicodedata.category(ch) in _REFUSED:
            raise ValidationError(f"U+{ord(ch):04X} is a control character.")
    if not text.strip():
        raise ValidationError("Text must not be whitespace only.")
    return text


class DisplayText(fields.String):
    """A display text field (NFC, 1..``max_len`` code points, no control characters)."""

    def __init__(self, max_len: int, **kwargs: Any) -> None:
        self.max_len = max_len
        meta = kwargs.pop("metadata", {})
        super().__init__(metadata={"minLength": 1, "maxLength": max_len, **meta}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return display_text(value, self.max_len)


def currency_digits(code: str) -> int | None:
    """The currency's minor digits (Babel's ISO 4217 data), or None for an unknown code."""
    if not isinstance(code, str) or not _CURRENCY_RE.match(code) or not is_currency(code):
        return None
    return int(get_currency_precision(code))


def minor_unit(digits: int) -> Decimal:
    return Decimal(1).scaleb(-digits)


def normalise_amount(text: str, digits: int) -> str:
    """``text`` written to the minor unit (it has at most ``digits`` decimals already)."""
    return f"{Decimal(text).quantize(minor_unit(digits)):f}"


class Amount(fields.String):
    """A decimal string ≥ 0 (a JSON number is refused); its digits are checked against
    the currency by the stakes schema."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if not isinstance(value, str):
            raise ValidationError("An amount is a decimal string, e.g. \"5.00\".")
        if not _AMOUNT_RE.match(value):
            raise ValidationError("An amount is a decimal string ≥ 0, e.g. \"5.00\".")
        return value


def decimals(text: str) -> int:
    return len(text.partition(".")[2])
