"""The test kit (:mod:`koryo_pbm.testing`) fails on games that break what it checks: each broken
game here is GOPS with one fault, and the kit's check names it."""

from __future__ import annotations

import pytest
from koryo_pbm_games.gops import GopsGame

from koryo_pbm import testing
from koryo_pbm.engine.menus import Menu


class MenuMissesAnOrder(GopsGame):
    def menu(self, state, player, picked, hint=None):
        menu = super().menu(state, player, picked, hint)
        if isinstance(menu, Menu) and len(menu.options) > 1:
            return Menu(menu.question, menu.options[1:])  # the lowest card cannot be bid from the menus
        return menu


class PrivateTellsTheDeck(GopsGame):
    def private(self, state, player):
        # the high prizes among the next three: as many names as there are, a size that tells them
        return {"player": player, "high": [c for c in state.deck[:3] if int(c[1:]) > 6]}


class NotTheSameReplay(GopsGame):
    def random_playout(self, state, rng, max_decisions=100_000):
        rng.random()  # one draw more than the contract's own playout
        return super().random_playout(state, rng, max_decisions)


class MarksNotDeclared(GopsGame):
    def picture(self, view):
        from koryo_pbm.engine.scene import Card, Group, Panel, Row, Scene

        return Scene("x", groups=(Group("", (Panel("p", rows=(Row("r", (Card("b1", "bid", marks=("shiny",)),), "hand"),)),)),))


def test_the_kit_passes_gops_as_it_is():
    game = GopsGame()
    testing.check_contract(game)
    testing.check_menus(game, 2)
    testing.check_sizes(game, 2, seeds=2)


def test_a_menu_that_leaves_out_a_legal_order_fails_the_kit():
    with pytest.raises(AssertionError):
        testing.check_menus(MenuMissesAnOrder(), 2)


def test_a_private_part_whose_size_tells_a_secret_fails_the_kit():
    with pytest.raises(AssertionError, match="it tells a secret"):
        testing.check_sizes(PrivateTellsTheDeck(), 2, seeds=30)  # first prizes alike: one public part


def test_a_playout_that_draws_otherwise_fails_the_kit():
    with pytest.raises(AssertionError):
        testing.check_replay(NotTheSameReplay(), 2)


def test_undeclared_marks_fail_the_kit():
    with pytest.raises(AssertionError, match="undeclared marks"):
        testing.check_picture(MarksNotDeclared(), {})
