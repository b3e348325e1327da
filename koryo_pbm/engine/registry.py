"""Finding games: every game, built-in or third-party, registers an entry point in the group
``koryo_pbm.games`` whose value is its :class:`~koryo_pbm.engine.contract.Game` subclass::

    [project.entry-points."koryo_pbm.games"]
    koryo = "koryo_pbm_games.koryo:KoryoGame"

The entry points are those ``importlib.metadata.entry_points(group=...)`` lists. Importing
``importlib.metadata`` costs more than most commands (it loads the ``email`` package), so the
common case (distributions installed as ``*.dist-info`` / ``*.egg-info`` folders in folders on
``sys.path``) is read here directly, in the same order and with the same rules; anything else
(a zip file on the path, an ``.egg``, another distribution finder, a malformed file) is left
to ``importlib.metadata`` itself.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache

from koryo_pbm.engine.contract import Game
from koryo_pbm.errors import UnknownGame

GROUP = "koryo_pbm.games"


class _EntryPoint:
    """``name = value`` in a distribution's ``entry_points.txt``; loads as importlib.metadata's."""

    pattern = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def load(self) -> object:
        from functools import reduce
        from importlib import import_module

        match = self.pattern.match(self.value)
        module = import_module(match.group("module"))  # type: ignore[union-attr]
        attrs = filter(None, (match.group("attr") or "").split("."))  # type: ignore[union-attr]
        return reduce(getattr, attrs, module)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _scan(group: str) -> list[_EntryPoint] | None:
    """The entry points of ``group`` as ``importlib.metadata`` finds them, or ``None`` where this
    simple reading could differ from it."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and getattr(finder, "find_distributions", None) is not None:
            return None
    seen: set[str] = set()
    found: list[_EntryPoint] = []
    for root in list(sys.path):
        if not isinstance(root, str):
            return None
        try:
            children = os.listdir(root or ".")
        except Exception:
            if os.path.exists(root or "."):
                return None  # a zip file, an unreadable folder: importlib.metadata's business
            continue
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        infos: dict[str, list[str]] = {}  # as importlib.metadata groups them, in listing order
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                infos.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        for children_of_name in infos.values():
            for child in children_of_name:
                stem, ext = os.path.splitext(child)
                if ext not in (".dist-info", ".egg-info"):
                    return None
                key = _normalize(stem.partition("-")[0])
                if not key:
                    return None
                if key in seen:  # the first distribution of a name hides the others
                    continue
                seen.add(key)
                try:
                    with open(os.path.join(root, child, "entry_points.txt"), encoding="utf-8") as f:
                        text = f.read()
                except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                    continue
                except Exception:
                    return None
                section = None
                for line in text.splitlines():
                    line = line.strip()
                    if not line or line.startswith("#"):
                        continue
                    if line.startswith("[") and line.endswith("]"):
                        section = line.strip("[]")
                        continue
                    if section is None:
                        continue
                    name, eq, value = line.partition("=")
                    if not eq:
                        return None
                    if section == group:
                        found.append(_EntryPoint(name.strip(), value.strip()))
    return found


@cache
def _entry_points() -> dict[str, object]:
    eps = _scan(GROUP)
    if eps is None:
        from importlib.metadata import entry_points

        eps = entry_points(group=GROUP)
    return {ep.name: ep for ep in eps}


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
