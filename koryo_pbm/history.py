"""What happened: a game's public log as a history in parts (rounds), and a score breakdown.

Pure: from the log entries of a game file (each the public event texts of one decision, with
the version that decision produced) to sections the command line prints. The game decides
what a part is (:meth:`~koryo_pbm.engine.contract.Game.log_section`); the engine knows no game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import Game
from koryo_pbm.values import Frozen, Value


class Event(Frozen):
    """One logged event: its text, the decision it followed, the version that logged it."""

    _fields = ("version", "decision", "text")
    version: int
    decision: str
    text: str

    def __init__(self, version: int, decision: str, text: str) -> None:
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "text", text)

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "decision": self.decision, "text": self.text}


class Section(Value):
    """A part of the match (``"round 3"``; ``None`` for a game without parts) and its events.
    ``opened_by`` is the event that began it when an event did (printed as its heading)."""

    _fields = ("title", "events", "opened_by")
    title: str | None
    events: list[Event]
    opened_by: Event | None

    def __init__(self, title: str | None, events: list[Event] | None = None, opened_by: Event | None = None) -> None:
        self.title = title
        self.events = [] if events is None else events
        self.opened_by = opened_by

    def lines(self) -> list[str]:
        """The section as text: its heading (the event that opened it, or its title), then
        its events indented."""
        if self.opened_by is not None and self.events and self.events[0] is self.opened_by:
            return [self.opened_by.text] + [f"  {e.text}" for e in self.events[1:]]
        return ([self.title] if self.title else []) + [f"  {e.text}" for e in self.events]

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "events": [e.to_dict() for e in self.events]}


def log_events(log: Iterable[Mapping[str, Any]]) -> list[tuple[int, str, list[str]]]:
    """``(version, decision, event texts)`` of each entry of a game file's log."""
    return [(int(e["version"]), str(e["decision"]), [str(t) for t in e["events"]]) for e in log]


def sections(game: Game, players: Sequence[str], entries: Iterable[tuple[int, str, Sequence[str]]],
             *, since: int = 0) -> list[Section]:
    """The history in parts, only the events logged by versions after ``since``.

    Parts are worked out over the whole log, so that a history starting in the middle of a
    round still says which round it is."""
    out: list[Section] = []
    current = Section(None)

    def begin(title: str | None, opener: Event | None = None) -> Section:
        nonlocal current
        current = Section(title, opened_by=opener)
        out.append(current)
        return current

    for version, decision, texts in entries:
        title = game.log_section(decision, None, players)
        if not out or (title is not None and title != current.title):
            begin(title)
        for text in texts:
            event = Event(version, decision, text)
            opens = game.log_section(decision, text, players)
            section = current
            if opens is not None and opens != section.title:
                section = begin(opens, event)
            elif opens is not None and not section.events and section.opened_by is None:
                section.opened_by = event
            section.events.append(event)
    kept = []
    for s in out:
        s.events = [e for e in s.events if e.version > since]
        if s.events:
            kept.append(s)
    return kept


def text_lines(parts: Sequence[Section], *, limit: int | None = None) -> tuple[list[str], int]:
    """The sections as lines; with ``limit``, only the last ``limit`` events (and their
    headings). Returns the lines and how many earlier events were left out."""
    if limit is None:
        return [line for s in parts for line in s.lines()], 0
    total = sum(len(s.events) for s in parts)
    skip = max(0, total - limit)
    lines: list[str] = []
    left = skip
    for s in parts:
        if left >= len(s.events):
            left -= len(s.events)
            continue
        if left:
            lines.append(f"{s.title} (continued)" if s.title else "…")
            lines += [f"  {e.text}" for e in s.events[left:]]
            left = 0
        else:
            lines += s.lines()
    return lines, skip


def breakdown_sides(rows: Sequence[Mapping[str, Any]], players: Sequence[str],
                    scores: Mapping[str, int]) -> list[tuple[str, int, list[Mapping[str, Any]]]]:
    """A score breakdown (:meth:`Game.score_breakdown` rows) by side: ``(who, score, rows)`` for
    each player in seat order, a side of teammates once (``alice + bob``) when its rows name the
    ``side``."""
    out: list[tuple[str, int, list[Mapping[str, Any]]]] = []
    told: set[str] = set()
    for q in players:
        if q in told:  # a teammate: the side's score was told once
            continue
        mine = [r for r in rows if r.get("player") == q]
        side = [str(m) for m in (mine[0].get("side") or [q])] if mine else [q]
        told.update(side)
        out.append((" + ".join(side), scores.get(q, sum(r["points"] for r in mine)), mine))
    return out


def breakdown_lines(rows: Sequence[Mapping[str, Any]], players: Sequence[str],
                    scores: Mapping[str, int]) -> list[str]:
    """A score breakdown (:meth:`Game.score_breakdown` rows) as lines, player by player (a side
    of teammates once, when its rows name the ``side``)."""
    lines = ["score breakdown:"]
    for who, score, mine in breakdown_sides(rows, players, scores):
        lines.append(f"  {who}: {score}")
        for r in mine:
            lines.append(f"    {_signed(r['points'])}  {r['what']}")
        if not mine:
            lines.append("    nothing scored")
    notes = [r for r in rows if not r.get("player")]
    for r in notes:
        lines.append(f"  ({r['what']})")
    return lines


def _signed(n: int) -> str:
    return f"{n:+d}".rjust(3)
