"""Fixtures for the player page: the CLI of ``tests/cli`` and one headless Chromium per module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
_CLI = HERE.parents[0] / "cli"
sys.path.insert(0, str(_CLI))
_spec = importlib.util.spec_from_file_location("cli_conftest_for_page", _CLI / "conftest.py")
assert _spec and _spec.loader
_cli_conftest = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _cli_conftest
_spec.loader.exec_module(_cli_conftest)
Cli = _cli_conftest.Cli
cli = _cli_conftest.cli

from page_kit import Page, require_browser, start  # noqa: E402


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    require_browser()
    d = start(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


@pytest.fixture
def page(driver, tmp_path) -> Page:
    """The genuine page as a player saves it (``koryo-pbm player-page -o``), opened fresh in a
    browser whose storage is empty."""
    from koryo_pbm.assets import player_page

    path = tmp_path / "koryo-pbm-player-page.html"
    path.write_bytes(player_page())
    p = Page(driver, path.as_uri(), tmp_path / "downloads")
    p.load()
    driver.execute_script("localStorage.clear()")
    p.load()
    return p
