"""GOPS by random play: the invariants of every state, and what the rules promise of a whole match."""

from __future__ import annotations

import pytest

from koryo_pbm.engine.simulate import play_random, seat_names


@pytest.mark.parametrize("n,ties", [(2, "discard"), (3, "carry"), (4, "discard"), (4, "carry")])
def test_every_match_plays_thirteen_rounds_and_scores_at_most_the_prizes(game, n, ties):
    for i in range(8):
        reveals = []

        def after(state, events):
            game.check_invariants(state)
            reveals.extend(e for e in events if e.kind == "reveal")

        state, _ = play_random(game, seat_names(n), f"prop-{i}", options={"ties": ties}, after=after)
        out = game.outcome(state)
        assert len(reveals) == 13 and [e.data["round"] for e in reveals] == list(range(1, 14))
        discarded = sum(int(c[1:]) for c in state.discarded)
        assert sum(out.scores.values()) + discarded == 91  # 1 + ... + 13: every prize scored or discarded
        for e in reveals:  # every bid card is played exactly once
            assert len(e.data["bids"]) == n
        assert all(sorted(int(c[1:]) for e in reveals for q, c in e.data["bids"].items() if q == p) == list(range(1, 14))
                   for p in seat_names(n))
