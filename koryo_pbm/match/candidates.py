"""What resolve works on and reports: a :class:`Candidate` (one envelope found, and what became
of it), the :class:`Resolution` of a run, and the lines that describe candidates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from koryo_pbm.engine.contract import Decision, Event
from koryo_pbm.errors import KoryoPbmError
from koryo_pbm.store.gamefile import GameDoc

# Envelopes of one player for one decision that one resolve reads: the latest ones by their
# signed submission time. More are set aside unread (archive/set-aside): resolve's cost stays
# linear in the inbox whatever a player puts there.
MAX_PER_DECISION = 16


@dataclass
class Candidate:
    """One envelope found by resolve, and what became of it."""

    source: str  # a path in the inbox or a mail location, for messages
    envelope: Any  # Envelope | None (None when it could not be parsed)
    error: KoryoPbmError | None = None
    path: Path | None = None  # set for inbox files: they are archived
    sha256: str | None = None  # of the inbox file's bytes as read (archived only if unchanged)
    status: str = "pending"  # accepted | held | rejected | duplicate | superseded | late | skipped | set-aside
    reason: str = ""
    conflict: bool = False
    link: bool = False  # an inbox entry that is a symbolic link: skipped, never read nor moved
    replaces: str | None = None  # digest of the same player's earlier orders this one replaced


@dataclass
class Resolution:
    """What one resolve run did."""

    applied: list[tuple[Decision, list[Event]]] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    written: bool = False
    doc: GameDoc | None = None
    no_envelope: list[str] = field(default_factory=list)  # mails read (resolve --mail) that held none

    @property
    def rejected(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "rejected"]

    @property
    def skipped(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "skipped"]

    @property
    def set_aside(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "set-aside"]


def describe_candidates(cands: Iterable[Candidate]) -> list[str]:
    """One line per candidate; what a player chose (file names, reasons) escaped for a terminal."""
    from koryo_pbm.printable import printable

    lines = []
    for c in cands:
        who = f"{c.envelope.player} for {c.envelope.decision}" if c.envelope is not None else "?"
        extra = f" ({c.reason})" if c.reason else ""
        lines.append(printable(f"{c.status:<10} {who}: {c.source}{extra}"))
    return lines
