"""The three-player example of the French rules, played turn by turn from
examples/positions/korsar-source-example.toml (the source's "black" pirates are yellow)."""

from __future__ import annotations

from collections import Counter


def test_the_first_six_rounds_of_the_source_example(table):
    t = table
    t.example("korsar-source-example.toml")
    # round 1
    t.play("A", "galleon-3")
    t.draw("B")
    t.play("C", "red-2", "g1")
    # round 2
    t.play("A", "yellow-3", "g1")
    t.play("B", "galleon-2")
    assert t.game.pending(t.state).id == "t6-C"
    t.play("C", "red-2", "g1")
    # round 3: A draws; B collects g2, unattacked, then puts galleon-6 to sea;
    # C seizes g1 with 4 red against 3 yellow, then attacks g3 with green-3
    t.draw("A")
    assert t.state.loot["B"] == ["galleon-2"]
    t.play("B", "galleon-6")
    assert t.state.loot["C"] == ["galleon-3"]
    assert Counter(t.state.removed) == Counter(["red-2", "red-2", "yellow-3"])
    t.play("C", "green-3", "g3")
    # round 4
    t.play("A", "blue-3", "g3")
    t.play("B", "admiral", "g3")
    t.play("C", "galleon-2")
    assert [g.id for g in t.state.galleons] == ["g3", "g4"]
    # round 5: A's blue captain chases the admiral; B attacks g4; C draws
    t.play("A", "blue-captain", "g3")
    assert "blue-captain chases B's admiral from g3: it is discarded for good" in t.texts
    t.play("B", "yellow-2", "g4")
    t.draw("C")
    # round 6: A seizes g3, then attacks g4 with green-2
    assert t.state.loot["A"] == ["galleon-6"]
    t.play("A", "green-2", "g4")
    assert t.galleon("g4").beside == {"B": ["yellow-2"], "A": ["green-2"]}
    assert t.game.pending(t.state).id == "t17-B"
