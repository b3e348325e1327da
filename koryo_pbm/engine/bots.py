"""Bots: a level's order for one player, from that player's view only.

Every game has the level ``random`` (:meth:`~koryo_pbm.engine.contract.Game.random_order`);
a game adds its own levels through :meth:`~koryo_pbm.engine.contract.Game.bot_levels` and
:meth:`~koryo_pbm.engine.contract.Game.bot_order` (e.g. ``heuristic``; ``koryo-pbm games --json``
lists each game's); every game has the level ``search``, the engine's
(:mod:`~koryo_pbm.engine.search`) unless the game declares its own of that name.

A bot never sees what its player may not: :func:`choose` reduces whatever state it is given to
the player's public and private parts and rebuilds a state from them
(:meth:`~koryo_pbm.engine.contract.Game.from_view`), and :func:`choose_from_view` starts from
those parts directly (the by-mail layer, which only ever holds them), and :func:`choose_in_view`
from the state a caller rebuilt from them already (a menu, built from that state, suggests the
heuristic's choice). Either way the same view gives the same choice, whatever the others hold.

A bot is deterministic, so that anyone can choose its order again (``verify`` does, for every
order the moderator's bots played): its generator is a :class:`~koryo_pbm.engine.rng.Rng`
seeded from public values only (:func:`seat_seed`: the game id, the decision and the seat,
domain-separated), never the global one, and its work is bounded by a count (playouts,
positions weighed), never by the clock, so the same view gives the same order on any machine.
A clock is read for a safety limit only (``limit`` seconds, far above what the work takes): a
bot past it is stopped and a random legal order from its own public generator stands in;
:class:`BotChoice` says so in ``timed_out`` and the public log says so, since what the bot would
have chosen then cannot be chosen again. A bot that fails (raises, returns an illegal order) is
replaced by the same random legal order; that is a bug, and it happens again on replay. The
fallback is logged (logger ``koryo_pbm.bots``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import Game, State, TimeLimit
from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import KoryoPbmError, UsageError
from koryo_pbm.values import Frozen


def __getattr__(name: str) -> Any:
    """``log``, the logger ``koryo_pbm.bots``: made on first use (``logging`` costs a command
    that plays no bot some milliseconds to import)."""
    if name == "log":
        import logging

        return logging.getLogger("koryo_pbm.bots")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

RANDOM = "random"
SEARCH = "search"
#: Seconds of CPU a bot may think per decision before it is stopped: a safety limit only,
#: far above what its counted work takes (the search: about 0.4 s on one core).
DEFAULT_LIMIT = 30.0
#: What a seed is: public values, e.g. :func:`seat_seed`'s (a single text is one value).
Seed = str | Sequence[str]


class BotLevelError(UsageError):
    """A bot level the game does not have."""


class BotChoice(Frozen):
    """What a bot chose: the ``order``, the ``level`` that chose it, ``fallback`` (``""``, or
    why a random legal order replaced the level's), the ``seconds`` (by the bot's clock) the
    choice took, and ``timed_out``: the fallback is there because the bot hit its safety time
    limit (the one reason that does not happen again on replay)."""

    _fields = ("order", "level", "fallback", "seconds", "timed_out")
    order: dict[str, Any]
    level: str
    fallback: str
    seconds: float
    timed_out: bool

    def __init__(self, order: dict[str, Any], level: str, fallback: str, seconds: float,
                 timed_out: bool = False) -> None:
        set_ = object.__setattr__
        set_(self, "order", order)
        set_(self, "level", level)
        set_(self, "fallback", fallback)
        set_(self, "seconds", seconds)
        set_(self, "timed_out", timed_out)


def seat_seed(game_id: str, decision: str, seat: str) -> tuple[str, str, str]:
    """The public values a bot playing ``seat`` at ``decision`` of game ``game_id`` is seeded
    from: fixed before anybody answers the decision (the game id is in the first game file),
    so nobody can try seeds until the bot's order suits them."""
    return (game_id, decision, seat)


def _parts(seed: Seed) -> tuple[str, ...]:
    return (seed,) if isinstance(seed, str) else tuple(seed)


def bot_rng(seed: Seed) -> Rng:
    """The generator a bot draws from for ``seed``."""
    return Rng.derived("bot order", *_parts(seed))


def fallback_rng(seed: Seed) -> Rng:
    """The generator of the random legal order that stands in for a failed or stopped bot."""
    return Rng.derived("bot fallback", *_parts(seed))


def levels(game: Game) -> tuple[str, ...]:
    """The bot levels of ``game``, weakest first: ``random``, the game's own, and ``search``
    (the engine's, :mod:`~koryo_pbm.engine.search`, unless the game has its own of that name)."""
    own = tuple(lv for lv in game.bot_levels() if lv != RANDOM)
    return (RANDOM, *own) if SEARCH in own else (RANDOM, *own, SEARCH)


