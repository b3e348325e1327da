"""Koryo bots from fixed positions: what the heuristic plays where the right move is plain, and
what the search deals for the cards it cannot see."""

from __future__ import annotations

import math
import random

import pytest
from koryo_pbm_games.koryo import bots as KB
from koryo_pbm_games.koryo import rules
from koryo_pbm_games.koryo.cards import COPIES, NCARDS
from koryo_testkit import GAME, load

from koryo_pbm.engine import bots
from koryo_pbm.engine.contract import TimeLimit
from koryo_pbm.engine.rng import Rng


def heuristic(state, player):
    choice = bots.choose(GAME, state, player, "heuristic", seed="t")
    assert not choice.fallback
    return choice.order


def test_order_phase_the_heuristic_plays_the_pair_that_takes_the_merchant_majority():
    s = load(round=3, hands={"alice": ["merchant", "merchant", "lobbying", "spy"], "bob": ["guardian", "guardian"],
                             "carol": ["priest", "senator"]},
             tables={"bob": ["merchant"], "carol": ["broadcaster"]})
    assert heuristic(s, "alice") == {"play": ["merchant", "merchant"]}


def test_action_turn_the_barbarian_destroys_the_card_that_gives_alice_the_majority():
    # alice and bob tie on merchants (nobody scores 9); bob's merchant destroyed, alice scores it.
    s = load(phase="actions", facedown={"alice": ["barbarian"], "bob": ["barbarian"]},
             tables={"alice": ["merchant", "merchant"], "bob": ["merchant", "merchant", "senator"],
                     "carol": ["spy"]})
    assert GAME.pending(s).id == "r3-action-alice"
    assert heuristic(s, "alice") == {"steps": [{"do": "reveal"},
                                               {"do": "barbarian", "player": "bob", "card": "merchant"}]}


def test_action_turn_the_heuristic_takes_the_bank_token_and_destroys_its_own_event():
    # every swap would cost alice (bob's omniscient against her banker or priest): she declines
    s = load(phase="actions", facedown={"alice": ["lobbying"], "bob": ["barbarian"]}, bank=3, tokens={"carol": 5},
             tables={"alice": ["banker", "priest"], "bob": ["omniscient"], "carol": ["barbarian"]})
    assert GAME.pending(s).id == "r3-action-alice"
    order = heuristic(s, "alice")["steps"]
    assert order[:2] == [{"do": "reveal"}, {"do": "lobbying"}] and {"do": "banker"} in order
    assert {"do": "priest", "card": "lobbying"} in order
    s2, _ = GAME.apply(s, {"alice": {"steps": order}})
    assert GAME.public(s2)["tokens"]["alice"] == 1
    assert "lobbying" not in GAME.public(s2)["tables"]["alice"]


def test_action_turn_a_lobbying_swap_for_the_merchant_majority_beats_the_priest():
    # swapping alice's priest (4) for carol's merchant (9) is worth more than destroying the
    # lobbying (+1), which the swap makes impossible (alice no longer has a priest)
    s = load(phase="actions", facedown={"alice": ["lobbying"], "bob": ["barbarian"]}, bank=3, tokens={"carol": 5},
             tables={"alice": ["banker", "priest"], "bob": ["spy", "guardian"], "carol": ["merchant"]})
    assert heuristic(s, "alice") == {"steps": [
        {"do": "reveal"}, {"do": "lobbying", "swap": [["alice", "priest"], ["carol", "merchant"]]}, {"do": "banker"}]}


def test_end_phase_the_heuristic_keeps_both_senators_and_every_majority():
    # examples/positions/koryo-senator-discard.toml: alice discards 2 characters and keeps the
    # senator bonus only if she keeps both senators.
    s = load(players=("alice", "bob"), round=5, phase="end", turn="alice",
             tables={"alice": ["senator", "senator", "merchant", "merchant", "merchant", "broadcaster",
                               "broadcaster", "spy", "priest", "priest", "barbarian"],
                     "bob": ["senator", "guardian", "guardian", "guardian", "banker"]})
    order = heuristic(s, "alice")
    assert len(order["discard"]) == 2 and "senator" not in order["discard"]
    before = rules.scores(s)
    s2, _ = GAME.apply(s, {"alice": order})
    assert rules.scores(s2) == before  # nothing she scores is lost


def test_determinize_deals_exactly_the_unseen_cards_in_the_sizes_seen():
    s = GAME.setup(["alice", "bob", "carol"], "det")
    view = bots.player_view(GAME, s, "bob")
    for k in range(5):
        d = KB.determinize(view, 1, random.Random(k))
        assert d.hidden is None
        assert rules.card_census(d) == list(COPIES)
        assert d.hands[1] == s.hands[1] and d.tables == s.tables
        assert [sum(h) for h in d.hands] == [sum(h) for h in s.hands]
        assert len(d.deck) == len(s.deck) and sum(d.discard) == sum(s.discard)
        GAME.check_invariants(d)
    deals = {tuple(KB.determinize(view, 1, random.Random(k)).hands[0]) for k in range(5)}
    assert len(deals) > 1 and all(len(h) == NCARDS for h in deals)


def test_search_chooses_among_the_heuristics_best_plays_by_a_count_and_stops_only_at_its_safety_limit():
    s = GAME.setup(["alice", "bob", "carol", "dave"], "search-budget")
    view = bots.player_view(GAME, s, "alice")
    best = [play for _v, play in KB.rank_plays(view, 0)[:6]]
    order = KB.search(view, 0, Rng.derived("test", "1"), 1.0, lambda: 0.0)
    assert tuple(sorted(card_indices(order["play"]))) in {tuple(sorted(p)) for p in best}
    ticks = iter(range(1000))  # a clock one second later at every reading: the same count of deals
    assert KB.search(view, 0, Rng.derived("test", "1"), math.inf, lambda: float(next(ticks))) == order
    ticks = iter(range(1000))
    with pytest.raises(TimeLimit, match="after 1 of 40 deals"):
        KB.search(view, 0, Rng.derived("test", "1"), 1.5, lambda: float(next(ticks)))


def card_indices(names):
    from koryo_pbm_games.koryo.cards import INDEX

    return [INDEX[c] for c in names]
