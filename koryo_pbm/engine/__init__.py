"""The engine core: the game contract, the registry and the seeded generator. It names no game."""

from koryo_pbm.engine.contract import Decision, Event, Game, Order, Outcome, State
from koryo_pbm.engine.rng import Rng

__all__ = ["Decision", "Event", "Game", "Order", "Outcome", "Rng", "State"]