def engine_search(game: Game, level: str) -> bool:
    """Whether ``level`` of ``game`` is the engine's search (not a level of the game's own)."""
    return level == SEARCH and SEARCH not in game.bot_levels()


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


def choose(game: Game, state: State, player: str, level: str, *, seed: Seed,
           limit: float = DEFAULT_LIMIT, clock: Callable[[], float] = time.process_time) -> BotChoice:
    """The order a bot of ``level`` gives for ``player`` in ``state`` (a full state or a
    :meth:`~koryo_pbm.engine.contract.Game.from_view` one), seen from ``player``'s view only,
    drawing from the generator of ``seed`` (public values, e.g. :func:`seat_seed`'s)."""
    check_level(game, level)
    return _choose(game, player_view(game, state, player), player, level, seed, limit, clock)


def choose_from_view(game: Game, public: Mapping[str, Any], private: Mapping[str, Any], player: str,
                     level: str, *, seed: Seed, limit: float = DEFAULT_LIMIT,
                     clock: Callable[[], float] = time.process_time) -> BotChoice:
    """:func:`choose` from a public part and ``player``'s private part (what the player holds)."""
    check_level(game, level)
    return _choose(game, game.from_view(public, private, player), player, level, seed, limit, clock)


def choose_in_view(game: Game, view: State, player: str, level: str, *, seed: Seed,
                   limit: float = DEFAULT_LIMIT, clock: Callable[[], float] = time.process_time) -> BotChoice:
    """:func:`choose_from_view` for a caller that holds the state rebuilt from ``player``'s
    view already (``game.from_view(public, private, player)``, e.g. to build ``player``'s
    menu): the same choice, without rebuilding it again. The bot does not change ``view``."""
    check_level(game, level)
    return _choose(game, view, player, level, seed, limit, clock)


def rederive(game: Game, state: State, player: str, level: str, seed: Seed) -> BotChoice:
    """:func:`choose` again, with no time limit: the order the bot gives on any machine."""
    return choose(game, state, player, level, seed=seed, limit=math.inf)


def fallback_order(game: Game, state: State, player: str, seed: Seed) -> dict[str, Any]:
    """The random legal order that stands in for a failed or stopped bot of ``seed``."""
    return dict(game.random_order(player_view(game, state, player), player, fallback_rng(seed)))


def _choose(game: Game, view: State, player: str, level: str, seed: Seed, limit: float,
            clock: Callable[[], float]) -> BotChoice:
    rng = bot_rng(seed)
    start = clock()
    if level == RANDOM:
        return BotChoice(game.random_order(view, player, rng), level, "", clock() - start)
    fallback = ""
    timed_out = False
    order: dict[str, Any] | None = None
    try:
        order = game.bot_order(view, player, level, rng, limit, clock)
        game.check(view, player, order)
    except TimeLimit:
        timed_out = True
    except KoryoPbmError as exc:
        fallback = f"the {level} bot chose an illegal order ({exc})"
    except Exception as exc:  # a bot's bug must not stop the game: the random order stands in
        fallback = f"the {level} bot failed ({type(exc).__name__}: {exc})"
    seconds = clock() - start
    if timed_out or (not fallback and seconds > limit):
        timed_out = True
        fallback = f"the {level} bot hit its safety time limit of {limit:g} s ({seconds:.2f} s)"
    if fallback:
        __getattr__("log").warning("%s for %s; a random legal order stands in", fallback, player)
        order = game.random_order(view, player, fallback_rng(seed))
        seconds = clock() - start
    assert order is not None
    return BotChoice(dict(order), level, fallback, seconds, timed_out)


def seat_levels(levels_by_seat: Sequence[str], players: Sequence[str], rotation: int) -> dict[str, str]:
    """Levels seated for game number ``rotation``: seat ``j`` gets level ``(j - rotation) mod
    n``, so over ``n`` games every level plays from every seat."""
    n = len(players)
    return {players[j]: levels_by_seat[(j - rotation) % n] for j in range(n)}


def with_engine_search(game: Game) -> Game:
    """``game`` whose level ``search`` is the engine's: ``game`` itself, or for a game with a
    search of its own (Koryo), a copy that declares only its other levels and hands ``search``
    to the engine (to measure one against the other: ``benchmarks/bench_search.py``)."""
    if SEARCH not in game.bot_levels():
        return game
    cls = type(game)
    own = tuple(lv for lv in game.bot_levels() if lv != SEARCH)

    def bot_levels(self: Game) -> tuple[str, ...]:
        return own

    def bot_order(self: Game, state: State, player: str, level: str, rng: Any, limit: float,
                  clock: Callable[[], float]) -> dict[str, Any]:
        if level == SEARCH:
            return Game.bot_order(self, state, player, level, rng, limit, clock)
        return cls.bot_order(self, state, player, level, rng, limit, clock)

    return type(f"{cls.__name__}EngineSearch", (cls,), {"bot_levels": bot_levels, "bot_order": bot_order})()
