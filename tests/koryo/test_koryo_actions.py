"""Spec section "A round", 3. Actions: reveal, events, powers, protections."""

from __future__ import annotations

import pytest
from koryo_testkit import GAME, apply1, load, pending_id, table, texts

from koryo_pbm.errors import IllegalOrder, OrderError

R = {"do": "reveal"}


def act(facedown, tables=None, players=("alice", "bob", "carol"), bob=("barbarian",), **kw):
    """Round 3, actions phase, alice first: alice's turn (asked when a revealed event has a legal
    target). Bob has a Barbarian face down too, so the round stops at his turn when it has one."""
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
    s = act(["barbarian"], {"bob": ["merchant"], "carol": ["merchant"]})
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian"}))
    assert table(s2, "bob") == {"merchant": 1}
    assert "alice's barbarian has no effect (declined)" in texts(ev)


def test_three_barbarians_resolve_three_effects():
    s = act(["barbarian"] * 3, {"alice": ["merchant"], "bob": ["merchant", "spy"], "carol": ["senator"]})
    s2, _ = apply1(s, "alice", steps(R, {"do": "barbarian", "player": "bob", "card": "merchant"},
                                     {"do": "barbarian"},
                                     {"do": "barbarian", "player": "carol", "card": "senator"}))
    assert table(s2, "bob") == {"spy": 1}
    assert table(s2, "carol") == {}
    with pytest.raises(IllegalOrder, match="2 barbarian step.s. missing"):
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
    # Spec, Actions: "in a two-player game their Lobbying has no effect". alice's swap could only
    # move bob's cards (alice has Spy protection: spy 2 to 0, no guardian), so her Lobbying has
    # no legal target and her turn (after bob's) runs by itself.
    s = act(["lobbying"], {"alice": ["spy", "spy", "senator"], "bob": ["merchant"]}, players=("alice", "bob"),
            first="bob")
    assert pending_id(s) == "r3-action-bob"
    s2, ev = apply1(s, "bob", steps(R, {"do": "barbarian"}))
    assert texts(ev)[2:4] == ["alice reveals lobbying (the only legal move)", "alice's lobbying has no effect (no legal target)"]
    assert pending_id(s2) == "r4-orders"
    assert table(s2, "alice") == {"spy": 2, "senator": 1, "lobbying": 1}
    assert table(s2, "bob") == {"merchant": 1, "barbarian": 1}


def test_a_declined_lobbying_and_a_refused_swap_in_a_two_player_game():
    # With a guardian of her own alice loses her Spy protection: she is asked, and may swap
    # with bob or decline; swapping bob with bob is refused.
    s = act(["lobbying"], {"alice": ["spy", "spy", "guardian"], "bob": ["merchant"]}, players=("alice", "bob"))
    assert GAME.pending(s).id == "r3-action-alice"
    with pytest.raises(IllegalOrder, match="two different players"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "merchant"], ["bob", "merchant"]]}))
    s2, ev = apply1(s, "alice", steps(R, {"do": "lobbying"}))
    assert "alice's lobbying has no effect (declined)" in texts(ev)
    s2, ev = apply1(s, "alice", steps(R, {"do": "lobbying", "swap": [["alice", "guardian"], ["bob", "merchant"]]}))
    assert table(s2, "alice") == {"spy": 2, "merchant": 1, "lobbying": 1}


def test_lobbying_never_swaps_events():
    s = act(["lobbying"], {"bob": ["barbarian", "merchant"], "carol": ["senator"]})
    with pytest.raises(IllegalOrder, match="never events"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying", "swap": [["bob", "barbarian"], ["carol", "senator"]]}))


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
    s = act(["barbarian"], {"alice": ["banker"], "carol": ["merchant"]})
    s2, ev = apply1(s, "alice", steps({"do": "banker"}, R, {"do": "barbarian"}))
    pub = GAME.public(s2)
    assert pub["bank"] == 7 and pub["tokens"]["alice"] == 1
    assert "alice takes a token from the bank (banker)" in texts(ev)


def test_banker_with_an_empty_bank():
    s = act(["barbarian"], {"alice": ["banker"], "carol": ["merchant"]}, bank=0, tokens={"bob": 5, "carol": 3})
    with pytest.raises(IllegalOrder, match="the bank has no token left"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "banker"}))
    GAME.check(s, "alice", steps(R, {"do": "barbarian"}))


def test_banker_needs_the_power():
    s = act(["barbarian"], {"alice": ["banker"], "bob": ["banker", "banker"]})
    with pytest.raises(IllegalOrder, match="Banker power needed"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "banker"}))


def test_spy_steals_from_an_opponent_with_a_token():
    s = act(["barbarian"], {"alice": ["spy"], "carol": ["merchant"]}, tokens={"bob": 2, "carol": 0})
    s2, ev = apply1(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "bob"}))
    assert GAME.public(s2)["tokens"] == {"alice": 1, "bob": 1, "carol": 0}
    assert "alice steals a token from bob (spy)" in texts(ev)
    with pytest.raises(IllegalOrder, match="carol has no token"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "carol"}))
    with pytest.raises(IllegalOrder, match="not from yourself"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "spy", "player": "alice"}))


def test_each_power_at_most_once_and_reveal_exactly_once():
    s = act(["barbarian"], {"alice": ["banker"], "carol": ["merchant"]})
    with pytest.raises(IllegalOrder, match="at most once"):
        GAME.check(s, "alice", steps({"do": "banker"}, R, {"do": "barbarian"}, {"do": "banker"}))
    with pytest.raises(IllegalOrder, match="revealed exactly once"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, R))
    with pytest.raises(IllegalOrder, match="must be revealed"):
        GAME.check(s, "alice", steps({"do": "banker"}))


