"""End of the game: discarding once the pile is empty (never a galleon), the end when a player
has no cards left, the final attribution of the galleons, scores and shared wins."""

from __future__ import annotations

import pytest

from koryo_pbm.errors import IllegalOrder

ENDGAME = """
game = "korsar"
players = ["alice", "bob", "carol"]
current = "bob"
pile = []

[hands]
alice = ["blue-2", "galleon-4"]
bob = ["galleon-6", "red-3", "yellow-1"]
carol = ["green-2", "green-4"]

[loot]
alice = ["galleon-8"]
bob = ["galleon-7"]
carol = ["galleon-6"]

[[galleons]]
id = "g1"
owner = "bob"
card = "galleon-5"
[galleons.beside]
alice = ["blue-3"]
bob = ["red-1"]

[[galleons]]
id = "g2"
owner = "carol"
card = "galleon-2"

[[galleons]]
id = "g3"
owner = "alice"
card = "galleon-3"
[galleons.beside]
bob = ["red-2"]
carol = ["green-2"]
"""


@pytest.fixture
def t(table):
    table.load(ENDGAME)
    # with pile = [], every card not placed is out of the game
    assert table.state.pile == [] and len(table.state.removed) == 78 - 17
    return table


def test_discard_once_the_pile_is_empty_but_never_a_galleon(t):
    with pytest.raises(IllegalOrder, match="illegal order: a galleon can never be discarded"):
        t.game.check(t.state, "bob", {"action": "discard", "card": "galleon-6"})
    with pytest.raises(IllegalOrder, match="the draw pile is empty"):
        t.game.check(t.state, "bob", {"action": "draw"})
    t.discard("bob", "yellow-1")
    assert t.texts[0] == "bob discards yellow-1"
    assert t.state.removed[-1] == "yellow-1"


def play_to_the_end(t, last):
    t.discard("bob", "yellow-1")
    t.play("carol", "green-4", "g3")  # carol seized g2 (unattacked) first
    assert t.state.loot["carol"] == ["galleon-6", "galleon-2"]
    t.play("alice", "galleon-4")  # alice seized g1 first (blue 3 against red 1)
    assert t.state.loot["alice"] == ["galleon-8", "galleon-5"]
    assert [g.id for g in t.state.galleons] == ["g3", "g4"]
    t.play("bob", "red-3", "g3")  # red 5 against green 6
    assert t.game.outcome(t.state) is None
    last()  # carol seizes g3, then gets rid of her last card: the game ends at once
    assert t.state.loot["carol"][:3] == ["galleon-6", "galleon-2", "galleon-3"]
    assert t.game.pending(t.state) is None and t.state.over


def test_playing_the_last_card_ends_the_game_and_the_table_goes_to_its_controllers(t):
    play_to_the_end(t, lambda: t.play("carol", "green-2", "g4"))
    assert "the draw pile is empty and carol has no cards left: the game ends" in t.texts
    assert "at the end of the game, carol seizes g4 (alice's galleon-4), worth 4; the card beside it (green-2) leaves the game" in t.texts
    out = t.game.outcome(t.state)
    # alice 8 + 5; bob 7 - 6 (galleon-6 still in hand); carol 6 + 2 + 3 + 4
    assert dict(out.scores) == {"alice": 13, "bob": 1, "carol": 15}
    assert out.winners == ("carol",)
    assert t.texts[-1] == "scores: alice 13, bob 1, carol 15; carol wins"


def test_discarding_the_last_card_ends_the_game_too(t):
    play_to_the_end(t, lambda: t.discard("carol", "green-2"))
    # g4 nobody else touched: it goes to its owner
    out = t.game.outcome(t.state)
    assert dict(out.scores) == {"alice": 17, "bob": 1, "carol": 11}
    assert out.winners == ("alice",)


