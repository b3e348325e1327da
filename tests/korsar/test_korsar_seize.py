"""A turn, 1. Seize: control by strength, captains and the admiral, unattacked galleons, ties.

Three players sit alice, bob, carol; every hand keeps a galleon so that no turn is forced, and
the draw pile is the cards not placed (shuffled from the seed)."""

from __future__ import annotations

from collections import Counter


def pos(galleons: str, hands: dict | None = None, current: str = "carol") -> str:
    all_hands = {p: ["galleon-2", "galleon-3"] for p in ("alice", "bob", "carol")} | (hands or {})
    lines = "\n".join(f"{p} = {cards!r}".replace("'", '"') for p, cards in all_hands.items())
    return f"""
game = "korsar"
players = ["alice", "bob", "carol"]
current = "{current}"

[hands]
{lines}
{galleons}
"""


G1 = """
[[galleons]]
id = "g1"
owner = "alice"
card = "galleon-5"
[galleons.beside]
"""


def test_the_strongest_side_seizes_at_the_start_of_its_turn(table):
    table.load(pos(G1 + 'bob = ["red-2", "red-3"]\nalice = ["yellow-4"]\n'))
    table.draw("carol")
    assert table.galleon("g1") is not None  # alice (4) does not control it against bob (5)
    table.draw("alice")
    assert table.galleon("g1") is None
    assert table.state.loot["bob"] == ["galleon-5"]
    assert Counter(table.state.removed) == Counter(["red-2", "red-3", "yellow-4"])
    assert "bob seizes g1 (alice's galleon-5), worth 5; the cards beside it (red-2, red-3, yellow-4) leave the game" in table.texts
    assert table.current == "bob"


def test_strength_is_the_sum_of_pirates_not_their_number(table):
    # bob: one 4; carol: 1 + 2 = 3 in two cards. bob controls.
    table.load(pos(G1 + 'bob = ["red-4"]\ncarol = ["green-1", "green-2"]\n', current="alice"))
    table.draw("alice")
    assert table.state.loot["bob"] == ["galleon-5"]


def test_the_owner_defending_with_more_seizes(table):
    table.load(pos(G1 + 'bob = ["red-2"]\nalice = ["yellow-3"]\n'))
    table.draw("carol")
    assert table.state.loot["alice"] == ["galleon-5"]
    assert table.galleon("g1") is None


def test_equal_strengths_leave_the_galleon_on_the_table(table):
    table.load(pos(G1 + 'bob = ["red-2", "red-3"]\nalice = ["yellow-4", "yellow-1"]\n'))
    for p in ("carol", "alice", "bob", "carol"):
        table.draw(p)
        assert table.galleon("g1") is not None
    assert all(loot == [] for loot in table.state.loot.values())


def test_a_tie_at_the_top_blocks_everybody_even_with_a_weaker_third(table):
    table.load(pos(G1 + 'bob = ["red-3"]\ncarol = ["green-3"]\nalice = ["yellow-1"]\n', current="alice"))
    table.draw("alice")
    table.draw("bob")
    table.draw("carol")
    assert table.galleon("g1") is not None


def test_a_captain_beats_any_sum_of_pirates(table):
    table.load(pos(G1 + 'alice = ["yellow-4", "yellow-4", "yellow-3"]\nbob = ["red-1", "red-captain"]\n'))
    table.draw("carol")
    assert table.galleon("g1") is not None  # alice's 11 pirates lose to bob's captain
    table.draw("alice")
    assert table.state.loot["bob"] == ["galleon-5"]
    assert "red-captain" in table.state.removed


def test_a_captain_discards_the_captain_already_there(table):
    table.load(
        pos(G1 + 'bob = ["red-1", "red-captain"]\ncarol = ["green-2"]\n', hands={"carol": ["galleon-2", "green-captain"]})
    )
    table.play("carol", "green-captain", "g1")
    assert table.galleon("g1").beside == {"bob": ["red-1"], "carol": ["green-2", "green-captain"]}
    assert table.state.removed == ["red-captain"]
    assert "green-captain chases bob's red-captain from g1: it is discarded for good" in table.texts
    table.draw("alice")
    table.draw("bob")  # bob no longer seizes; carol does at her turn
    assert table.state.loot["carol"] == ["galleon-5"]


def test_the_admiral_wins_for_the_owner(table):
    table.load(pos(G1 + 'bob = ["red-4", "red-4"]\n', hands={"carol": ["galleon-2", "galleon-3"], "alice": ["galleon-2", "admiral"]}, current="alice"))
    table.play("alice", "admiral", "g1")  # no pirate needed
    table.draw("bob")
    assert table.state.loot["bob"] == []
    table.draw("carol")
    assert table.state.loot["alice"] == ["galleon-5"]
    assert Counter(table.state.removed) == Counter(["red-4", "red-4", "admiral"])


def test_the_admiral_discards_a_captain_and_a_later_captain_discards_the_admiral(table):
    table.load(
        pos(
            G1 + 'bob = ["red-1", "red-captain"]\ncarol = ["green-2"]\n',
            hands={"alice": ["galleon-2", "admiral"], "carol": ["galleon-2", "green-captain"]},
            current="alice",
        )
    )
    table.play("alice", "admiral", "g1")
    assert table.state.removed == ["red-captain"]
    assert "admiral chases bob's red-captain from g1: it is discarded for good" in table.texts
    table.draw("bob")
    table.play("carol", "green-captain", "g1")
    assert table.state.removed == ["red-captain", "admiral"]
    table.draw("alice")
    table.draw("bob")
    assert table.state.loot["carol"] == ["galleon-5"]


def test_an_unattacked_galleon_is_collected_by_its_owner_at_the_start_of_their_next_turn(table):
    table.load(pos("", current="alice"))
    table.play("alice", "galleon-3")
    assert table.galleon("g1").owner == "alice"
    table.draw("bob")
    table.draw("carol")
    assert table.state.loot["alice"] == ["galleon-3"]
    assert "alice seizes g1 (alice's galleon-3), worth 3" in table.texts


def test_an_owner_who_only_defended_still_collects(table):
    table.load(pos(G1 + 'alice = ["yellow-1"]\n'))
    table.draw("carol")
    assert table.state.loot["alice"] == ["galleon-5"]
    assert table.state.removed == ["yellow-1"]


def test_an_attacked_galleon_is_not_collected_by_its_owner(table):
    table.load(pos("", current="alice", hands={"bob": ["galleon-2", "red-1"]}))
    table.play("alice", "galleon-3")
    table.play("bob", "red-1", "g1")
    table.draw("carol")
    assert table.galleon("g1") is not None and table.state.loot["alice"] == []
    table.draw("alice")
    assert table.state.loot["bob"] == ["galleon-3"]


def test_several_galleons_at_once(table):
    galleons = G1 + 'bob = ["red-2"]\n' + """
[[galleons]]
id = "g2"
owner = "bob"
card = "galleon-4"

[[galleons]]
id = "g3"
owner = "carol"
card = "galleon-6"
[galleons.beside]
bob = ["blue-3"]
carol = ["green-3"]
"""
    table.load(pos(galleons, current="alice"))
    table.draw("alice")
    assert sorted(table.state.loot["bob"]) == ["galleon-4", "galleon-5"]
    assert [g.id for g in table.state.galleons] == ["g3"]  # the tie stays


def test_loading_a_position_seizes_for_the_current_player(table):
    table.load(pos(G1 + 'carol = ["green-2"]\n'))
    assert table.state.loot["carol"] == ["galleon-5"] and table.state.galleons == []
