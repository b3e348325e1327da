"""GOPS spec, "What is public and what is hidden": prizes turned up, revealed bids, cards left and
scores are public; the prize deck's order is the moderator's alone (and bids sealed orders)."""

from __future__ import annotations

from gops_kit import bid, position


def test_the_public_part_shows_all_but_the_prize_decks_order(game):
    s = game.load_position(position(), "seed")
    s, _ = bid(game, s, alice="b9", bob="b3")
    public = game.public(s)
    assert set(public) == {"players", "ties", "round", "hands", "table", "won", "discarded", "bids"}
    assert public["table"] == ["p1"] and public["won"] == {"alice": ["p7"], "bob": []}
    assert game.private(s, "alice") == {"player": "alice"}  # nothing is alice's alone


def test_a_players_view_rebuilds_the_deck_from_the_prizes_not_yet_seen(game):
    s = game.load_position(position(), "seed")
    s, _ = bid(game, s, alice="b9", bob="b3")
    mine = game.from_view(game.public(s), game.private(s, "bob"), "bob")
    assert mine.deck == [f"p{v}" for v in range(2, 14) if v != 7]  # in order: a view knows no more
    assert game.public(mine) == game.public(s) and mine.hands == s.hands
    assert [o["bid"] for o in game.legal_orders(mine, "bob")] == s.hands["bob"]


def test_a_malformed_public_part_is_refused_in_one_line(game):
    import pytest

    from koryo_pbm.errors import FormatError

    public = game.public(game.load_position(position(), "seed"))
    for bad, why in (({**public, "round": "1"}, "GOPS view.round: not a whole number"),
                     ({**public, "table": ["p99"]}, "malformed GOPS view: the 13 prize cards, each once"),
                     ({**public, "hands": {"alice": ["b1"], "bob": ["b1", "b2"]}},
                      "malformed GOPS view: every player holds as many cards"),
                     ({k: v for k, v in public.items() if k != "won"}, "malformed GOPS view: KeyError: 'won'")):
        with pytest.raises(FormatError) as exc:
            game.view(bad, None)
        assert str(exc.value) == why
