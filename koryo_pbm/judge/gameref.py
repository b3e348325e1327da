"""What the judge keeps of each game folder it serves between passes (:class:`GameRef`), and of the
version of its file it last read or wrote (:class:`Seen`): plain values, shared by the judge
(:mod:`koryo_pbm.judge.service`) and its club hooks (:mod:`koryo_pbm.judge.club`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class GameRef:
    folder: Path
    path: Path
    tag: str
    game_id: str = ""
    emails: dict[str, str] = field(default_factory=dict)
    stamp: tuple[int, int, int] = (0, 0, 0)
    owed: tuple[int, int, int] | None = None  # the game file's stamp when its mails were last queued
    no_deadline: tuple[int, int, int] | None = None  # the file's stamp when its decision had no deadline
    seen: Seen | None = None  # what the judge last read or wrote of the file (see Judge._seen)


@dataclass
class Seen:
    """The few public facts of one version of a game file that a pass asks of every game, kept
    from the last time the judge read or wrote it (``stamp``: the file's then): whether its
    mails and reports are owed, whether a bot is due. ``doc`` is the signed document without
    its state, log and sealed parts (at most a few kilobytes a game, not the whole file)."""

    stamp: tuple[int, int, int]
    doc: Any
    moved: bool  # the version moved the game on (a resolve wrote it): its state mails are owed
