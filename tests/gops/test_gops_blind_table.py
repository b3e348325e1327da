"""The specification's "Blind table" section: the prize deck is the dealers' (dealt to nobody),
each prize turned up in public; the bids are the ordinary orders, played by the ordinary rules:
the blind rules give the open game's events and scores on the same prize deck."""

from __future__ import annotations

import random

import pytest
from koryo_pbm_games.gops import GopsGame

from koryo_pbm.errors import IllegalOrder, OrderError

PRIZES = [f"p{v}" for v in range(1, 14)]


def _play_blind(deck, players, seed, options=None):
    """A blind game on the prize ``deck`` (the dealers' order), random bids: its decisions with
    their answers, its events and outcome."""
    rules, rng = GopsGame().blind_rules(), random.Random(seed)
    s = rules.setup(players, players[0], options)
    answers, events = [], []
    while (d := rules.pending(s)) is not None:
        if d.kind == "deal":
            orders = {}
        elif d.kind == "turn-up":
            orders = {"": {"cards": [deck[int(x.rpartition(":")[2])] for x in rules.revealing(s)]}}
        else:
            orders = {p: rules.random_order(s, p, rng, {}) for p in d.players}
            answers.append((d, orders))
        s, more = rules.apply(s, orders)
        events += more
    return rules, answers, events, rules.outcome(s)


def test_blind_table_the_prize_deck_is_dealt_to_nobody_and_turned_up_one_card_a_round():
    rules = GopsGame().blind_rules()
    s = rules.setup(["ann", "bo"], "ann")
    assert [rules.pending(s).id, rules.deck_input(s)] == ["deal", ("deck", PRIZES)]
    s, _ = rules.apply(s, {})
    assert rules.dealt(s) == {"deck": [""] * 13} and rules.hidden(s) == []
    assert (rules.pending(s).id, rules.pending(s).kind, rules.revealing(s)) == ("r1-turn-up", "turn-up", ["deck:0"])
    s, events = rules.apply(s, {"": {"cards": ["p7"]}})
    assert [e.text for e in events] == ["round 1: p7 is turned up"] and rules.pending(s).id == "r1-bid"
    s, events = rules.apply(s, {"ann": {"bid": "b13"}, "bo": {"bid": "b2"}})
    assert [e.text for e in events] == ["round 1: ann bids b13, bo bids b2", "ann wins p7 (7 points)"]
    assert rules.revealing(s) == ["deck:1"] and rules.pending(s).id == "r2-turn-up"
    with pytest.raises(IllegalOrder, match="^illegal order: ann is not asked now \\(the game waits for the dealers: r2-turn-up\\)$"):
        rules.check(s, "ann", {"bid": "b1"})
    with pytest.raises(OrderError, match="the one prize card"):
        rules.apply(s, {"": {"cards": ["b3"]}})


@pytest.mark.parametrize("ties", ["discard", "carry"])
def test_blind_table_the_bids_play_the_ordinary_rules_on_the_same_prize_deck(ties):
    """Random 2-4 player games: the blind rules' events and scores are the open game's
    (``replay_open``) on the same prize deck."""
    for seed in range(6):
        deck = random.Random(seed).sample(PRIZES, 13)
        players = ["ann", "bo", "cy", "di"][:2 + seed % 3]
        rules, answers, events, outcome = _play_blind(deck, players, seed, {"ties": ties})
        open_events, open_outcome = rules.replay_open(players, players[0], {"deck": deck}, answers, {"ties": ties})
        assert [e.text for e in events] == [e.text for e in open_events] and outcome == open_outcome
        assert len([e for e in events if e.kind == "turn-up"]) == 13 and events[-1].kind == "end"
