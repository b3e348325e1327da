"""The games a judge serves, and what it knows of each without reading it: the index.

A pass of the judge touches only the games that may have something to do (see
:class:`GameIndex`): one whose ``game.toml`` or ``inbox/`` changed since the judge last finished
with it, one with something due (a reminder, a deadline, a late reminder, a bot to play), one
that got mail, one with unsent mail. What the judge knows of the others (their game id and
addresses: enough to route a mail; the stamps of their file and inbox; when something is next
due) is kept in memory and in ``ROOT/.koryo-pbm-judge/games.json``, so that a judge started again
(by cron: ``serve --once``) reads no game that did not change.

The index is only a cache of the game files: a missing, damaged or foreign one is rebuilt from
them (every game read once); a game whose file or inbox does not match its entry is read again;
and every ``FULL_SCAN`` seconds each game is read again whatever its entry says (a change the
stamps cannot see: a file rewritten in place within one tick of the clock, with the same size).
A stamp taken less than ``RACY`` seconds after the file changed is not trusted (a second change
within the same tick of the file system's clock would keep it): the game is looked at again at
the next pass.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from koryo_pbm.errors import StorageError

if TYPE_CHECKING:  # (the judge's modules that the judge's helpers name in their types only)
    from collections.abc import Iterable

    from koryo_pbm.judge.incoming import ParsedMail
    from koryo_pbm.judge.limits import Limit, Limits
    from koryo_pbm.judge.messages import GameInfo, Outgoing

INDEX_FILE = "games.json"  # under the judge's state folder (limits.STATE_DIR)
INDEX_FORMAT = 1
FULL_SCAN = 3600.0  # seconds (real time) between passes that look at every game whatever the index says
RACY = 0.1  # seconds: a stamp this close to its file's change is looked at again at the next pass
NONE = (0, 0, 0)  # the stamp of a file or folder that is not there
Stamp = tuple[int, int, int]
Stamp2 = tuple[Stamp, Stamp]  # a game's file's, and its inbox folder's


def stamp(path: Path) -> Stamp:
    """What tells that a file changed: its modification time, size and inode."""
    try:
        st = path.stat()
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return st.st_mtime_ns, st.st_size, st.st_ino


def dir_stamp(path: Path) -> Stamp:
    """The stamp of a folder itself, not followed if a link (its time changes with its listing);
    ``NONE`` when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return NONE
    return st.st_mtime_ns, st.st_size, st.st_ino


@dataclass
class Seen:
    """The few public facts of one version of a game file that a pass asks of every game, kept
    from the last time the judge read or wrote it (``stamp``: the file's then): whether its
    mails and reports are owed, whether a bot is due. ``doc`` is the signed document without
    its state, log and sealed parts (at most a few kilobytes a game, not the whole file)."""

    stamp: Stamp
    doc: Any
    moved: bool  # the version moved the game on (a resolve wrote it): its state mails are owed


@dataclass
class GameRef:
    folder: Path
    path: Path
    tag: str
    game_id: str = ""
    emails: dict[str, str] = field(default_factory=dict)
    stamp: Stamp = NONE
    owed: Stamp | None = None  # the game file's stamp when its mails were last queued
    no_deadline: Stamp | None = None  # the file's stamp when its decision had no deadline
    seen: Seen | None = None  # what the judge last read or wrote of the file (see Judge._seen)
    clean: tuple[Stamp, Stamp] | None = None  # (game file, inbox) when the judge last finished with it
    due: float = math.inf  # when something is next due (a reminder, a deadline, a bot): looked at then
    pending: bool = True  # mail may wait in its outbox


class Host(Protocol):
    """The judge (:class:`koryo_pbm.judge.service.Judge`) as the modules it uses see it (``club``,
    ``reminders``): what they use of it."""

    root: Path
    identity: Any
    games: dict[Path, GameRef]
    from_header: str | None
    remind: timedelta

    def log(self, message: str, /) -> None: ...
    def other_folders(self) -> list[Path]: ...
    @property
    def _limits(self) -> Limits: ...
    def _now(self) -> datetime: ...
    def _once(self, what: str, message: str) -> None: ...
    def _by_id(self) -> dict[str, GameRef]: ...
    def _player_of(self, ref: GameRef, address: str | None) -> str | None: ...
    def _known_sender(self, parsed: ParsedMail, prefer: Iterable[GameRef] = ()) -> tuple[GameRef, str] | None: ...
    def _queue(self, ref: GameRef, out: Outgoing, automatic: str = "auto-replied") -> bool: ...
    def _queue_limited(self, ref: GameRef, out: Outgoing, parsed: ParsedMail, what: str,
                       limit: Limit = ...) -> bool: ...
    def _info(self, ref: GameRef, doc: Any = None) -> GameInfo: ...
    def _public(self, ref: GameRef) -> Any: ...


def moved(doc: Any) -> bool:
    """Whether this version of the game moved it on (a resolve wrote it, and its log says so),
    rather than only holding an order or changing an address."""
    return bool(doc.log) and int(doc.log[-1].get("version", 0)) == doc.version


