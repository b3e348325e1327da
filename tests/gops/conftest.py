"""The GOPS tests' fixture: the game (helpers in ``gops_kit``)."""

from __future__ import annotations

import pytest
from koryo_pbm_games.gops import GopsGame


@pytest.fixture
def game():
    return GopsGame()
