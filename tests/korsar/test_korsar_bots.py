"""The Korsar heuristic bot from fixed positions (alice, bob, carol; alice to play)."""

from __future__ import annotations

import tomllib

from koryo_pbm_games.korsar import KorsarGame

from koryo_pbm.engine import bots

GAME = KorsarGame()


def position(hand: list[str], galleons: str, pile: str = "") -> object:
    text = f"""
game = "korsar"
players = ["alice", "bob", "carol"]
current = "alice"
{pile}
[hands]
alice = {hand!r}
bob = ["galleon-2", "red-2"]
carol = ["galleon-3", "green-2"]
{galleons}
""".replace("'", '"')
    return GAME.load_position(tomllib.loads(text), "bots")


def heuristic(state) -> dict:
    choice = bots.choose(GAME, state, "alice", "heuristic", seed="t")
    assert not choice.fallback
    return choice.order


G8 = """
[[galleons]]
id = "g1"
owner = "bob"
card = "galleon-8"
[galleons.beside]
alice = ["blue-1"]
bob = ["red-3"]
"""


def test_the_captain_takes_the_eight_that_bob_holds_by_strength():
    s = position(["blue-captain", "yellow-1", "galleon-2"], G8)
    assert heuristic(s) == {"action": "play", "card": "blue-captain", "galleon": "g1"}


def test_a_stronger_pirate_of_its_colour_takes_it_when_there_is_no_captain():
    s = position(["blue-4", "yellow-1", "galleon-2"], G8)
    assert heuristic(s) == {"action": "play", "card": "blue-4", "galleon": "g1"}


def test_with_the_pile_empty_a_galleon_in_hand_is_put_to_sea_rather_than_kept():
    s = position(["galleon-5", "yellow-1"], "", pile="pile = []")
    assert heuristic(s) == {"action": "play", "card": "galleon-5"}
