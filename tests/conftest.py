"""Shared settings."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# These machines are shared and noisy: no per-example deadline. In CI (CI set in the
# environment) examples are derandomized, so a failing run replays exactly; elsewhere each run
# explores new examples.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_configure(config):
    config.addinivalue_line("markers", "real_scrypt: write passphrase keys with the real scrypt cost (2^17)")
    config.addinivalue_line("markers", "real_fsync: in-process writes fsync their files and folders, as every real "
                                       "koryo-pbm process does")


@pytest.fixture(scope="session", autouse=True)
def _unsynced_session():
    """In-process writes skip fsync (``atomic.unsynced``, as ``demo`` does in its throw-away folder):
    a test's files are thrown away and no test cuts the power, and the in-process tests made
    thousands of fsyncs, a few ms each. Writes stay atomic (temporary file, then rename).
    Tests marked ``real_fsync`` (the durability and crash tests: tests/store, the resolve and
    judge stopped at every step, which count and fail the fsync calls), and every real koryo-pbm
    process, fsync for real. Session-wide, so that module-scoped games are played unsynced too."""
    from koryo_pbm.store import atomic

    with atomic.unsynced():
        yield


@pytest.fixture(autouse=True)
def _real_fsync(request, monkeypatch):
    if request.node.get_closest_marker("real_fsync") is not None:
        from koryo_pbm.store import atomic

        monkeypatch.setattr(atomic, "_sync", True)


@pytest.fixture(autouse=True)
def _quick_scrypt(request, monkeypatch):
    """scrypt at n = 2^17 costs about 0.5 s and 128 MiB for each passphrase key written or
    opened. In-process tests write theirs with n = 2^12 (the file names its n, and is read with
    it, and in-process reads accept it); tests marked ``real_scrypt``, and every real koryo-pbm
    process, use the real cost and refuse a lower one (``keys.SCRYPT_N_MIN``)."""
    if request.node.get_closest_marker("real_scrypt") is None:
        from koryo_pbm.crypto import keys

        monkeypatch.setattr(keys, "SCRYPT_N", 2**12)
        monkeypatch.setattr(keys, "SCRYPT_N_MIN", 2**12)
