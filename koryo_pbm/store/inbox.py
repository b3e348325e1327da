"""The shared-folder transport: ``DIR/inbox`` where envelopes arrive, ``DIR/archive`` where
processed ones are kept (moved, never deleted, never overwritten).

A player's envelope for a decision is ``inbox/<decision>--<player>.envelope``; submitting again
replaces the file, which is how "submitting again before the resolve replaces the earlier
orders" works in a shared folder. Sync tools sometimes keep both versions as *conflict copies*
(Dropbox ``name (conflicted copy 2026-01-02).envelope`` or ``name (1).envelope``, Syncthing
``name.sync-conflict-20260102-123456-ABCDEF.envelope``): they are listed too, flagged
``conflict``, since each may be a valid envelope (the later ``submitted`` wins).

The folder is shared with every player, so nothing in it is followed through a symbolic link:
``inbox/`` and ``archive/`` (and its status folders) are opened with ``O_NOFOLLOW``, entries are
opened and moved relative to those folders' descriptors, and an inbox entry that is a link is
listed as *skipped* (``InboxItem.link``): never read, never moved, never written through.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.envelope import MAX_ARMORED, Envelope, parse_one
from koryo_pbm.crypto.keys import sha256_hex
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError
from koryo_pbm.printable import printable
from koryo_pbm.store.atomic import (
    LinkRefused,
    is_link,
    is_temp_name,
    link_message,
    open_dir,
    read_limited_at,
    write_atomic,
)
from koryo_pbm.values import LazyPattern

INBOX = "inbox"
ARCHIVE = "archive"
SUFFIX = ".envelope"
GAME_FILE = "game.toml"
MAX_ENVELOPE_FILE = MAX_ARMORED + 16 * 1024  # the armour plus some surrounding text

_CONFLICT_PATTERNS = (  # compiled on first use: most names pass the quick test before them
    LazyPattern(r" \([^()]*conflicted copy[^()]*\)", re.IGNORECASE),  # Dropbox, Nextcloud
    LazyPattern(r" \(\d+\)$"),  # Dropbox / OneDrive "name (1)"
    LazyPattern(r"\.sync-conflict-\d{8}-\d{6}(-[A-Za-z0-9]+)?", re.IGNORECASE),  # Syncthing
)
# Compiled on first use: an envelope is named when it is written.
_UNSAFE = r"[^A-Za-z0-9_.-]"


class InboxItem(tuple[Path, Envelope | FormatError]):
    """``(path, envelope or FormatError)``, with ``conflict`` set for sync-conflict copies,
    ``sha256`` the hash of the bytes read (``None`` when the file could not be read) and
    ``link`` set for an entry that is a symbolic link (not followed: skipped, left in place).
    A plain tuple with two properties: a ``NamedTuple`` costs every command that lists the
    inbox (``status`` among them) about 0.2 ms to create when the module is imported."""

    conflict: bool
    sha256: str | None
    link: bool

    def __new__(cls, path: Path, envelope: Envelope | FormatError, conflict: bool = False,
                sha256: str | None = None, link: bool = False) -> InboxItem:
        self = super().__new__(cls, (path, envelope))
        self.conflict = conflict
        self.sha256 = sha256
        self.link = link
        return self

    @property
    def path(self) -> Path:
        return self[0]

    @property
    def envelope(self) -> Envelope | FormatError:
        return self[1]

    def __repr__(self) -> str:
        return f"InboxItem({self.path!r}, {self.envelope!r}, conflict={self.conflict})"


def inbox_dir(game_dir: Path) -> Path:
    return Path(game_dir) / INBOX


def archive_dir(game_dir: Path) -> Path:
    return Path(game_dir) / ARCHIVE


def is_conflict_name(name: str) -> bool:
    """True if ``name`` (a file name) looks like a sync tool's conflict copy."""
    dot = name.find(".")
    if " (" not in name and (dot < 0 or "-" not in name[dot:]):  # what each pattern needs (no letter:
        return False                                              # IGNORECASE matches more than those)
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return any(p.search(stem) or p.search(name) for p in _CONFLICT_PATTERNS)


