"""Test-wide settings and fixtures: hypothesis without wall-clock deadlines (CI machines are
shared); one stateless app and its test client (``app``, ``client``); the ledger backends and
the match fixtures (the plugin tests/ledger/backends.py).

Under CI (``CI`` set) hypothesis is derandomized: the same examples every run, so a
green build stays green; locally every run explores new examples.
"""

import os

# Rate limits are on by default (service/web/ratelimit.py); tests create matches in bursts,
# so they are off unless a test turns them on (app config RATELIMIT_ENABLED, or extra_env)
os.environ.setdefault("RATELIMIT_ENABLED", "false")

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from service.app import create_app

# the ledger backends and the match fixtures, for every test package
pytest_plugins = ["tests.ledger.backends"]

settings.register_profile(
    "default", deadline=None, derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("default")


@pytest.fixture(scope="session")
def app() -> Flask:
    """One app for the stateless endpoints (metrics and rate limits off)."""
    return create_app({"TESTING": True, "TESTING_NO_METRICS": True, "RATELIMIT_ENABLED": False})


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()
