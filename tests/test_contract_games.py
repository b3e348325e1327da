"""The game contract, checked against every registered game (built-in or not) by random play.

OpenSpiel-style: one generic test that any new game gets for free. For every legal table
size, seeded random games are played to the end, and after every decision:

* the game's own invariants hold (``check_invariants``: cards conserved, counters in range);
* ``apply`` left its input state untouched;
* the state survives ``dump_state``/``load_state`` through real TOML;
* public and private parts are TOML-safe, and the views built from them are JSON-safe;
* every bot order passes ``check``, on the full state and on the player's own view;
* the history's parts (``log_section``) are names or nothing, and at the end the score
  breakdown (``score_breakdown``, if the game gives one) adds up to the scores;
* and the same seed replays the same match exactly.
"""

from __future__ import annotations

import json
import random
import tomllib

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.engine.contract import Game
from koryo_pbm.engine.registry import find_game, names
from koryo_pbm.engine.simulate import play_random, seat_names
from koryo_pbm.errors import SetupError

GAMES = names()


def table_sizes(game):
    sizes = []
    for n in game.player_counts:
        options = {}
        try:
            game.setup(seat_names(n), "probe", options=options)
            sizes.append((n, {}))
        except SetupError:
            pass
        if "teams" in game.options and n % 2 == 0:
            try:
                game.setup(seat_names(n), "probe", options={"teams": True})
                sizes.append((n, {"teams": True}))
            except SetupError:
                pass
    return sizes


CASES = [(name, n, opts) for name in GAMES for n, opts in table_sizes(find_game(name))]


def test_builtin_games_are_registered_through_entry_points():
    assert {"koryo", "korsar"} <= set(GAMES)
    for name in GAMES:
        game = find_game(name)
        assert game.name == name and game.title and game.player_counts


def toml_round_trip(data):
    return tomllib.loads(tomli_w.dumps(data))


def checked_play(game, players, seed, options, start=None):
    """Play one random match (from ``start``, else from ``setup``), checking the contract after
    every decision; return its log."""
    log = []
    bots = random.Random(f"contract:{seed}")
    state = start if start is not None else game.setup(players, seed, options=options)
    game.check_invariants(state)
    while (decision := game.pending(state)) is not None:
        assert decision.players and set(decision.players) <= set(players)
        # a game that names its kinds of decision (for deadlines per kind) names them all
        assert not game.decision_kinds or decision.kind in game.decision_kinds, decision
        before = json.dumps(game.dump_state(state), sort_keys=True)
        orders = {}
        for p in decision.players:
            order = game.random_order(state, p, bots)
            game.check(state, p, order)
            # The same player, seeing only their own view, accepts the same order.
            public, private = toml_round_trip(game.public(state)), toml_round_trip(game.private(state, p))
            game.check(game.from_view(public, private, p), p, order)
            view = game.view(public, private)
            json.dumps(view)
            assert game.score_breakdown(view) is None, "a score breakdown before the end"
            orders[p] = toml_round_trip(order)
        new, events = game.apply(state, orders)
        assert json.dumps(game.dump_state(state), sort_keys=True) == before, "apply changed its input"
        state = game.load_state(toml_round_trip(game.dump_state(new)))
        game.check_invariants(state)
        log.append((decision.id, [e.to_dict() for e in events]))
        for section in (game.log_section(decision.id, None, players),
                        *(game.log_section(decision.id, e.text, players) for e in events)):
            assert section is None or (isinstance(section, str) and section)
    outcome = game.outcome(state)
    assert outcome is not None and set(outcome.scores) == set(players)
    assert outcome.winners and max(outcome.scores.values()) == min(outcome.scores[w] for w in outcome.winners)
    end = game.view(toml_round_trip(game.public(state)), None)
    json.dumps(end)
    rows = game.score_breakdown(end)  # optional; when given, the parts add up to the scores
    if rows is not None:
        toml_round_trip({"rows": rows})
        for p in players:
            assert sum(r["points"] for r in rows if r["player"] == p) == outcome.scores[p]
        assert all(r["player"] in players or (r["player"] == "" and r["points"] == 0) for r in rows)
    return log, outcome


@pytest.mark.parametrize("name,n,options", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES])
def test_random_games_keep_the_contract(name, n, options):
    game = find_game(name)
    for i in range(4):
        checked_play(game, seat_names(n), f"contract-{i}", options)


@pytest.mark.parametrize("name,n,options", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES])
def test_the_join_in_front_of_every_game_keeps_the_contract(name, n, options):
    from koryo_pbm.fair import Joining, JoinState

    game = Joining(find_game(name))
    players = seat_names(n)
    start = JoinState(f"{name}-0a1b2c3d4e", tuple(players), "the moderator's secret", None, dict(options or {}),
                      "sha256:" + "ab" * 32)
    log, _ = checked_play(game, players, "join", options, start=start)
    assert log[0][0] == "join" and log[0][1][-1]["kind"] == "deal" and log[1][0] != "join"


@pytest.mark.parametrize("name,n,options", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES])
def test_same_seed_replays_the_same_match(name, n, options):
    game = find_game(name)
    a = play_random(game, seat_names(n), "replay", options=options)
    b = play_random(game, seat_names(n), "replay", options=options)
    assert game.dump_state(a[0]) == game.dump_state(b[0])
    assert a[1] == b[1]


@settings(max_examples=15)
@given(seed=st.text(max_size=20), case=st.sampled_from(CASES))
def test_any_seed_plays_a_valid_match(seed, case):
    name, n, options = case
    checked_play(find_game(name), seat_names(n), seed, options)


@pytest.mark.parametrize("name,n,options", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES])
def test_apply_without_a_log_reaches_the_same_states(name, n, options):
    game = find_game(name)
    bots = random.Random("quiet")
    loud = quiet = game.setup(seat_names(n), "quiet", options=options)
    while (decision := game.pending(loud)) is not None:
        assert game.pending(quiet) == decision
        orders = {p: game.random_order(loud, p, bots) for p in decision.players}
        loud, _events = game.apply(loud, orders)
        quiet, _ = game.apply(quiet, orders, log=False)
        assert game.dump_state(quiet) == game.dump_state(loud)
    assert game.outcome(quiet) == game.outcome(loud)


@pytest.mark.parametrize("name,n,options", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}" for c in CASES])
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
