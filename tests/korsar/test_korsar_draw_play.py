"""A turn, 2. Draw or play exactly one card: drawing, galleons, the colour rules for pirates,
captains, the admiral; malformed orders (OrderError) and broken rules (IllegalOrder)."""

from __future__ import annotations

import pytest

from koryo_pbm.errors import IllegalOrder, OrderError

POS = """
game = "korsar"
players = ["alice", "bob", "carol"]
current = "carol"

[hands]
alice = ["galleon-2"]
bob = ["galleon-2"]
carol = ["galleon-7", "red-1", "red-2", "green-3", "blue-4", "yellow-2", "red-captain", "green-captain", "admiral"]

[[galleons]]
id = "g1"
owner = "alice"
card = "galleon-5"
[galleons.beside]
bob = ["red-3"]

[[galleons]]
id = "g2"
owner = "bob"
card = "galleon-4"
[galleons.beside]
carol = ["green-1"]
alice = ["yellow-4"]

[[galleons]]
id = "g4"
owner = "carol"
card = "galleon-3"
[galleons.beside]
bob = ["blue-1"]
"""


@pytest.fixture
def t(table):
    table.load(POS)
    return table


def illegal(t, order, message, player="carol"):
    with pytest.raises(IllegalOrder, match=message):
        t.game.check(t.state, player, order)
    with pytest.raises(IllegalOrder, match=message):
        t.game.apply(t.state, {player: order})


def malformed(t, order, message, player="carol"):
    with pytest.raises(OrderError, match=message) as info:
        t.game.check(t.state, player, order)
    assert not isinstance(info.value, IllegalOrder)


def test_draw_takes_the_top_card(t):
    top = t.state.pile[0]
    size = len(t.state.pile)
    t.draw("carol")
    assert t.state.hands["carol"][-1] == top and len(t.state.pile) == size - 1
    assert t.texts[0] == f"carol draws a card ({size - 1} cards left in the draw pile)"  # not which


def test_no_hand_limit(t):
    for _ in range(4):
        for p in ("carol", "alice", "bob"):
            t.draw(p)
    assert len(t.state.hands["carol"]) == 13


def test_a_galleon_goes_in_front_of_its_player_with_the_next_id(t):
    t.play("carol", "galleon-7")
    g = t.galleon("g5")
    assert (g.owner, g.card, g.beside) == ("carol", "galleon-7", {})
    assert t.state.next_galleon == 6
    assert t.texts[0] == "carol puts galleon-7 to sea as g5 (value 7)"


def test_a_pirate_beside_any_galleon_to_attack_or_defend(t):
    t.play("carol", "red-1", "g4")  # her own galleon: defends
    assert t.galleon("g4").beside == {"bob": ["blue-1"], "carol": ["red-1"]}


def test_first_pirate_fixes_the_colour(t):
    t.play("carol", "yellow-2", "g4")  # carol defends her own galleon in yellow
    assert t.galleon("g4").beside["carol"] == ["yellow-2"]
    assert t.texts[0] == "carol defends g4 (carol's galleon-3) with yellow-2"


def test_attack_event(t):
    t.play("carol", "green-3", "g1")
    assert t.texts[0] == "carol attacks g1 (alice's galleon-5) with green-3"
    assert t.state.last_beside == "g1"


def test_later_pirates_must_have_the_same_colour(t):
    illegal(t, {"action": "play", "card": "red-2", "galleon": "g2"}, "illegal order: your colour beside g2 is green: later pirates there must be green")
    t.play("carol", "green-3", "g2")
    assert t.galleon("g2").beside["carol"] == ["green-1", "green-3"]


def test_a_colour_used_by_another_is_not_available(t):
    illegal(t, {"action": "play", "card": "red-2", "galleon": "g1"}, "illegal order: colour red is already used beside g1 by bob")
    illegal(t, {"action": "play", "card": "blue-4", "galleon": "g4"}, "colour blue is already used beside g4 by bob")


