"""Spec sections "Decisions" and "What a player is asked, and what happens by itself"."""

from __future__ import annotations

import pytest
from koryo_testkit import GAME, apply1, load, pending_id, table, texts

from koryo_pbm.errors import IllegalOrder, OrderError


def test_decision_ids_and_kinds():
    s = load(hands={"alice": ["merchant", "spy"], "bob": ["priest", "priest"], "carol": []})
    d = GAME.pending(s)
    assert d.to_dict() == {"id": "r3-orders", "kind": "orders", "players": ["alice", "bob"]}
    s = load(phase="actions", facedown={"bob": ["barbarian"]}, tables={"carol": ["merchant"]})
    assert GAME.pending(s).to_dict() == {"id": "r3-action-bob", "kind": "action", "players": ["bob"]}
    s = load(phase="end", turn="carol", tables={"carol": ["merchant", "guardian"] * 3})
    assert GAME.pending(s).to_dict() == {"id": "r3-discard-carol", "kind": "discard", "players": ["carol"]}


def test_action_turn_without_event_is_played_reveal_banker_priest_spy():
    s = load(phase="actions",
             facedown={"alice": ["priest"], "bob": ["barbarian"]},
             tables={"alice": ["banker", "lobbying", "barbarian", "spy"], "carol": ["merchant"]},
             tokens={"carol": 2}, bank=6)
    # alice: no event face down, one Spy victim (carol): automatic
    assert pending_id(s) == "r3-action-bob"
    assert table(s, "alice") == {"banker": 1, "priest": 1, "spy": 1, "lobbying": 1}  # barbarian destroyed
    pub = GAME.public(s)
    assert pub["tokens"] == {"alice": 2, "bob": 0, "carol": 1}
    assert pub["bank"] == 5


def test_auto_turn_events_in_order():
    # turn order carol, alice, bob: carol is asked (a Barbarian), then alice's turn runs by itself
    s = load(phase="actions", facedown={"carol": ["barbarian"], "alice": ["priest"], "bob": ["barbarian"]},
             tables={"alice": ["banker", "barbarian", "spy"]}, tokens={"carol": 1}, bank=7, first="carol")
    assert pending_id(s) == "r3-action-carol"
    s2, ev = apply1(s, "carol", {"steps": [{"do": "reveal"}, {"do": "barbarian"}]})
    assert pending_id(s2) == "r3-action-bob"
    got = texts(ev)
    i = got.index("alice reveals priest (the only legal move)")
    assert got[i:i + 4] == ["alice reveals priest (the only legal move)", "alice takes a token from the bank (banker)",
                            "alice destroys their own barbarian (priest)", "alice steals a token from carol (spy)"]


def test_spy_with_two_victims_is_asked():
    s = load(phase="actions", facedown={"alice": ["merchant"]}, tables={"alice": ["spy"]},
             tokens={"bob": 1, "carol": 1})
    assert pending_id(s) == "r3-action-alice"


def test_spy_power_gained_by_the_reveal_counts():
    s = load(phase="actions", facedown={"alice": ["spy"]}, tables={"alice": ["omniscient"], "bob": ["spy"]},
             tokens={"bob": 1, "carol": 1})
    assert pending_id(s) == "r3-action-alice"  # after revealing, alice holds the spy majority


def test_spy_power_without_victims_is_automatic():
    s = load(phase="actions", facedown={"alice": ["merchant"], "bob": ["barbarian"]}, tables={"alice": ["spy"]})
    assert pending_id(s) == "r3-action-bob"


