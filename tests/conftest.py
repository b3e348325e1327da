"""Shared fixtures."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# "ci" is a bit heavier than the default; both stay well inside the CI budget.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")
