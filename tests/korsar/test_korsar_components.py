"""Components (78 cards)."""

from __future__ import annotations

from collections import Counter

from koryo_pbm_games.korsar import cards as C


def test_78_cards():
    assert C.TOTAL_CARDS == 78 == len(C.full_deck())


def test_galleons_25_copies_and_total_value_100():
    galleons = [c for c in C.full_deck() if C.is_galleon(c)]
    assert len(galleons) == 25
    assert Counter(C.value(c) for c in galleons) == {2: 5, 3: 6, 4: 5, 5: 5, 6: 2, 7: 1, 8: 1}
    assert sum(C.value(c) for c in galleons) == 100


def test_pirates_48_in_four_colours():
    pirates = [c for c in C.full_deck() if C.is_pirate(c)]
    assert len(pirates) == 48
    for colour in ("yellow", "red", "green", "blue"):
        mine = [c for c in pirates if C.colour(c) == colour]
        assert Counter(C.strength(c) for c in mine) == {1: 2, 2: 4, 3: 4, 4: 2}


def test_one_captain_per_colour_and_one_admiral():
    deck = C.full_deck()
    assert sorted(c for c in deck if C.is_captain(c)) == sorted(f"{c}-captain" for c in ("yellow", "red", "green", "blue"))
    assert deck.count("admiral") == 1
    assert C.kind("admiral") == "admiral" and C.kind("red-captain") == "captain"
    assert C.kind("red-3") == "pirate" and C.kind("galleon-8") == "galleon"


def test_card_ids():
    assert C.is_card("galleon-2") and C.is_card("blue-4") and C.is_card("yellow-captain")
    assert not C.is_card("galleon-9") and not C.is_card("black-2") and not C.is_card("red-5")
    assert not C.is_card(3)