def test_what_a_player_is_asked_an_event_with_no_legal_target_does_not_wait():
    # alice's Barbarian: bob has Guardian protection (guardian 2 to 0), carol has no character.
    # No legal target: the event has no effect and alice's turn runs by itself, up to bob's
    # Barbarian, which can hit alice's senator.
    s = load(phase="actions", facedown={"alice": ["barbarian"], "bob": ["barbarian"]},
             tables={"alice": ["senator"], "bob": ["guardian", "guardian"]})
    assert pending_id(s) == "r3-action-bob"
    assert table(s, "alice") == {"senator": 1, "barbarian": 1}
    # the same turn reached by an order, to read what it says: carol is first and declines
    s = load(phase="actions", facedown={"carol": ["barbarian"], "alice": ["barbarian"], "bob": ["barbarian"]},
             tables={"alice": ["senator"], "bob": ["guardian", "guardian"]}, first="carol")
    assert pending_id(s) == "r3-action-carol"
    s2, ev = apply1(s, "carol", {"steps": [{"do": "reveal"}, {"do": "barbarian"}]})
    assert texts(ev) == ["carol reveals barbarian", "carol's barbarian has no effect (declined)",
                         "alice reveals barbarian (the only legal move)", "alice's barbarian has no effect (no legal target)"]
    assert pending_id(s2) == "r3-action-bob"


def test_what_a_player_is_asked_automatic_turn_order_with_targetless_events():
    # "reveal (events with no legal target have no effect), then Banker, then Priest (a Barbarian
    # first, then a Lobbying), then Spy (the only victim)". alice (Ship Owner power) reveals a
    # Barbarian and a Lobbying: no Barbarian target (bob: Guardian protection, carol: no
    # character), and only bob's cards can be swapped (alice has Spy protection), so neither
    # has a legal target. Bank 7 -> 6, alice +1; Priest destroys the Barbarian; Spy: carol.
    s = load(phase="actions", first="carol",
             facedown={"carol": ["barbarian"], "alice": ["barbarian", "lobbying"], "bob": ["barbarian"]},
             tables={"alice": ["shipowner", "banker", "priest", "spy"], "bob": ["guardian", "guardian"]},
             tokens={"carol": 1}, bank=7)
    s2, ev = apply1(s, "carol", {"steps": [{"do": "reveal"}, {"do": "barbarian"}]})
    assert texts(ev)[2:] == ["alice reveals barbarian, lobbying (the only legal move)",
                             "alice's barbarian has no effect (no legal target)",
                             "alice's lobbying has no effect (no legal target)",
                             "alice takes a token from the bank (banker)",
                             "alice destroys their own barbarian (priest)",
                             "alice steals a token from carol (spy)"]
    assert table(s2, "alice") == {"shipowner": 1, "banker": 1, "priest": 1, "spy": 1, "lobbying": 1}
    pub = GAME.public(s2)
    assert (pub["bank"], pub["tokens"]) == (6, {"alice": 2, "bob": 0, "carol": 0})
    assert pending_id(s2) == "r3-action-bob"


def test_what_a_player_is_asked_a_targetless_event_needs_no_step_in_an_asked_turn():
    # alice is asked because her Spy theft has two victims; her Barbarian has no legal target
    # (bob: Guardian protection, carol: no character), so it needs no step, and a step for it
    # says why it had no effect.
    s = load(phase="actions", facedown={"alice": ["barbarian"], "bob": ["barbarian"]},
             tables={"alice": ["spy"], "bob": ["guardian", "guardian"]}, tokens={"bob": 1, "carol": 1})
    assert pending_id(s) == "r3-action-alice"
    s2, ev = apply1(s, "alice", {"steps": [{"do": "reveal"}, {"do": "spy", "player": "carol"}]})
    assert texts(ev)[:3] == ["alice reveals barbarian", "alice steals a token from carol (spy)",
                             "alice's barbarian has no effect (no legal target)"]
    assert GAME.public(s2)["tokens"] == {"alice": 1, "bob": 1, "carol": 0}
    _, ev = apply1(s, "alice", {"steps": [{"do": "reveal"}, {"do": "barbarian"}, {"do": "spy", "player": "bob"}]})
    assert texts(ev)[1] == "alice's barbarian has no effect (no legal target)"


