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


BROKEN = {
    "nohook": ("from koryo_pbm_games.gops import GopsGame\n\n\nclass Broken(GopsGame):\n"
               "    name = 'nohook'\n    legal_orders = __import__('koryo_pbm').engine.contract.Game.legal_orders\n",
               "game 'nohook' breaks the game contract: hook random_order is missing (or legal_orders, which gives it)"),
    "badsig": ("from koryo_pbm_games.gops import GopsGame\n\n\nclass Broken(GopsGame):\n"
               "    name = 'badsig'\n\n    def apply(self, state, orders, extra):\n        return state, []\n",
               "game 'badsig' breaks the game contract: hook apply needs 3 arguments, the engine gives 2"),
    "nolog": ("from koryo_pbm_games.gops import GopsGame\n\n\nclass Broken(GopsGame):\n"
              "    name = 'nolog'\n\n    def apply(self, state, orders):\n        return state, []\n",
              "game 'nolog' breaks the game contract: hook apply takes no keyword argument log"),
    "nostate": ("from koryo_pbm_games.gops import GopsGame\n\n\nclass Broken(GopsGame):\n"
                "    name = 'nostate'\n    state_type = None\n",
                "game 'nostate' breaks the game contract: hook dump_state is missing (or a state_type, which gives it)"),
    "badmark": ("from koryo_pbm_games.gops import GopsGame\nfrom koryo_pbm.engine.scene import Mark\n\n\n"
                "class Broken(GopsGame):\n    name = 'badmark'\n    marks = {'won': Mark('a prize won', 'glow')}\n",
                "game 'badmark' breaks the game contract: class attribute marks: mark won has style 'glow', "
                "not one of plain, star, band"),
}


def test_a_plug_in_that_breaks_the_contract_is_refused_in_one_line_and_nothing_else_stops(tmp_path):
    """Each broken plug-in is refused naming the game and the hook, by ``games`` (which still
    lists every other game) and by ``new --game`` (one line, exit 1, no traceback); the other
    games still play."""
    site = tmp_path / "site"
    site.mkdir()
    info = site / "broken_games-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-games\nVersion: 1.0\n")
    lines = ["[koryo_pbm.games]"]
    for name, (source, _) in BROKEN.items():
        (site / f"broken_{name}.py").write_text(source)
        lines.append(f"{name} = broken_{name}:Broken")
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    listed = _games(site, tmp_path)
    assert listed.returncode == 0, listed.stderr
    for name, (_, reason) in BROKEN.items():
        assert f"{name:<10} refused: {reason}" in listed.stdout
    assert "gops       GOPS (2, 3, 4 players)" in listed.stdout and "koryo      Koryo" in listed.stdout
    env = {**os.environ, "PYTHONPATH": str(site), "KORYO_PBM_HOME": str(tmp_path / "home")}
    for name, (_, reason) in BROKEN.items():
        run = subprocess.run([sys.executable, "-m", "koryo_pbm", "simulate", "--game", name, "--games", "1"],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode != 0 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.strip().splitlines()[-1].endswith(reason), run.stderr
    ok = subprocess.run([sys.executable, "-m", "koryo_pbm", "simulate", "--game", "gops", "--games", "1", "--players", "2"],
                        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr


def test_the_default_game_is_the_one_a_distribution_declares_else_the_only_one(monkeypatch):
    """The engine names no game: koryo-pbm's own pyproject declares its default (Koryo) in the
    group koryo_pbm.settings; without that, the only game installed; else --game is asked for."""
    import pytest

    from koryo_pbm.errors import UnknownGame

    assert registry.default_name() == "koryo"
    real = registry._scan
    monkeypatch.setattr(registry, "_scan", lambda group: [] if group == registry.SETTINGS else real(group))
    with pytest.raises(UnknownGame, match=r"^say which game: --game NAME \(registered games: gops, korsar, koryo"):
        registry.default_name()
    only = {"gops": registry._entry_points()["gops"]}
    monkeypatch.setattr(registry, "_entry_points", lambda: only)
    assert registry.default_name() == "gops"