def envelope_name(envelope: Envelope) -> str:
    """The inbox file name of an envelope: ``<decision>--<player>.envelope``."""
    return f"{re.sub(_UNSAFE, '_', envelope.decision)}--{re.sub(_UNSAFE, '_', envelope.player)}{SUFFIX}"


def drop(game_dir: Path, envelope: Envelope) -> Path:
    """Write ``envelope`` into the inbox atomically, replacing an earlier one of the same player
    for the same decision. Returns the path written. An ``inbox`` that is a link is refused."""
    game_dir = Path(game_dir)
    folder = inbox_dir(game_dir)
    name = envelope_name(envelope)
    with open_dir(game_dir, "game folder", follow=True) as game_fd, \
            open_dir(INBOX, "inbox", dir_fd=game_fd, create=True, label=folder) as fd:
        write_atomic(Path(name), envelope.armor().encode("ascii"), dir_fd=fd, label=folder / name)
    return folder / name


def read_envelope_file(path: Path) -> Envelope:
    """The one envelope in the file ``path`` (``FormatError`` / ``StorageError`` otherwise)."""
    return _parse_envelope_file(read_limited_at(path, MAX_ENVELOPE_FILE, "envelope file"), path)


def _parse_envelope_file(data: bytes, path: Path) -> Envelope:
    shown = printable(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"envelope file {shown} is not UTF-8 text") from None
    try:
        return parse_one(text, what=f"envelope file {shown}")
    except FormatError as exc:
        msg = str(exc)
        raise FormatError(msg if shown in msg else f"envelope file {shown}: {msg}") from None


def list_inbox(game_dir: Path) -> list[InboxItem]:
    """Every ``*.envelope`` file of the inbox (sorted by name), read; temporary and hidden files
    are ignored, and so are folders, pipes and devices. An entry that is a symbolic link is
    listed with ``link`` set and an error naming it, unread. A missing inbox is empty; an
    ``inbox`` that is itself a link is refused (``LinkRefused``)."""
    game_dir = Path(game_dir)
    folder = inbox_dir(game_dir)
    items = []
    with open_dir(game_dir, "game folder", follow=True) as game_fd:
        try:
            ctx = open_dir(INBOX, "inbox", dir_fd=game_fd, label=folder)
            fd = ctx.__enter__()
        except LinkRefused:
            raise
        except StorageError:
            if not os.path.lexists(folder):
                return []
            raise
        try:
            try:
                entries = sorted(os.scandir(fd), key=lambda e: e.name)
            except OSError as exc:
                raise StorageError(f"cannot list the inbox {printable(folder)}: {exc.strerror or exc}") from None
            for entry in entries:
                name = entry.name
                if name.startswith(".") or is_temp_name(name) or not name.lower().endswith(SUFFIX):
                    continue
                path = folder / name
                try:
                    if entry.is_symlink():
                        items.append(InboxItem(path, FormatError(link_message(path, "inbox entry")),
                                               is_conflict_name(name), None, link=True))
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                found: Envelope | FormatError
                digest = None
                try:
                    data = read_limited_at(name, MAX_ENVELOPE_FILE, "envelope file", dir_fd=fd, label=path)
                    digest = sha256_hex(data)
                    found = _parse_envelope_file(data, path)
                except LinkRefused as exc:  # swapped for a link since the listing
                    items.append(InboxItem(path, FormatError(str(exc)), is_conflict_name(name), None, link=True))
                    continue
                except FormatError as exc:
                    found = exc
                except StorageError:
                    if not os.path.lexists(path):  # removed meanwhile (a sync tool, the player replacing it)
                        continue
                    raise  # an I/O error: stop before anything is decided (it is not the envelope's fault)
                except KoryoPbmError as exc:  # pragma: no cover - defensive
                    found = FormatError(str(exc))
                items.append(InboxItem(path, found, is_conflict_name(name), digest))
        finally:
            ctx.__exit__(None, None, None)
    return items


