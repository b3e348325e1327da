"""Which watched folders changed, told by the kernel (Linux inotify, through ``ctypes``): what lets
a judge of many games look only at those that changed, not at each game's files at every pass.

Where inotify is not available (another system, no watches left: ``fs.inotify.max_user_watches``)
:meth:`Watcher.open` or :meth:`Watcher.watch` says so and the judge compares the games' file
stamps instead (:mod:`koryo_pbm.judge.games`); a queue that overflowed is said the same way
(:meth:`Watcher.changed` returns ``None``: every game is looked at once).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from collections.abc import Hashable
from typing import Any

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR = 0x01000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded


class Watcher:
    """The folders given to :meth:`watch` (each with a key) whose entries changed since the last
    :meth:`changed`: the keys, with the names that changed in each (``None`` for the folder
    itself)."""

    def __init__(self, libc: Any, fd: int) -> None:
        self._libc, self.fd = libc, fd
        self._keys: dict[int, Hashable] = {}
        self._wds: dict[Hashable, int] = {}

    @classmethod
    def open(cls) -> Watcher | None:
        """A watcher, or None where inotify cannot be used."""
        if not sys.platform.startswith("linux") or os.environ.get("KORYO_PBM_NO_INOTIFY"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            init = libc.inotify_init1
        except (OSError, AttributeError):
            return None
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        return None if fd < 0 else cls(libc, fd)

    def watch(self, path: str, key: Hashable) -> bool:
        """Watch the folder at ``path`` under ``key`` (a folder watched again keeps one watch);
        False when it cannot be (missing, not a folder, no watches left)."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
        if wd < 0:
            return False
        old = self._keys.get(wd)
        if old is not None and old != key:
            self._wds.pop(old, None)
        self._keys[wd] = key
        self._wds[key] = wd
        return True

    def watching(self, key: Hashable) -> bool:
        return key in self._wds

    def forget(self, key: Hashable) -> None:
        wd = self._wds.pop(key, None)
        if wd is not None:
            self._keys.pop(wd, None)
            self._libc.inotify_rm_watch(self.fd, wd)

    def changed(self) -> dict[Hashable, set[str | None]] | None:
        """What changed since the last call; None when events were lost (the queue overflowed)."""
        found: dict[Hashable, set[str | None]] = {}
        lost = False
        while True:
            try:
                data = os.read(self.fd, 256 * 1024)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                return None
            if not data:
                break
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size: at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                if mask & IN_Q_OVERFLOW:
                    lost = True
                    continue
                key = self._keys.get(wd)
                if key is None:
                    continue
                if mask & IN_IGNORED:  # the folder is gone (or was watched again under another wd)
                    if self._wds.get(key) == wd:
                        del self._wds[key]
                    del self._keys[wd]
                found.setdefault(key, set()).add(os.fsdecode(name) if name else None)
        return None if lost else found

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        self._keys.clear()
        self._wds.clear()

    def __del__(self) -> None:  # (a judge not closed: its kernel queue is not kept)
        self.close()
