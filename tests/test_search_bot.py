"""The engine's ``search`` level (:mod:`koryo_pbm.engine.search`), for every registered game:
its levels, determinism, legal orders on positions met in random matches, the player's view
only, the safety limit, and determinizations that keep what the player knows.

Counts are small here (the work per decision is cut to a few simulations, the same code path);
the strength is measured by ``benchmarks/bench_search.py``. In a game with a ``search`` of its
own (Koryo), the engine's is tested through a copy of the game that declares only its other
levels, as the benchmark plays it."""

from __future__ import annotations

import random

import pytest

from koryo_pbm.engine import bots, search
from koryo_pbm.engine.contract import Game
from koryo_pbm.engine.registry import find_game, names
from koryo_pbm.engine.simulate import play_random, seat_names

GAMES = names()


@pytest.fixture(autouse=True)
def lean(monkeypatch):
    """A few simulations per decision: the code path of the full count, in test time."""
    monkeypatch.setattr(search, "SIMULATIONS", {"level": 6, "random": 24})
    monkeypatch.setattr(search, "MIN_SIMULATIONS", 3)
    monkeypatch.setattr(search, "DECISIONS", 300)


def engine(name: str) -> Game:
    """The game ``name`` whose ``search`` level is the engine's."""
    return bots.with_engine_search(find_game(name))


def positions(game: Game, n: int, seed: str, every: int, limit: int) -> list:
    """Full states met along one random match, one every ``every`` decisions."""
    found = []

    def after(state, _events):
        if game.pending(state) is not None:
            found.append(state)

    play_random(game, seat_names(n), seed, after=after)
    return found[::every][:limit]


def hides(game: Game) -> bool:
    """Whether the game draws unseen cards (its own determinize)."""
    return type(game).determinize is not Game.determinize


def never() -> float:
    return 0.0


# -- levels ----------------------------------------------------------------------------------


def test_every_game_has_the_level_search_and_a_game_that_declares_its_own_keeps_it():
    for name in GAMES:
        game = find_game(name)
        assert bots.levels(game)[-1] == "search" or "search" in game.bot_levels()
        assert bots.engine_search(game, "search") == ("search" not in game.bot_levels())
    assert bots.levels(find_game("korsar")) == ("random", "heuristic", "search")
    assert bots.engine_search(find_game("korsar"), "search")
    assert bots.levels(find_game("koryo")) == ("random", "heuristic", "search")
    assert not bots.engine_search(find_game("koryo"), "search")  # Koryo's own (see docs/players.md)


# -- legal, deterministic, from the view alone -------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_search_gives_legal_orders_on_random_positions_and_the_same_order_again(name):
    game = engine(name)
    met = 0
    for n in game.player_counts[:2]:
        for state in positions(game, n, f"search-legal-{name}-{n}", every=5, limit=4):
            for p in game.pending(state).players:
                seed = bots.seat_seed(f"g-{name}", game.pending(state).id, p)
                choice = bots.choose(game, state, p, "search", seed=seed)
                assert not choice.fallback, choice.fallback
                game.check(state, p, choice.order)
                assert bots.rederive(game, state, p, "search", seed).order == choice.order
                met += 1
    assert met >= 6


@pytest.mark.parametrize("name", GAMES)
def test_a_searching_bot_never_sees_hidden_cards(name):
    """Two states that differ only in what the player has not seen (the other hands, the
    pile...) give the same order: the state is drawn from the player's own view by the game's
    determinize, so only the unseen cards move."""
    game = engine(name)
    differed = 0
    for state in positions(game, 3, f"search-hidden-{name}", every=4, limit=5):
        for p in game.pending(state).players:
            view = bots.player_view(game, state, p)
            other = game.determinize(view, p, random.Random(f"other {p}"))
            assert game.public(other) == game.public(state)
            assert game.private(other, p) == game.private(state, p)
            differed += game.dump_state(other) != game.dump_state(state)
            a = bots.choose(game, state, p, "search", seed="x", clock=never)
            b = bots.choose(game, other, p, "search", seed="x", clock=never)
            assert not a.fallback and not b.fallback
            assert a.order == b.order, p
    assert differed >= 3 or not hides(game)


@pytest.mark.parametrize("name", GAMES)
def test_determinize_draws_the_unseen_cards_anew_and_keeps_every_rule(name):
    game = find_game(name)
    for state in positions(game, 3, f"determinize-{name}", every=6, limit=4):
        p = game.pending(state).players[0]
        view = bots.player_view(game, state, p)
        worlds = [game.determinize(view, p, random.Random(k)) for k in range(4)]
        for w in worlds:
            game.check_invariants(w)
            assert game.public(w) == game.public(state) and game.private(w, p) == game.private(state, p)
            end = game.random_playout(w, random.Random(0))  # a full state: the rules play it out
            assert game.outcome(end) is not None
        if hides(game):
            assert len({repr(game.dump_state(w)) for w in worlds}) > 1


