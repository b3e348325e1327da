"""The rules replay recorded games exactly (issue 19: faster, "without changing one rule").

``recorded-games.json`` was written by ``record_games.py`` before the rules and the engine
were made faster: games of Koryo (2, 3, 4 players) and Korsar (2 and 4 players, 4 in teams),
their seeds, every order their random bots gave, and a digest of every decision's id, events
and following state and of the final scores. Replayed today they must give the same digest,
and the random bots, playing from the same seeds, the same orders.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from record_games import FILE, canonical, replay

from koryo_pbm.engine.registry import find_game

RECORDED = json.loads(FILE.read_text())["games"]
IDS = [f"{g['game']}-{len(g['players'])}{'-teams' if g['options'] else ''}-{g['seed']}" for g in RECORDED]


@pytest.mark.parametrize("rec", RECORDED, ids=IDS)
def test_recorded_orders_replay_to_the_recorded_events_states_and_scores(rec):
    game = find_game(rec["game"])
    digest, _ = replay(game, rec["players"], rec["seed"], rec["options"], rec["orders"])
    assert digest == rec["digest"]


@pytest.mark.parametrize("rec", RECORDED, ids=IDS)
def test_the_random_bots_give_the_recorded_orders(rec):
    game = find_game(rec["game"])
    digest, orders = replay(game, rec["players"], rec["seed"], rec["options"], None)
    assert json.loads(canonical(orders)) == rec["orders"]
    assert digest == rec["digest"]


@pytest.mark.parametrize("rec", RECORDED[:: 3], ids=IDS[:: 3])
def test_without_the_log_the_same_game_is_played(rec):
    """``simulate`` applies orders without building events (``log=False``): the same states."""
    game = find_game(rec["game"])
    states = []
    for log in (True, False):
        state = game.setup(rec["players"], rec["seed"], options=rec["options"])
        for step in rec["orders"]:
            state, _ = game.apply(state, step, log=log)
        states.append(canonical(game.dump_state(state)))
    assert states[0] == states[1]
