"""Korsar bot: ``heuristic`` (every legal order weighed one move ahead by :func:`evaluate`).

Pure like the rules: a function of the state and nothing else (no generator needed, no I/O).
The state is the player's :meth:`~.game.KorsarGame.from_view` state, where the other players'
hands and loot are stand-ins (the unknown cards in catalogue order): the evaluation reads only
the table, the pile's size and the player's own side's hands, never another side's hand.

The value of a position for a side: the galleons it controls now (it seizes them at its next
turn unless someone outbids it, so a captain's or the admiral's hold counts more than a thin
lead of pirates), minus part of what the other sides control, minus the galleons still in its
hands (they count against it at the end, more so as the pile runs out), plus a little for the
fighters it still holds.
"""

from __future__ import annotations

from typing import Any

from . import cards as C
from . import rules as R
from .state import KorsarState

LEVELS = ("heuristic",)


def _hold(s: KorsarState, g: Any, side: str) -> float:
    """How sure ``side``'s control of ``g`` is (0.5 .. 1)."""
    if R.personage(g) is not None:
        return 1.0
    st = R.strengths(s, g)
    if all(k == side for k in st):
        return 0.8  # its owner's, nobody else beside it (yet)
    mine = st.get(side, 0)
    rest = max(v for k, v in st.items() if k != side)
    return min(1.0, 0.55 + 0.08 * (mine - rest))


def evaluate(s: KorsarState, player: str) -> float:
    side = s.side(player)
    members = s.members(side)
    v = 0.0
    for g in s.galleons:
        gv = C.value(g.card)
        ctl = R.controller(s, g)
        if ctl == side:
            v += gv * _hold(s, g, side)
        elif ctl is not None:
            v -= 0.45 * gv * _hold(s, g, ctl)
    late = 1.0 if len(s.pile) <= 3 * len(s.players) else 0.35
    for m in members:
        for c in s.hands[m]:
            if C.is_galleon(c):
                v -= late * C.value(c)
            elif C.is_admiral(c) or C.is_captain(c):
                v += 1.2
            else:
                v += 0.12 * C.strength(c)
    return v


def heuristic(s: KorsarState, player: str) -> dict[str, Any]:
    """The order of ``player`` whose position after it is worth the most; drawing counts as
    an unknown card worth a little while the pile lasts."""
    orders = R.legal_orders(s, player)
    best: dict[str, Any] = orders[0]
    best_v = float("-inf")
    for o in orders:
        w = s.copy()
        action = o["action"]
        if action == "draw":
            v = evaluate(w, player) + 0.45
        else:
            R.do_action(w, player, action, o.get("card", ""), o.get("galleon", ""), [])
            v = evaluate(w, player)
            if action == "discard":
                v -= 0.05
        if v > best_v:
            best, best_v = o, v
    return dict(best)