def owed_since(last: int, version: int, moved: bool) -> bool:
    """Whether a player last told of version ``last`` (0: never) is owed a report or a state mail
    of ``version``: a version that moved the game on, or the first they get."""
    return last < version and (moved or last == 0)


class GameIndex:
    """The games under a root, and what is known of each: kept in memory between passes and in
    ``path`` between runs; which games a pass looks at (see the module's docstring)."""

    def __init__(self, root: Path, path: Path, remind: timedelta, watch: bool = True) -> None:
        from koryo_pbm.judge.watch import Watcher

        self.root, self.path, self.remind = Path(root), Path(path), remind
        self.listing: list[str] | None = None  # the root's names, as listed at root_stamp
        self.root_stamp: Stamp = NONE
        self.next_full = 0.0  # real time of the next full scan
        self.saved: str | None = None
        self.dirty_file = True  # the index on disk may differ from what is known
        self.loaded: dict[str, dict[str, Any]] = {}
        self.loaded_once = False
        self.watcher = Watcher.open() if watch else None
        self.stat_all = True  # the next pass compares every game's stamps (no watcher, or events lost)
        self.relist = True  # the root's listing changed (told by the watcher)
        self.dirty: set[Path] = set()  # games changed since the pass before (told by the watcher)
        self.due: list[tuple[float, str]] = []  # heap: (time, folder) of what is due when
        self.pending: set[Path] = set()  # games with mail waiting in their outbox

    def load(self, log: Any) -> None:
        """Read the index kept by the judge before (a missing, damaged or foreign one: ignored,
        said once, and rebuilt from the games)."""
        self.loaded_once = True
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            log(f"the judge's index {self.path} cannot be read ({exc}); every game is read again")
            return
        try:
            data = json.loads(text)
            if (not isinstance(data, dict) or data.get("format") != INDEX_FORMAT
                    or data.get("remind") != self.remind.total_seconds() or not isinstance(data.get("games"), dict)):
                raise ValueError("not this judge's")
            self.next_full = float(data["next_full"])
            self.loaded = {str(k): v for k, v in data["games"].items() if isinstance(v, dict)}
        except (ValueError, KeyError, TypeError) as exc:
            log(f"the judge's index {self.path} is not usable ({exc}); every game is read again")
            self.loaded, self.next_full = {}, 0.0
            return
        self.saved, self.dirty_file = text, False

    def ref_from_entry(self, folder: Path, name: str) -> GameRef | None:
        """A game the index knows, as it was when the judge last finished with it (None: not known)."""
        from koryo_pbm.store.folder import GAME_FILE

        e = self.loaded.pop(name, None)
        if e is None:
            return None
        try:
            game, inbox = tuple(int(x) for x in e["game"]), tuple(int(x) for x in e["inbox"])
            ref = GameRef(folder, folder / GAME_FILE, folder.name, game_id=str(e["id"]),
                          emails={str(k): str(v) for k, v in dict(e["emails"]).items()})
            if len(game) != 3 or len(inbox) != 3 or not ref.game_id:
                return None
            ref.stamp = (game[0], game[1], game[2])
            ref.clean = (ref.stamp, (inbox[0], inbox[1], inbox[2]))
            ref.owed = ref.stamp  # its mails were queued and its reports written at that stamp
            ref.no_deadline = None if e.get("deadline") else ref.stamp
            ref.pending = bool(e.get("pending", True))
            if ref.pending:
                self.pending.add(folder)
            self.set_due(ref, math.inf if e.get("due") is None else float(e["due"]))
        except (KeyError, TypeError, ValueError):
            return None
        return ref

    def names(self, full: bool) -> list[str] | None:
        """The root's names when they may have changed since the last call (listed again: at a full
        scan, when the root changed, the first time), else None."""
        if self.watcher is not None and not self.watcher.watching("root"):
            self.watcher.watch(str(self.root), "root")
            self.relist = True
        now_stamp = dir_stamp(self.root) if self.watcher is None or not self.watcher.watching("root") else NONE
        if not (full or self.listing is None or self.relist or now_stamp != self.root_stamp or _racy(now_stamp)):
            return None
        self.relist = False
        try:
            self.listing = sorted(os.listdir(self.root))
        except OSError as exc:
            raise StorageError(f"cannot list {self.root}: {exc.strerror or exc}") from None
        self.root_stamp = now_stamp
        return self.listing

    def track(self, ref: GameRef) -> None:
        """Watch a game's folder and inbox (when there is a watcher); a game that cannot be
        watched is compared by its stamps at every pass."""
        if self.watcher is None:
            return
        folder = str(ref.folder)
        if not self.watcher.watching(folder) and not self.watcher.watch(folder, folder):
            self.stat_all = True
        inbox = str(ref.folder / "inbox")
        if not self.watcher.watching(("inbox", folder)) and os.path.isdir(inbox):
            self.watcher.watch(inbox, ("inbox", folder))

    def forget(self, folder: Path) -> None:
        if self.watcher is not None:
            self.watcher.forget(str(folder))
            self.watcher.forget(("inbox", str(folder)))
        self.dirty_file = True

    def set_due(self, ref: GameRef, due: float) -> None:
        ref.due = due
        if not math.isinf(due):
            heapq.heappush(self.due, (due, str(ref.folder)))

    def pick(self, games: dict[Path, GameRef], now: float, full: bool) -> tuple[dict[Path, Stamp2], list[GameRef]]:
        """The games a pass looks at, with their stamps now (before the pass looks at them), and
        the games whose file could not be read."""
        from koryo_pbm.store.folder import GAME_FILE

        changes = self.watcher.changed() if self.watcher is not None else None
        if changes is None or full:
            self.stat_all = True
        else:
            for key, names in changes.items():
                if key == "root":
                    self.relist = True
                elif isinstance(key, tuple):
                    self.dirty.add(Path(key[1]))
                elif names & {GAME_FILE, "inbox", None}:
                    self.dirty.add(Path(str(key)))
        candidates: list[GameRef]
        if self.stat_all:
            self.stat_all = self.watcher is None
            candidates = list(games.values())
        else:
            candidates = [games[f] for f in self.dirty if f in games]
            while self.due and self.due[0][0] <= now:
                when, folder = heapq.heappop(self.due)
                ref = games.get(Path(folder))
                if ref is not None and ref.due == when:
                    candidates.append(ref)
        self.dirty.clear()
        busy: dict[Path, Stamp2] = {}
        gone = []
        for ref in candidates:
            try:
                stamps = self.stamps(ref)
            except StorageError:
                gone.append(ref)
                continue
            if full or ref.clean != stamps or now >= ref.due:
                busy[ref.folder] = stamps
                self.track(ref)  # (an inbox made since)
        return busy, gone

    def settle(self, ref: GameRef, stamps: Stamp2 | None, due: float, now: float) -> None:
        """The judge finished with ``ref`` at ``stamps`` (None: not finished: looked at again)."""
        if stamps is None:
            self.dirty_file |= ref.clean is not None
            ref.clean = None
            self.dirty.add(ref.folder)
            return
        self.dirty_file |= ref.clean != stamps or ref.due != due
        ref.clean = stamps
        if due != ref.due or due <= now:  # (taken from the heap when it comes: once each)
            self.set_due(ref, due)

    @staticmethod
    def stamps(ref: GameRef) -> Stamp2:
        """The stamps of the game's file and of its inbox folder now."""
        return stamp(ref.path), dir_stamp(ref.folder / "inbox")

    def save(self, refs: list[GameRef]) -> None:
        """Write the index (atomically; not when nothing in it changed)."""
        from koryo_pbm.store.atomic import write_atomic

        if not self.dirty_file:
            return
        games = {}
        for ref in refs:
            if ref.clean is None or not ref.game_id:
                continue
            games[ref.folder.name if ref.folder != self.root else "."] = {
                "id": ref.game_id, "emails": ref.emails, "game": list(ref.clean[0]), "inbox": list(ref.clean[1]),
                "due": None if math.isinf(ref.due) else ref.due, "pending": ref.pending,
                "deadline": ref.no_deadline != ref.clean[0]}
        text = json.dumps({"format": INDEX_FORMAT, "remind": self.remind.total_seconds(), "next_full": self.next_full,
                           "games": games}, sort_keys=True, separators=(",", ":"))
        self.dirty_file = False
        if text == self.saved:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, text.encode("utf-8"), 0o600)
        self.saved = text

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None


