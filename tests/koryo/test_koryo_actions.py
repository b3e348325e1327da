"""Spec section "A round", 3. Actions: reveal, events, powers, protections."""

from __future__ import annotations

import random

import pytest
from koryo_testkit import GAME, apply1, load, pending_id, table, texts

from koryo_pbm.errors import IllegalOrder, OrderError

R = {"do": "reveal"}


def act(facedown, tables=None, players=("alice", "bob", "carol"), bob=("barbarian",), **kw):
    """Round 3, actions phase, alice first: alice's turn (asked when an event is face down).
    Bob has a Barbarian face down too, so the round stops at his turn."""
    return load(players=players, phase="actions", facedown={"alice": facedown, "bob": list(bob)},
                tables=tables or {}, **kw)


def steps(*st):
    return {"steps": list(st)}


# -- Barbarian and Guardian protection --------------------------------------------------------


def test_barbarian_destroys_an_unprotected_opponents_character():
    s = act(["barbarian"], {"bob": ["guardian", "guardian", "merchant"], "carol": ["guardian", "senator"]})
    assert pending_id(s) == "r3-action-alice"
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian", "player": "carol", "card": "guardian"}))
    assert table(s2, "carol") == {"senator": 1}
    assert table(s2, "alice") == {"barbarian": 1}  # the event stays in front of alice
    assert GAME.public(s2)["discard"] == 1
    assert "alice reveals barbarian" in texts(ev)
    assert "alice's barbarian destroys carol's guardian" in texts(ev)


def test_barbarian_cannot_target_guardian_protection():
    s = act(["barbarian"], {"bob": ["guardian", "guardian", "merchant"], "carol": ["guardian", "senator"]})
    with pytest.raises(IllegalOrder, match="bob, who has Guardian protection"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "merchant"}))


def test_guardian_tie_with_omniscient_protects():
    s = act(["barbarian"], {"bob": ["guardian", "guardian"], "carol": ["guardian", "guardian", "omniscient"]})
    with pytest.raises(IllegalOrder, match="Guardian protection"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "carol", "card": "omniscient"}))
    GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "guardian"}))


def test_barbarian_can_destroy_the_omniscient_but_not_an_event_nor_own_card():
    s = act(["barbarian"], {"alice": ["merchant"], "bob": ["omniscient", "lobbying"]})
    s2, _ = apply1(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "omniscient"}))
    assert table(s2, "bob") == {"lobbying": 1}
    with pytest.raises(IllegalOrder, match="never an event"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "lobbying"}))
    with pytest.raises(IllegalOrder, match="opponent"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "alice", "card": "merchant"}))
    with pytest.raises(IllegalOrder, match="carol has no merchant"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian", "player": "carol", "card": "merchant"}))


def test_barbarian_may_be_declined():
    s = act(["barbarian"], {"bob": ["merchant"]})
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian"}))
    assert table(s2, "bob") == {"merchant": 1}
    assert "alice's barbarian has no effect (declined)" in texts(ev)


def test_three_barbarians_resolve_three_effects():
    s = act(["barbarian"] * 3, {"bob": ["merchant", "spy"], "carol": ["senator"]})
    s2, _ = apply1(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "merchant"},
                                     {"do": "barbarian"},
                                     {"do": "barbarian", "player": "carol", "card": "senator"}))
    assert table(s2, "bob") == {"spy": 1}
    assert table(s2, "carol") == {}
    with pytest.raises(IllegalOrder, match="2 barbarian and 0 lobbying step"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}))


def test_revealed_guardian_protects_at_once_for_later_effects():
    # bob is revealed after alice; but alice's own revealed cards count at once for her swaps
    s = act(["lobbying", "guardian"], {"alice": ["shipowner"], "bob": ["merchant"]})
    s2, _ = apply1(s, "alice", steps(R, {"do": "lobbying", "swap": [["alice", "guardian"], ["bob", "merchant"]]}))
    assert table(s2, "alice") == {"shipowner": 1, "merchant": 1, "lobbying": 1}
    assert table(s2, "bob") == {"guardian": 1}


