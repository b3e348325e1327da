"""Spec section "A round": 1. Distribution, and what happens between rounds (the discard
pile shuffled back into the deck, the first-player token passed clockwise)."""

from __future__ import annotations

from koryo_pbm_games.koryo import rules
from koryo_pbm_games.koryo.cards import INDEX
from koryo_testkit import GAME, load, texts


def _round_end_state(**kw):
    """Round 2, actions phase with nothing face down and no powers to use: loading runs the
    rest of round 2 by itself and deals round 3."""
    doc = dict(round=2, phase="actions", facedown={})
    doc.update(kw)
    return load(**doc)


def test_distribution_broadcaster_extra_card_and_a_round_first_player_rotation():
    s = _round_end_state(tables={"bob": ["broadcaster"]})
    pub = GAME.public(s)
    assert pub["round"] == 3
    assert pub["first"] == "bob"  # passed clockwise from alice
    assert pub["hand_sizes"] == {"alice": 8, "bob": 9, "carol": 8}
    assert pub["deck"] == 55 - 1 - 25
    assert pub["discard"] == 0


def test_distribution_broadcaster_tie_with_omniscient():
    s = _round_end_state(tables={"bob": ["broadcaster"], "carol": ["broadcaster", "omniscient"]})
    assert GAME.public(s)["hand_sizes"] == {"alice": 8, "bob": 8, "carol": 9}


def test_distribution_deck_running_short_serves_in_turn_order():
    s = load(hands={"alice": ["merchant", "merchant"]})
    w = s.copy()
    w.hands = [[0] * 11 for _ in range(3)]
    w.deck = [INDEX["spy"]] * 0 + [INDEX["merchant"]] * 9  # 9 cards left, 8 due to each
    w.first = 1  # bob first
    events = []
    rules.start_round(w, events)
    assert [sum(h) for h in w.hands] == [0, 8, 1]  # bob 8, carol 1, alice nothing
    assert "carol is dealt 1 card, the deck ran out (8 due)" in texts(events)
    assert "alice is dealt 0 cards, the deck ran out (8 due)" in texts(events)


def test_a_round_ends_with_the_discard_reshuffled_into_the_deck():
    s = _round_end_state(discard=["merchant", "spy", "barbarian"],
                         tables={"alice": ["senator"], "bob": ["priest"]})
    # round 2 ended, discard went back into the deck, round 3 dealt 8 each
    pub = GAME.public(s)
    assert pub["discard"] == 0
    assert pub["deck"] == 55 - 2 - 24
    GAME.check_invariants(s)


def test_a_round_events_name_the_first_player():
    s = load(round=2, phase="actions", facedown={"alice": ["barbarian"]}, tables={"bob": ["spy"]})
    _s2, ev = GAME.apply(s, {"alice": {"steps": [{"do": "reveal"}, {"do": "barbarian"}]}})
    assert "round 3: bob is first player" in texts(ev)
    assert any(t.startswith("bob is dealt 8 cards") for t in texts(ev))