def test_what_a_player_is_asked_a_missing_event_step_is_judged_when_the_turn_ends():
    # alice's Barbarian has no target at the reveal (bob: guardian 2 against her 1), but her
    # Lobbying hands bob's guardian to her and her ship owner to bob: bob loses the protection
    # (1 to 2), the Barbarian now has a target and needs its step.
    s = load(phase="actions", facedown={"alice": ["barbarian", "lobbying"], "bob": ["barbarian"]},
             tables={"alice": ["shipowner", "guardian"], "bob": ["guardian", "guardian", "merchant"]})
    assert pending_id(s) == "r3-action-alice"
    swap = {"do": "lobbying", "swap": [["alice", "shipowner"], ["bob", "guardian"]]}
    with pytest.raises(IllegalOrder, match="1 barbarian step.s. missing"):
        GAME.check(s, "alice", {"steps": [{"do": "reveal"}, swap]})
    GAME.check(s, "alice", {"steps": [{"do": "reveal"}, {"do": "lobbying"}]})  # nothing changed: no target
    s2, ev = apply1(s, "alice", {"steps": [{"do": "reveal"}, swap,
                                           {"do": "barbarian", "player": "bob", "card": "merchant"}]})
    # bob's own Barbarian then has no target (alice now has Guardian protection, carol nothing)
    assert table(s2, "bob") == {"guardian": 1, "shipowner": 1, "barbarian": 1}
    assert "bob's barbarian has no effect (no legal target)" in texts(ev)
    assert pending_id(s2) == "r4-orders"
    with pytest.raises(IllegalOrder, match="Guardian protection"):
        GAME.check(s, "alice", {"steps": [{"do": "reveal"}, {"do": "barbarian", "player": "bob", "card": "merchant"},
                                          swap]})


def test_discard_with_one_outcome_is_automatic_and_logged():
    s = load(phase="end", turn="bob", tables={"alice": ["merchant"] * 9,  # would be automatic
                                               "bob": ["spy", "guardian", "priest"] * 2},
             first="bob")
    s2, ev = apply1(s, "bob", {"discard": ["spy"]})
    assert "alice discards merchant ×4 (end of round 3; the only legal move)" in texts(ev)
    assert table(s2, "alice") == {"merchant": 5}


def test_setup_returns_a_real_decision():
    for i in range(20):
        s = GAME.setup(["a", "b"], f"d{i}")
        assert GAME.pending(s).kind == "orders"
        assert all(n > 1 for n in GAME.public(s)["hand_sizes"].values())


def test_what_a_player_is_asked_a_hand_of_one_card_is_played_by_itself():
    # Spec "What a player is asked, and what happens by itself": a decision with one possible
    # outcome is taken by the engine. A hand of one card must be played whole (at least one
    # card is played from a non-empty hand), so only alice (two cards) is asked.
    s = load(hands={"alice": ["merchant", "spy"], "bob": ["senator"], "carol": []},
             tables={"carol": ["merchant"]})
    assert GAME.pending(s).to_dict() == {"id": "r3-orders", "kind": "orders", "players": ["alice"]}
    with pytest.raises(IllegalOrder, match="bob is not asked now"):
        GAME.check(s, "bob", {"play": ["senator"]})
    with pytest.raises(OrderError, match="orders from players not asked"):
        GAME.apply(s, {"alice": {"play": ["spy"]}, "bob": {"play": ["senator"]}})
    s2, ev = apply1(s, "alice", {"play": ["spy"]})
    assert texts(ev)[:5] == ["alice plays 1 card face down", "alice discards 1 card left in hand",
                             "bob plays 1 card face down (the only legal move)",
                             "alice reveals spy (the only legal move)", "bob reveals senator (the only legal move)"]
    assert table(s2, "bob") == {"senator": 1}
    # the order phase as a whole is taken by itself when nobody holds two cards or more
    s = load(hands={"alice": ["merchant"], "bob": ["senator"], "carol": []},
             tables={"carol": ["merchant"]})
    assert pending_id(s) == "r4-orders"
    assert table(s, "alice") == {"merchant": 1} and table(s, "bob") == {"senator": 1}
