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
    if after is None:  # nobody looks between the decisions: the game may play them its fastest way
        state = game.random_playout(state, bots, max_decisions)
    else:
        after(state, [])
    for _ in range(max_decisions):
        decision = game.pending(state)
        if decision is None:
            break
        orders = {p: game.random_order(state, p, bots) for p in decision.players}
        state, events = game.apply(state, orders)
        if after is not None:
            after(state, events)
    else:  # pragma: no cover - a game that never ends is a bug in the game
        raise RuntimeError(f"{game.name}: no end after {max_decisions} decisions")
    outcome = game.outcome(state)
    if outcome is None:  # pragma: no cover
        raise RuntimeError(f"{game.name}: no pending decision but no outcome either")
    return state, outcome


def play_bots(
    game: Game,
    seats: Mapping[str, str],
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    limit: float | None = None,
    record: Callable[[str, Any], None] | None = None,
    max_decisions: int = 100_000,
) -> tuple[State, Outcome]:
    """Play one match between bots: ``seats`` maps each player, in seat order, to a bot level.
    Each bot chooses from its own player's view only (:func:`~koryo_pbm.engine.bots.choose`),
    with a generator seeded from ``seed``, the decision and the player. ``limit``: the bots'
    safety time limit (seconds; default the engine's). ``record(player, choice)`` is called
    with every :class:`~koryo_pbm.engine.bots.BotChoice`."""
    from koryo_pbm.engine.bots import DEFAULT_LIMIT, choose, seat_seed

    state = game.setup(list(seats), seed, options=options)
    for _ in range(max_decisions):
        decision = game.pending(state)
        if decision is None:
            break
        orders = {}
        for p in decision.players:
            choice = choose(game, state, p, seats[p], seed=seat_seed(seed, decision.id, p),
                            limit=DEFAULT_LIMIT if limit is None else limit)
            if record is not None:
                record(p, choice)
            orders[p] = choice.order
        state, _ = game.apply(state, orders, log=False)
    else:  # pragma: no cover - a game that never ends is a bug in the game
        raise RuntimeError(f"{game.name}: no end after {max_decisions} decisions")
    outcome = game.outcome(state)
    if outcome is None:  # pragma: no cover
        raise RuntimeError(f"{game.name}: no pending decision but no outcome either")
    return state, outcome


@dataclass
class LevelStats:
    """What the bots of one level did over a simulation (``seats``: how many seats it had)."""

    seats: int
    wins: int = 0
    score_total: int = 0
    decisions: int = 0
    seconds_total: float = 0.0
    seconds_max: float = 0.0
    fallbacks: int = 0
    timed_out: int = 0  # of the fallbacks: the bot hit its safety time limit

    def to_dict(self, games: int) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "wins": self.wins,
            "win_share": self.wins / (games * self.seats) if games else 0.0,
            "mean_score": self.score_total / (games * self.seats) if games else 0.0,
            "decisions": self.decisions,
            "mean_seconds_per_decision": self.seconds_total / self.decisions if self.decisions else 0.0,
            "max_seconds_per_decision": self.seconds_max,
            "fallbacks": self.fallbacks,
            "timed_out": self.timed_out,
        }


@dataclass
class SimulationResult:
    games: int
    players: list[str]
    wins: dict[str, int]
    mean_scores: dict[str, float]
    seconds: float
    #: with bots: the level of each seat in game 0 (rotated by one seat each game), and per level
    bots: list[str] | None = None
    levels: dict[str, LevelStats] | None = None
    time_limit: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "games": self.games,
            "players": self.players,
            "wins": self.wins,
            "mean_scores": self.mean_scores,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
        }
        if self.bots is not None and self.levels is not None:
            out["bots"] = self.bots
            out["time_limit"] = self.time_limit
            out["levels"] = {lv: st.to_dict(self.games) for lv, st in self.levels.items()}
        return out


def _recorder(stats: dict[str, LevelStats], seats: Mapping[str, str]) -> Callable[[str, Any], None]:
    """Adds each bot choice of one game to the stats of its seat's level."""

    def record(player: str, choice: Any) -> None:
        st = stats[seats[player]]
        st.decisions += 1
        st.seconds_total += choice.seconds
        st.seconds_max = max(st.seconds_max, choice.seconds)
        st.fallbacks += bool(choice.fallback)
        st.timed_out += bool(choice.timed_out)

    return record


def simulate(
    game: Game,
    n_players: int,
    n_games: int,
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    clock: Callable[[], float] | None = None,
    bots: Sequence[str] | None = None,
    limit: float | None = None,
    progress: Callable[[int, SimulationResult], None] | None = None,
) -> SimulationResult:
    """``n_games`` matches; game *i* uses seed ``f"{seed}/{i}"``. A shared win counts for every
    winner. ``clock`` (e.g. ``time.perf_counter``) times the run; the rules never see it.

    Without ``bots`` every seat plays random legal orders. With ``bots`` (one level per seat),
    game *i* seats level ``bots[(j - i) % n]`` at seat *j*: every level plays from every seat
    in turn, so no level keeps the first seat's advantage. ``limit``: the bots' safety time
    limit (seconds; default the engine's). ``progress(i, partial_result)`` is
    called after each game."""
    from koryo_pbm.engine.bots import DEFAULT_LIMIT, seat_levels

    players = seat_names(n_players)
    if bots is not None and len(bots) != n_players:
        raise ValueError("one bot level per seat")
    wins = dict.fromkeys(players, 0)
    totals = dict.fromkeys(players, 0)
    stats: dict[str, LevelStats] | None = None
    if bots is not None:
        stats = {lv: LevelStats(seats=list(bots).count(lv)) for lv in dict.fromkeys(bots)}
    start = clock() if clock else 0.0
    result = SimulationResult(0, players, wins, {}, 0.0, list(bots) if bots is not None else None, stats,
                              (DEFAULT_LIMIT if limit is None else limit) if bots is not None else None)
    for i in range(n_games):
        if bots is None or stats is None:
            _, outcome = play_random(game, players, f"{seed}/{i}", options=options)
            seats: dict[str, str] = {}
        else:
            seats = seat_levels(bots, players, i)
            _, outcome = play_bots(game, seats, f"{seed}/{i}", options=options, limit=limit,
                                   record=_recorder(stats, seats))
        for p in outcome.winners:
            wins[p] += 1
            if stats is not None:
                stats[seats[p]].wins += 1
        for p in players:
            totals[p] += outcome.scores[p]
            if stats is not None:
                stats[seats[p]].score_total += outcome.scores[p]
        result.games = i + 1
        if progress is not None:
            result.seconds = (clock() - start) if clock else 0.0
            result.mean_scores = {p: totals[p] / result.games for p in players}
            progress(i, result)
    result.seconds = (clock() - start) if clock else 0.0
    result.mean_scores = {p: (totals[p] / n_games if n_games else 0.0) for p in players}
    return result
