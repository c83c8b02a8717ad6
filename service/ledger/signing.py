"""The key exports are signed with (HMAC-SHA256, SPEC §7), shared by every instance.

Where the key comes from, first match wins:

1. ``LEDGER_SIGNING_KEY`` (app config or environment): the key's text. Set it in
   production, the same on every instance, and keep it: exports signed under a
   key verify only under that key.
2. The embedded default (no ``REDIS_URL``): generated once (32 random bytes) and
   kept in ``KALUKI_DATA_DIR/signing.key``, mode 0600, beside the data it signs.
3. ``REDIS_URL`` without a key: generated once and kept in that Redis under
   ``kaluki:signing-key`` (``SET NX``, no expiry), so every instance sharing the
   Redis shares it. It is exactly as durable as the ledgers (the durability check
   of ``/readyz`` covers it), but a Redis replaced by an empty one takes the key
   with it and every export kept by clients stops verifying: ``/readyz`` says
   ``signing key: redis (set LEDGER_SIGNING_KEY in production)`` so operators see it, and production sets the variable.

What is signed: the canonical JSON (keys sorted, no whitespace, UTF-8) of the
export without ``signature`` and ``entries``. The entries are bound by ``head``
(the import verifies the hash chain up to it), so a 20 MB export is signed and
checked by hashing a few kilobytes.

>>> key = b"k" * 32
>>> doc = {"id": "m1", "head": "0" * 64, "entries": []}
>>> doc["signature"] = sign(key, doc)
>>> verify(key, doc), verify(b"other", doc)
(True, False)
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Mapping
from typing import Any

from .chain import canonical

log = logging.getLogger(__name__)

REDIS_KEY = "kaluki:signing-key"
FILE_NAME = "signing.key"
UNSIGNED = ("signature", "entries")


def signed_bytes(doc: Mapping[str, Any]) -> bytes:
    return canonical({k: v for k, v in doc.items() if k not in UNSIGNED})


def sign(key: bytes, doc: Mapping[str, Any]) -> str:
    return hmac.new(key, signed_bytes(doc), hashlib.sha256).hexdigest()


def verify(key: bytes, doc: Mapping[str, Any]) -> bool:
    sig = doc.get("signature")
    # compare_digest refuses non-ASCII str (TypeError); such a signature is never ours anyway
    return isinstance(sig, str) and sig.isascii() and hmac.compare_digest(sign(key, doc), sig)


def key_from_file(data_dir: str) -> bytes:
    """The embedded default's key: created once (0600), then read by every process."""
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, FILE_NAME)
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            with contextlib.suppress(FileExistsError):  # another process was first: keep its key
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    with open(path, encoding="ascii") as f:
        text = f.read().strip()
    if len(text) < 32:
        raise RuntimeError(f"{FILE_NAME} in the data directory holds no key")
    return text.encode("ascii")


def key_from_redis(client: Any) -> bytes:
    """Generated once and shared through Redis (``SET NX``: the first instance wins)."""
    client.set(REDIS_KEY, secrets.token_hex(32), nx=True)
    value = client.get(REDIS_KEY)
    if not value:
        raise RuntimeError("the signing key could not be kept in Redis")
    return value.encode("ascii") if isinstance(value, str) else bytes(value)