def test_the_work_is_a_count_so_a_racing_clock_changes_nothing():
    game = engine("korsar")
    state = positions(game, 2, "racing", every=7, limit=2)[-1]
    p = game.pending(state).players[0]
    ticks = iter(range(0, 10_000, 3))
    slow = bots.choose(game, state, p, "search", seed="s", clock=lambda: next(ticks) / 1000)
    assert slow.order == bots.choose(game, state, p, "search", seed="s", clock=never).order
    assert not slow.fallback


def test_simultaneous_decisions_each_seat_decides_from_its_own_view():
    """Koryo's order phase asks every seat at once: each seat's search gives a legal play from
    its own view, and the plays apply together."""
    game = engine("koryo")
    state = game.setup(seat_names(3), "simultaneous")
    d = game.pending(state)
    assert len(d.players) == 3
    orders = {p: bots.choose(game, state, p, "search", seed=bots.seat_seed("sim", d.id, p)).order for p in d.players}
    game.apply(state, orders)


# -- the safety limit ---------------------------------------------------------------------------


def test_a_search_past_its_safety_time_limit_is_replaced_by_the_public_random_order():
    game = engine("korsar")
    state = game.setup(seat_names(2), "limit")
    p = game.pending(state).players[0]
    ticks = iter(range(0, 100_000, 5))  # every reading of this clock is 5 s later
    choice = bots.choose(game, state, p, "search", seed="s", limit=1.0, clock=lambda: float(next(ticks)))
    assert choice.timed_out
    assert choice.fallback.startswith("the search bot hit its safety time limit of 1 s")
    assert choice.order == bots.fallback_order(game, state, p, "s")
    game.check(state, p, choice.order)
    assert not bots.choose(game, state, p, "search", seed="s").timed_out


def test_the_reward_is_the_win_and_a_little_of_the_lead():
    from koryo_pbm.engine.contract import Outcome

    won = search.reward(Outcome({"a": 10, "b": 4}, ("a",)), "a")
    shared = search.reward(Outcome({"a": 7, "b": 7}, ("a", "b")), "a")
    lost = search.reward(Outcome({"a": 4, "b": 10}, ("b",)), "a")
    assert 1.0 >= won > shared > lost >= 0.0
    assert won >= 1 - search.LEAD and lost <= search.LEAD  # the win weighs most


def test_koryos_own_search_stays_and_the_engines_is_there_to_measure_it(monkeypatch):
    calls = []
    real = search.search
    monkeypatch.setattr(search, "search", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    koryo = find_game("koryo")
    state = koryo.setup(seat_names(2), "own")
    p = koryo.pending(state).players[0]
    bots.choose(koryo, state, p, "search", seed="s")
    assert calls == []  # Koryo's own
    bots.choose(engine(name="koryo"), state, p, "search", seed="s")
    assert calls == [p]
    korsar = find_game("korsar")
    state = korsar.setup(seat_names(2), "own")
    p = korsar.pending(state).players[0]
    bots.choose(korsar, state, p, "search", seed="s")
    assert calls[1:] == [p]  # Korsar has none of its own: the engine's


def test_the_engines_search_plays_a_bot_seat_at_a_blind_korsar_table():
    """At a blind table the seat's bot plays on the cards opened to it (``open_view``): the
    engine's search there is the open game's search on that view, its card named by its slot."""
    from koryo_pbm_games.korsar import KorsarGame
    from koryo_pbm_games.korsar import cards as C
    from koryo_pbm_games.korsar.blind import parse_slot

    blind = KorsarGame().blind_rules()
    deck = C.full_deck()
    random.Random(0).shuffle(deck)
    s = blind.setup(["a", "b"], "a")
    while blind.pending(s).kind in ("deal", "give"):
        s, _ = blind.apply(s, {})
    mine = {x: deck[parse_slot(x)] for x in blind.hidden(s, "a")}
    order = blind.bot_order(s, "a", "search", random.Random(0), 10.0, never, mine)
    plain = KorsarGame().bot_order(blind.open_view(s, "a", mine), "a", "search", random.Random(0), 10.0, never)
    assert {k: v for k, v in order.items() if k != "slot"} == plain
    blind.check(s, "a", order)
