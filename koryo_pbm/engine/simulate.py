"""Random play between bots, in-process: the engine's test bench and ``koryo-pbm simulate``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from koryo_pbm.engine.contract import Event, Game, Outcome, State


def seat_names(n: int) -> list[str]:
    """Default player names for ``n`` seats: ``p1`` … ``pn``."""
    return [f"p{i}" for i in range(1, n + 1)]


def play_random(
    game: Game,
    players: Sequence[str],
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    first: str | None = None,
    after: Callable[[State, list[Event]], None] | None = None,
    max_decisions: int = 100_000,
) -> tuple[State, Outcome]:
    """Play one match between random legal players.

    The match's chance comes from ``seed``; the bots draw from their own generator, derived
    from the same seed, so one seed gives one whole match. ``after`` is called after set-up and
    after every decision (the property tests check invariants there).
    """
    state = game.setup(players, seed, first=first, options=options)
    bots = random.Random(f"bots:{seed}")  # the bots' own generator, never the global one
    if after is not None:
        after(state, [])
    for _ in range(max_decisions):
        decision = game.pending(state)
        if decision is None:
            break
        orders = {p: game.random_order(state, p, bots) for p in decision.players}
        state, events = game.apply(state, orders, log=after is not None)
        if after is not None:
            after(state, events)
    else:  # pragma: no cover - a game that never ends is a bug in the game
        raise RuntimeError(f"{game.name}: no end after {max_decisions} decisions")
    outcome = game.outcome(state)
    if outcome is None:  # pragma: no cover
        raise RuntimeError(f"{game.name}: no pending decision but no outcome either")
    return state, outcome


@dataclass
class SimulationResult:
    games: int
    players: list[str]
    wins: dict[str, int]
    mean_scores: dict[str, float]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": self.players,
            "wins": self.wins,
            "mean_scores": self.mean_scores,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
        }


def simulate(
    game: Game,
    n_players: int,
    n_games: int,
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    clock: Callable[[], float] | None = None,
) -> SimulationResult:
    """``n_games`` random matches; game *i* uses seed ``f"{seed}/{i}"``. A shared win counts
    for every winner. ``clock`` (e.g. ``time.perf_counter``) times the run; the rules never
    see it."""
    players = seat_names(n_players)
    wins = dict.fromkeys(players, 0)
    totals = dict.fromkeys(players, 0)
    start = clock() if clock else 0.0
    for i in range(n_games):
        _, outcome = play_random(game, players, f"{seed}/{i}", options=options)
        for p in outcome.winners:
            wins[p] += 1
        for p in players:
            totals[p] += outcome.scores[p]
    seconds = (clock() - start) if clock else 0.0
    means = {p: (totals[p] / n_games if n_games else 0.0) for p in players}
    return SimulationResult(n_games, players, wins, means, seconds)