# -- Powers "before, after or while revealing": between the event effects ---------------------


def test_actions_power_used_between_two_event_effects():
    # The spec's example: a Lobbying swaps a Banker in, the Banker power is used, a second
    # Lobbying swaps it away. Worked by hand: after the first swap alice holds banker 1 (bob 0,
    # carol 0): the power majority; she takes a token (bank 8 -> 7); the second swap gives
    # carol the banker for carol's priest.
    s = act(["lobbying", "lobbying"], {"alice": ["merchant", "senator"], "bob": ["banker"], "carol": ["priest"]})
    assert pending_id(s) == "r3-action-alice"
    s2, ev = apply1(s, "alice", steps(
        R,
        {"do": "lobbying", "swap": [["alice", "merchant"], ["bob", "banker"]]},
        {"do": "banker"},
        {"do": "lobbying", "swap": [["alice", "banker"], ["carol", "priest"]]}))
    assert texts(ev)[:4] == ["alice reveals lobbying ×2",
                             "alice's lobbying swaps alice's merchant with bob's banker",
                             "alice takes a token from the bank (banker)",
                             "alice's lobbying swaps alice's banker with carol's priest"]
    assert table(s2, "alice") == {"priest": 1, "senator": 1, "lobbying": 2}
    assert table(s2, "bob") == {"merchant": 1}
    assert table(s2, "carol") == {"banker": 1}
    pub = GAME.public(s2)
    assert (pub["bank"], pub["tokens"]["alice"]) == (7, 1)
    assert pending_id(s2) == "r3-action-bob"  # bob's Barbarian can hit alice's priest or senator
    # Before the first swap alice has no banker: the power is refused there.
    with pytest.raises(IllegalOrder, match="Banker power needed"):
        GAME.check(s, "alice", steps(R, {"do": "banker"},
                                     {"do": "lobbying", "swap": [["alice", "merchant"], ["bob", "banker"]]},
                                     {"do": "lobbying"}))


def test_actions_a_barbarian_effect_gives_the_spy_power_used_before_the_second_barbarian():
    # alice spy 1 vs bob spy 1: a tie, no Spy power after the reveal. Her first Barbarian
    # destroys bob's spy (1 to 0): now she holds the majority, steals carol's token, and her
    # second Barbarian destroys carol's merchant.
    s = act(["barbarian", "barbarian"], {"alice": ["spy"], "bob": ["spy", "merchant"], "carol": ["merchant"]},
            tokens={"bob": 1, "carol": 1})
    with pytest.raises(IllegalOrder, match="Spy power needed"):
        GAME.check(s, "alice", steps(R, {"do": "spy", "player": "carol"},
                                     {"do": "barbarian", "player": "bob", "card": "spy"}, {"do": "barbarian"}))
    s2, ev = apply1(s, "alice", steps(
        R,
        {"do": "barbarian", "player": "bob", "card": "spy"},
        {"do": "spy", "player": "carol"},
        {"do": "barbarian", "player": "carol", "card": "merchant"}))
    assert texts(ev)[:4] == ["alice reveals barbarian ×2", "alice's barbarian destroys bob's spy",
                             "alice steals a token from carol (spy)", "alice's barbarian destroys carol's merchant"]
    assert GAME.public(s2)["tokens"] == {"alice": 1, "bob": 1, "carol": 0}
    assert table(s2, "bob") == {"merchant": 1} and table(s2, "carol") == {}


def test_actions_priest_destroys_a_revealed_event_before_its_effect():
    # Reading of the spec: after the reveal "each revealed event takes effect once"; the Priest
    # may destroy "one revealed earlier in this turn". Destroying the card first does not take
    # its effect away (its effect belongs to the reveal); it may still be used or declined.
    s = act(["barbarian"], {"alice": ["priest"], "bob": ["merchant"], "carol": ["senator"]})
    s2, ev = apply1(s, "alice", steps(R, {"do": "priest", "card": "barbarian"},
                                      {"do": "barbarian", "player": "bob", "card": "merchant"}))
    assert texts(ev)[:3] == ["alice reveals barbarian", "alice destroys their own barbarian (priest)",
                             "alice's barbarian destroys bob's merchant"]
    assert table(s2, "alice") == {"priest": 1} and table(s2, "bob") == {}
    assert GAME.public(s2)["discard"] == 2


def test_actions_event_steps_come_after_the_reveal_one_per_event():
    s = act(["barbarian"], {"alice": ["banker"], "carol": ["merchant"]})
    GAME.check(s, "alice", steps(R, {"do": "banker"}, {"do": "barbarian"}))  # a power, then the effect
    with pytest.raises(IllegalOrder, match="effect of a Barbarian revealed in this turn"):
        GAME.check(s, "alice", steps({"do": "barbarian"}, R))
    with pytest.raises(IllegalOrder, match="effect of a Barbarian revealed in this turn"):
        GAME.check(s, "alice", steps(R, {"do": "barbarian"}, {"do": "barbarian"}))
    with pytest.raises(IllegalOrder, match="effect of a Lobbying"):
        GAME.check(s, "alice", steps(R, {"do": "lobbying"}))
    with pytest.raises(IllegalOrder, match="1 barbarian step.s. missing"):
        GAME.check(s, "alice", steps(R, {"do": "banker"}))


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
