"""The score breakdown at the end of a game (issue 10, "what happened"): from fixed final
positions with hand-worked parts, and over random games: the parts add up to the scores."""

from __future__ import annotations

import pytest

from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import play_random
from koryo_pbm.history import breakdown_lines

KORYO = find_game("koryo")
KORSAR = find_game("korsar")


def koryo_final(tables, tokens):
    players = list(tables)
    public = {
        "round": 8, "phase": "over", "players": players, "first": players[0], "turn": "", "bank": 8 - sum(tokens.values()),
        "tokens": tokens, "tables": tables, "facedown_sizes": dict.fromkeys(players, 0),
        "hand_sizes": dict.fromkeys(players, 0), "deck": 0, "discard": 0,
    }
    return KORYO.view(public, None)


def test_koryo_end_of_the_game_breakdown_by_family_events_and_tokens():
    # alice: merchant 3 (majority: +9), barbarian 1 (-1), 2 tokens; bob: merchant 2, senator 2
    # (tie with carol: nobody scores senator), spy 1 (alone: +2); carol: senator 2, omniscient 1
    # (+1), lobbying 2 (-2), 1 token. Scores: alice 9-1+2 = 10, bob 2, carol 1-2+1 = 0.
    view = koryo_final(
        {"alice": {"merchant": 3, "barbarian": 1}, "bob": {"merchant": 2, "senator": 2, "spy": 1},
         "carol": {"senator": 2, "omniscient": 1, "lobbying": 2}},
        {"alice": 2, "bob": 0, "carol": 1},
    )
    assert view["scores"] == {"alice": 10, "bob": 2, "carol": 0}
    rows = KORYO.score_breakdown(view)
    assert rows == [
        {"player": "alice", "what": "merchant majority with 3 (against bob 2)", "points": 9},
        {"player": "", "what": "senator: bob and carol tie with 2 each, nobody scores its 3", "points": 0},
        {"player": "bob", "what": "spy majority with 1 (nobody else)", "points": 2},
        {"player": "carol", "what": "omniscient majority with 1 (nobody else)", "points": 1},
        {"player": "alice", "what": "events on the table: barbarian", "points": -1},
        {"player": "alice", "what": "2 tokens", "points": 2},
        {"player": "carol", "what": "events on the table: lobbying ×2", "points": -2},
        {"player": "carol", "what": "1 token", "points": 1},
    ]
    assert breakdown_lines(rows, view["players"], view["scores"]) == [
        "score breakdown:",
        "  alice: 10",
        "     +9  merchant majority with 3 (against bob 2)",
        "     -1  events on the table: barbarian",
        "     +2  2 tokens",
        "  bob: 2",
        "     +2  spy majority with 1 (nobody else)",
        "  carol: 0",
        "     +1  omniscient majority with 1 (nobody else)",
        "     -2  events on the table: lobbying ×2",
        "     +1  1 token",
        "  (senator: bob and carol tie with 2 each, nobody scores its 3)",
    ]


def test_koryo_no_breakdown_before_the_end():
    view = koryo_final({"alice": {"merchant": 1}, "bob": {}}, {"alice": 0, "bob": 0})
    view["phase"] = "orders"
    assert KORYO.score_breakdown(view) is None


def korsar_final(players, teams, loot, hands, scores):
    public = {
        "players": players, "teams": teams, "turn": 40, "current": "", "over": True, "pile": 0,
        "hand_sizes": {p: len(hands[p]) for p in players}, "loot_sizes": {p: len(loot[p]) for p in players},
        "galleons": [], "removed": [], "next_galleon": 9, "last_beside": "",
        "scores": scores, "winners": [max(scores, key=scores.get)], "hands": hands, "loot": loot,
    }
    return KORSAR.view(public, None)


def test_korsar_end_of_the_game_breakdown_loot_and_galleons_left_in_hand():
    # alice: loot galleon-6 + galleon-3 = 9, galleon-2 left in hand: 7; bob: loot galleon-4,
    # red-2 and galleon-5 in hand: 4 - 5 = -1
    view = korsar_final(["alice", "bob"], [], {"alice": ["galleon-3", "galleon-6"], "bob": ["galleon-4"]},
                        {"alice": ["galleon-2"], "bob": ["galleon-5", "red-2"]}, {"alice": 7, "bob": -1})
    rows = KORSAR.score_breakdown(view)
    assert rows == [
        {"player": "alice", "what": "loot: galleon-3 galleon-6", "points": 9},
        {"player": "alice", "what": "galleons left in hand: galleon-2", "points": -2},
        {"player": "bob", "what": "loot: galleon-4", "points": 4},
        {"player": "bob", "what": "galleons left in hand: galleon-5", "points": -5},
    ]


def test_korsar_teams_count_both_teammates_loot_and_hands():
    players = ["alice", "bob", "carol", "dave"]
    loot = {"alice": ["galleon-5"], "bob": ["galleon-3"], "carol": [], "dave": ["galleon-6"]}
    hands = {"alice": [], "bob": ["galleon-2"], "carol": [], "dave": []}
    view = korsar_final(players, [["alice", "bob"], ["carol", "dave"]], loot, hands,
                        {"alice": 6, "bob": 6, "carol": 6, "dave": 6})
    rows = KORSAR.score_breakdown(view)
    mine = [r for r in rows if r["player"] == "alice"]
    assert mine == [
        {"player": "alice", "what": "loot: galleon-5", "points": 5, "side": ["alice", "bob"]},
        {"player": "alice", "what": "bob's loot: galleon-3", "points": 3, "side": ["alice", "bob"]},
        {"player": "alice", "what": "galleons left in bob's hand: galleon-2", "points": -2, "side": ["alice", "bob"]},
    ]
    assert [r["what"] for r in rows if r["player"] == "carol"] == ["dave's loot: galleon-6"]


@pytest.mark.parametrize(("game", "n", "options"), [
    (KORYO, 2, None), (KORYO, 3, None), (KORYO, 4, None),
    (KORSAR, 2, None), (KORSAR, 5, None), (KORSAR, 4, {"teams": True}), (KORSAR, 6, {"teams": True}),
])
def test_breakdown_adds_up_to_the_scores_in_random_games(game, n, options):
    players = [f"p{i}" for i in range(1, n + 1)]
    for seed in range(12):
        state, outcome = play_random(game, players, f"breakdown-{seed}", options=options)
        view = game.view(game.public(state), None)
        rows = game.score_breakdown(view)
        assert rows is not None
        for p in players:
            assert sum(r["points"] for r in rows if r["player"] == p) == outcome.scores[p] == view["scores"][p]
        assert all(r["points"] == 0 for r in rows if not r["player"])
