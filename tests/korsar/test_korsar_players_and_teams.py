"""Players and teams: who may play, and the refusals at set-up."""

from __future__ import annotations

import pytest

from koryo_pbm.engine.simulate import seat_names
from koryo_pbm.errors import SetupError


def test_player_counts(game):
    assert game.player_counts == (2, 3, 4, 5, 6, 8)
    assert "teams" in game.options


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_alone(game, n):
    s = game.setup(seat_names(n), "s")
    assert s.teams == ()


def test_seven_players_cannot_play(game):
    with pytest.raises(SetupError, match="7 players"):
        game.setup(seat_names(7), "s")


@pytest.mark.parametrize("n", [0, 1, 9, 10])
def test_other_counts_refused(game, n):
    with pytest.raises(SetupError, match=f"not {n}"):
        game.setup(seat_names(n), "s")


@pytest.mark.parametrize("n", [2, 3, 5])
def test_teams_refused_when_playing_alone(game, n):
    with pytest.raises(SetupError, match=f"{n} players play Korsar alone"):
        game.setup(seat_names(n), "s", options={"teams": True})


@pytest.mark.parametrize("n", [6, 8])
def test_teams_required_at_6_and_8(game, n):
    with pytest.raises(SetupError, match=f"{n} players play Korsar as teams of two"):
        game.setup(seat_names(n), "s")
    with pytest.raises(SetupError, match="teams of two"):
        game.setup(seat_names(n), "s", options={"teams": False})


@pytest.mark.parametrize("n", [4, 6, 8])
def test_teams_true_pairs_consecutive_seats(game, n):
    s = game.setup(seat_names(n), "s", options={"teams": True})
    assert s.teams == tuple((f"p{i}", f"p{i + 1}") for i in range(1, n + 1, 2))


def test_teams_as_pairs_of_neighbours(game):
    s = game.setup(["a", "b", "c", "d"], "s", options={"teams": [["c", "b"], ["a", "d"]]})
    # b then c, and d then a (round the table): the first teammate plays just before the partner
    assert s.teams == (("b", "c"), ("d", "a"))
    assert s.side("a") == s.side("d") == "d+a"


def test_teammates_must_be_neighbours(game):
    with pytest.raises(SetupError, match="a and c are not neighbours: teammates sit side by side"):
        game.setup(["a", "b", "c", "d"], "s", options={"teams": [["a", "c"], ["b", "d"]]})
    with pytest.raises(SetupError, match="not neighbours"):
        game.setup(seat_names(6), "s", options={"teams": [["p1", "p2"], ["p4", "p5"], ["p3", "p6"]]})


@pytest.mark.parametrize(
    "teams,message",
    [
        ([["a", "b"]], "c, d is in none|c is in none"),
        ([["a", "b"], ["b", "c"]], "b is in two teams"),
        ([["a", "b", "c"], ["d"]], "pair of two"),
        ([["a", "b"], ["c", "zed"]], "'zed', who does not play"),
        ("ab", "must be true or a list"),
        (3, "must be true or a list"),
    ],
)
def test_bad_teams(game, teams, message):
    with pytest.raises(SetupError, match=message):
        game.setup(["a", "b", "c", "d"], "s", options={"teams": teams})


def test_bad_players_and_options(game):
    with pytest.raises(SetupError, match="different"):
        game.setup(["a", "a", "b"], "s")
    with pytest.raises(SetupError, match="non-empty"):
        game.setup(["a", ""], "s")
    with pytest.raises(SetupError, match="no option colour"):
        game.setup(["a", "b"], "s", options={"colour": 1})
    with pytest.raises(SetupError, match="first player 'z'"):
        game.setup(["a", "b"], "s", first="z")
