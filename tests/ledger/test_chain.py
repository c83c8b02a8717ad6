"""The hash chain, exactly as docs/api.md#export-and-import words it."""

import hashlib
import json

import pytest

from service.ledger.chain import GENESIS, ChainError, canonical, fingerprint, seal, verify


def _spec_hash(prev, entry):
    body = {k: v for k, v in entry.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev + text).encode("utf-8")).hexdigest()


def test_chain_matches_spec_formula():
    e0 = seal({"seq": 0, "type": "hand", "who": "Zoë", "n": [1, 2]}, GENESIS)
    e1 = seal({"seq": 1, "type": "buy-in", "player": "bob"}, e0["hash"])
    assert e0["hash"] == _spec_hash("0" * 64, e0)
    assert e1["hash"] == _spec_hash(e0["hash"], e1)
    assert verify([e0, e1]) == e1["hash"]
    assert verify([]) == GENESIS


def test_canonical_is_sorted_compact_utf8():
    assert canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})


@pytest.mark.parametrize("tamper", ["content", "order", "seq", "hash"])
def test_tampering_is_detected(tamper):
    e0 = seal({"seq": 0, "x": 1}, GENESIS)
    e1 = seal({"seq": 1, "x": 2}, e0["hash"])
    entries = [dict(e0), dict(e1)]
    if tamper == "content":
        entries[1]["x"] = 3
    elif tamper == "order":
        entries.reverse()
    elif tamper == "seq":
        entries[0]["seq"] = 5
    else:
        entries[0]["hash"] = "f" * 64
    with pytest.raises(ChainError):
        verify(entries)
