"""House habits: ruff and mypy are clean over the package, the games and the tests.

Both are test dependencies (``pip install '.[test]'``), so the README's test command runs them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    try:
        __import__(name)
    except ImportError:
        pytest.fail(f"{name} is not installed: pip install '.[test]'")
    return [sys.executable, "-m", name]


def test_ruff_is_clean():
    proc = subprocess.run([*_tool("ruff"), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean():
    proc = subprocess.run([*_tool("mypy"), "--no-incremental"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
