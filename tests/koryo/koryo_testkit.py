"""Helpers for the Koryo tests (imported by the test modules of this folder)."""

from __future__ import annotations

from koryo_pbm_games.koryo import KoryoGame

GAME = KoryoGame()
P3 = ("alice", "bob", "carol")


def load(players=P3, round=3, phase="orders", first=None, seed="test", **kw):
    doc = {"game": "koryo", "round": round, "phase": phase, "players": list(players),
           "first": first or players[0]}
    doc.update(kw)
    return GAME.load_position(doc, seed)


def apply1(state, player, order):
    return GAME.apply(state, {player: order})


def table(state, player):
    return GAME.view(GAME.public(state), None)["tables"][player]


def texts(events):
    return [e.text for e in events]


def pending_id(state):
    d = GAME.pending(state)
    return d.id if d else None
