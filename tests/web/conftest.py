"""The fixtures of tests/api (one app, a test client) for the tests of service/web."""

from tests.api.conftest import app, client  # noqa: F401
