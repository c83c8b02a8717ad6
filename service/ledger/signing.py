"""The key exports are signed with (HMAC-SHA256, docs/api.md#export-and-import), shared by every
instance.

Where the key comes from, first match wins:

1. ``LEDGER_SIGNING_KEY`` (app config or environment): the key's text. Set it in
   production, the same on every instance, and keep it: exports signed under a
   key verify only under that key.
2. The embedded default (no ``REDIS_URL``): generated once (32 random bytes) and
   kept in ``KALUKI_DATA_DIR/signing.key``, mode 0600, beside the data it signs.
3. ``REDIS_URL`` without a key: generated once and kept in that Redis under
   ``kaluki:signing-key`` (read first; only when absent ``SET NX``, no expiry, so a
   full Redis that refuses writes still hands out the key it holds), so every instance sharing the
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
    """Whether ``doc`` carries this key's signature (any other value, a non-ASCII string or
    a document that cannot be written canonically included, is simply not signed)."""
    sig = doc.get("signature")
    if not isinstance(sig, str) or len(sig) != 64:
        return False
    try:
        expected = sign(key, doc)
    except (TypeError, ValueError):  # e.g. a lone surrogate: nothing this service wrote
        return False
    return hmac.compare_digest(expected.encode(), sig.encode("utf-8", "replace"))


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
    """Generated once and shared through Redis: read it; only when it is absent, ``SET NX``
    (the first instance wins) and read again. A refused write (a full Redis: OOM) is
    logged and raised; a key already there is returned without writing anything."""
    value = client.get(REDIS_KEY)
    if not value:
        try:
            client.set(REDIS_KEY, secrets.token_hex(32), nx=True)
        except Exception as exc:
            log.error("the export signing key could not be created in Redis (%s: %s); "
                      "set LEDGER_SIGNING_KEY", type(exc).__name__, exc)
            raise
        value = client.get(REDIS_KEY)
    if not value:
        log.error("the export signing key could not be kept in Redis")
        raise RuntimeError("the signing key could not be kept in Redis")
    return value.encode("ascii") if isinstance(value, str) else bytes(value)