def _same_content(name: str, sha256: str, dir_fd: int) -> bool:
    try:
        return sha256_hex(read_limited_at(name, MAX_ENVELOPE_FILE, "envelope file", dir_fd=dir_fd)) == sha256
    except KoryoPbmError:
        return False


def _candidates(name: str) -> Iterator[str]:
    p = Path(name)
    yield name
    n = 1
    while True:
        yield f"{p.stem}-{n}{p.suffix}"
        n += 1


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


class _Folders:
    """The folders :func:`archive` moves files between, each opened once (``with``): the game
    folder, the inbox, ``archive`` and its status folders, opened as :func:`archive` opens them
    the first time each is needed, and closed at the end of the block."""

    def __init__(self, game_dir: Path) -> None:
        self.game_dir = game_dir
        self.stack = ExitStack()
        self.game_fd: int | None = None
        self.archive_fd: int | None = None
        self.sources: dict[Path, int] = {}
        self.targets: dict[str, int] = {}

    def __enter__(self) -> _Folders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def _open(self, *args: Any, **kwargs: Any) -> int:
        return self.stack.enter_context(open_dir(*args, **kwargs))

    def open(self, source: Path, status: str) -> tuple[int, int]:
        """The descriptors of the folder ``source`` and of ``archive/<status>``."""
        if self.game_fd is None:
            self.game_fd = self._open(self.game_dir, "game folder", follow=True)
        src_fd = self.sources.get(source)
        if src_fd is None:
            src_fd = self.sources[source] = self._open(source, "inbox")
        if self.archive_fd is None:
            self.archive_fd = self._open(ARCHIVE, "archive folder", dir_fd=self.game_fd, create=True,
                                         label=archive_dir(self.game_dir))
        dst_fd = self.targets.get(status)
        if dst_fd is None:
            dst_fd = self.targets[status] = self._open(status, "archive folder", dir_fd=self.archive_fd, create=True,
                                                       label=archive_dir(self.game_dir) / status)
        return src_fd, dst_fd


def archive(game_dir: Path, path: Path, *, status: str, expect: str | None = None,
            folders: _Folders | None = None) -> Path | None:
    """Move ``path`` into ``archive/<status>/`` under a name no archived file has; never
    deletes or overwrites anything. Returns the new path.

    ``expect``: the SHA-256 of the bytes that were read. If the file no longer holds them (the
    player submitted again meanwhile, replacing it), it is left in the inbox, unread, for the
    next resolve, and ``None`` is returned.

    ``archive`` and ``archive/<status>`` are opened without following links (``LinkRefused``),
    and the file is linked and unlinked relative to the folders' descriptors: an archive folder
    a player replaced by a link to ``~/.bashrc.d`` gets nothing. ``folders``: the folders
    :func:`archive_all` keeps open for all of its moves (by default they are opened for this one)."""
    _check_status(status)
    game_dir, path = Path(game_dir), Path(path)
    if not os.path.lexists(path):
        raise StorageError(f"cannot archive {printable(path)}: it no longer exists")
    if folders is None:
        with _Folders(game_dir) as own:
            return _move(path, archive_dir(game_dir) / status, *own.open(path.parent, status), expect)
    return _move(path, archive_dir(game_dir) / status, *folders.open(path.parent, status), expect)


def archive_all(game_dir: Path, moves: Sequence[tuple[Path, str, str | None]]) -> list[Path | None]:
    """:func:`archive` of each ``(path, status, expect)`` in turn (what it returns, in order),
    with the game folder, the inbox and each archive folder opened once for all of them: a
    resolve archives every envelope it read. One that fails raises, the ones before it made."""
    game_dir = Path(game_dir)
    with _Folders(game_dir) as folders:
        return [archive(game_dir, path, status=status, expect=expect, folders=folders)
                for path, status, expect in moves]


