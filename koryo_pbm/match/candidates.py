"""What resolve works on and reports: a :class:`Candidate` (one envelope found, and what became
of it), the :class:`Resolution` of a run, and the lines that describe candidates."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from koryo_pbm.engine.contract import Decision, Event
from koryo_pbm.errors import KoryoPbmError
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.values import Value

# Envelopes of one player for one decision that one resolve reads: the latest ones by their
# signed submission time. More are set aside unread (archive/set-aside): resolve's cost stays
# linear in the inbox whatever a player puts there.
MAX_PER_DECISION = 16


class Candidate(Value):
    """One envelope found by resolve, and what became of it."""

    _fields = ("source", "envelope", "error", "path", "sha256", "status", "reason", "conflict", "link", "replaces")
    source: str  # a path in the inbox or a mail location, for messages
    envelope: Any  # Envelope | None (None when it could not be parsed)
    error: KoryoPbmError | None
    path: Path | None  # set for inbox files: they are archived
    sha256: str | None  # of the inbox file's bytes as read (archived only if unchanged)
    status: str  # accepted | held | rejected | duplicate | superseded | late | skipped | set-aside
    reason: str
    conflict: bool
    link: bool  # an inbox entry that is a symbolic link: skipped, never read nor moved
    replaces: str | None  # digest of the same player's earlier orders this one replaced

    def __init__(self, source: str, envelope: Any, error: KoryoPbmError | None = None, path: Path | None = None,
                 sha256: str | None = None, status: str = "pending", reason: str = "", conflict: bool = False,
                 link: bool = False, replaces: str | None = None) -> None:
        self.source = source
        self.envelope = envelope
        self.error = error
        self.path = path
        self.sha256 = sha256
        self.status = status
        self.reason = reason
        self.conflict = conflict
        self.link = link
        self.replaces = replaces


class Resolution(Value):
    """What one resolve run did."""

    _fields = ("applied", "candidates", "written", "doc", "no_envelope")
    applied: list[tuple[Decision, list[Event]]]
    candidates: list[Candidate]
    written: bool
    doc: GameDoc | None
    no_envelope: list[str]  # mails read (resolve --mail) that held none

    def __init__(self, applied: list[tuple[Decision, list[Event]]] | None = None,
                 candidates: list[Candidate] | None = None, written: bool = False, doc: GameDoc | None = None,
                 no_envelope: list[str] | None = None) -> None:
        self.applied = [] if applied is None else applied
        self.candidates = [] if candidates is None else candidates
        self.written = written
        self.doc = doc
        self.no_envelope = [] if no_envelope is None else no_envelope

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
