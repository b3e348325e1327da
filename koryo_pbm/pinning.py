"""What this machine has seen of each game: the moderator's key and the history, pinned.

Trust logic, not command-line glue: the commands call :func:`pin` with each game file they
read and say what it returns; nothing here prints.

Per game, ``$KORYO_PBM_HOME/seen/<game_id>.toml`` holds the moderator's key fingerprint, the
date it was first seen, and the latest version seen with the head of its history (the hash of
its last log entry), the length of its log, the decision it waited for and the digest of the
file (of its player copy: the whole file and the copy the judge mails are one file);
``$KORYO_PBM_HOME/pinned/<game_id>.toml`` is a copy of that file, byte for byte as read (line
endings as signed). A game file read later is one of:

* **the same file** (or the same file with CRLF line endings): nothing to say;
* **a newer version that extends the history seen** (the pinned head at its place): pinned;
* **an older version whose history is a prefix of the one seen** (last week's mail, a stale
  synced copy): nobody's fault. :class:`Older` says so, with both version numbers and where
  the newer copy is, and whether the decision the older file waits for is resolved already
  (a player's tools must not answer it);
* **two different histories** (a file of the same version with another head, a newer one
  that does not extend the history seen, an older one that is not in it): refused with both
  heads and the log entry where they part. That is proof the moderator signed both (keep both
  files); it is said only when the two signed files show it;
* **another file of the version seen** (same history, other public state or sealed parts):
  refused, proof of equivocation too;
* **the pinned copy missing or damaged**: the pin alone (version, head, log length) still
  checks a newer file; an older one is said to be older, and that whether it is in the same
  history cannot be checked here. The copy is written anew from the next file that matches
  the pin.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from koryo_pbm.errors import KoryoPbmError, StaleError, StorageError, TamperedError
from koryo_pbm.store import gamefile, gamelog, playercopy
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.values import ID, Frozen, Value, is_sha256, keep, shaped


def _is_date(value: str) -> bool:
    """``\\d{4}-\\d{2}-\\d{2}``"""
    return shaped(value, "9999-99-99")


KEEP = "keep both files: together they prove it (both carry the moderator's signature)"


def seen_dir() -> Path:
    from koryo_pbm.crypto.keys import keyring_dir

    return keyring_dir().parent / "seen"


def seen_path(game_id: str) -> Path:
    """The pin of a game: ``$KORYO_PBM_HOME/seen/<game_id>.toml``."""
    return seen_dir() / f"{game_id}.toml"


def pinned_copy(game_id: str) -> Path:
    """Where the game file last pinned is kept: ``$KORYO_PBM_HOME/pinned/<game_id>.toml``."""
    return seen_dir().parent / "pinned" / f"{game_id}.toml"


def short(h: str) -> str:
    """A head as players compare it: its first 16 hex digits."""
    return h.removeprefix("sha256:")[:16]


def file_digest(data: bytes | None) -> str | None:
    """The identity of a game file's version (:func:`~koryo_pbm.store.playercopy.file_identity`):
    SHA-256 of its player copy, line endings as signed (a copy whose line endings a mail client
    turned into CRLF is the same file, and so is the whole file the moderator keeps)."""
    return None if data is None else playercopy.file_identity(data)


def as_signed(data: bytes) -> bytes:
    """The bytes the moderator signed: a game file never holds a CR, so CRLF is a mail client's."""
    return data.replace(b"\r\n", b"\n")


class Pin(Frozen):
    """The memory of one game (see the module docstring); fields ``None`` when not recorded."""

    _fields = ("moderator", "first_seen", "version", "head", "log_length", "decision", "file")
    moderator: str | None
    first_seen: str | None
    version: int | None
    head: str | None
    log_length: int | None
    decision: str | None  # the decision the version seen waited for ("" when over)
    file: str | None

    def __init__(self, moderator: str | None = None, first_seen: str | None = None, version: int | None = None,
                 head: str | None = None, log_length: int | None = None, decision: str | None = None,
                 file: str | None = None) -> None:
        set_ = object.__setattr__
        set_(self, "moderator", moderator)
        set_(self, "first_seen", first_seen)
        set_(self, "version", version)
        set_(self, "head", head)
        set_(self, "log_length", log_length)
        set_(self, "decision", decision)
        set_(self, "file", file)

    @property
    def has_history(self) -> bool:
        return self.version is not None and self.head is not None and self.log_length is not None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any, fits: Callable[[str], bool] | None = None) -> str | None:
    if not isinstance(value, str) or (fits is not None and not fits(value)):
        return None
    return value


def read_pin(game_id: str) -> tuple[Pin, str | None]:
    """The pin of ``game_id`` and a note when it was unreadable (it is then started anew)."""
    pin_, _, note = _read_pin(seen_path(game_id))
    return pin_, note


