"""The test kit for games: what every game must pass, for a game's own package to run with pytest.

A plug-in's tests subclass :class:`GameContractTests` and name their game::

    from koryo_pbm.testing import GameContractTests

    class TestMyGame(GameContractTests):
        game_name = "mygame"

and pytest runs, for every legal table size: the contract (:func:`~koryo_pbm.engine.contract.contract_problem`),
random play to the end with the contract checked after every decision (:func:`checked_play`), the
same match again from the same seed, ``apply`` without a log and ``random_playout`` reaching the
same states, every bot level legal and deterministic and blind to what its player cannot see, the
menus against the legal orders, and sizes that leak nothing (a player's sealed part a function
of the public part; every legal order sealed to one size).
The project's own suite runs it for every registered game (``tests/test_contract_games.py``).

Each check is also a plain function, for a game's own tests. Counts are small: the kit is meant
to run in seconds per game.
"""

from __future__ import annotations

import json
import random
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
import tomli_w

from koryo_pbm.engine import bots
from koryo_pbm.engine.contract import RESERVED_PUBLIC_KEYS, Decision, Game, contract_problem
from koryo_pbm.engine.menus import Menu
from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import play_random, seat_names
from koryo_pbm.errors import SetupError

Options = Mapping[str, Any]


def table_sizes(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """Every table size the game sets up, with ``{"teams": True}`` too where the game has teams."""
    sizes: list[tuple[int, dict[str, Any]]] = []
    for n in game.player_counts:
        for options in ({}, {"teams": True}) if "teams" in game.options and n % 2 == 0 else ({},):
            try:
                game.setup(seat_names(n), "probe", options=options)
                sizes.append((n, dict(options)))
            except SetupError:
                pass
    return sizes


def toml_round_trip(data: Any) -> Any:
    return tomllib.loads(tomli_w.dumps(data))


def check_contract(game: Game) -> None:
    """The game's class keeps the contract, its public part uses no key the engine reserves, and
    every mark its pictures may carry is declared."""
    problem = contract_problem(type(game))
    assert problem is None, f"{game.name}: {problem}"


def pending(game: Game, state: Any) -> Decision:
    decision = game.pending(state)
    assert decision is not None, "the match is over"
    return decision


def states(game: Game, players: Sequence[str], seed: str, options: Options | None = None) -> Iterator[Any]:
    """Every state of one random match with a decision pending."""
    found: list[Any] = []
    play_random(game, list(players), seed, options=dict(options or {}),
                after=lambda state, _events: found.append(state) if game.pending(state) else None)
    yield from found


def checked_play(game: Game, players: Sequence[str], seed: str, options: Options | None = None,
                 start: Any = None) -> tuple[list[tuple[str, list[dict[str, Any]]]], Any]:
    """One random match (from ``start``, else from ``setup``) with the contract checked after
    every decision: invariants, ``apply`` leaving its input alone, the state through real TOML,
    parts TOML-safe and without reserved keys, views JSON-safe, each order legal on the full
    state and on the player's own view, the history's parts, and at the end an outcome whose
    breakdown adds up. Returns the log (decision ids and events) and the outcome."""
    log = []
    rng = random.Random(f"contract:{seed}")
    state = start if start is not None else game.setup(list(players), seed, options=dict(options or {}))
    game.check_invariants(state)
    while (decision := game.pending(state)) is not None:
        assert decision.players and set(decision.players) <= set(players), decision
        assert not game.decision_kinds or decision.kind in game.decision_kinds, decision
        before = json.dumps(game.dump_state(state), sort_keys=True)
        public = toml_round_trip(game.public(state))
        if not hasattr(game, "inner"):  # the engine's own wrappers (the join) write those keys
            assert not set(public) & set(RESERVED_PUBLIC_KEYS), f"reserved keys in the public part: {set(public)}"
        orders = {}
        for p in decision.players:
            order = game.random_order(state, p, rng)
            game.check(state, p, order)
            private = toml_round_trip(game.private(state, p))
            game.check(game.from_view(public, private, p), p, order)
            view = game.view(public, private)
            json.dumps(view)
            assert game.score_breakdown(view) is None, "a score breakdown before the end"
            assert isinstance(game.render(view), str)
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
    check_picture(game, game.view(toml_round_trip(game.public(state)), None))
    assert outcome is not None and set(outcome.scores) == set(players)
    assert outcome.winners and max(outcome.scores.values()) == min(outcome.scores[w] for w in outcome.winners)
    end = game.view(toml_round_trip(game.public(state)), None)
    json.dumps(end)
    assert dict(end.get("scores", {})) == dict(outcome.scores) and sorted(end.get("winners", [])) == sorted(outcome.winners), \
        "the final public view says other scores or winners than the outcome"
    rows = game.score_breakdown(end)
    if rows is not None:
        toml_round_trip({"rows": rows})
        for p in players:
            assert sum(r["points"] for r in rows if r["player"] == p) == outcome.scores[p]
        assert all(r["player"] in players or (r["player"] == "" and r["points"] == 0) for r in rows)
    return log, outcome


def check_picture(game: Game, view: Mapping[str, Any]) -> None:
    """The picture of ``view`` is a scene that survives JSON with the marks the game declares
    (how each is drawn), and its cards carry only those marks."""
    from koryo_pbm.engine.contract import drawn_scene
    from koryo_pbm.engine.scene import from_json, to_json

    scene = drawn_scene(game, view)
    marks = game.marks  # (the join in front of a game gives the game's)
    assert dict(scene.marks).keys() == marks.keys()
    assert from_json(json.loads(json.dumps(to_json(scene)))) == scene
    for group in scene.groups:
        for panel in (*group.panels, *scene.private):
            for row in panel.rows:
                for card in row.cards:
                    assert set(card.marks) <= set(marks), f"undeclared marks {card.marks}"


def check_replay(game: Game, n: int, options: Options | None = None) -> None:
    """The same seed plays the same match; ``apply`` without a log reaches the same states;
    ``random_playout`` ends where ``random_order`` and ``apply`` end, with the same draws."""
    a = play_random(game, seat_names(n), "replay", options=dict(options or {}))
    b = play_random(game, seat_names(n), "replay", options=dict(options or {}))
    assert game.dump_state(a[0]) == game.dump_state(b[0]) and a[1] == b[1]
    rng = random.Random("quiet")
    loud = quiet = game.setup(seat_names(n), "quiet", options=dict(options or {}))
    while (decision := game.pending(loud)) is not None:
        orders = {p: game.random_order(loud, p, rng) for p in decision.players}
        loud, _ = game.apply(loud, orders)
        quiet, _ = game.apply(quiet, orders, log=False)
        assert game.dump_state(quiet) == game.dump_state(loud)
    for i in range(2):
        start = game.setup(seat_names(n), f"playout/{i}", options=dict(options or {}))
        fast_bots, slow_bots = random.Random(i), random.Random(i)
        before = game.dump_state(start)
        fast, slow = game.random_playout(start, fast_bots), Game.random_playout(game, start, slow_bots)
        assert game.dump_state(start) == before, "random_playout changed its input"
        assert game.dump_state(fast) == game.dump_state(slow) and fast_bots.getstate() == slow_bots.getstate()


def check_bots(game: Game, n: int, options: Options | None = None, seed: str = "kit") -> None:
    """Every bot level gives a legal order, the same again for the same seed, and the same from
    the same view whatever the others hold (a state rebuilt by ``from_view`` holds other cards)."""
    never = lambda: 0.0  # noqa: E731 - a clock that never moves: the work is a count
    for state in list(states(game, seat_names(n), seed, options))[::5][:2]:
        public = game.public(state)
        for p in pending(game, state).players:
            other = game.from_view(public, game.private(state, p), p)
            for level in bots.levels(game):
                a = bots.choose(game, state, p, level, seed="x", clock=never)
                assert not a.fallback, (level, a.fallback)
                game.check(state, p, a.order)
                assert bots.choose(game, state, p, level, seed="x", clock=never).order == a.order
                assert bots.choose(game, other, p, level, seed="x", clock=never).order == a.order


def menu_orders(game: Game, state: Any, player: str, limit: int = 2000) -> list[dict[str, Any]]:
    """Every order the menus of ``player`` lead to (each menu's options all followed), checking
    that each menu offers something with distinct labels and that ``menu_answers`` (when given)
    is what ``menu`` says for each option."""
    found: list[dict[str, Any]] = []
    todo: list[list[Any]] = [[]]
    while todo and len(found) < limit:
        picked = todo.pop()
        menu = game.menu(state, player, picked)
        if not isinstance(menu, Menu):
            found.append(dict(menu))
            continue
        assert menu.options and len({o.label for o in menu.options}) == len(menu.options), menu
        answers = game.menu_answers(state, player, picked, menu)
        if answers is not None:
            assert list(answers) == [game.menu(state, player, [*picked, o.value]) for o in menu.options]
        todo += [[*picked, o.value] for o in menu.options]
    return found


def check_menus(game: Game, n: int, options: Options | None = None, seed: str = "kit-menus") -> None:
    """From states of a random match: the menus lead to legal orders only, and to every legal
    order when the game lists them."""
    lists = type(game).legal_orders is not Game.legal_orders
    for state in list(states(game, seat_names(n), seed, options))[::3][:6]:
        for p in pending(game, state).players:
            view = game.from_view(game.public(state), game.private(state, p), p)
            reached = menu_orders(game, view, p)
            for order in reached:
                game.check(state, p, order)
            if lists:
                legal = sorted(json.dumps(dict(o), sort_keys=True) for o in game.legal_orders(view, p))
                assert sorted(json.dumps(o, sort_keys=True) for o in reached) == legal


def check_sizes(game: Game, n: int, options: Options | None = None, seeds: int = 6) -> None:
    """Sizes that leak nothing: two states with the same public part give each player a sealed
    part of one padded size; every legal order of a decision (when listed) is written to one
    envelope size."""
    from koryo_pbm.crypto.envelope import PAD_QUANTUM
    from koryo_pbm.match import canonical_orders
    from koryo_pbm.store.gameparts import padded_size

    sizes: dict[tuple[str, str], set[int]] = {}
    lists = type(game).legal_orders is not Game.legal_orders
    for i in range(seeds):
        for state in states(game, seat_names(n), f"sizes-{i}", options):
            public = game.public(state)
            decision = pending(game, state)
            key = json.dumps(public, sort_keys=True)
            for p in seat_names(n):
                sizes.setdefault((key, p), set()).add(padded_size(game.private(state, p)))
            for p in decision.players:
                if lists:
                    lengths = {len(canonical_orders("g-1", decision.id, o).encode()) for o in game.legal_orders(state, p)}
                    assert max(lengths) < PAD_QUANTUM - 64, f"an order of {max(lengths)} bytes: not one envelope size"
    for (_, p), found in sizes.items():
        assert len(found) == 1, f"{p}'s part has sizes {sorted(found)} for one public part: it tells a secret"


class GameContractTests:
    """The kit as a pytest class: subclass it, set ``game_name`` (or override the ``game``
    fixture), and every test runs for every table size of the game."""

    game_name: str = ""

    @pytest.fixture
    def game(self) -> Game:
        return find_game(self.game_name)

    def test_contract(self, game: Game) -> None:
        check_contract(game)
        assert table_sizes(game), "no table size can be set up"

    def test_random_play_to_the_end(self, game: Game) -> None:
        for n, options in table_sizes(game):
            for i in range(2):
                checked_play(game, seat_names(n), f"kit-{i}", options)

    def test_replays_are_exact(self, game: Game) -> None:
        for n, options in table_sizes(game):
            check_replay(game, n, options)

    def test_bots(self, game: Game) -> None:
        n, options = table_sizes(game)[0]
        check_bots(game, n, options)

    def test_menus(self, game: Game) -> None:
        n, options = table_sizes(game)[-1]
        check_menus(game, n, options)

    def test_sizes_leak_nothing(self, game: Game) -> None:
        n, options = table_sizes(game)[0]
        check_sizes(game, n, options)
