"""GOPS spec, "Setup": every hand full, the prize deck shuffled by the seeded generator, scores 0,
and (round 1's "Turn up") the top prize face up, the first decision a bid of every player."""

from __future__ import annotations

from koryo_pbm.engine.rng import Rng


def test_the_deck_is_shuffled_by_the_seed_and_its_top_card_turned_up(game):
    s = game.setup(["alice", "bob", "carol"], "friday")
    deck = [f"p{v}" for v in range(1, 14)]
    Rng.from_seed("friday").shuffle(deck)  # the game's generator, by hand
    assert s.table == deck[:1] and s.deck == deck[1:] and s.round == 1
    assert game.outcome(s) is None and all(w == [] for w in s.won.values()) and s.discarded == []
    d = game.pending(s)
    assert (d.id, d.kind, d.players) == ("r1-bid", "bid", ("alice", "bob", "carol"))
    assert game.view(game.public(s), None)["scores"] == {"alice": 0, "bob": 0, "carol": 0}


def test_the_same_seed_deals_the_same_deck_and_another_seed_another(game):
    a, b, c = (game.setup(["alice", "bob"], seed) for seed in ("x", "x", "y"))
    assert a.table + a.deck == b.table + b.deck != c.table + c.deck
