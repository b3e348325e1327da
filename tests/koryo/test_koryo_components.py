"""Spec sections "Components", "Seasons" and "Setup"."""

from __future__ import annotations

import pytest
from koryo_pbm_games.koryo import cards
from koryo_pbm_games.koryo.rules import card_census
from koryo_testkit import GAME

from koryo_pbm.errors import SetupError


def test_55_cards_45_characters_10_events():
    deck = cards.full_deck()
    assert len(deck) == 55
    assert sum(cards.COPIES[c] for c in cards.CHARS) == 45
    assert sum(cards.COPIES[c] for c in cards.EVENTS) == 10
    expected = {"merchant": 9, "broadcaster": 8, "guardian": 7, "banker": 6, "shipowner": 5,
                "priest": 4, "senator": 3, "spy": 2, "omniscient": 1, "barbarian": 6, "lobbying": 4}
    assert {cid: deck.count(cards.INDEX[cid]) for cid in cards.CARD_IDS} == expected
    assert [cards.VALUES[cards.INDEX[c]] for c in cards.CARD_IDS] == [9, 8, 7, 6, 5, 4, 3, 2, 1, -1, -1]


@pytest.mark.parametrize("r, deal, limit", [(1, 10, 3), (2, 9, 4), (3, 8, 5), (4, 7, 6), (5, 6, 7),
                                            (6, 5, 8), (7, 4, 9), (8, 3, 10)])
def test_seasons(r, deal, limit):
    assert cards.deal_size(r) == deal
    assert cards.base_limit(r) == limit


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_deals_round_one(n):
    players = ["a", "b", "c", "d"][:n]
    s = GAME.setup(players, "seed")
    GAME.check_invariants(s)
    pub = GAME.public(s)
    assert pub["round"] == 1 and pub["phase"] == "orders"
    assert pub["hand_sizes"] == {p: 10 for p in players}
    assert pub["deck"] == 55 - 10 * n
    assert pub["bank"] == 8 and pub["tokens"] == {p: 0 for p in players}
    assert card_census(s) == list(cards.COPIES)
    d = GAME.pending(s)
    assert (d.id, d.kind, d.players) == ("r1-orders", "orders", tuple(players))


def test_setup_first_player_given_or_drawn():
    assert GAME.public(GAME.setup(["a", "b", "c"], "s", first="c"))["first"] == "c"
    firsts = {GAME.public(GAME.setup(["a", "b", "c"], f"s{i}"))["first"] for i in range(40)}
    assert firsts == {"a", "b", "c"}


@pytest.mark.parametrize("players, first, options, words", [
    (["a"], None, None, "2 to 4 players"),
    (["a", "b", "c", "d", "e"], None, None, "2 to 4 players"),
    (["a", "a"], None, None, "different"),
    (["a", ""], None, None, "non-empty"),
    (["a", "b"], "z", None, "not one of the players"),
    (["a", "b"], None, {"teams": True}, "no options"),
])
def test_setup_refuses(players, first, options, words):
    with pytest.raises(SetupError, match=words):
        GAME.setup(players, "s", first=first, options=options)


def test_shuffle_is_uniform_and_deterministic():
    from collections import Counter

    from koryo_pbm_games.koryo.rules import shuffle

    from koryo_pbm.engine.rng import Rng

    rng = Rng.from_seed("uniform")
    seen = Counter()
    for _ in range(12000):
        x = [0, 1, 2, 3]
        shuffle(rng, x)
        seen[tuple(x)] += 1
    assert len(seen) == 24
    assert all(400 <= k <= 600 for k in seen.values())  # expected 500 each
    a, b = cards.full_deck(), cards.full_deck()
    shuffle(Rng.from_seed("same"), a)
    shuffle(Rng.from_seed("same"), b)
    assert a == b and sorted(a) == cards.full_deck()
