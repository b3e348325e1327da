"""The game folder's lock: one resolve (or any writer of ``game.toml``) at a time.

An exclusive ``flock`` on ``DIR/.lock`` (``msvcrt.locking`` on Windows). The lock file itself
is never deleted (deleting it would let two processes lock two different files), and never
opened through a symbolic link (a player's ``.lock`` link would create files anywhere).
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from koryo_pbm.errors import LockedError, StorageError
from koryo_pbm.printable import printable
from koryo_pbm.store.atomic import LinkRefused, is_link, link_message

LOCK_NAME = ".lock"
_POLL = 0.05


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def game_lock(directory: Path, wait: float = 10.0, *, name: str = LOCK_NAME,
              busy: str = "another resolve is running in {directory} (lock held); try again") -> Iterator[Path]:
    """Hold the exclusive lock of ``directory``; wait up to ``wait`` seconds, then ``LockedError``
    (``busy``, with ``{directory}``). ``name``: another lock file in it (the judge's: one judge
    per root)."""
    directory = Path(directory)
    path = directory / name
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)  # never through a link a player put there
    except OSError as exc:
        if is_link(path):
            raise LinkRefused(link_message(path, "the lock file")) from None
        raise StorageError(f"cannot open the lock file {printable(path)}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a pipe or device put there by a player
        os.close(fd)
        raise StorageError(f"the lock file {printable(path)} is not a regular file (move it aside)")
    try:
        deadline = time.monotonic() + max(0.0, wait)
        while not _try_lock(fd):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LockedError(busy.format(directory=printable(directory)))
            time.sleep(min(_POLL, remaining))
        try:
            yield path
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
