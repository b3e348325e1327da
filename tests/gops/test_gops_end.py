"""GOPS spec, "End of the game": after the 13th round the highest score wins; ties share the win."""

from __future__ import annotations

from gops_kit import bid, position


def last_round(game, alice_won, bob_won):
    """Round 12 of two players with b1 and b2 left, p12 on the table, p13 face down; the prizes
    of the first 11 rounds won as given, the others discarded (tied)."""
    tied = [f"p{v}" for v in range(1, 12) if f"p{v}" not in (*alice_won, *bob_won)]
    return game.load_position(position(hands={"alice": ["b1", "b2"], "bob": ["b1", "b2"]}, round=12, table=["p12"],
                                       deck=["p13"], won={"alice": alice_won, "bob": bob_won}, discarded=tied), "seed")


def test_the_highest_score_wins_and_the_breakdown_adds_up(game):
    s = last_round(game, ["p1", "p2", "p11"], ["p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"])
    s, texts = bid(game, s, alice="b2", bob="b1")  # alice takes p12, bob p13 with b2 against b1
    out = game.outcome(s)
    assert out.scores == {"alice": 14 + 12, "bob": 52 + 13} and out.winners == ("bob",)
    view = game.view(game.public(s), None)
    assert view["winners"] == ["bob"] and texts[-1] == "game over: alice 26, bob 65; bob wins"
    assert game.score_breakdown(view) == [
        {"player": "alice", "what": "prizes p1, p2, p11, p12", "points": 26},
        {"player": "bob", "what": "prizes p3, p4, p5, p6, p7, p8, p9, p10, p13", "points": 65}]


def test_players_tied_for_the_highest_score_share_the_win(game):
    # 1+2+3+4+5+6+7+8 = 36 for alice, 9+10+11 = 30 for bob; p12 to bob (42), p13 tied, discarded
    s = last_round(game, [f"p{v}" for v in range(1, 9)], ["p9", "p10", "p11"])
    s, texts = bid(game, s, alice="b1", bob="b2")
    assert texts[-3:] == ["round 13: alice bids b2, bob bids b1 (the only legal move)", "alice wins p13 (13 points)",
                          "game over: alice 49, bob 42; alice wins"]
    s = last_round(game, [f"p{v}" for v in range(1, 9)], ["p9", "p10", "p11"])
    s, texts = bid(game, s, alice="b2", bob="b2")  # p12 tied: discarded; p13 tied again: discarded
    assert game.outcome(s).winners == ("alice",)
    s = last_round(game, ["p1", "p2", "p3", "p5", "p10"], ["p4", "p6", "p11"])  # 21 each
    s, texts = bid(game, s, alice="b2", bob="b2")
    out = game.outcome(s)
    assert out.scores == {"alice": 21, "bob": 21} and out.winners == ("alice", "bob")
    assert texts[-1] == "game over: alice 21, bob 21; alice and bob win"
    assert game.log_section("r12-bid", None, ["alice", "bob"]) is None  # round 12 began with its prize:
    assert game.log_section("r11-bid", "round 12: p12 is turned up", ["alice", "bob"]) == "round 12"
    assert game.log_section("r1-bid", None, ["alice", "bob"]) == "round 1"
