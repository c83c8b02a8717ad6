"""The ledger's domain errors: each has a stable ``code``; none knows HTTP.

The API maps codes to statuses in one table (``service/api/matches/routes.py``).
Rule errors of a match (finished, buy-ins, players) stay the engine's
:class:`~service.engine.match.MatchError`; a hand that cannot be scored is the
engine's :class:`~service.engine.match.EntryError`.
"""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """A ledger operation refused; ``code`` is stable kebab-case, ``field`` where (if any)."""

    code = "ledger-error"

    def __init__(self, message: str, *, field: str | None = None, **params: Any) -> None:
        self.field = field
        self.params = params
        super().__init__(message)


class MatchNotFound(LedgerError):
    code = "match-not-found"


class EntryNotFound(LedgerError):
    code = "entry-not-found"


class MatchExists(LedgerError):
    """An import into an id that holds a live match."""

    code = "match-exists"


class TokenRequired(LedgerError):
    code = "token-required"


class TokenInvalid(LedgerError):
    code = "token-invalid"


class Stale(LedgerError):
    """A conditional write (If-Match) against a match that has moved on."""

    code = "precondition-failed"


class KeyReused(LedgerError):
    code = "idempotency-key-reused"


class Busy(LedgerError):
    """Too many concurrent writers lost the compare-and-set."""

    code = "ledger-busy"


class MatchFull(LedgerError):
    code = "match-full"


class EntryTooLarge(LedgerError):
    code = "entry-too-large"


class InvalidExport(LedgerError):
    """An export that is not one: a broken chain, a re-score that differs, a bad entry."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        self.code = code  # chain-broken | rescore-mismatch | invalid-entry
        super().__init__(message, field=field)


class SignatureInvalid(LedgerError):
    code = "signature-invalid"


class CorrectionConflict(LedgerError):
    """A correction that would make a later entry impossible (docs/api.md#scorekeeping)."""

    code = "correction-conflict"


class NoStakes(LedgerError):
    """A settlement asked of a match without stakes."""

    code = "no-stakes"
