"""koryo-pbm in a real process, for the CLI tests (a module of its own: ``from conftest import``
picks whichever conftest was loaded last when several test folders are named on one command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_subprocess(args: list[str], env_home: Path, cwd: Path, **kw) -> subprocess.CompletedProcess:
    """The installed console script in a real process."""
    env = {**os.environ, "KORYO_PBM_HOME": str(env_home)}
    return subprocess.run([sys.executable, "-m", "koryo_pbm", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, **kw)