def test_a_galleon_with_equal_strengths_stays_at_the_end(table):
    table.load(
        """
game = "korsar"
players = ["alice", "bob"]
current = "alice"
pile = []
[hands]
alice = ["red-1", "galleon-2"]
bob = ["blue-3"]
[[galleons]]
id = "g1"
owner = "bob"
card = "galleon-8"
[galleons.beside]
alice = ["red-2"]
bob = ["blue-2"]
"""
    )
    table.play("alice", "galleon-2")  # alice keeps red-1; bob must then play or discard blue-3
    assert table.current == "bob"
    table.discard("bob", "blue-3")
    assert table.state.over
    assert [g.id for g in table.state.galleons] == ["g1"]
    assert "g1 (bob's galleon-8) stays on the table: equal strengths" in table.texts
    assert dict(table.game.outcome(table.state).scores) == {"alice": 2, "bob": 0}


def test_ties_share_the_win(table):
    table.load(
        """
game = "korsar"
players = ["alice", "bob"]
current = "alice"
pile = []
[hands]
alice = ["red-1", "red-2"]
bob = ["blue-1", "blue-2"]
[loot]
alice = ["galleon-5"]
bob = ["galleon-3", "galleon-2"]
"""
    )
    table.discard("alice", "red-1")
    table.discard("bob", "blue-1")
    # alice's only legal move is to discard red-2: the engine takes it, and the game ends
    assert table.state.over
    assert "alice discards red-2 (the only legal move)" in table.texts
    out = table.game.outcome(table.state)
    assert dict(out.scores) == {"alice": 5, "bob": 5} and out.winners == ("alice", "bob")


def test_galleons_in_hand_count_against(table):
    table.load(
        """
game = "korsar"
players = ["alice", "bob"]
current = "alice"
pile = []
[hands]
alice = ["galleon-4", "galleon-5", "galleon-6"]
bob = ["galleon-7", "blue-2"]
[loot]
bob = ["galleon-8"]
"""
    )
    # with the pile empty and only galleons in hand, alice must play a galleon
    assert table.legal() == [{"action": "play", "card": c} for c in ("galleon-4", "galleon-5", "galleon-6")]
    table.play("alice", "galleon-6")
    table.discard("bob", "blue-2")  # bob's last card is a galleon-7, which he cannot discard
    assert not table.state.over
    table.play("alice", "galleon-5")  # after collecting g1 (galleon-6, unattacked)
    # bob's only move is to play galleon-7 (the engine does it), his last card: the game ends;
    # g2 (alice's galleon-5) goes to alice and g3 (bob's galleon-7) to bob; alice still holds galleon-4
    assert table.state.over
    assert "bob puts galleon-7 to sea as g3 (value 7) (the only legal move)" in table.texts
    out = table.game.outcome(table.state)
    assert dict(out.scores) == {"alice": 6 + 5 - 4, "bob": 8 + 7}


def test_an_empty_hand_while_the_pile_has_cards_must_draw(table):
    table.load(
        """
game = "korsar"
players = ["alice", "bob"]
current = "alice"
pile = ["red-1", "red-2", "red-3"]
[hands]
alice = ["galleon-3"]
bob = ["galleon-2", "blue-1"]
"""
    )
    table.play("alice", "galleon-3")  # her last card, but the pile still has cards: play goes on
    assert not table.state.over
    table.draw("bob")
    # alice collected g1, then had to draw: taken by the engine
    assert table.state.loot["alice"] == ["galleon-3"]
    assert "alice draws a card (1 card left in the draw pile) (the only legal move)" in table.texts
    assert table.current == "bob"


def test_the_last_card_drawn_while_a_hand_is_empty_ends_the_game(table):
    table.load(
        """
game = "korsar"
players = ["alice", "bob"]
current = "alice"
pile = ["red-1"]
[hands]
alice = ["galleon-3"]
bob = ["galleon-2", "blue-1"]
"""
    )
    table.play("alice", "galleon-3")
    table.draw("bob")
    assert table.state.over
    assert "the draw pile is empty and alice has no cards left: the game ends" in table.texts
    assert dict(table.game.outcome(table.state).scores) == {"alice": 3, "bob": -2}


def test_no_order_once_the_game_is_over(t):
    play_to_the_end(t, lambda: t.play("carol", "green-2", "g4"))
    with pytest.raises(IllegalOrder, match="the game is over"):
        t.game.check(t.state, "alice", {"action": "draw"})
    with pytest.raises(IllegalOrder, match="the game is over"):
        t.game.apply(t.state, {"alice": {"action": "draw"}})
