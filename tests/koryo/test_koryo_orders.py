"""Spec section "A round", phase 2: Orders."""

from __future__ import annotations

import pytest
from koryo_testkit import GAME, load, pending_id, texts

from koryo_pbm.errors import IllegalOrder, OrderError

HANDS = {"alice": ["merchant", "merchant", "spy", "barbarian"],
         "bob": ["guardian", "guardian", "senator"],
         "carol": []}


def orders_state(**kw):
    kw.setdefault("hands", HANDS)
    return load(**kw)


def test_empty_hand_plays_nothing_and_is_not_asked():
    s = orders_state()
    d = GAME.pending(s)
    assert (d.id, d.kind, d.players) == ("r3-orders", "orders", ("alice", "bob"))
    with pytest.raises(OrderError, match="not asked"):
        GAME.check(s, "carol", {"play": []})
    with pytest.raises(OrderError, match="not asked by r3-orders"):
        GAME.apply(s, {"alice": {"play": ["spy"]}, "bob": {"play": ["senator"]}, "carol": {"play": []}})


def test_same_id_play_and_leftovers_discarded():
    s = orders_state(tables={"carol": ["merchant"]})
    s2, ev = GAME.apply(s, {"alice": {"play": ["barbarian"]}, "bob": {"play": ["guardian", "guardian"]}})
    pub = GAME.public(s2)
    assert pending_id(s2) == "r3-action-alice"  # a Barbarian with a target is face down: alice is asked
    assert pub["facedown_sizes"] == {"alice": 1, "bob": 2, "carol": 0}
    assert pub["hand_sizes"] == {"alice": 0, "bob": 0, "carol": 0}
    assert pub["discard"] == 4  # alice's merchant x2 and spy; bob's senator
    assert "alice plays 1 card face down" in texts(ev)
    assert "bob plays 2 cards face down" in texts(ev)
    assert "alice discards 3 cards left in hand" in texts(ev)
    assert GAME.private(s2, "bob")["facedown"] == ["guardian", "guardian"]


def test_at_least_one_card():
    s = orders_state()
    with pytest.raises(IllegalOrder, match="at least one card"):
        GAME.check(s, "alice", {"play": []})


def test_cannot_play_more_than_held():
    s = orders_state()
    with pytest.raises(IllegalOrder, match="hand holds 1"):
        GAME.check(s, "alice", {"play": ["spy", "spy"]})
    with pytest.raises(IllegalOrder, match="hand holds 0"):
        GAME.check(s, "alice", {"play": ["omniscient"]})


def test_two_different_ids_need_ship_owner():
    s = orders_state()
    with pytest.raises(IllegalOrder, match=r"Ship Owner power needed to play two different cards \(you do not hold the power majority of shipowner\)"):
        GAME.check(s, "alice", {"play": ["merchant", "spy"]})


def test_ship_owner_two_different_ids_including_an_event():
    s = orders_state(tables={"alice": ["shipowner"]})
    GAME.check(s, "alice", {"play": ["merchant", "barbarian"]})
    GAME.check(s, "alice", {"play": ["spy", "merchant"]})
    GAME.check(s, "alice", {"play": ["merchant", "merchant"]})  # normal play still allowed
    with pytest.raises(IllegalOrder, match="exactly two"):
        GAME.check(s, "alice", {"play": ["merchant", "merchant", "spy"]})
    with pytest.raises(IllegalOrder, match="exactly two"):
        GAME.check(s, "alice", {"play": ["merchant", "spy", "barbarian"]})
    # a tied ship owner count is no power majority
    s = orders_state(tables={"alice": ["shipowner"], "carol": ["shipowner"]})
    with pytest.raises(IllegalOrder, match="Ship Owner"):
        GAME.check(s, "alice", {"play": ["merchant", "spy"]})


@pytest.mark.parametrize("order, words", [
    ({"play": ["dragon"]}, "unknown card id 'dragon'"),
    ({"play": "merchant"}, "must be a list"),
    ({"play": [3]}, "must be a string"),
    ({"play": ["merchant"], "extra": 1}, "unknown key"),
    ({}, "needs the key 'play'"),
    ("merchant", "must be a table"),
])
def test_malformed_play(order, words):
    s = orders_state()
    with pytest.raises(OrderError, match=words) as e:
        GAME.check(s, "alice", order)
    assert type(e.value) is OrderError


def test_whole_order_phase_automatic_when_no_hand_has_two_cards():
    s = load(hands={"alice": ["spy"], "bob": [], "carol": ["barbarian"]}, tables={"carol": ["guardian"]})
    # the single cards were played by themselves; alice's spy turn is automatic, carol's barbarian is asked
    assert pending_id(s) == "r3-action-carol"
    assert GAME.public(s)["tables"]["alice"] == {"spy": 1}
    assert GAME.private(s, "carol")["facedown"] == ["barbarian"]


def test_single_card_player_is_not_asked_when_others_choose():
    # one card has one outcome: it is played by itself (spec, "What a player is asked")
    s = load(hands={"alice": ["spy"], "bob": ["merchant", "merchant"], "carol": []})
    assert GAME.pending(s).players == ("bob",)
    _s2, ev = GAME.apply(s, {"bob": {"play": ["merchant"]}})
    assert texts(ev)[:3] == ["alice plays 1 card face down (the only legal move)", "bob plays 1 card face down",
                             "bob discards 1 card left in hand"]


# -- Distribution ----------------------------------------------------------------------------
