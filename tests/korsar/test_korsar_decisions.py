"""Decisions: one player's turn at a time, ids, and one-outcome turns taken by the engine."""

from __future__ import annotations

import itertools
import random

from koryo_pbm.engine.simulate import seat_names


def test_decision_is_the_current_players_turn(game):
    s = game.setup(["ann", "ben", "cy"], "d", first="cy")
    d = game.pending(s)
    assert d.kind == "turn" and d.players == (s.current_player,)
    assert d.id == f"t{s.turn}-{s.current_player}"


def test_turns_go_clockwise_and_count_up(game):
    s = game.setup(seat_names(5), "clock")
    bots = random.Random(3)
    seen = []
    for _ in range(30):
        d = game.pending(s)
        seen.append((s.turn, s.current))
        s, _ = game.apply(s, {d.players[0]: game.random_order(s, d.players[0], bots)})
    for (t1, c1), (t2, c2) in itertools.pairwise(seen):
        assert t2 > t1 and (c2 - c1) % 5 == (t2 - t1) % 5


def test_decision_ids_are_unique_in_a_match(game):
    s = game.setup(seat_names(4), "ids", options={"teams": True})
    bots = random.Random(4)
    ids = []
    while (d := game.pending(s)) is not None:
        ids.append(d.id)
        s, _ = game.apply(s, {d.players[0]: game.random_order(s, d.players[0], bots)})
    assert len(ids) == len(set(ids))


def test_a_pending_decision_always_has_a_real_choice(game):
    for seed in range(6):
        s = game.setup(seat_names(3), f"choice-{seed}")
        bots = random.Random(seed)
        while (d := game.pending(s)) is not None:
            assert len(game.legal_orders(s, d.players[0])) >= 2
            assert game.legal_orders(s, "nobody") == []
            s, _ = game.apply(s, {d.players[0]: game.random_order(s, d.players[0], bots)})


def test_describe_choices_gives_a_legal_example_and_the_choices(table):
    table.example("korsar-4-teams-endgame.toml")
    example, lines = table.game.describe_choices(table.state, "alice")
    table.game.check(table.state, "alice", example)
    text = "\n".join(lines)
    assert "turn 57: alice" in text
    assert "red-1 beside g7 (carol's galleon-8)" in text
    assert "galleon-3: put to sea" in text
    assert 'action = "discard", card = one of red-1' in text
    assert "draw the top card" not in text and all("#" not in line for line in lines)
    table.play("alice", "red-1", "g7")
    _, lines = table.game.describe_choices(table.state, "bob")
    assert "alice put a card beside g7 this round: you may not put one there too" in lines
