"""Finding games: every game, built-in or third-party, registers an entry point in the group
``koryo_pbm.games`` whose value is its :class:`~koryo_pbm.engine.contract.Game` subclass::

    [project.entry-points."koryo_pbm.games"]
    koryo = "koryo_pbm_games.koryo:KoryoGame"
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from koryo_pbm.engine.contract import Game
from koryo_pbm.errors import UnknownGame

GROUP = "koryo_pbm.games"


@cache
def _entry_points() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    """The names of the registered games, sorted."""
    return sorted(_entry_points())


@cache
def find_game(name: str) -> Game:
    """The game registered as ``name``; :class:`UnknownGame` names the ones there are."""
    ep = _entry_points().get(name)
    if ep is None:
        known = ", ".join(names()) or "none"
        raise UnknownGame(f"unknown game {name!r} (registered games: {known})")
    try:
        cls = ep.load()  # type: ignore[attr-defined]
    except Exception as exc:  # a broken plug-in must not take the CLI down with a traceback
        raise UnknownGame(f"game {name!r} is registered but cannot be loaded: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise UnknownGame(f"game {name!r} is registered but is not a koryo_pbm Game")
    game = cls()
    if game.name != name:
        raise UnknownGame(f"game registered as {name!r} calls itself {game.name!r}")
    return game
