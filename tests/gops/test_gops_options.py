"""GOPS spec, "Options": ties = "discard" (the default) or "carry" (a tied prize stays for the next
round's winner; a tie in the last round discards what is on the table)."""

from __future__ import annotations

import pytest
from gops_kit import bid, position

from koryo_pbm.errors import SetupError


def test_carry_a_tied_prize_goes_to_the_next_rounds_winner(game):
    s = game.load_position(position(ties="carry", table=["p7"], deck=["p2", *(f"p{v}" for v in (1, 3, 4, 5, 6, 8, 9, 10,
                                                                                                 11, 12, 13))]), "seed")
    s, texts = bid(game, s, alice="b5", bob="b5")
    assert texts[1:] == ["alice and bob tie: p7 stays on the table", "round 2: p2 is turned up"]
    assert s.table == ["p7", "p2"] and s.discarded == []
    s, texts = bid(game, s, alice="b1", bob="b13")
    assert texts[1] == "bob wins p7, p2 (9 points)" and s.won["bob"] == ["p7", "p2"]


def test_carry_a_tie_in_the_last_round_discards_what_is_on_the_table(game):
    s = game.load_position(position(ties="carry", round=12, hands={"alice": ["b1", "b2"], "bob": ["b1", "b2"]},
                                    table=["p12"], deck=["p13"], won={"alice": [f"p{v}" for v in range(1, 12)]}), "seed")
    s, texts = bid(game, s, alice="b2", bob="b2")
    assert texts[1] == "alice and bob tie: p12 stays on the table"
    assert texts[4] == "alice and bob tie: p12, p13 is discarded"
    assert s.discarded == ["p12", "p13"] and game.outcome(s).scores == {"alice": 66, "bob": 0}


def test_discard_is_the_default_and_other_options_are_refused(game):
    assert game.setup(["a", "b"], "x").ties == "discard"
    assert game.setup(["a", "b"], "x", options={"ties": "carry"}).ties == "carry"
    for bad in ({"ties": "split"}, {"teams": True}):
        with pytest.raises(SetupError, match='^GOPS takes one option: ties = "discard" or "carry"$'):
            game.setup(["a", "b"], "x", options=bad)
