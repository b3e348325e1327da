"""Finding games: every game, built-in or third-party, registers an entry point in the group
``koryo_pbm.games`` whose value is its :class:`~koryo_pbm.engine.contract.Game` subclass::

    [project.entry-points."koryo_pbm.games"]
    koryo = "koryo_pbm_games.koryo:KoryoGame"

The entry points are read where installers write them, on every call (nothing cached between
calls, so a game installed or removed is seen at once): the ``entry_points.txt`` of each
distribution (``*.dist-info``, ``*.egg-info``, an ``.egg``'s ``EGG-INFO``) in the folders of
``sys.path``, in the order and with the precedence of :func:`importlib.metadata.entry_points`
(a distribution found earlier on the path hides another of the same name). This is that
function's answer without its cost: ``importlib.metadata`` imports the ``email`` package, zip
and csv readers and builds an object per distribution, some 15-20 ms a command would pay
before doing anything (issue 19). A path entry that is not a folder (a zip file) is left to
``importlib.metadata`` itself.
"""

from __future__ import annotations

import os
import sys
from functools import cache

from koryo_pbm.engine.contract import Game
from koryo_pbm.errors import UnknownGame
from koryo_pbm.values import Frozen

GROUP = "koryo_pbm.games"
_INFO_SUFFIXES = (".dist-info", ".egg-info")


class EntryPoint(Frozen):
    """One registered game: its name and ``module:attribute`` value (a plain value class, not a
    ``NamedTuple``, whose creation costs every command that loads a game about 0.2 ms)."""

    _fields = ("name", "value")
    name: str
    value: str

    def __init__(self, name: str, value: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "value", value)

    def load(self) -> object:
        import importlib

        module, _, attrs = self.value.partition(":")
        attrs = attrs.split("[", 1)[0].strip()  # extras ("[name]") say nothing about where it is
        obj: object = importlib.import_module(module.strip())
        for attr in filter(None, attrs.split(".")):
            obj = getattr(obj, attr)
        return obj


def _normalize(name: str) -> str:
    """A distribution's name as importlib.metadata compares them (PEP 503, with ``_``):
    ``re.sub(r"[-_.]+", "_", name).lower()``, without compiling that pattern in every command."""
    words = name.replace("-", "_").replace(".", "_").split("_")
    return "_".join(w for i, w in enumerate(words) if w or i in (0, len(words) - 1)).lower()


def _group_of(text: str, group: str) -> list[EntryPoint]:
    """The entries of ``[group]`` in an ``entry_points.txt`` (an INI file, as importlib.metadata
    reads it: comments ``#`` and ``;``, ``name = value``)."""
    found: list[EntryPoint] = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == group and "=" in line:
            name, _, value = line.partition("=")
            found.append(EntryPoint(name.strip(), value.strip()))
    return found


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _scan(group: str) -> list[EntryPoint] | None:
    """Every entry point of ``group`` on ``sys.path``, as importlib.metadata orders them; None when
    a path entry is a zip file (left to importlib.metadata)."""
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in sys.path:
        folder = entry or "."
        try:
            children = os.listdir(folder)
        except NotADirectoryError:
            return None
        except OSError:  # absent or unreadable: importlib.metadata finds nothing there either
            continue
        if "-info" not in "\0".join(children).lower():  # one look at the whole listing: the standard
            continue                                      # library's folders hold no distribution
        infos: list[tuple[str, str]] = []  # (normalized distribution name, its metadata folder)
        for child in children:
            low = child.lower()
            if low.endswith(_INFO_SUFFIXES):
                name = low.rpartition(".")[0].partition("-")[0]
                infos.append((_normalize(name), os.path.join(folder, child)))
            elif low == "egg-info" and folder.endswith(".egg"):
                base = os.path.basename(folder).rpartition(".")[0].partition("-")[0]
                infos.append((_normalize(base), os.path.join(folder, child)))
        for name, info in infos:
            if name in seen:
                continue
            seen.add(name)
            text = _read(os.path.join(info, "entry_points.txt"))
            if text and group in text:
                found.extend(_group_of(text, group))
    return found


_FIXED: dict[str, EntryPoint] | None = None


def use_table(table: dict[str, str]) -> None:
    """Register exactly the games of ``table`` (name -> ``module:attribute``) from now on,
    reading no distribution's metadata: the player page, whose packages come in a zip without
    an installer's metadata (and without ``importlib.metadata``'s cost)."""
    global _FIXED
    _FIXED = {name: EntryPoint(name, value) for name, value in table.items()}
    _entry_points.cache_clear()
    find_game.cache_clear()


@cache
def _entry_points() -> dict[str, EntryPoint]:
    if _FIXED is not None:
        return dict(_FIXED)
    found = _scan(GROUP)
    if found is None:
        from importlib.metadata import entry_points

        found = [EntryPoint(ep.name, ep.value) for ep in entry_points(group=GROUP)]
    return {ep.name: ep for ep in found}


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
        cls = ep.load()
    except Exception as exc:  # a broken plug-in must not take the CLI down with a traceback
        raise UnknownGame(f"game {name!r} is registered but cannot be loaded: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise UnknownGame(f"game {name!r} is registered but is not a koryo_pbm Game")
    game = cls()
    if game.name != name:
        raise UnknownGame(f"game registered as {name!r} calls itself {game.name!r}")
    return game
