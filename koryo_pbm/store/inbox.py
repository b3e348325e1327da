"""The shared-folder transport: ``DIR/inbox`` where envelopes arrive, ``DIR/archive`` where
processed ones are kept (moved, never deleted, never overwritten).

A player's envelope for a decision is ``inbox/<decision>--<player>.envelope``; submitting again
replaces the file, which is how "submitting again before the resolve replaces the earlier
orders" works in a shared folder. Sync tools sometimes keep both versions as *conflict copies*
(Dropbox ``name (conflicted copy 2026-01-02).envelope`` or ``name (1).envelope``, Syncthing
``name.sync-conflict-20260102-123456-ABCDEF.envelope``): they are listed too, flagged
``conflict``, since each may be a valid envelope (the later ``submitted`` wins).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from koryo_pbm.crypto.envelope import MAX_ARMORED, Envelope, parse_one
from koryo_pbm.crypto.keys import sha256_hex
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError
from koryo_pbm.store.atomic import is_temp_name, read_limited, write_atomic

INBOX = "inbox"
ARCHIVE = "archive"
SUFFIX = ".envelope"
GAME_FILE = "game.toml"
MAX_ENVELOPE_FILE = MAX_ARMORED + 16 * 1024  # the armour plus some surrounding text

_CONFLICT_PATTERNS = (
    re.compile(r" \([^()]*conflicted copy[^()]*\)", re.IGNORECASE),  # Dropbox, Nextcloud
    re.compile(r" \(\d+\)$"),  # Dropbox / OneDrive "name (1)"
    re.compile(r"\.sync-conflict-\d{8}-\d{6}(-[A-Za-z0-9]+)?", re.IGNORECASE),  # Syncthing
)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_STATUS = re.compile(r"[a-z][a-z0-9_-]{0,31}")


class _Item(NamedTuple):
    path: Path
    envelope: Envelope | FormatError


class InboxItem(_Item):
    """``(path, envelope or FormatError)``, with ``conflict`` set for sync-conflict copies and
    ``sha256`` the hash of the bytes read (``None`` when the file could not be read)."""

    conflict: bool
    sha256: str | None

    def __new__(cls, path: Path, envelope: Envelope | FormatError, conflict: bool = False,
                sha256: str | None = None) -> InboxItem:
        self = super().__new__(cls, path, envelope)
        self.conflict = conflict
        self.sha256 = sha256
        return self

    def __repr__(self) -> str:
        return f"InboxItem({self.path!r}, {self.envelope!r}, conflict={self.conflict})"


def inbox_dir(game_dir: Path) -> Path:
    return Path(game_dir) / INBOX


def archive_dir(game_dir: Path) -> Path:
    return Path(game_dir) / ARCHIVE


def is_conflict_name(name: str) -> bool:
    """True if ``name`` (a file name) looks like a sync tool's conflict copy."""
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return any(p.search(stem) or p.search(name) for p in _CONFLICT_PATTERNS)


def envelope_name(envelope: Envelope) -> str:
    """The inbox file name of an envelope: ``<decision>--<player>.envelope``."""
    return f"{_UNSAFE.sub('_', envelope.decision)}--{_UNSAFE.sub('_', envelope.player)}{SUFFIX}"


def drop(game_dir: Path, envelope: Envelope) -> Path:
    """Write ``envelope`` into the inbox atomically, replacing an earlier one of the same player
    for the same decision. Returns the path written."""
    folder = inbox_dir(game_dir)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the inbox {folder}: {exc.strerror or exc}") from None
    path = folder / envelope_name(envelope)
    write_atomic(path, envelope.armor().encode("ascii"))
    return path


def read_envelope_file(path: Path) -> Envelope:
    """The one envelope in the file ``path`` (``FormatError`` / ``StorageError`` otherwise)."""
    return _parse_envelope_file(read_limited(path, MAX_ENVELOPE_FILE, "envelope file"), path)


def _parse_envelope_file(data: bytes, path: Path) -> Envelope:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"envelope file {path} is not UTF-8 text") from None
    try:
        return parse_one(text, what=f"envelope file {path}")
    except FormatError as exc:
        msg = str(exc)
        raise FormatError(msg if str(path) in msg else f"envelope file {path}: {msg}") from None


