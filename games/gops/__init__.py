"""GOPS (Goofspiel): 13 prize cards, every player bids one of their 13 cards face down each round.

The rules are in ``docs/rules/gops.md``. Everything but the rules comes from the contract's
defaults: a plain state, listed legal orders.
"""

from __future__ import annotations

from .game import GopsGame

__all__ = ["GopsGame"]
