"""The game contract, checked against every registered game (built-in or not).

OpenSpiel-style: the test kit (:mod:`koryo_pbm.testing`) runs for every registered game, so a
new game gets it for free (its contract, random play with the contract checked after every
decision, exact replays, bots, menus against the legal orders, sizes); here too, the join in
front of every game, matches from any seed, and ``random_playout`` from the middle of a match.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.engine.contract import Game
from koryo_pbm.engine.registry import find_game, names
from koryo_pbm.engine.simulate import seat_names
from koryo_pbm.testing import GameContractTests, checked_play, table_sizes

GAMES = names()


CASES = [(name, n, opts) for name in GAMES for n, opts in table_sizes(find_game(name))]
IDS = [f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES]


class TestEveryRegisteredGame(GameContractTests):
    """The test kit (:mod:`koryo_pbm.testing`), run for every registered game: built-in, or any
    plug-in installed next to koryo-pbm."""

    @pytest.fixture(params=GAMES)
    def game(self, request):
        return find_game(request.param)


def test_builtin_games_are_registered_through_entry_points():
    assert {"koryo", "korsar", "gops"} <= set(GAMES)
    for name in GAMES:
        game = find_game(name)
        assert game.name == name and game.title and game.player_counts


@pytest.mark.parametrize("name,n,options", CASES, ids=IDS)
def test_the_join_in_front_of_every_game_keeps_the_contract(name, n, options):
    from koryo_pbm.fair import Joining, JoinState

    game = Joining(find_game(name))
    players = seat_names(n)
    start = JoinState(f"{name}-0a1b2c3d4e", tuple(players), "the moderator's secret", None, dict(options or {}),
                      "sha256:" + "ab" * 32)
    log, _ = checked_play(game, players, "join", options, start=start)
    assert log[0][0] == "join" and log[0][1][-1]["kind"] == "deal" and log[1][0] != "join"


@settings(max_examples=15)
@given(seed=st.text(max_size=20), case=st.sampled_from(CASES))
def test_any_seed_plays_a_valid_match(seed, case):
    name, n, options = case
    checked_play(find_game(name), seat_names(n), seed, options)


@pytest.mark.parametrize("name,n,options", CASES, ids=IDS)
def test_a_random_playout_plays_what_random_orders_and_apply_play(name, n, options):
    """``random_playout``, which a game may play its own faster way (Koryo and Korsar do), ends
    in the state the contract's default ends in (``random_order`` for every player asked, then
    ``apply`` without a log), with the same draws from the bots' generator, from the start and
    from the middle of a match, and leaves its input untouched."""
    game = find_game(name)
    for i in range(5):
        start = game.setup(seat_names(n), f"playout/{i}", options=options)
        walk = random.Random(f"walk/{i}")
        for _ in range(i * 3):  # into the middle of the match
            decision = game.pending(start)
            start, _ = game.apply(start, {p: game.random_order(start, p, walk) for p in decision.players})
        before = game.dump_state(start)
        fast_bots, slow_bots = random.Random(i), random.Random(i)
        fast = game.random_playout(start, fast_bots)
        slow = Game.random_playout(game, start, slow_bots)
        assert game.dump_state(start) == before, "random_playout changed its input"
        assert game.pending(fast) is None and game.dump_state(fast) == game.dump_state(slow)
        assert game.outcome(fast) == game.outcome(slow)
        assert fast_bots.getstate() == slow_bots.getstate(), "not the same draws"


BLIND = [name for name in GAMES if find_game(name).blind_rules() is not None]


@pytest.mark.parametrize("name", BLIND)
def test_blind_rules_refuse_an_order_from_a_player_not_asked_in_the_contracts_words(name):
    """Every game's blind rules say who is asked as :func:`koryo_pbm.engine.contract.asked` words
    it: at the dealers' first deal no player is asked, and a name is no player's."""
    from koryo_pbm.errors import IllegalOrder, OrderError

    rules = find_game(name).blind_rules()
    state = rules.setup(["alice", "bob"], "alice")
    d = rules.pending(state)
    assert d.kind == "deal" and d.players == ()
    with pytest.raises(IllegalOrder, match=f"^illegal order: alice is not asked now \\(the game waits for the dealers: {d.id}\\)$"):
        rules.check(state, "alice", {})
    with pytest.raises(OrderError, match="^unknown player 'zed' \\(players: alice, bob\\)$"):
        rules.check(state, "zed", {})
