"""Test-wide settings: hypothesis without wall-clock deadlines (CI machines are shared).

Under CI (``CI`` set) hypothesis is derandomized: the same examples every run, so a
green build stays green; locally every run explores new examples.
"""

import os

# Rate limits are on by default (service/web/ratelimit.py); tests create matches in bursts,
# so they are off unless a test turns them on (app config RATELIMIT_ENABLED, or extra_env)
os.environ.setdefault("RATELIMIT_ENABLED", "false")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("default")
