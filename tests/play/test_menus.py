"""The games' menus (``koryo-pbm play``): from every position met in random play, a player who
picks options at random always ends with a legal order, every menu offers something, the
suggested option leads to the suggested order, and a pick that is not an option is refused."""

from __future__ import annotations

import random

import pytest

from koryo_pbm.engine.menus import Menu
from koryo_pbm.engine.registry import find_game


def _walk(game, state, player, rnd, hint=None, take_default=False):
    picked = []
    for _ in range(60):
        menu = game.menu(state, player, picked, hint)
        if not isinstance(menu, Menu):
            return menu, picked
        assert menu.options, menu.question
        assert len({o.label for o in menu.options}) == len(menu.options), menu.options
        if take_default:
            assert menu.default is not None, (menu.question, hint, picked)
            picked.append(menu.options[menu.default].value)
        else:
            picked.append(rnd.choice(menu.options).value)
    raise AssertionError("the menus never end")


def _positions(name, players, games, seed):
    game = find_game(name)
    rnd = random.Random(seed)
    for g in range(games):
        options = {"teams": True} if name == "korsar" and len(players) == 4 and g % 2 else None
        state = game.setup(players, f"menus-{seed}-{g}", options=options)
        while (decision := game.pending(state)) is not None:
            yield game, state, decision
            orders = {p: game.random_order(state, p, rnd) for p in decision.players}
            state, _ = game.apply(state, orders, log=False)


@pytest.mark.parametrize("name,players", [("koryo", ["a", "b", "c"]), ("koryo", ["a", "b", "c", "d"]),
                                          ("korsar", ["a", "b", "c"]), ("korsar", ["a", "b", "c", "d"]),
                                          ("gops", ["a", "b", "c"])])
def test_random_picks_always_make_a_legal_order(name, players):
    rnd = random.Random(7)
    kinds = set()
    for game, state, decision in _positions(name, players, 6, 1):
        kinds.add(decision.kind)
        for player in decision.players:
            order, _ = _walk(game, state, player, rnd)
            game.check(state, player, order)  # raises if the menus led to an illegal order
    assert kinds >= set(find_game(name).decision_kinds)


@pytest.mark.parametrize("name,players", [("koryo", ["a", "b", "c", "d"]), ("korsar", ["a", "b", "c"]),
                                          ("gops", ["a", "b"])])
def test_the_suggestion_is_the_default_all_the_way(name, players):
    rnd = random.Random(3)
    seen = 0
    for game, state, decision in _positions(name, players, 3, 2):
        for player in decision.players:
            hint = game.random_order(state, player, rnd)
            order, _ = _walk(game, state, player, rnd, hint=hint, take_default=True)
            game.check(state, player, order)
            if name == "korsar" or "steps" not in hint:
                assert order == hint or sorted(order.get("play", order.get("discard", []))) == sorted(
                    hint.get("play", hint.get("discard", []))), (order, hint)
            seen += 1
    assert seen > 20


def test_a_pick_that_is_not_an_option_is_refused():
    game = find_game("koryo")
    state = game.setup(["a", "b", "c"], "menus-refuse")
    with pytest.raises(ValueError):
        game.menu(state, "a", [{"play": ["spy", "spy", "spy", "spy", "spy"]}])


def test_koryo_action_turn_offers_each_step_the_rules_allow():
    """Spec 'Actions': reveal first; each revealed event takes effect once after the reveal,
    with powers before, between or after; a Barbarian never hits a Guardian-protected player."""
    game = find_game("koryo")
    state = game.load_position({
        "game": "koryo", "round": 3, "phase": "actions", "players": ["alice", "bob", "carol"], "first": "alice",
        "facedown": {"alice": ["barbarian", "merchant"], "bob": ["barbarian"]},
        "tables": {"alice": ["banker", "banker", "shipowner"], "bob": ["guardian", "guardian", "merchant"],
                   "carol": ["merchant", "spy"]}}, "test")
    menu = game.menu(state, "alice", [])
    labels = [o.label for o in menu.options]
    assert labels[0] == "reveal your face-down cards (merchant, barbarian)"
    assert any(lb.startswith("banker: take a token from the bank") for lb in labels)
    assert not any(lb.startswith("barbarian") for lb in labels)  # not before the reveal
    assert not any(lb.startswith("end the turn") for lb in labels)  # the reveal is required
    menu = game.menu(state, "alice", [{"do": "reveal"}])
    labels = [o.label for o in menu.options]
    assert "barbarian: destroy carol's merchant" in labels
    assert "barbarian: destroy carol's spy" in labels
    assert not any("bob's" in lb for lb in labels)  # bob holds the guardian majority: protected
    assert "end the turn (the events left have no effect)" in labels
    order = game.menu(state, "alice", [{"do": "reveal"}, {"do": "banker"}, "end"])
    assert order == {"steps": [{"do": "reveal"}, {"do": "banker"}, {"do": "barbarian"}]}
    game.check(state, "alice", order)


@pytest.mark.parametrize("name,players", [("koryo", ["a", "b", "c", "d"]), ("korsar", ["a", "b", "c"])])
def test_every_answer_at_once_is_the_menu_of_each_option(name, players):
    """``menu_answers`` (how the player page's menus are built, every option of a question at
    once) gives what ``play`` meets option by option (``menu``), suggestions included."""
    rnd = random.Random(5)
    seen = 0
    for game, state, decision in _positions(name, players, 2, 4):
        for player in decision.players:
            hint = game.random_order(state, player, rnd)
            picked: list = []
            menu = game.menu(state, player, picked, hint)
            while isinstance(menu, Menu):
                answers = game.menu_answers(state, player, picked, menu, hint)
                assert answers == [game.menu(state, player, [*picked, o.value], hint) for o in menu.options]
                seen += len(answers)
                i = rnd.randrange(len(menu.options))
                picked.append(menu.options[i].value)
                menu = answers[i]
    assert seen > 100
