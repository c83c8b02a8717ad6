"""The match tests' ``client``: the ledger-backed one (tests/ledger/backends.py), on every
backend, in place of tests/api's stateless client."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


@pytest.fixture
def client(match_client: FlaskClient) -> FlaskClient:
    return match_client