def _read_pin(path: Path) -> tuple[Pin, str | None, str | None]:
    """The pin kept at ``path`` (:func:`seen_path`), the text it was read from (``None`` when
    there is none or it cannot be read: :func:`_record` then writes it) and a note when it is
    unreadable (it is then started anew)."""
    try:
        text = path.read_text(encoding="utf-8")
        found = _parsed.get(text)
        if found is not None:  # the same text read again (resolve pins the file it read, then the one it wrote)
            return found, text, None
        table = tomllib.loads(text)
    except FileNotFoundError:
        return Pin(), None, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return Pin(), None, f"the memory of games seen ({path}) is unreadable; starting it anew"
    decision = table.get("decision")
    found = Pin(
        moderator=_text(table.get("moderator")),
        first_seen=_text(table.get("first_seen"), _is_date),
        version=_int(table.get("version")),
        head=_text(table.get("head"), is_sha256),
        log_length=_int(table.get("log_length")),
        decision=decision if decision == "" else _text(decision, ID.fits),
        file=_text(table.get("file"), is_sha256),
    )
    keep(_parsed, text, found, 8)
    return found, text, None


_parsed: dict[str, Pin] = {}  # the last pins read, by their text (a pin is a function of its text)


def _pin_text(doc: GameDoc, head: str, first_seen: str, digest: str | None) -> str:
    decision = doc.decision["id"] if doc.decision else ""
    return (f'game_id = "{doc.game_id}"\nmoderator = "{doc.moderator.fingerprint()}"\nversion = {doc.version}\n'
            f'head = "{head}"\nlog_length = {len(doc.log)}\ndecision = "{decision}"\n'
            f'first_seen = "{first_seen}"\n' + (f'file = "{digest}"\n' if digest is not None else ""))


# -- the pinned copy ---------------------------------------------------------------------------


class Copy(Frozen):
    """The pinned copy as found: the document when it holds the version pinned, else why not."""

    _fields = ("path", "doc", "problem")
    path: Path
    doc: GameDoc | None
    problem: str | None  # "missing", or "damaged (...)"

    def __init__(self, path: Path, doc: GameDoc | None, problem: str | None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "problem", problem)

    @property
    def where(self) -> str:
        if self.doc is not None:
            return f"the copy you saw is {self.path}"
        if self.problem == "missing":
            return f"you saw it on this machine ({self.path} is gone)"
        return f"you saw it on this machine ({self.path} is {self.problem})"


def read_copy(doc: GameDoc, pin: Pin) -> Copy:
    """The pinned copy of ``doc``'s game, checked against the pin: the moderator's signature,
    the game, the version, the head and the digest pinned."""
    path = pinned_copy(doc.game_id)
    try:
        data = gamefile.read_game_bytes(path)
    except FileNotFoundError:
        return Copy(path, None, "missing")
    except KoryoPbmError as exc:
        if not path.exists() and not path.is_symlink():
            return Copy(path, None, "missing")
        return Copy(path, None, f"damaged ({exc})")
    except OSError as exc:
        return Copy(path, None, f"damaged ({exc.strerror or exc})")
    try:
        kept = gamefile.decode_remembered(data, expected_moderator=doc.moderator, source=f"the pinned copy {path}")
    except KoryoPbmError as exc:
        return Copy(path, None, f"damaged ({exc})")
    if kept.game_id != doc.game_id:
        return Copy(path, None, f"damaged (it is a file of game {kept.game_id})")
    if kept.version != pin.version or gamelog.head(kept) != pin.head:
        return Copy(path, None, f"damaged (it holds version {kept.version}, not the version {pin.version} seen)")
    if pin.file is not None and file_digest(data) != pin.file:
        return Copy(path, None, f"damaged (it is another file of version {pin.version} than the one seen)")
    return Copy(path, kept, None)


# -- comparing histories -----------------------------------------------------------------------