def settled(stamps: tuple[Stamp, Stamp]) -> bool:
    """Whether stamps taken now can be trusted to change with the next change (see ``RACY``)."""
    return not any(_racy(s) for s in stamps)


def _racy(s: Stamp) -> bool:
    return s != NONE and s[0] >= (time.time() - RACY) * 1e9


class Reports:
    """The versions of the reports (``report-PLAYER.txt``) the judge wrote, kept so as not to read
    them again while they are still the files it wrote (same time, size and inode)."""

    def __init__(self) -> None:
        self.kept: dict[Path, tuple[Stamp, int]] = {}

    def version(self, path: Path) -> int:
        """The version the report at ``path`` was written for (0: none yet)."""
        kept = self.kept.get(path)
        if kept is not None:
            try:
                st = os.stat(path)
            except OSError:
                st = None
            if st is not None and (st.st_mtime_ns, st.st_size, st.st_ino) == kept[0]:
                return kept[1]
            del self.kept[path]
        return report_version(path)

    def wrote(self, path: Path, data: bytes) -> None:
        """Remember the version of the report just written at ``path`` (read from ``data`` as
        :func:`report_version` reads the file)."""
        import io

        try:
            now = stamp(path)
        except StorageError:
            return
        self.kept[path] = (now, version_in(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").readline()))


def report_version(path: Path) -> int:
    """The version a report was written for (0: none yet)."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return 0
    return version_in(first)


def version_in(first: str) -> int:
    """The version named in a report's first line (0: none)."""
    marker = ", version "
    if marker not in first:
        return 0
    digits = first.split(marker, 1)[1].split(",", 1)[0]
    return int(digits) if digits.isdigit() else 0
