"""Position documents: loading, round-trips, and impossible positions (PositionError)."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest
import tomli_w

from koryo_pbm.errors import PositionError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "positions"

BASE = {
    "game": "korsar",
    "players": ["alice", "bob", "carol"],
    "current": "alice",
    "hands": {"alice": ["galleon-2", "red-1"], "bob": ["galleon-3"], "carol": ["galleon-4"]},
    "galleons": [{"id": "g2", "owner": "bob", "card": "galleon-5", "beside": {"carol": ["green-1", "green-2"]}}],
    "loot": {"bob": ["galleon-6"]},
}


def rt(data):
    return tomllib.loads(tomli_w.dumps(data))


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("korsar-*.toml")), ids=lambda p: p.name)
def test_example_positions_load_and_round_trip(game, path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    s = game.load_position(doc, "ex")
    game.check_invariants(s)
    dumped = rt(game.dump_position(s))
    again = game.load_position(dumped, "other seed")
    assert rt(game.dump_position(again)) == dumped


def test_a_position_without_pile_shuffles_the_rest_from_the_seed(game):
    a, b, c = (game.load_position(BASE, seed) for seed in ("x", "x", "y"))
    assert len(a.pile) == 78 - 8 and a.removed == []
    assert a.pile == b.pile != c.pile
    assert a.next_galleon == 3


def test_with_a_pile_the_cards_not_placed_are_out_of_the_game(game):
    s = game.load_position(BASE | {"pile": ["blue-4", "galleon-8"]}, "x")
    assert s.pile == ["blue-4", "galleon-8"] and len(s.removed) == 78 - 10


def test_optional_fields(game):
    s = game.load_position(BASE | {"turn": 12, "next_galleon": 9, "current": "bob", "last_beside": "g2"}, "x")
    assert (s.turn, s.next_galleon, s.current_player, s.last_beside) == (12, 9, "bob", "g2")
    assert game.pending(s).id == "t12-bob"


def test_teams_in_a_position(game):
    doc = {"game": "korsar", "players": ["a", "b", "c", "d"], "teams": [["d", "a"], ["b", "c"]], "current": "a", "hands": {"a": ["galleon-2", "red-1"]}}
    s = game.load_position(doc, "x")
    assert s.teams == (("b", "c"), ("d", "a"))
    assert game.dump_position(s)["teams"] == [["b", "c"], ["d", "a"]]


def broken(**changes):
    doc = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def galleon(**fields):
    return [{"id": "g2", "owner": "bob", "card": "galleon-5"} | fields]


@pytest.mark.parametrize(
    "doc,message",
    [
        (broken(game="koryo"), "game is 'koryo', not 'korsar'"),
        (broken(current=None), "has no current"),
        (broken(current="zed"), "current names 'zed', who does not play"),
        (broken(colour="red"), "unknown key colour"),
        (broken(players=["a", "b", "c", "d", "e", "f", "g"]), "7 players"),
        (broken(teams=[["alice", "bob"]]), "3 players play Korsar alone"),
        (broken(hands={"alice": ["galleon-2"], "zed": []}), "hands names 'zed'"),
        (broken(hands={"alice": ["black-2"]}), "unknown card 'black-2' in hands.alice"),
        (broken(hands={"alice": ["admiral", "admiral"]}), "too many copies of admiral: 2 placed, the game has 1"),
        (broken(hands={"alice": ["galleon-8"]}, loot={"bob": ["galleon-8"]}), "too many copies of galleon-8"),
        (broken(loot={"bob": ["red-2"]}), "bob's loot holds \\['red-2'\\]: only galleons are loot"),
        (broken(galleons=galleon(owner="zed")), "galleons\\[0\\].owner names 'zed'"),
        (broken(galleons=galleon(card="red-3")), "is not a galleon card"),
        (broken(galleons=galleon(id="ship")), "'ship' is not a galleon id"),
        (broken(galleons=galleon() + galleon()), "galleon ids repeated"),
        (broken(galleons=galleon(beside={"alice": ["galleon-2"]})), "galleon-2 beside a galleon"),
        (broken(galleons=galleon(beside={"alice": ["red-1", "blue-2"]})), "mixes colours red and blue"),
        (broken(galleons=galleon(beside={"alice": ["red-1"], "carol": ["red-2"]})), "colour red is used by two sides"),
        (broken(galleons=galleon(beside={"alice": ["red-captain"]})), "red-captain needs a red pirate"),
        (broken(galleons=galleon(beside={"alice": ["red-1", "red-captain"], "carol": ["blue-1", "blue-captain"]})), "a new captain or admiral discards the old one"),
        (broken(galleons=galleon(beside={"alice": ["admiral"]})), "the admiral beside it must be its owner's \\(bob\\)"),
        (broken(last_beside="g7"), "last_beside names 'g7'"),
        (broken(next_galleon=2), "next_galleon 2 must be above every galleon id"),
        (broken(turn=0), "turn must be an integer of at least 1"),
        (broken(pile="red-1"), "pile must be a list"),
    ],
)
def test_impossible_positions(game, doc, message):
    with pytest.raises(PositionError, match=message):
        game.load_position(doc, "x")


def test_six_players_need_teams_in_a_position(game):
    doc = {"game": "korsar", "players": [f"p{i}" for i in range(1, 7)], "current": "p1"}
    with pytest.raises(PositionError, match="6 players play Korsar as teams of two"):
        game.load_position(doc, "x")
    with pytest.raises(PositionError, match="p1 and p3 are not neighbours"):
        game.load_position(doc | {"teams": [["p1", "p3"], ["p2", "p4"], ["p5", "p6"]]}, "x")


def test_a_finished_position_round_trips(table):
    table.example("korsar-4-teams-endgame.toml")
    table.play("alice", "galleon-3")
    while (d := table.game.pending(table.state)) is not None:
        table.order(d.players[0], table.legal()[0])
    doc = rt(table.game.dump_position(table.state))
    assert doc["over"] is True
    again = table.game.load_position(doc, "x")
    assert again.over and table.game.outcome(again) == table.game.outcome(table.state)
    assert rt(table.game.dump_position(again)) == doc


# -- Decisions: "a captain listed before any pirate of its colour is an impossible position" ---


def test_decisions_a_captain_listed_before_any_pirate_of_its_colour_is_refused(game):
    with pytest.raises(PositionError, match="g2: carol's green-captain is listed before any green pirate of carol"):
        game.load_position(broken(galleons=galleon(beside={"carol": ["green-captain", "green-1"]})), "x")
    s = game.load_position(broken(galleons=galleon(beside={"carol": ["green-1", "green-captain"]})), "x")
    assert s.galleon("g2").beside == {"carol": ["green-1", "green-captain"]}


def test_decisions_in_a_team_the_partners_pirate_listed_before_opens_the_colour(game):
    def doc(beside):
        return {"game": "korsar", "players": ["alice", "bob", "carol", "dave"], "teams": True, "current": "alice",
                "hands": {"alice": ["galleon-2", "red-1"]},
                "galleons": [{"id": "g1", "owner": "alice", "card": "galleon-5", "beside": beside}]}

    # carol's pirate came first, then her partner dave's captain: a position the rules reach
    s = game.load_position(doc({"carol": ["blue-2"], "dave": ["blue-captain"]}), "x")
    assert s.galleon("g1").beside == {"carol": ["blue-2"], "dave": ["blue-captain"]}
    with pytest.raises(PositionError, match="g1: dave's blue-captain is listed before any blue pirate of their team"):
        game.load_position(doc({"dave": ["blue-captain"], "carol": ["blue-2"]}), "x")


def test_positions_last_launched(game):
    def doc(**kw):
        return {"game": "korsar", "players": ["alice", "bob", "carol", "dave"], "teams": True, "current": "bob",
                "hands": {"alice": ["galleon-2"], "bob": ["admiral", "red-2"]},
                "galleons": [{"id": "g1", "owner": "alice", "card": "galleon-5"}]} | kw

    s = game.load_position(doc(last_launched="g1"), "x")
    game.check(s, "bob", {"action": "play", "card": "admiral", "galleon": "g1"})
    assert game.dump_position(s)["last_launched"] == "g1"
    assert "last_launched" not in game.dump_position(game.load_position(doc(), "x"))
    with pytest.raises(PositionError, match="last_launched names 'g4'"):
        game.load_position(doc(last_launched="g4"), "x")
    with pytest.raises(PositionError, match="last_launched g1 is alice's, but the previous turn was carol's"):
        game.load_position(doc(last_launched="g1", current="dave"), "x")
    with pytest.raises(PositionError, match="last_launched g1 has cards beside it"):
        game.load_position(doc(last_launched="g1", galleons=[{"id": "g1", "owner": "alice", "card": "galleon-5",
                                                             "beside": {"carol": ["blue-1"]}}]), "x")
