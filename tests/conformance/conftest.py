"""The corpus's cases, read once per module (the stateless ``app`` is tests/conftest.py's)."""

from __future__ import annotations

import pytest

from service.conformance import corpus as cp


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return cp.load()
