"""Test-wide settings: hypothesis without wall-clock deadlines (CI machines are shared).

Under CI (``CI`` set) hypothesis is derandomized: the same examples every run, so a
green build stays green; locally every run explores new examples.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("default")
