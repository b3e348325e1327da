"""Seeded random games play exactly as they did before the rules were made faster (issue 19).

``random-games.json`` was written by ``record_random_games.py`` with main's code before the
random games were sped up: per game, a digest of its whole log (every decision's id, every
event's kind, text and data), its final state and scores; and the wins and mean scores of
``simulate``, which plays without building events. Both must come out the same today.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from record_random_games import FILE, PLAYED, SIMULATED, played, simulated, table

RECORDED = json.loads(FILE.read_text())


@pytest.mark.parametrize(("name", "n", "options", "games"), PLAYED, ids=[table(*t[:3]) for t in PLAYED])
def test_random_games_give_the_recorded_logs_states_and_scores(name, n, options, games):
    digests = played(name, n, options, games)
    recorded = RECORDED["played"][table(name, n, options)]
    assert len(recorded) == games
    differ = [i for i, (a, b) in enumerate(zip(digests, recorded, strict=True)) if a != b]
    assert not differ, f"{len(differ)} of {games} games differ, the first: random-{n}/{differ[0]}"


@pytest.mark.parametrize(("name", "n", "options", "games"), SIMULATED, ids=[table(*t[:3]) for t in SIMULATED])
def test_simulate_gives_the_recorded_wins_and_mean_scores(name, n, options, games):
    assert json.loads(json.dumps(simulated(name, n, options, games))) == RECORDED["simulated"][table(name, n, options)]
