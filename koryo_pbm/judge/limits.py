"""The judge's rate limits: how often it may write to one address about one game on its own.

Anyone can put a player's address in a mail's ``From`` line, so whatever the judge answers
automatically could be used to flood that player. This module holds the judge's memory of what
it answered, so that each kind of automatic answer can be bounded per game and address, and a
thing that needs saying once (the receipt for one envelope) is said once:

    limits = Limits(root / STATE_DIR / "limits.json", clock=time.time, log=print)
    if limits.take(AUTOMATIC_ANSWER, game="friday", address="alice@example.org", why="a help reply"):
        ...  # queue the answer
    if limits.first("receipt", game="friday", key=envelope_digest):
        ...  # mail the receipt to the envelope's player (never again for this envelope)

``take`` is a sliding window: at most ``limit.count`` answers in any ``limit.per`` seconds per
(game, address, limit name); when it refuses, it logs one line naming the game, the address and
what was held back, so a rate-limited mail is never silently dropped from the moderator's view.
An answer is counted once it is queued, never before (one that cannot be queued, or was queued
already by a judge stopped before the mail it answers was marked handled, is not counted), and
``refund`` gives the count back when the outbox gives the mail up for good (an address that does
not exist): the window counts the answers that were delivered.
``first`` is true once per (name, game, key). Addresses are compared without regard to case
(see :func:`koryo_pbm.transport.address.same_address`).

The memory survives restarts (a judge run from cron starts afresh every few minutes): it is one
JSON file, rewritten atomically (:func:`koryo_pbm.store.atomic.write_atomic`) after each change
(or, with ``autosave=False``, at each :meth:`Limits.save`: the judge saves once per batch of
mails, before they leave their source) and pruned of windows that ended. A file that cannot be read (damaged, from a newer version) is
logged once and replaced: the limits start afresh, the judge goes on. Callers hold the judge's
lock on its root, so there is one writer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from koryo_pbm.errors import StorageError

STATE_DIR = ".koryo-pbm-judge"  # under the judge's root: the judge's own state (not a game)
LIMITS_FILE = "limits.json"
FORMAT = 1
MAX_FIRST = 100_000  # keys remembered by ``first`` per name and game (the oldest are forgotten)


@dataclass(frozen=True)
class Limit:
    """At most ``count`` answers of this kind per game and address in any ``per`` seconds."""

    name: str  # the key in the state file: "automatic-answer"
    count: int
    per: float  # seconds
    what: str = "automatic answers"  # how the log names them


AUTOMATIC_ANSWER = Limit("automatic-answer", 1, 3600.0, "automatic answers")
"""Answers to mails that bring no new envelope (help, copies of envelopes already counted,
refusals, unreadable envelopes, too large): one per game, address and hour."""


def _norm(address: str) -> str:
    return address.casefold()


@dataclass
class Limits:
    path: Path
    clock: Callable[[], float] = time.time
    log: Callable[[str], None] = print
    _windows: dict[str, list[float]] = field(default_factory=dict)  # "limit\0game\0address" -> times
    _first: dict[str, dict[str, float]] = field(default_factory=dict)  # "name\0game" -> key -> time
    _mails: dict[str, list] = field(default_factory=dict)  # outbox key of a counted mail -> [window key, time]
    autosave: bool = True  # write the file after each change; else only at save()
    _loaded: bool = False
    _dirty: bool = False
    _complained: set[str] = field(default_factory=set)

    # -- the API -------------------------------------------------------------------------------

    def allowed(self, limit: Limit, *, game: str, address: str) -> bool:
        """Would ``take`` allow it now? (Nothing is counted.)"""
        self._load()
        now = self.clock()
        times = [t for t in self._windows.get(self._wkey(limit, game, address), []) if now - t < limit.per]
        return len(times) < limit.count

    def take(self, limit: Limit, *, game: str, address: str, why: str = "", mail: str = "") -> bool:
        """Count one answer of ``limit``'s kind to ``address`` about ``game``: True if within
        the limit (and recorded), False if over it (logged, naming ``why``). Callers count an
        answer once it is queued (``allowed`` first, so that one held back is logged and nothing
        is built for it); ``mail``, the queued mail's outbox key, lets :meth:`refund` give the
        count back if that mail is never delivered."""
        self._load()
        now = self.clock()
        key = self._wkey(limit, game, address)
        times = [t for t in self._windows.get(key, []) if now - t < limit.per]
        if len(times) >= limit.count:
            self._windows[key] = times
            wait = max(0.0, limit.per - (now - min(times)))
            per = {3600.0: "hour", 86400.0: "day"}.get(limit.per) or _span(limit.per)
            self.log(f"rate limit: game {game}, {address}: {why or 'an answer'} not sent ({limit.what}: "
                     f"{limit.count} per {per}; the next one in {_span(wait)})")
            return False
        times.append(now)
        self._windows[key] = times
        if mail:
            self._mails[mail] = [key, now]
        self._changed()
        return True

    def refund(self, mail: str) -> bool:
        """The mail counted under outbox key ``mail`` was refused for good (it reached nobody):
        give its count back, so that the window counts what was delivered. True if it was counted."""
        self._load()
        entry = self._mails.pop(mail, None)
        if entry is None:
            return False
        key, when = entry
        times = self._windows.get(key, [])
        if when in times:
            times.remove(when)
        self._changed()
        return True

    def first(self, name: str, *, game: str, key: str) -> bool:
        """True the first time ``key`` is given for (``name``, ``game``), and recorded; False after."""
        self._load()
        seen = self._first.setdefault(f"{name}\0{game}", {})
        if key in seen:
            return False
        seen[key] = self.clock()
        if len(seen) > MAX_FIRST:
            for old in sorted(seen, key=seen.__getitem__)[: len(seen) - MAX_FIRST]:
                del seen[old]
        self._changed()
        return True

    def save(self) -> None:
        """Write what changed since the last save (with ``autosave`` off: the caller says when,
        e.g. once per batch of mails, before they are marked handled)."""
        if self._dirty:
            self._save()

    def seen(self, name: str, *, game: str, key: str) -> bool:
        """Was ``key`` given to ``first`` for (``name``, ``game``) before? (Nothing is recorded.)"""
        self._load()
        return key in self._first.get(f"{name}\0{game}", {})

    # -- the file --------------------------------------------------------------------------------

    @staticmethod
    def _wkey(limit: Limit, game: str, address: str) -> str:
        return f"{limit.name}\0{game}\0{_norm(address)}"

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.log(f"cannot read the rate limits {self.path}: {exc.strerror or exc}; they start afresh")
            return
        try:
            data = json.loads(raw)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}")
            windows = {str(k): [float(t) for t in v] for k, v in data["windows"].items()}
            first = {str(k): {str(kk): float(t) for kk, t in v.items()} for k, v in data["first"].items()}
            mails = {str(k): [str(v[0]), float(v[1])] for k, v in data.get("mails", {}).items()}  # since refunds
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            self.log(f"the rate limits {self.path} cannot be read ({str(exc)[:80]}); they start afresh")
            return
        self._windows, self._first, self._mails = windows, first, mails

    def _changed(self) -> None:
        self._dirty = True
        if self.autosave:
            self._save()

    def _save(self) -> None:
        from koryo_pbm.store.atomic import write_atomic

        self._dirty = False
        now = self.clock()
        longest = 7 * 24 * 3600.0  # no limit spans more than a week: older times only take room
        self._windows = {k: [t for t in v if now - t < longest] for k, v in self._windows.items()}
        self._windows = {k: v for k, v in self._windows.items() if v}
        self._mails = {k: v for k, v in self._mails.items() if now - v[1] < longest}
        data = {"format": FORMAT, "windows": self._windows, "first": self._first, "mails": self._mails}
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(data, sort_keys=True).encode("utf-8"), mode=0o600)
        except (OSError, StorageError) as exc:
            # the limits hold in memory for this run; a judge started again may answer once more
            # (never less: what was queued is in the outbox, and nothing is lost)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            if reason not in self._complained:
                self._complained.add(reason)
                self.log(f"cannot save the rate limits in {self.path}: {reason}; kept in memory for now")


def _span(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 3600 or (seconds % 3600 and seconds < 7200):
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"
