"""Helpers for the GOPS tests: positions as plain tables, a round in one call."""

from __future__ import annotations

ALL = [f"b{v}" for v in range(1, 14)]


def position(players=("alice", "bob"), *, round=1, hands=None, table=("p7",), deck=None, won=None,
             discarded=(), bids=None, ties="discard"):
    """A GOPS position document: by default round 1, every bid card in hand, p7 turned up and the
    other prizes face down in order p1 ... p13."""
    seen = {*table, *discarded, *(c for cs in (won or {}).values() for c in cs)}
    return {
        "game": "gops", "players": list(players), "ties": ties, "round": round,
        "hands": {p: list((hands or {}).get(p, ALL)) for p in players},
        "deck": list(deck) if deck is not None else [f"p{v}" for v in range(1, 14) if f"p{v}" not in seen],
        "table": list(table), "won": {p: list((won or {}).get(p, [])) for p in players},
        "discarded": list(discarded), "bids": dict(bids or {}),
    }


def bid(game, state, **bids):
    """Every player's bid (``alice="b9"``): the new state and its event texts."""
    new, events = game.apply(state, {p: {"bid": c} for p, c in bids.items()})
    return new, [e.text for e in events]