def list_inbox(game_dir: Path) -> list[InboxItem]:
    """Every ``*.envelope`` file of the inbox (sorted by name), read; temporary and hidden files
    are ignored. A missing inbox is empty."""
    folder = inbox_dir(game_dir)
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"cannot list the inbox {folder}: {exc.strerror or exc}") from None
    items = []
    for name in names:
        if name.startswith(".") or is_temp_name(name) or not name.lower().endswith(SUFFIX):
            continue
        path = folder / name
        if not path.is_file():
            continue
        found: Envelope | FormatError
        digest = None
        try:
            data = read_limited(path, MAX_ENVELOPE_FILE, "envelope file")
            digest = sha256_hex(data)
            found = _parse_envelope_file(data, path)
        except FormatError as exc:
            found = exc
        except StorageError as exc:
            if not path.exists():  # removed meanwhile (a sync tool, the player replacing it)
                continue
            found = FormatError(str(exc))
        except KoryoPbmError as exc:  # pragma: no cover - defensive
            found = FormatError(str(exc))
        items.append(InboxItem(path, found, is_conflict_name(name), digest))
    return items


def _same_content(path: Path, sha256: str) -> bool:
    try:
        return sha256_hex(read_limited(path, MAX_ENVELOPE_FILE, "envelope file")) == sha256
    except KoryoPbmError:
        return False


def _candidates(name: str) -> Iterator[str]:
    p = Path(name)
    yield name
    n = 1
    while True:
        yield f"{p.stem}-{n}{p.suffix}"
        n += 1


def archive(game_dir: Path, path: Path, *, status: str, expect: str | None = None) -> Path | None:
    """Move ``path`` into ``archive/<status>/`` under a name no archived file has; never
    deletes or overwrites anything. Returns the new path.

    ``expect``: the SHA-256 of the bytes that were read. If the file no longer holds them (the
    player submitted again meanwhile, replacing it), it is left in the inbox, unread, for the
    next resolve, and ``None`` is returned."""
    if not _STATUS.fullmatch(status):
        raise StorageError(f"invalid archive status {status!r}")
    path = Path(path)
    target_dir = archive_dir(game_dir) / status
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {target_dir}: {exc.strerror or exc}") from None
    if not path.exists():
        raise StorageError(f"cannot archive {path}: it no longer exists")
    for candidate in _candidates(path.name):
        target = target_dir / candidate
        if target.exists() or target.is_symlink():
            continue
        try:
            os.link(path, target)  # fails if target exists: no overwrite even in a race
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                                 errno.EACCES, errno.ENOSYS) and not isinstance(exc, NotImplementedError):
                raise StorageError(f"cannot archive {path}: {exc.strerror or exc}") from None
            # the file system has no hard links: rename (we hold the game lock)
            try:
                os.replace(path, target)
            except OSError as exc2:
                raise StorageError(f"cannot archive {path}: {exc2.strerror or exc2}") from None
            if expect is not None and not _same_content(target, expect):
                if not path.exists():  # give the newer file back to the inbox
                    try:
                        os.replace(target, path)
                    except OSError as exc2:
                        raise StorageError(f"cannot put {target} back as {path}: {exc2.strerror or exc2}") from None
                return None
            return target
        if expect is not None and not _same_content(target, expect):
            # replaced since it was read: the link holds the newer file, which stays in the inbox
            try:
                os.unlink(target)
            except OSError as exc:
                raise StorageError(f"cannot remove {target}: {exc.strerror or exc}") from None
            return None
        try:
            os.unlink(path)
        except OSError as exc:
            raise StorageError(f"archived {path} as {target} but cannot remove it: {exc.strerror or exc}") from None
        return target
    raise AssertionError("unreachable")  # pragma: no cover


def conflict_copies(game_dir: Path) -> list[Path]:
    """Sync-conflict copies of ``game.toml`` in ``game_dir`` (they are never read)."""
    game_dir = Path(game_dir)
    try:
        names = sorted(os.listdir(game_dir))
    except OSError:
        return []
    stem = GAME_FILE.rsplit(".", 1)[0]
    return [
        game_dir / n
        for n in names
        if n != GAME_FILE and n.startswith(stem) and n.lower().endswith(".toml")
        and not is_temp_name(n) and is_conflict_name(n)
    ]
