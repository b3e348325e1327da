"""Installing like a tool (issue 10, item 5), as the README tells players: ``pipx install .``
from a clone, and ``pip install git+URL`` (here a ``git+file://`` URL of this repository) into
a fresh virtualenv. Both really build and install the package, into temporary folders only,
and the installed ``koryo-pbm`` must answer ``--version``, list both games (entry points) and
play a whole demo game.

One test, both installs running side by side (they are mostly waiting on disk and the package
index): about half a minute. pipx and git missing skip with the command that installs them,
except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from koryo_pbm import __version__

REPO = Path(__file__).resolve().parents[1]


def _need(program: str, package: str) -> str:
    path = shutil.which(program)
    if path is None:
        message = f"{program} is not installed (apt-get install {package})"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def _check_installed(script: Path, home: Path) -> None:
    env = {**os.environ, "KORYO_PBM_HOME": str(home), "PYTHONPATH": ""}
    run = lambda *args: subprocess.run([str(script), *args], capture_output=True, text=True, env=env,  # noqa: E731
                                       cwd=home.parent, timeout=120)
    r = run("--version")
    assert (r.returncode, r.stdout) == (0, f"koryo-pbm, version {__version__}\n"), r.stderr
    r = run("games")
    assert r.returncode == 0 and "koryo" in r.stdout and "korsar" in r.stdout, r.stderr
    r = run("demo", "--json")
    assert r.returncode == 0 and '"winners"' in r.stdout, r.stderr
    # the installed program is the copy in its own environment, not this checkout
    r = subprocess.run([str(script.parent / "python"), "-c", "import koryo_pbm; print(koryo_pbm.__file__)"],
                       capture_output=True, text=True, env=env, cwd=home.parent, timeout=60)
    assert r.returncode == 0 and not r.stdout.startswith(str(REPO)), (r.stdout, r.stderr)


def test_pipx_install_and_pip_install_from_git(tmp_path):
    pipx = _need("pipx", "pipx")
    git = _need("git", "git")
    if not (REPO / ".git").exists():
        pytest.skip(f"{REPO} is not a git checkout: pip install git+URL needs one")
    head = subprocess.run([git, "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=60)
    assert head.returncode == 0, head.stderr

    # pipx install . (from the clone, as a player does), into folders of this test only
    pipx_env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin"),
                "PIPX_MAN_DIR": str(tmp_path / "man"), "HOME": str(tmp_path / "home"), "PYTHONPATH": ""}
    pipx_run = subprocess.Popen([pipx, "install", "."], cwd=REPO, env=pipx_env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    # pip install git+URL into a fresh virtualenv
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pip_run = subprocess.Popen(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
         f"git+file://{REPO}"],
        env={**os.environ, "PYTHONPATH": ""}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    out, _ = pipx_run.communicate(timeout=600)
    assert pipx_run.returncode == 0, out
    out, _ = pip_run.communicate(timeout=600)
    assert pip_run.returncode == 0, out

    (tmp_path / "kp").mkdir()
    pipx_script = tmp_path / "bin" / "koryo-pbm"
    assert pipx_script.exists()
    _check_installed(pipx_script.resolve(), tmp_path / "kp")
    _check_installed(venv / "bin" / "koryo-pbm", tmp_path / "kp")
