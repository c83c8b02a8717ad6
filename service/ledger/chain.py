"""The ledger's hash chain (docs/api.md#export-and-import), pure Python.

Each entry carries ``hash``: the hex SHA-256 of the previous entry's hash (64
zeros for the first) followed by the entry's canonical JSON (the entry
without ``hash``, keys sorted, no whitespace, UTF-8).

>>> e = seal({"seq": 0, "type": "buy-in", "player": "ann"}, GENESIS)
>>> len(e["hash"]), verify([e]) == e["hash"]
(64, True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

GENESIS = "0" * 64


class ChainError(ValueError):
    def __init__(self, message: str, index: int) -> None:
        self.index = index
        super().__init__(message)


def canonical(obj: Any) -> bytes:
    """Keys sorted, no whitespace, UTF-8 (non-ASCII kept as is)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def entry_hash(prev: str, entry: Mapping[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(prev.encode("ascii") + canonical(body)).hexdigest()


def seal(entry: Mapping[str, Any], prev: str) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if k != "hash"}
    out["hash"] = entry_hash(prev, out)
    return out


def verify(entries: Sequence[Mapping[str, Any]]) -> str:
    """Check every link; the head (last hash, or 64 zeros for an empty ledger)."""
    prev = GENESIS
    for i, e in enumerate(entries):
        if not isinstance(e, Mapping) or not isinstance(e.get("hash"), str):
            raise ChainError(f"entry {i} has no hash", i)
        if e.get("seq") != i:
            raise ChainError(f"entry {i} says seq {e.get('seq')!r}", i)
        if entry_hash(prev, e) != e["hash"]:
            raise ChainError(f"entry {i}: hash does not match its content and predecessor", i)
        prev = e["hash"]
    return prev


def fingerprint(obj: Any) -> str:
    """SHA-256 of a request body's canonical JSON (idempotency-key fingerprints)."""
    return hashlib.sha256(canonical(obj)).hexdigest()
