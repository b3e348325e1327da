"""Bots: a level's order for one player, from that player's view only.

Every game has the level ``random`` (:meth:`~koryo_pbm.engine.contract.Game.random_order`);
a game adds its own levels through :meth:`~koryo_pbm.engine.contract.Game.bot_levels` and
:meth:`~koryo_pbm.engine.contract.Game.bot_order` (Koryo: ``heuristic`` and ``search``;
Korsar: ``heuristic``).

A bot never sees what its player may not: :func:`choose` reduces whatever state it is given to
the player's public and private parts and rebuilds a state from them
(:meth:`~koryo_pbm.engine.contract.Game.from_view`), and :func:`choose_from_view` starts from
those parts directly (the by-mail layer, which only ever holds them). Either way the same view
gives the same choice, whatever the others hold.

A bot is deterministic: its generator is seeded from ``seed`` (the callers use the game id,
the decision and the player), never the global one. It has a time budget: a level that
thinks reads the clock and stops in time. A bot that fails (raises, returns an illegal order)
or overruns its budget is replaced by a random legal order; the :class:`BotChoice` says so in
``fallback`` and the fallback is logged (logger ``koryo_pbm.bots``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from koryo_pbm.engine.contract import Game, State
from koryo_pbm.errors import KoryoPbmError, UsageError


def __getattr__(name: str) -> Any:
    """``log``, the logger ``koryo_pbm.bots``: made on first use (``logging`` costs a command
    that plays no bot some milliseconds to import)."""
    if name == "log":
        import logging

        return logging.getLogger("koryo_pbm.bots")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

RANDOM = "random"
#: Seconds a bot may think per decision unless told otherwise.
DEFAULT_BUDGET = 1.0


class BotLevelError(UsageError):
    """A bot level the game does not have."""


@dataclass(frozen=True)
class BotChoice:
    """What a bot chose: the ``order``, the ``level`` that chose it, ``fallback`` (``""``, or
    why a random legal order replaced the level's), and the ``seconds`` (by the bot's clock)
    the choice took."""

    order: dict[str, Any]
    level: str
    fallback: str
    seconds: float


def levels(game: Game) -> tuple[str, ...]:
    """The bot levels of ``game``, weakest first: ``random`` and the game's own."""
    return (RANDOM, *(lv for lv in game.bot_levels() if lv != RANDOM))


def check_level(game: Game, level: str) -> str:
    """``level`` if ``game`` has it, else :class:`BotLevelError` naming the levels there are."""
    if level in levels(game):
        return level
    raise BotLevelError(f"{game.title} has no bot level {level!r} (levels: {', '.join(levels(game))})")


def parse_levels(game: Game, text: str, n_players: int | None = None) -> list[str]:
    """``"heuristic,random,random"`` -> one checked level per seat. With ``n_players``, the
    list must name exactly that many seats."""
    items = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part for part in items):
        raise BotLevelError(f"--bots takes one level per seat, separated by commas (e.g. heuristic,random), not {text!r}")
    for item in items:
        check_level(game, item)
    if n_players is not None and len(items) != n_players:
        raise BotLevelError(f"--bots names {len(items)} seat(s) but the game has {n_players} players")
    return items


def player_view(game: Game, state: State, player: str) -> State:
    """The state ``player`` can rebuild from their own view of ``state``: nothing more."""
    return game.from_view(game.public(state), game.private(state, player), player)


def choose(game: Game, state: State, player: str, level: str, *, seed: str,
           budget: float = DEFAULT_BUDGET, clock: Callable[[], float] = time.process_time) -> BotChoice:
    """The order a bot of ``level`` gives for ``player`` in ``state`` (a full state or a
    :meth:`~koryo_pbm.engine.contract.Game.from_view` one), seen from ``player``'s view only."""
    check_level(game, level)
    return _choose(game, player_view(game, state, player), player, level, seed, budget, clock)


def choose_from_view(game: Game, public: Mapping[str, Any], private: Mapping[str, Any], player: str,
                     level: str, *, seed: str, budget: float = DEFAULT_BUDGET,
                     clock: Callable[[], float] = time.process_time) -> BotChoice:
    """:func:`choose` from a public part and ``player``'s private part (what the player holds)."""
    check_level(game, level)
    return _choose(game, game.from_view(public, private, player), player, level, seed, budget, clock)


def _choose(game: Game, view: State, player: str, level: str, seed: str, budget: float,
            clock: Callable[[], float]) -> BotChoice:
    rng = random.Random(f"koryo-pbm bot:{level}:{seed}")
    start = clock()
    if level == RANDOM:
        return BotChoice(game.random_order(view, player, rng), level, "", clock() - start)
    fallback = ""
    order: dict[str, Any] | None = None
    try:
        order = game.bot_order(view, player, level, rng, budget, clock)
        game.check(view, player, order)
    except KoryoPbmError as exc:
        fallback = f"the {level} bot chose an illegal order ({exc})"
    except Exception as exc:  # a bot's bug must not stop the game: the random order stands in
        fallback = f"the {level} bot failed ({type(exc).__name__}: {exc})"
    seconds = clock() - start
    if not fallback and seconds > budget:
        fallback = f"the {level} bot took {seconds:.2f} s, over its budget of {budget:g} s"
    if fallback:
        __getattr__("log").warning("%s for %s; a random legal order stands in", fallback, player)
        order = game.random_order(view, player, random.Random(f"koryo-pbm bot fallback:{seed}"))
        seconds = clock() - start
    assert order is not None
    return BotChoice(dict(order), level, fallback, seconds)


def seat_levels(levels_by_seat: Sequence[str], players: Sequence[str], rotation: int) -> dict[str, str]:
    """Levels seated for game number ``rotation``: seat ``j`` gets level ``(j - rotation) mod
    n``, so over ``n`` games every level plays from every seat."""
    n = len(players)
    return {players[j]: levels_by_seat[(j - rotation) % n] for j in range(n)}
