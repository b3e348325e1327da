"""GOPS spec, "A round": turn up, bid (one simultaneous decision rN-bid; the last card played
without being asked), reveal, award (a strictly highest bid scores the prize; a tie for the
highest: nobody), bid cards discarded face up."""

from __future__ import annotations

import pytest
from gops_kit import bid, position

from koryo_pbm.errors import IllegalOrder, OrderError


def test_award_the_strictly_highest_bid_scores_the_prize(game):
    s = game.load_position(position(), "seed")
    s, texts = bid(game, s, alice="b9", bob="b3")
    assert texts == ["round 1: alice bids b9, bob bids b3", "alice wins p7 (7 points)", "round 2: p1 is turned up"]
    assert s.won == {"alice": ["p7"], "bob": []} and s.table == ["p1"] and s.round == 2
    assert game.view(game.public(s), None)["scores"] == {"alice": 7, "bob": 0}


def test_award_a_tie_for_the_highest_bid_scores_nothing_and_discards_the_prize(game):
    s = game.load_position(position(("alice", "bob", "carol")), "seed")
    s, texts = bid(game, s, alice="b10", bob="b10", carol="b2")
    assert texts[1] == "alice and bob tie: p7 is discarded"
    assert s.discarded == ["p7"] and all(w == [] for w in s.won.values())


def test_award_a_highest_bid_wins_even_when_lower_bids_tie(game):
    s = game.load_position(position(("alice", "bob", "carol")), "seed")
    s, texts = bid(game, s, alice="b10", bob="b4", carol="b4")
    assert texts[1] == "alice wins p7 (7 points)" and s.won["alice"] == ["p7"]


def test_reveal_and_discard_the_bids_are_public_and_leave_the_hands(game):
    s = game.load_position(position(), "seed")
    s, _ = bid(game, s, alice="b9", bob="b3")
    public = game.public(s)
    assert public["bids"] == {"alice": "b9", "bob": "b3"}
    assert "b9" not in public["hands"]["alice"] and "b3" not in public["hands"]["bob"]
    assert len(public["hands"]["alice"]) == 12


def test_bid_a_card_not_in_hand_is_illegal_naming_the_cards_left(game):
    s = game.load_position(position(hands={"alice": ["b2", "b5"], "bob": ["b1", "b13"]}, round=12,
                                    table=["p12"], deck=["p13"],
                                    won={"alice": [f"p{v}" for v in range(1, 12)]}), "seed")
    with pytest.raises(IllegalOrder, match=r"^illegal order: alice has no b9 left \(cards left: b2, b5\)$"):
        game.check(s, "alice", {"bid": "b9"})
    for bad in ({"bid": 9}, {}, {"bid": "b2", "also": 1}, ["b2"]):
        with pytest.raises(OrderError):
            game.check(s, "alice", bad)
    with pytest.raises(OrderError, match="^unknown player 'zed'"):
        game.check(s, "zed", {"bid": "b2"})
    with pytest.raises(OrderError, match="r12-bid waits for orders from: bob"):
        game.apply(s, {"alice": {"bid": "b2"}})


def test_bid_the_last_card_is_played_without_being_asked(game):
    """Round 12 answered: round 13's bids are the only legal moves, played at once, and the game ends."""
    s = game.load_position(position(hands={"alice": ["b2", "b5"], "bob": ["b1", "b13"]}, round=12,
                                    table=["p12"], deck=["p13"],
                                    won={"alice": [f"p{v}" for v in range(1, 7)], "bob": [f"p{v}" for v in range(7, 12)]}),
                           "seed")
    assert [o["bid"] for o in game.legal_orders(s, "alice")] == ["b2", "b5"]
    s, texts = bid(game, s, alice="b5", bob="b1")
    assert texts == ["round 12: alice bids b5, bob bids b1", "alice wins p12 (12 points)", "round 13: p13 is turned up",
                     "round 13: alice bids b2, bob bids b13 (the only legal move)", "bob wins p13 (13 points)",
                     "game over: alice 33, bob 58; bob wins"]
    assert game.pending(s) is None and s.hands == {"alice": [], "bob": []}
    with pytest.raises(IllegalOrder, match="^illegal order: the game is over$"):
        game.check(s, "alice", {"bid": "b2"})
