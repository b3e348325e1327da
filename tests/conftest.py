"""Shared settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# These machines are shared and noisy: no per-example deadline. In CI (CI set in the
# environment) examples are derandomized, so a failing run replays exactly; elsewhere each run
# explores new examples.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
