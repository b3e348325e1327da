"""What `pip install .` puts into site-packages."""

from __future__ import annotations

import sysconfig
from importlib.metadata import entry_points
from pathlib import Path


def test_no_top_level_package_called_games_is_installed():
    site_packages = Path(sysconfig.get_paths()["purelib"])
    assert (site_packages / "koryo_pbm").exists() or any(site_packages.glob("__editable__*koryo_pbm*"))
    assert not (site_packages / "games").exists()


def test_games_ship_as_koryo_pbm_games_and_register_through_entry_points():
    import koryo_pbm_games.korsar
    import koryo_pbm_games.koryo

    assert koryo_pbm_games.koryo.KoryoGame.name == "koryo"
    assert koryo_pbm_games.korsar.KorsarGame.name == "korsar"

    eps = {ep.name: ep.value for ep in entry_points(group="koryo_pbm.games")}
    assert eps["koryo"] == "koryo_pbm_games.koryo:KoryoGame"
    assert eps["korsar"] == "koryo_pbm_games.korsar:KorsarGame"


def test_the_console_script_is_installed():
    eps = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert eps["koryo-pbm"] == "koryo_pbm.cli.main:entry"
