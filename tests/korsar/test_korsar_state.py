"""dump_state / load_state: TOML round-trips and FormatError on malformed data."""

from __future__ import annotations

import copy
import random
import tomllib

import pytest
import tomli_w

from koryo_pbm.errors import FormatError


def rt(data):
    return tomllib.loads(tomli_w.dumps(data))


@pytest.fixture
def dumped(game):
    s = game.setup(["a", "b", "c", "d"], "st", options={"teams": True})
    bots = random.Random(2)
    for _ in range(25):
        d = game.pending(s)
        s, _ = game.apply(s, {d.players[0]: game.random_order(s, d.players[0], bots)})
    return game, s, rt(game.dump_state(s))


def test_round_trip(dumped):
    game, s, data = dumped
    again = game.load_state(data)
    assert game.dump_state(again) == game.dump_state(s)
    assert again.rng == s.rng


def breakers():
    def drop(key):
        return lambda d: d.pop(key)

    def put(key, value):
        return lambda d: d.__setitem__(key, value)

    return [
        (drop("hands"), "has no hands"),
        (drop("rng"), "has no rng"),
        (put("extra", 1), "unknown key extra"),
        (put("format", "korsar-state/9"), "expected 'korsar-state/1'"),
        (put("players", "abcd"), "players must be a list"),
        (put("players", ["a", "b", "c", "d", "e", "f", "g"]), "7 players"),
        (put("teams", [["a", "b"]]), "every player must be in a team|teams must list"),
        (put("current", "zed"), "current names 'zed'"),
        (put("turn", -1), "turn must be an integer"),
        (put("turn", True), "turn must be an integer"),
        (put("over", "no"), "over must be true or false"),
        (put("pile", [1, 2]), "pile\\[0\\] must be text"),
        (put("pile", ["red-9"]), "unknown card 'red-9'"),
        (put("hands", {"a": []}), "hands has no b"),
        (put("galleons", [{"id": "g1"}]), "galleons\\[0\\] has no owner, card"),
        (put("rng", {"key": "zz", "counter": 0}), "rng"),
        (put("removed", []), "cards not conserved"),
        (lambda d: d["hands"]["a"].append("admiral"), "cards not conserved"),
    ]


@pytest.mark.parametrize("breaker,message", breakers())
def test_malformed_states(dumped, breaker, message):
    game, _, data = dumped
    data = copy.deepcopy(data)
    breaker(data)
    with pytest.raises(FormatError, match=message):
        game.load_state(data)


@pytest.mark.parametrize("data", [None, [], "state", 3])
def test_not_a_table(game, data):
    with pytest.raises(FormatError):
        game.load_state(data)


def test_last_launched_is_stored_and_optional_for_older_states(game):
    # a team game where alice has just put g1 to sea: bob may defend it with the admiral
    doc = {"game": "korsar", "players": ["alice", "bob", "carol", "dave"], "teams": True, "current": "alice",
           "hands": {"alice": ["galleon-5", "red-1"], "bob": ["admiral", "red-2"]}}
    s = game.load_position(doc, "ll")
    s, _ = game.apply(s, {"alice": {"action": "play", "card": "galleon-5"}})
    data = rt(game.dump_state(s))
    assert data["last_launched"] == "g1"
    again = game.load_state(data)
    assert again.last_launched == "g1"
    game.check(again, "bob", {"action": "play", "card": "admiral", "galleon": "g1"})
    # a state written before the field existed loads, with nothing just put to sea
    old = {k: v for k, v in data.items() if k != "last_launched"}
    older = game.load_state(old)
    assert older.last_launched == ""
    assert game.dump_state(older) == {**old, "last_launched": ""}
    # and a last_launched that cannot be is refused
    with pytest.raises(FormatError, match="last_launched g7 is not on the table"):
        game.load_state({**data, "last_launched": "g7"})
    with pytest.raises(FormatError, match="last_launched must be text"):
        game.load_state({**data, "last_launched": 1})