# -- Lobbying and Spy protection -------------------------------------------------------------


def test_lobbying_swaps_two_characters():
    s = act(["lobbying"], {"alice": ["senator"], "bob": ["spy", "spy"], "carol": ["merchant"]})
    s2, ev = apply1(s, "alice", steps(R, {"do": "lobbying", "swap": [["alice", "senator"], ["carol", "merchant"]]}))
    assert table(s2, "alice") == {"merchant": 1, "lobbying": 1}
    assert table(s2, "carol") == {"senator": 1}
    assert "alice's lobbying swaps alice's senator with carol's merchant" in texts(ev)


def test_lobbying_cannot_touch_spy_protection():
    s = act(["lobbying"], {"alice": ["senator"], "bob": ["spy", "spy"], "carol": ["merchant"]})
    with pytest.raises(IllegalOrder, match="bob, who has Spy protection"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "spy"], ["carol", "merchant"]]}))


def test_spy_with_a_guardian_is_not_protected():
    s = act(["lobbying"], {"alice": ["senator"], "bob": ["spy", "spy", "guardian"], "carol": ["merchant"]})
    s2, _ = apply1(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "spy"], ["carol", "merchant"]]}))
    assert table(s2, "bob") == {"spy": 1, "guardian": 1, "merchant": 1}


def test_lobbying_protected_player_must_pick_two_opponents():
    s = act(["lobbying"], {"alice": ["spy", "spy", "senator"], "bob": ["merchant"], "carol": ["priest"]})
    with pytest.raises(IllegalOrder, match="alice, who has Spy protection"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["alice", "senator"], ["bob", "merchant"]]}))
    s2, _ = apply1(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "merchant"], ["carol", "priest"]]}))
    assert table(s2, "bob") == {"priest": 1} and table(s2, "carol") == {"merchant": 1}


def test_two_player_lobbying_has_no_effect_for_a_spy_protected_player():
    s = act(["lobbying"], {"alice": ["spy", "spy", "senator"], "bob": ["merchant"]}, players=("alice", "bob"))
    assert GAME.pending(s).id == "r3-action-alice"
    with pytest.raises(IllegalOrder, match="Spy protection"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["alice", "senator"], ["bob", "merchant"]]}))
    with pytest.raises(IllegalOrder, match="two different players"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "merchant"], ["bob", "merchant"]]}))
    GAME.check(s, "alice", steps(R, {"do": "lobbying"}))
    rnd = random.Random(3)
    for _ in range(50):
        assert GAME.random_order(s, "alice", rnd) == steps(R, {"do": "lobbying"})


def test_lobbying_never_swaps_events():
    s = act(["lobbying"], {"bob": ["barbarian", "merchant"], "carol": ["spy"]})
    with pytest.raises(IllegalOrder, match="never events"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "barbarian"], ["carol", "spy"]]}))


# -- Priest, Banker, Spy ---------------------------------------------------------------------


def test_priest_destroys_an_event_revealed_this_turn():
    s = act(["barbarian"], {"alice": ["priest"], "bob": ["merchant"]})
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian"}, {"do": "priest", "card": "barbarian"}))
    assert table(s2, "alice") == {"priest": 1}
    assert "alice destroys their own barbarian (priest)" in texts(ev)
    with pytest.raises(IllegalOrder, match="you have no barbarian"):
        GAME.check(s, "alice", steps({"do": "priest", "card": "barbarian"}, R, {"do": "barbarian"}))
    with pytest.raises(IllegalOrder, match="not a character"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "priest", "card": "merchant"}))


def test_priest_needs_the_power_majority():
    s = act(["barbarian"], {"alice": ["priest"], "bob": ["priest"]})
    with pytest.raises(IllegalOrder, match="Priest power needed"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "priest", "card": "barbarian"}))


def test_power_majority_is_evaluated_when_used():
    # alice ties bob's priest; her face-down priest gives her the majority once revealed
    s = act(["priest", "barbarian"], {"alice": ["priest", "shipowner"], "bob": ["priest"]})
    with pytest.raises(IllegalOrder, match="Priest power needed"):
        GAME.check(s, "alice", steps({"do": "priest", "card": "barbarian"}, R, {"do": "barbarian"}))
    GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "priest", "card": "barbarian"}))


