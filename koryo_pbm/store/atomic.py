"""Atomic file writes and size-limited reads.

``write_atomic`` writes a temporary file in the target's folder (``.NAME.tmp-<random>``),
flushes and fsyncs it, renames it over the target with ``os.replace`` and fsyncs the folder:
a reader sees the old file or the new one, never half of one, and a failure leaves no temporary
file behind. The temporary file is created with its final mode (``O_CREAT | O_EXCL``), so a
secret written with ``mode=0o600`` is never readable by others, not even for a moment.

A game folder is shared with the other players, and any of them can put a symbolic link in it
(git and sync tools carry links). Nothing inside a game folder is followed through a link:
``open_dir`` opens a sub-folder with ``O_NOFOLLOW`` and everything below it is opened relative
to that folder's descriptor (``read_limited_at``, ``write_atomic(..., dir_fd=)``), so a link
swapped in between a check and a use is not followed either. A link is refused with a message
that names it (``LinkRefused``); ``O_CREAT | O_EXCL`` never writes through one.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from koryo_pbm.errors import FormatError, StorageError
from koryo_pbm.printable import printable

TEMP_MARK = ".tmp-"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class LinkRefused(StorageError):
    """A path in a game folder is a symbolic link: it is not followed."""


def is_link(path: Path | str, *, dir_fd: int | None = None) -> bool:
    """True if ``path`` (relative to ``dir_fd`` if given) is a symbolic link (or a junction)."""
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode):
        return True
    return bool(getattr(st, "st_reparse_tag", 0))  # Windows junctions and other reparse points


def link_message(label: Path | str, what: str) -> str:
    return f"{what} {printable(label)} is a symbolic link: refusing to follow it (it is left as it is)"


def refuse_link(path: Path | str, what: str, *, dir_fd: int | None = None, label: Path | str | None = None) -> None:
    """``LinkRefused`` if ``path`` is a symbolic link."""
    if is_link(path, dir_fd=dir_fd):
        raise LinkRefused(link_message(label if label is not None else path, what))


@contextmanager
def open_dir(path: Path | str, what: str, *, dir_fd: int | None = None, create: bool = False,
             follow: bool = False, label: Path | str | None = None) -> Iterator[int]:
    """A descriptor of the folder ``path`` (relative to ``dir_fd`` if given), closed on exit.

    A link at its last component is refused (``LinkRefused``) unless ``follow`` (a folder the
    user named on the command line). ``create`` makes the folder first if it is missing.
    """
    label = label if label is not None else path
    if create:
        try:
            os.mkdir(path, 0o755, dir_fd=dir_fd)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StorageError(f"cannot create {what} {printable(label)}: {_reason(exc)}") from None
    flags = os.O_RDONLY | _DIRECTORY | _CLOEXEC | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise StorageError(f"no {what} at {printable(label)}") from None
    except OSError as exc:
        if not follow and is_link(path, dir_fd=dir_fd):
            raise LinkRefused(link_message(label, what)) from None
        if exc.errno == errno.ENOTDIR:
            raise StorageError(f"{what} {printable(label)} is not a folder") from None
        raise StorageError(f"cannot open {what} {printable(label)}: {_reason(exc)}") from None
    try:
        yield fd
    finally:
        os.close(fd)

_sync = True  # fsync files and folders (see `unsynced`)


@contextmanager
def unsynced() -> Iterator[None]:
    """Within this block, writes stay atomic (temporary file, then rename) but skip fsync.

    Only for folders that are thrown away when the process ends (``koryo-pbm demo`` without
    ``--dir``): surviving a power cut cannot matter there, and fsync is most of the demo's time.
    """
    global _sync
    before, _sync = _sync, False
    try:
        yield
    finally:
        _sync = before


_pending: dict[tuple[int, int], int] | None = None  # (device, inode) -> open descriptor, see `batched_sync`
MAX_PENDING = 256  # descriptors kept open for one barrier at most; more make an early barrier


@contextmanager
def batched_sync() -> Iterator[None]:
    """Within this block, ``write_atomic`` stays atomic (temporary file, then rename) but leaves
    the fsync of each file and folder for one barrier: :func:`sync_now`, or the end of the block.

    For the judge, which writes a handful of files per mail it handles: the caller runs the
    barrier before anything that depends on those files surviving a power cut (moving the mail to
    the done folder, sending an answer). One barrier costs one journal commit, however many files
    it covers; each file on its own would cost one. A process killed before the barrier loses
    nothing (the written files are in the page cache; only the machine crashing can lose them).
    """
    global _pending
    if _pending is not None:  # nested: the outer block's barrier covers it
        yield
        return
    _pending = {}
    try:
        yield
    finally:
        try:
            sync_now()
        finally:
            _pending = None


def sync_now() -> None:
    """The barrier of :func:`batched_sync`: fsync every file and folder written since the last one
    (files first, then their folders, so each rename is durable after its data)."""
    if not _pending:
        return
    fds = list(_pending.values())
    _pending.clear()
    try:
        infos = [os.fstat(fd) for fd in fds]
        if len(fds) > 2:
            # one flush per file system holding them (a game folder may sit on another than the
            # judge's root): all of them at once
            one_each = {info.st_dev: fd for fd, info in zip(fds, infos, strict=True)}
            if all(_syncfs(fd) for fd in one_each.values()):
                return
        dirs = []
        for fd, info in zip(fds, infos, strict=True):
            if stat.S_ISDIR(info.st_mode):
                dirs.append(fd)
            else:
                os.fsync(fd)
        for fd in dirs:
            with suppress(OSError):  # some file systems (network shares) refuse fsync on a folder
                os.fsync(fd)
    finally:
        for fd in fds:
            with suppress(OSError):
                os.close(fd)


_SYNCFS: list = []  # [libc.syncfs] once looked up, [None] where there is none


def _syncfs(fd: int) -> bool:
    """Linux's ``syncfs``: every dirty file and the journal of the file system holding ``fd``,
    written out at once (one journal commit instead of one per file). False where unavailable."""
    if not _SYNCFS:
        func = None
        if sys.platform.startswith("linux"):
            with suppress(OSError, AttributeError):
                import ctypes

                func = ctypes.CDLL(None, use_errno=True).syncfs  # libc, already loaded
                func.argtypes, func.restype = [ctypes.c_int], ctypes.c_int
        _SYNCFS.append(func)
    func = _SYNCFS[0]
    if func is None:
        return False
    global syncfs_calls
    syncfs_calls += 1
    return func(fd) == 0


syncfs_calls = 0  # how many barriers used syncfs (for benchmarks)


def _defer(fd: int) -> bool:
    """Keep ``fd`` (a file just written, or its folder) for the barrier; False outside ``batched_sync``."""
    if _pending is None or not _sync:
        return False
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    if key in _pending:
        os.close(fd)
    else:
        _pending[key] = fd
        if len(_pending) >= MAX_PENDING:
            sync_now()
    return True


def is_temp_name(name: str) -> bool:
    """True for the temporary files ``write_atomic`` creates (``.NAME.tmp-<hex>``)."""
    return name.startswith(".") and TEMP_MARK in name


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def _fsync_dir(directory: Path | str, dir_fd: int | None = None) -> None:
    if os.name != "posix" or not _sync:  # Windows cannot open a folder for fsync
        return
    if _pending is not None:
        if dir_fd is None:
            # a folder already waiting for the barrier (the judge writes several files into each
            # game folder per mail) is not opened again: a stat tells it is the same one
            try:
                st = os.stat(directory)
            except OSError:
                return
            if (st.st_dev, st.st_ino) in _pending:
                return
        try:
            fd = os.dup(dir_fd) if dir_fd is not None else os.open(directory, os.O_RDONLY)
        except OSError:
            return
        _defer(fd)
        return
    if dir_fd is not None:
        with suppress(OSError):  # some file systems (network shares) refuse fsync on a folder
            os.fsync(dir_fd)
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (network shares) refuse fsync on a folder; the rename is done
    finally:
        os.close(fd)


def write_atomic(path: Path | str, data: bytes, mode: int = 0o644, *, dir_fd: int | None = None,
                 label: Path | str | None = None) -> None:
    """Replace ``path`` by ``data`` atomically; ``StorageError`` if it cannot be written.

    With ``dir_fd``, ``path`` is a name in that folder (see ``open_dir``) and ``label`` names
    it in messages. A link at ``path`` is replaced, never written through."""
    where = os.fspath(path)
    directory, name = os.path.split(where)
    if not name:  # a trailing separator: the names as pathlib reads them
        directory, name = os.fspath(Path(where).parent), Path(where).name
    tmp = os.path.join(directory, f".{name}{TEMP_MARK}{os.urandom(6).hex()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    at = {} if dir_fd is None else {"dir_fd": dir_fd}
    try:
        fd = os.open(tmp, flags, mode, **at)
    except OSError as exc:
        raise StorageError(f"cannot write {printable(label if label is not None else path)}: {_reason(exc)}") from None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if _pending is not None and _sync:
                _defer(os.dup(fd))  # synced at the barrier, through a descriptor of its own
            elif _sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, where, **({} if dir_fd is None else {"src_dir_fd": dir_fd, "dst_dir_fd": dir_fd}))
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp, **at)
        if isinstance(exc, OSError):
            raise StorageError(f"cannot write {printable(label if label is not None else path)}: "
                               f"{_reason(exc)}") from None
        raise
    _fsync_dir(directory or ".", dir_fd)


def _read_open(fd: int, label: str, limit: int, what: str) -> bytes:
    """Read the regular file open as ``fd`` (``fstat`` tells what it is), up to ``limit``."""
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise StorageError(f"{what} {label} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise StorageError(f"{what} {label} is not a regular file")
    if st.st_size > limit:
        raise FormatError(f"{what} {label} is larger than {limit} bytes")
    chunks = []
    want, got = min(st.st_size, limit) + 1, 0
    while got < want:
        chunk = os.read(fd, want - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got == want and want <= limit:  # it grew: read on, up to the limit
        while got <= limit:
            chunk = os.read(fd, limit + 1 - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:
        raise FormatError(f"{what} {label} is larger than {limit} bytes")
    return data


def read_limited_at(path: Path | str, limit: int, what: str, *, dir_fd: int | None = None,
                    label: Path | str | None = None) -> bytes:
    """Read the regular file ``path`` (relative to ``dir_fd`` if given) whole, without following
    a link (``LinkRefused``), refusing a file over ``limit`` bytes before reading it
    (``FormatError``). Pipes, devices and folders are refused without being read."""
    shown = printable(label if label is not None else path)
    flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise StorageError(f"no {what} at {shown}") from None
    except OSError as exc:
        if is_link(path, dir_fd=dir_fd):
            raise LinkRefused(link_message(shown, what)) from None
        raise StorageError(f"cannot read {what} {shown}: {_reason(exc)}") from None
    try:
        return _read_open(fd, shown, limit, what)
    except OSError as exc:
        raise StorageError(f"cannot read {what} {shown}: {_reason(exc)}") from None
    finally:
        os.close(fd)


def read_limited(path: Path, limit: int, what: str, *, regular_only: bool = True) -> bytes:
    """Read ``path`` whole, refusing (``FormatError``) a file over ``limit`` bytes before reading.

    ``what`` names the file in messages ("game file" -> "no game file at PATH").
    ``regular_only=False`` also reads pipes and devices (``<(command)``), never more than
    ``limit + 1`` bytes of them (``/dev/zero`` is refused as too large, not read forever).
    """
    path = Path(path)
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise StorageError(f"{what} {printable(path)} is a folder, not a file")
        if regular_only and not stat.S_ISREG(st.st_mode):
            raise StorageError(f"{what} {printable(path)} is not a regular file")
        if st.st_size > limit:
            raise FormatError(f"{what} {printable(path)} is larger than {limit} bytes")
        # A regular file: read the size stat gave (and one byte more, to see it grow), not into
        # a buffer of ``limit`` bytes, which costs more to allocate than a small file to read.
        want = st.st_size + 1 if stat.S_ISREG(st.st_mode) else limit + 1
        with open(path, "rb") as f:
            data = f.read(want)
            if len(data) == want and want <= limit:  # it grew: read on, up to the limit
                data += f.read(limit + 1 - want)
    except FileNotFoundError:
        raise StorageError(f"no {what} at {printable(path)}") from None
    except OSError as exc:
        raise StorageError(f"cannot read {what} {printable(path)}: {_reason(exc)}") from None
    if len(data) > limit:
        raise FormatError(f"{what} {printable(path)} is larger than {limit} bytes")
    return data
