"""Games are found through their entry points without importlib.metadata (issue 19): the same
answer, read from the distributions on ``sys.path`` on every call, so that a game installed is
found at once and a game removed is gone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from koryo_pbm.engine import registry

GAME = '''
from koryo_pbm_games.koryo import KoryoGame


class CopyGame(KoryoGame):
    name = "kopy"
    title = "Koryo, a copy"
'''


def test_the_registry_lists_what_importlib_metadata_lists():
    assert {ep.name: ep.value for ep in entry_points(group=registry.GROUP)} == \
        {ep.name: ep.value for ep in registry._scan(registry.GROUP) or []}
    assert {"koryo", "korsar"} <= set(registry.names())


def _games(site: Path, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "KORYO_PBM_HOME": str(tmp / "home")}
    return subprocess.run([sys.executable, "-m", "koryo_pbm", "games"], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=120)


def test_a_game_installed_is_found_and_a_game_removed_is_not(tmp_path):
    """A third-party game installed as pip installs one (its package and its ``.dist-info`` with
    ``entry_points.txt``) in a folder on the path: ``koryo-pbm games`` lists it at once; removed,
    it is gone at once (nothing is cached between calls)."""
    site = tmp_path / "site"
    (site / "kopy_game").mkdir(parents=True)
    (site / "kopy_game" / "__init__.py").write_text(GAME)
    info = site / "kopy_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kopy-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[console_scripts]\nkopy = kopy_game:main\n\n"
                                           "[koryo_pbm.games]\nkopy = kopy_game:CopyGame\n")
    before = _games(tmp_path / "empty", tmp_path)
    assert before.returncode == 0 and "kopy" not in before.stdout
    installed = _games(site, tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert "kopy       Koryo, a copy (2, 3, 4 players)" in installed.stdout and "koryo" in installed.stdout
    shutil.rmtree(info)
    removed = _games(site, tmp_path)
    assert removed.returncode == 0 and "kopy" not in removed.stdout and "koryo" in removed.stdout