def test_banker_takes_a_token():
    s = act(["barbarian"], {"alice": ["banker"]})
    s2, ev = apply1(s, "alice", steps({"do": "banker"}, R, {"do": "barbarian"}))
    pub = GAME.public(s2)
    assert pub["bank"] == 7 and pub["tokens"]["alice"] == 1
    assert "alice takes a token from the bank (banker)" in texts(ev)


def test_banker_with_an_empty_bank():
    s = act(["barbarian"], {"alice": ["banker"]}, bank=0, tokens={"bob": 5, "carol": 3})
    with pytest.raises(IllegalOrder, match="the bank has no token left"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "banker"}))
    GAME.check(s, "alice", steps(R, {"do": "barbarian"}))


def test_banker_needs_the_power():
    s = act(["barbarian"], {"alice": ["banker"], "bob": ["banker", "banker"]})
    with pytest.raises(IllegalOrder, match="Banker power needed"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "banker"}))


def test_spy_steals_from_an_opponent_with_a_token():
    s = act(["barbarian"], {"alice": ["spy"]}, tokens={"bob": 2, "carol": 0})
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "bob"}))
    assert GAME.public(s2)["tokens"] == {"alice": 1, "bob": 1, "carol": 0}
    assert "alice steals a token from bob (spy)" in texts(ev)
    with pytest.raises(IllegalOrder, match="carol has no token"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "carol"}))
    with pytest.raises(IllegalOrder, match="not from yourself"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "alice"}))


def test_each_power_at_most_once_and_reveal_exactly_once():
    s = act(["barbarian"], {"alice": ["banker"]})
    with pytest.raises(IllegalOrder, match="at most once"):
        GAME.check(s, "alice", steps({"do": "banker"}, R, {"do": "barbarian"}, {"do": "banker"}))
    with pytest.raises(IllegalOrder, match="revealed exactly once"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, R))
    with pytest.raises(IllegalOrder, match="must be revealed"):
        GAME.check(s, "alice", steps({"do": "banker"}))


def test_events_are_answered_right_after_the_reveal():
    s = act(["barbarian"], {"alice": ["banker"]})
    with pytest.raises(IllegalOrder, match="followed by 1 barbarian"):
        GAME.check(s, "alice", steps(R, {"do": "banker"}, {"do": "barbarian"}))
    with pytest.raises(IllegalOrder, match="answers a Barbarian revealed"):
        GAME.check(s, "alice", steps({"do": "barbarian"}, R))
    with pytest.raises(IllegalOrder, match="answers a Lobbying"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying"}))


@pytest.mark.parametrize("order, words", [
    ({"steps": "reveal"}, "must be a list"),
    ({"steps": [{"do": "dance"}]}, "'do' must be one of"),
    ({"steps": [{"do": "reveal", "now": True}]}, "unknown key"),
    ({"steps": [R, {"do": "barbarian", "player": "bob"}]}, "both 'player' and 'card'"),
    ({"steps": [R, {"do": "barbarian", "player": "zed", "card": "spy"}]}, "unknown player 'zed'"),
    ({"steps": [R, {"do": "barbarian", "player": "bob", "card": "dragon"}]}, "unknown card id"),
    ({"steps": [R, {"do": "lobbying", "swap": [["bob", "spy"]]}]}, "swap"),
    ({"steps": [R, {"do": "spy"}]}, "spy needs 'player'"),
    ({"steps": [R], "also": 1}, "unknown key"),
])
def test_malformed_steps(order, words):
    s = act(["barbarian"], {"bob": ["merchant"]})
    with pytest.raises(OrderError, match=words) as e:
        GAME.check(s, "alice", order)
    assert type(e.value) is OrderError


def test_not_your_turn():
    s = act(["barbarian"], {"bob": ["merchant"]})
    with pytest.raises(IllegalOrder, match="bob is not asked now"):
        GAME.check(s, "bob", steps(R))