def test_captain_needs_a_pirate_of_its_colour(t):
    illegal(t, {"action": "play", "card": "red-captain", "galleon": "g1"}, "a captain needs a pirate of its colour beside the galleon: you have no red pirate beside g1")
    illegal(t, {"action": "play", "card": "red-captain", "galleon": "g2"}, "no red pirate beside g2")
    t.play("carol", "green-captain", "g2")
    assert t.galleon("g2").beside["carol"] == ["green-1", "green-captain"]


def test_admiral_only_beside_own_galleon(t):
    illegal(t, {"action": "play", "card": "admiral", "galleon": "g1"}, "the admiral goes only beside a galleon you own: g1 is alice's")
    t.play("carol", "admiral", "g4")  # no pirates needed
    assert t.galleon("g4").beside["carol"] == ["admiral"]


def test_cards_not_in_hand_and_galleons_not_on_the_table(t):
    illegal(t, {"action": "play", "card": "blue-3", "galleon": "g1"}, "carol has no blue-3 in hand")
    illegal(t, {"action": "play", "card": "red-1", "galleon": "g3"}, "there is no galleon g3 on the table")
    illegal(t, {"action": "play", "card": "galleon-8"}, "carol has no galleon-8")


def test_only_the_current_player(t):
    with pytest.raises(IllegalOrder, match="illegal order: it is carol's turn, not alice's"):
        t.game.check(t.state, "alice", {"action": "draw"})
    with pytest.raises(OrderError, match="'zed' does not play"):
        t.game.check(t.state, "zed", {"action": "draw"})


def test_no_discard_while_the_pile_has_cards(t):
    illegal(t, {"action": "discard", "card": "red-1"}, "discarding is allowed only once the draw pile is empty")


def test_legal_orders_are_exactly_those_check_accepts(t):
    legal = t.legal("carol")
    assert {"action": "draw"} in legal
    assert {"action": "play", "card": "red-1", "galleon": "g4"} in legal
    assert {"action": "play", "card": "red-1", "galleon": "g1"} not in legal
    assert {"action": "play", "card": "admiral", "galleon": "g4"} in legal
    assert sum(1 for o in legal if o.get("card") == "admiral") == 1
    for card in set(t.state.hands["carol"]) | {"galleon-2", "blue-1"}:
        for gid in ("g1", "g2", "g4", "g9", None):
            for action in ("play", "discard"):
                o = {"action": action, "card": card} | ({"galleon": gid} if gid else {})
                try:
                    t.game.check(t.state, "carol", o)
                    ok = True
                except OrderError:
                    ok = False
                assert ok == (o in legal), o


@pytest.mark.parametrize(
    "order,message",
    [
        ("draw", "an order is a table"),
        ({}, "no action"),
        ({"action": "steal"}, "unknown action 'steal'"),
        ({"action": 3}, "unknown action 3"),
        ({"action": "draw", "card": "red-1"}, "draw takes no card"),
        ({"action": "draw", "colour": "red"}, "unknown key 'colour'"),
        ({"action": "play"}, "play needs a card"),
        ({"action": "play", "card": 5}, "card must be a card id"),
        ({"action": "play", "card": "black-2", "galleon": "g1"}, "unknown card 'black-2'"),
        ({"action": "play", "card": "red-1"}, "playing red-1 needs the galleon"),
        ({"action": "play", "card": "red-1", "galleon": 1}, "galleon must be a galleon id"),
        ({"action": "play", "card": "red-1", "galleon": "one"}, "'one' is not a galleon id"),
        ({"action": "play", "card": "galleon-7", "galleon": "g1"}, "placed in front of you"),
        ({"action": "discard", "card": "red-1", "galleon": "g1"}, "a discard takes no galleon"),
    ],
)
def test_malformed_orders(t, order, message):
    malformed(t, order, message)


def test_apply_needs_exactly_the_pending_player(t):
    with pytest.raises(OrderError, match="needs exactly one order from carol"):
        t.game.apply(t.state, {"alice": {"action": "draw"}})
    with pytest.raises(OrderError):
        t.game.apply(t.state, {"carol": {"action": "draw"}, "alice": {"action": "draw"}})


def test_apply_does_not_change_its_input(t):
    before = t.game.dump_state(t.state)
    t.game.apply(t.state, {"carol": {"action": "play", "card": "green-captain", "galleon": "g2"}})
    assert t.game.dump_state(t.state) == before
