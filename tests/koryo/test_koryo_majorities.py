"""Spec section "Majorities": scoring majority vs power majority, Omniscient ties, protections."""

from __future__ import annotations

from koryo_pbm_games.koryo import rules
from koryo_pbm_games.koryo.cards import GUARDIAN, MERCHANT, SPY
from koryo_testkit import GAME, load


def tables_state(**tables):
    # phase "over" needs no hands; round 8 so any table up to 10 (+2) complies
    return load(round=8, phase="over", tables=tables)


def test_scoring_needs_strictly_more():
    s = tables_state(alice=["merchant", "merchant"], bob=["merchant", "merchant"], carol=["merchant"])
    assert not rules.has_scoring(s.tables, 0, MERCHANT)
    assert not rules.has_scoring(s.tables, 1, MERCHANT)
    assert not rules.has_power(s.tables, 0, MERCHANT)
    s = tables_state(alice=["merchant", "merchant"], bob=["merchant"])
    assert rules.has_scoring(s.tables, 0, MERCHANT) and rules.has_power(s.tables, 0, MERCHANT)
    assert not rules.has_power(s.tables, 1, MERCHANT)


def test_zero_cards_is_never_a_majority():
    s = tables_state(alice=["spy"])
    assert not rules.has_power(s.tables, 1, MERCHANT)
    assert not rules.has_scoring(s.tables, 2, SPY)


def test_omniscient_wins_power_ties_not_scoring_ties():
    s = tables_state(alice=["merchant", "merchant", "omniscient"], bob=["merchant", "merchant"])
    assert rules.has_power(s.tables, 0, MERCHANT)
    assert not rules.has_power(s.tables, 1, MERCHANT)
    assert not rules.has_scoring(s.tables, 0, MERCHANT)
    v = GAME.view(GAME.public(s), None)
    assert v["powers"]["merchant"] == "alice"
    # scoring: merchant tied -> nobody; alice scores the omniscient (1) only
    assert v["scores"] == {"alice": 1, "bob": 0, "carol": 0}


def test_omniscient_does_not_help_when_behind():
    s = tables_state(alice=["merchant", "omniscient"], bob=["merchant", "merchant"])
    assert not rules.has_power(s.tables, 0, MERCHANT)
    assert rules.has_power(s.tables, 1, MERCHANT)


def test_guardian_protection_is_power_majority_of_guardian():
    s = tables_state(alice=["guardian", "guardian"], bob=["guardian", "guardian", "omniscient"])
    assert not rules.guardian_protected(s.tables, 0)
    assert rules.guardian_protected(s.tables, 1)
    assert rules.power_holder(s.tables, GUARDIAN) == 1


def test_spy_protection_needs_no_guardian_at_all():
    s = tables_state(alice=["spy"], bob=["spy", "guardian"])
    assert rules.spy_protected(s.tables, 0) is False  # tie, no omniscient
    s = tables_state(alice=["spy", "omniscient"], bob=["spy"])
    assert rules.spy_protected(s.tables, 0)  # the omniscient wins the tie
    s = tables_state(alice=["spy", "spy"], bob=["guardian"])
    assert rules.spy_protected(s.tables, 0)
    s = tables_state(alice=["spy", "spy", "guardian"], bob=[])
    assert not rules.spy_protected(s.tables, 0)  # a single guardian cancels it


def test_view_powers_lists_every_character():
    s = tables_state(alice=["senator"], bob=["banker", "banker"], carol=["banker", "omniscient", "spy"])
    v = GAME.view(GAME.public(s), None)
    assert set(v["powers"]) == {"merchant", "broadcaster", "guardian", "banker", "shipowner", "priest",
                                "senator", "spy", "omniscient"}
    assert v["powers"]["senator"] == "alice"
    assert v["powers"]["banker"] == "bob"
    assert v["powers"]["spy"] == "carol"
    assert v["powers"]["omniscient"] == "carol"
    assert v["powers"]["merchant"] is None