def parting(mine: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> int:
    """The number (from 1) of the first log entry where two histories differ; one longer than
    the other with every common entry equal parts at the entry after the shorter one's end."""
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a.get("hash") != b.get("hash"):
            return i + 1
    return min(len(mine), len(theirs)) + 1


def _is_prefix(doc: GameDoc, newer: GameDoc) -> bool:
    """Whether ``doc``'s history is the start of ``newer``'s (the same game before a decision
    was resolved, when ``doc`` has no log entry yet)."""
    n = len(doc.log)
    if n == 0:
        return (doc.seed_commitment, doc.moderator, list(doc.players)) == (
            newer.seed_commitment, newer.moderator, list(newer.players))
    return len(newer.log) >= n and newer.log[n - 1].get("hash") == gamelog.head(doc)


def _two_histories(doc: GameDoc, pin: Pin, copy: Copy, entry: str) -> TamperedError:
    return TamperedError(
        f"the moderator signed two different histories of game {doc.game_id}: version {doc.version} here has "
        f"head {short(gamelog.head(doc))}, the version {pin.version} you saw has head {short(str(pin.head))}; "
        f"they part at {entry}; {copy.where}; {KEEP}")


def _entry_name(log: list[dict[str, Any]], k: int) -> str:
    decision = log[k - 1].get("decision") if 0 < k <= len(log) else None
    return f"log entry {k}" + (f" ({decision})" if isinstance(decision, str) else "")


def _parting_entry(doc: GameDoc, pin: Pin, copy: Copy) -> str:
    """Where ``doc``'s history and the pinned one part, as precisely as this machine knows."""
    if copy.doc is not None:
        k = parting(doc.log, copy.doc.log)
        return _entry_name(doc.log if k <= len(doc.log) else copy.doc.log, k)
    length = int(pin.log_length or 0)
    if len(doc.log) >= length > 0:
        return f"log entry {length} or before"
    return f"log entry {min(len(doc.log), length) + 1} or before"


# -- pinning -----------------------------------------------------------------------------------


class Older(Frozen):
    """A file older than the version seen here whose history is not proven another (see
    :func:`pin`): the newer copy's path, and whether this file's decision is resolved already."""

    _fields = ("game_id", "version", "seen_version", "copy", "copy_problem", "decision", "resolved")
    game_id: str
    version: int
    seen_version: int
    copy: Path
    copy_problem: str | None  # None: the copy holds the version seen and this file is in its history
    decision: str | None  # what this file waits for (None: over)
    resolved: bool  # that decision is resolved in the history seen (or cannot be told from it)

    def __init__(self, game_id: str, version: int, seen_version: int, copy: Path, copy_problem: str | None,
                 decision: str | None, resolved: bool) -> None:
        set_ = object.__setattr__
        set_(self, "game_id", game_id)
        set_(self, "version", version)
        set_(self, "seen_version", seen_version)
        set_(self, "copy", copy)
        set_(self, "copy_problem", copy_problem)
        set_(self, "decision", decision)
        set_(self, "resolved", resolved)

    def sentence(self) -> str:
        """What ``show``, ``status``, ``log`` and ``play`` say of it."""
        text = (f"game {self.game_id}: this file is version {self.version}, older than the version "
                f"{self.seen_version} you saw")
        if self.copy_problem is None:
            return (f"{text}; it is part of the same history (an old mail or a stale copy: nobody's fault); "
                    f"the newer copy is {self.copy}")
        return (f"{text}; the copy of version {self.seen_version} kept at {self.copy} is {self.copy_problem}, so "
                "whether this file is part of the same history cannot be checked here; get the latest game file")

    def refusal(self) -> str:
        """Why ``orders``, ``submit`` and ``play`` refuse to answer this file."""
        where = (f"answer the newer copy ({self.copy})" if self.copy_problem is None
                 else "get the latest game file from your moderator")
        return (f"game {self.game_id}: this file is version {self.version}, older than the version "
                f"{self.seen_version} you saw, and its decision {self.decision} is resolved already: {where}")


class Sight(Value):
    """What :func:`pin` found: the date the key was first seen, an older file, notes to warn."""

    _fields = ("first_seen", "older", "notes")
    first_seen: str
    older: Older | None
    notes: list[str]

    def __init__(self, first_seen: str, older: Older | None = None, notes: list[str] | None = None) -> None:
        self.first_seen = first_seen
        self.older = older
        self.notes = [] if notes is None else notes


def pin(doc: GameDoc, data: bytes | None, *, strict: bool = False, today: str | None = None) -> Sight:
    """Check ``doc`` (read from the bytes ``data``, or ``None`` when they are not at hand)
    against what this machine saw of its game, and pin it when it is the latest.

    Raises ``TamperedError`` for another moderator key, two histories or two files of one
    version; ``StaleError`` for an older file when ``strict`` (the moderator's commands:
    resolving from an older state would fork the game). ``today`` (``YYYY-MM-DD``) is the date
    a game first seen is pinned with (default: the clock's)."""
    path = seen_path(doc.game_id)
    pin_, pinned, note = _read_pin(path)
    notes = [note] if note else []
    fingerprint = doc.moderator.fingerprint()
    first_seen = pin_.first_seen or today or datetime.now(UTC).strftime("%Y-%m-%d")
    if pin_.moderator is not None and pin_.moderator != fingerprint:
        raise TamperedError(
            f"game {doc.game_id} is now signed by moderator key {fingerprint}, but it was signed by "
            f"{pin_.moderator} before: this file is not from your moderator (delete {path} if the key really changed)")
    sight = Sight(first_seen, notes=notes)
    digest = file_digest(data)
    mine = gamelog.head(doc)
    if pin_.has_history:
        assert pin_.version is not None and pin_.log_length is not None
        if doc.version < pin_.version:
            sight.older = _older(doc, pin_)
            if strict:
                raise StaleError(
                    f"game {doc.game_id}: this file is version {doc.version}, older than the version {pin_.version} "
                    f"you saw (the newer copy is {sight.older.copy}); refusing to resolve from it (put the latest game "
                    f"file back, or delete {path} if you really mean to go on from this one)")
            return sight
        copy: Copy | None = None
        if doc.version == pin_.version and mine != pin_.head:
            copy = read_copy(doc, pin_)
            raise _two_histories(doc, pin_, copy, _parting_entry(doc, pin_, copy))
        if doc.version == pin_.version and digest is not None and pin_.file is not None and digest != pin_.file:
            copy = read_copy(doc, pin_)
            raise TamperedError(
                f"the moderator signed two different files of version {pin_.version} of game {doc.game_id}: the same "
                f"history, but another public state or other sealed parts (file {short(digest)}, you saw "
                f"{short(pin_.file)}); {copy.where}; {KEEP}")
        if doc.version > pin_.version:
            length = pin_.log_length
            extends = (len(doc.log) > 0 or mine == pin_.head) if length == 0 else (
                len(doc.log) >= length and doc.log[length - 1].get("hash") == pin_.head)
            if not extends:
                copy = read_copy(doc, pin_)
                raise _two_histories(doc, pin_, copy, _parting_entry(doc, pin_, copy))
    _record(doc, data, digest, pin_, first_seen, sight, path=path, pinned=pinned, head=mine)
    return sight


def _older(doc: GameDoc, pin_: Pin) -> Older:
    """An older file: in the history seen (said so), in another (refused), or not checkable."""
    copy = read_copy(doc, pin_)
    length = int(pin_.log_length or 0)
    decision = doc.decision["id"] if doc.decision else None
    if copy.doc is not None:
        if not _is_prefix(doc, copy.doc) or len(doc.log) > len(copy.doc.log):
            raise _two_histories(doc, pin_, copy, _parting_entry(doc, pin_, copy))
        newer = copy.doc.decision["id"] if copy.doc.decision else None
        return Older(doc.game_id, doc.version, int(pin_.version or 0), copy.path, None, decision,
                     decision is not None and newer != decision)
    if len(doc.log) > length or (len(doc.log) == length and gamelog.head(doc) != pin_.head):
        # an older version with more history than the one seen, or another at the same length
        raise _two_histories(doc, pin_, copy, _parting_entry(doc, pin_, copy))
    if pin_.decision is not None:
        resolved = decision is not None and pin_.decision != decision
    else:  # pinned before the decision was: a longer history seen resolved this file's decision
        resolved = decision is not None and len(doc.log) < length
    return Older(doc.game_id, doc.version, int(pin_.version or 0), copy.path, copy.problem, decision, resolved)


def _record(doc: GameDoc, data: bytes | None, digest: str | None, pin_: Pin, first_seen: str, sight: Sight, *,
            path: Path, pinned: str | None, head: str) -> None:
    """Pin ``doc`` (the latest seen; its ``head``) at ``path``, which held the text ``pinned``, and
    keep its bytes as the pinned copy; a note when this machine cannot (remembering is a help,
    not a condition)."""
    from koryo_pbm.store.atomic import write_atomic

    copy = pinned_copy(doc.game_id)
    same = pin_.version == doc.version
    if digest is None and same:
        digest = pin_.file  # this file was not read from disk here: keep the digest pinned
    text = _pin_text(doc, head, first_seen, digest)
    write_copy = data is not None and (not same or not _copy_holds(copy, data, digest))
    if pinned == text and not write_copy:
        return
    try:
        if write_copy:
            assert data is not None
            copy.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(copy, as_signed(data))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text.encode("utf-8"))
    except (OSError, StorageError) as exc:
        sight.notes.append(f"cannot record game {doc.game_id} as seen ({getattr(exc, 'strerror', None) or exc})")


def _copy_holds(copy: Path, data: bytes, digest: str | None) -> bool:
    """Whether the pinned copy is the file ``data`` (whose :func:`file_digest` is ``digest``):
    its bytes as signed, or another file of the same digest (the whole file for its player copy).
    Equal bytes need no digest: the pinned copy is usually the very file read."""
    try:
        kept = gamefile.read_game_bytes(copy)
    except (KoryoPbmError, OSError):
        return False
    return kept == as_signed(data) or file_digest(kept) == digest
