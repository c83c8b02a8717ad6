from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.app import create_app


@pytest.fixture(scope="session")
def app():
    return create_app({"TESTING": True, "TESTING_NO_METRICS": True, "RATELIMIT_ENABLED": False})


@pytest.fixture()
def client(app) -> FlaskClient:
    return app.test_client()
