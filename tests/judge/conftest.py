"""Fixtures of the judge's tests: the CLI fixtures of tests/cli, and players with keys."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("cli_conftest", Path(__file__).parent.parent / "cli" / "conftest.py")
assert _spec is not None and _spec.loader is not None
cli_conftest = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("cli_conftest", cli_conftest)
_spec.loader.exec_module(cli_conftest)

Cli = cli_conftest.Cli
cli = cli_conftest.cli
run_subprocess = cli_conftest.run_subprocess