def _check_status(status: str) -> None:
    """``[a-z][a-z0-9_-]{0,31}``, without compiling that pattern in every resolve."""
    if not (0 < len(status) <= 32 and status.isascii() and status[0].islower() and status[0].isalpha()
            and all(ch.islower() or ch.isdigit() or ch in "_-" for ch in status)):
        raise StorageError(f"invalid archive status {printable(repr(status))}")


def _move(path: Path, target_dir: Path, src_fd: int, dst_fd: int, expect: str | None) -> Path | None:
    """Move ``path`` (in the folder ``src_fd``) into ``target_dir`` (the folder ``dst_fd``): see
    :func:`archive`."""
    name = path.name
    if not _exists(name, src_fd):
        raise StorageError(f"cannot archive {printable(path)}: it no longer exists")
    for candidate in _candidates(name):
        target = target_dir / candidate
        if _exists(candidate, dst_fd):
            continue
        try:  # fails if the target exists: no overwrite even in a race; a link is moved, not followed
            os.link(name, candidate, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                                 errno.EACCES, errno.ENOSYS) and not isinstance(exc, NotImplementedError):
                raise StorageError(f"cannot archive {printable(path)}: {exc.strerror or exc}") from None
            # the file system has no hard links: rename (we hold the game lock)
            try:
                os.replace(name, candidate, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
            except OSError as exc2:
                raise StorageError(f"cannot archive {printable(path)}: {exc2.strerror or exc2}") from None
            if expect is not None and not _same_content(candidate, expect, dst_fd):
                if not _exists(name, src_fd):  # give the newer file back to the inbox
                    try:
                        os.replace(candidate, name, src_dir_fd=dst_fd, dst_dir_fd=src_fd)
                    except OSError as exc2:
                        raise StorageError(f"cannot put {printable(target)} back as {printable(path)}: "
                                           f"{exc2.strerror or exc2}") from None
                return None
            return target
        if expect is not None and not _same_content(candidate, expect, dst_fd):
            # replaced since it was read: the link holds the newer file, which stays in the inbox
            try:
                os.unlink(candidate, dir_fd=dst_fd)
            except OSError as exc:
                raise StorageError(f"cannot remove {printable(target)}: {exc.strerror or exc}") from None
            return None
        try:
            os.unlink(name, dir_fd=src_fd)
        except OSError as exc:
            raise StorageError(f"archived {printable(path)} as {printable(target)} but cannot remove it: "
                               f"{exc.strerror or exc}") from None
        return target
    raise AssertionError("unreachable")  # pragma: no cover


def refuse_links(game_dir: Path) -> None:
    """``LinkRefused`` if ``inbox``, ``archive`` or a folder in ``archive`` is a symbolic link:
    what ``resolve`` checks before it reads or writes anything (``archive`` checks again)."""
    game_dir = Path(game_dir)
    with open_dir(game_dir, "game folder", follow=True) as game_fd:
        for name, what in ((INBOX, "inbox"), (ARCHIVE, "archive folder")):
            if is_link(name, dir_fd=game_fd):
                raise LinkRefused(link_message(game_dir / name, what))
        try:
            ctx = open_dir(ARCHIVE, "archive folder", dir_fd=game_fd, label=archive_dir(game_dir))
            arch_fd = ctx.__enter__()
        except StorageError:
            return  # no archive yet (or not a folder: archiving says so)
        try:
            for entry in os.scandir(arch_fd):
                if entry.is_symlink():
                    raise LinkRefused(link_message(archive_dir(game_dir) / entry.name, "archive folder"))
        finally:
            ctx.__exit__(None, None, None)


def conflict_copies(game_dir: Path) -> list[Path]:
    """Sync-conflict copies of ``game.toml`` in ``game_dir`` (links included: the caller says so;
    ``resolve`` reads a copy's signed header only, never through a link)."""
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
