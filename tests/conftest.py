"""Test-wide settings: hypothesis without wall-clock deadlines (CI machines are shared)."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("default")
