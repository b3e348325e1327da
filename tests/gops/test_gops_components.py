"""GOPS spec, "Components": 13 bid cards b1 ... b13 per player, 13 prize cards p1 ... p13, 2 to 4 players."""

from __future__ import annotations

import pytest
from gops_kit import ALL

from koryo_pbm.errors import SetupError


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_player_holds_their_own_thirteen_bid_cards_and_the_prize_deck_has_thirteen(game, n):
    players = ["alice", "bob", "carol", "dave"][:n]
    s = game.setup(players, "components")
    assert all(s.hands[p] == ALL for p in players)
    assert sorted([*s.deck, *s.table], key=lambda c: int(c[1:])) == [f"p{v}" for v in range(1, 14)]


@pytest.mark.parametrize("n", [1, 5])
def test_other_table_sizes_are_refused_in_one_line(game, n):
    with pytest.raises(SetupError, match=f"^GOPS is played by 2 to 4 players, not {n}$"):
        game.setup(["alice", "bob", "carol", "dave", "erin"][:n], "components")
