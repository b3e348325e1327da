"""Atomic file writes and size-limited reads.

``write_atomic`` writes a temporary file in the target's folder (``.NAME.tmp-<random>``),
flushes and fsyncs it, renames it over the target with ``os.replace`` and fsyncs the folder:
a reader sees the old file or the new one, never half of one, and a failure leaves no temporary
file behind. The temporary file is created with its final mode (``O_CREAT | O_EXCL``), so a
secret written with ``mode=0o600`` is never readable by others, not even for a moment.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from koryo_pbm.errors import FormatError, StorageError

TEMP_MARK = ".tmp-"

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


def is_temp_name(name: str) -> bool:
    """True for the temporary files ``write_atomic`` creates (``.NAME.tmp-<hex>``)."""
    return name.startswith(".") and TEMP_MARK in name


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix" or not _sync:  # Windows cannot open a folder for fsync
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


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` by ``data`` atomically; ``StorageError`` if it cannot be written."""
    path = Path(path)
    directory = path.parent
    tmp = directory / f".{path.name}{TEMP_MARK}{os.urandom(6).hex()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(tmp, flags, mode)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {_reason(exc)}") from None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if _sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise StorageError(f"cannot write {path}: {_reason(exc)}") from None
        raise
    _fsync_dir(directory)


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
            raise StorageError(f"{what} {path} is a folder, not a file")
        if regular_only and not stat.S_ISREG(st.st_mode):
            raise StorageError(f"{what} {path} is not a regular file")
        if st.st_size > limit:
            raise FormatError(f"{what} {path} is larger than {limit} bytes")
        # A regular file: read the size stat gave (and one byte more, to see it grow), not into
        # a buffer of ``limit`` bytes, which costs more to allocate than a small file to read.
        want = st.st_size + 1 if stat.S_ISREG(st.st_mode) else limit + 1
        with open(path, "rb") as f:
            data = f.read(want)
            if len(data) == want and want <= limit:  # it grew: read on, up to the limit
                data += f.read(limit + 1 - want)
    except FileNotFoundError:
        raise StorageError(f"no {what} at {path}") from None
    except OSError as exc:
        raise StorageError(f"cannot read {what} {path}: {_reason(exc)}") from None
    if len(data) > limit:
        raise FormatError(f"{what} {path} is larger than {limit} bytes")
    return data
