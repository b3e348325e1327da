"""Helpers for the picture tests (a module name of its own: every test folder has a conftest)."""

from __future__ import annotations

import os
import shutil

import pytest


def find_chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        path = shutil.which(name) if not os.path.isabs(name) else (name if os.access(name, os.X_OK) else None)
        if path:
            return path
    return None


def require_chromium() -> str:
    """Debian's chromium, or a skip naming the command that installs it (a failure under CI=true)."""
    exe = find_chromium()
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing (CI=true): apt-get install chromium")
        pytest.skip("needs a real headless browser: apt-get install chromium")
    return exe


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
