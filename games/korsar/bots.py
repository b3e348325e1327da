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


def _galleon_term(s: KorsarState, g: Any, side: str) -> tuple[bool, float] | None:
    """What galleon ``g`` adds to :func:`evaluate`'s value for ``side``: ``(True, x)`` adds
    ``x``, ``(False, x)`` takes ``x`` away, ``None`` nothing (nobody controls it)."""
    gv = C.value(g.card)
    ctl = R.controller(s, g)
    if ctl == side:
        return True, gv * _hold(s, g, side)
    if ctl is not None:
        return False, 0.45 * gv * _hold(s, g, ctl)
    return None


def _card_term(card: str, late: float) -> tuple[bool, float]:
    """What a card in the side's hands adds to :func:`evaluate`'s value (as :func:`_galleon_term`)."""
    if C.is_galleon(card):
        return False, late * C.value(card)
    if C.is_admiral(card) or C.is_captain(card):
        return True, 1.2
    return True, 0.12 * C.strength(card)


def _late(s: KorsarState) -> float:
    return 1.0 if len(s.pile) <= 3 * len(s.players) else 0.35


def evaluate(s: KorsarState, player: str) -> float:
    return _evaluate(s, player, {}, {})


def _evaluate(s: KorsarState, player: str, galleons: dict[int, tuple[Any, tuple[bool, float] | None]],
              cards: dict[str, tuple[bool, float]]) -> float:
    """:func:`evaluate`, with the terms of galleons and cards weighed before: ``galleons`` by
    the galleon object's id (with the galleon; one the caller does not change once weighed),
    ``cards`` by card (for one pile size). The terms are added in the same order, one by one,
    so the value is the same to the last bit."""
    side = s.side(player)
    v = 0.0
    for g in s.galleons:
        known = galleons.get(id(g))  # the galleon is kept in the entry: its id is not reused
        if known is not None:
            term = known[1]
        else:
            term = _galleon_term(s, g, side)
            galleons[id(g)] = (g, term)
        if term is not None:
            if term[0]:
                v += term[1]
            else:
                v -= term[1]
    late = _late(s)
    for m in s.members(side):
        for c in s.hands[m]:
            t = cards.get(c)
            if t is None:
                t = cards[c] = _card_term(c, late)
            if t[0]:
                v += t[1]
            else:
                v -= t[1]
    return v


def _after(s: KorsarState, player: str, action: str, card: str, gid: str) -> KorsarState:
    """``s`` after ``player``'s ``action`` other than a draw, on a copy of only what the action
    changes (``player``'s hand, the cards out of the game, the galleons' list and the galleon
    ``gid`` if named): the other galleons, hands and the pile are ``s``'s own, unchanged."""
    w = object.__new__(KorsarState)
    w.__dict__.update(s.__dict__)
    w.hands = {**s.hands, player: list(s.hands[player])}
    w.removed = list(s.removed)
    w.galleons = [g.copy() if g.id == gid else g for g in s.galleons]
    R.do_action(w, player, action, card, gid, [])
    return w


def heuristic(s: KorsarState, player: str, orders: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The order of ``player`` whose position after it is worth the most; drawing counts as
    an unknown card worth a little while the pile lasts. ``orders``: the legal orders of
    ``player`` (:func:`.rules.legal_orders`), if the caller has them."""
    if orders is None:
        orders = R.legal_orders(s, player)
    best: dict[str, Any] = orders[0]
    best_v = float("-inf")
    galleons: dict[int, tuple[Any, tuple[bool, float] | None]] = {}  # s's galleons: no order changes them
    cards: dict[str, tuple[bool, float]] = {}  # no order but a draw changes the pile
    for o in orders:
        action = o["action"]
        if action == "draw":
            v = _evaluate(s, player, galleons, cards) + 0.45
        else:
            v = _evaluate(_after(s, player, action, o.get("card", ""), o.get("galleon", "")), player, galleons, cards)
            if action == "discard":
                v -= 0.05
        if v > best_v:
            best, best_v = o, v
    return dict(best)
