"""GOPS (Goofspiel): 13 prize cards, every player bids one of their 13 cards face down each round.

The rules are in ``docs/rules/gops.md``. Everything but the rules comes from the contract's
defaults: a plain state (:class:`~.game.GopsState`), listed legal orders, the engine's search.

Readings the specification leaves open: bids are simultaneous, so ``first`` is not used; the
decisions are ``r1-bid`` ... ``r12-bid`` (round 13's last cards are played by the rules, "(the
only legal move)"); the prize turned up at the deal is in the public part, the others in the
log ("round N: pX is turned up"). A position (``koryo-pbm new --position``) holds the state's
fields: ``players``, ``ties``, ``round``, ``hands``, ``deck`` (face down, top first), ``table``,
``won``, ``discarded`` and ``bids`` (the last round's).
"""

from __future__ import annotations

from .game import GopsGame

__all__ = ["GopsGame"]
