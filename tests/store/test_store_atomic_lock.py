"""Atomic writes with injected failures, size-limited reads, the game lock."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from koryo_pbm.errors import FormatError, LockedError, StorageError
from koryo_pbm.store import atomic
from koryo_pbm.store.atomic import is_temp_name, read_limited, write_atomic
from koryo_pbm.store.lock import game_lock

pytestmark = pytest.mark.real_fsync  # the store's writes fsync, as in every koryo-pbm process (see conftest._unsynced_session)


def _leftovers(directory):
    return [p.name for p in directory.iterdir() if is_temp_name(p.name)]


def test_write_atomic_creates_and_replaces(tmp_path):
    target = tmp_path / "game.toml"
    write_atomic(target, b"one")
    assert target.read_bytes() == b"one"
    write_atomic(target, b"two" * 100000)
    assert target.read_bytes() == b"two" * 100000
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_write_atomic_mode(tmp_path):
    target = tmp_path / "secret"
    write_atomic(target, b"x", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@pytest.mark.parametrize("failing", ["replace", "write", "fsync"])
def test_write_atomic_failure_keeps_target(tmp_path, monkeypatch, failing):
    target = tmp_path / "game.toml"
    write_atomic(target, b"original")

    def boom(*a, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(StorageError, match="cannot write .*game.toml: No space left on device"):
        write_atomic(target, b"new content")
    monkeypatch.undo()
    assert target.read_bytes() == b"original"
    assert _leftovers(tmp_path) == []


def test_write_atomic_interrupt_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "game.toml"
    write_atomic(target, b"original")
    calls = {"n": 0}
    real_write = os.write

    def partial_then_interrupt(fd, data):
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data[:3]))  # a short write
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", partial_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new content")
    monkeypatch.undo()
    assert target.read_bytes() == b"original"
    assert _leftovers(tmp_path) == []


def test_write_atomic_missing_folder(tmp_path):
    with pytest.raises(StorageError, match="cannot write"):
        write_atomic(tmp_path / "nope" / "x", b"x")


def test_read_limited(tmp_path):
    path = tmp_path / "game.toml"
    with pytest.raises(StorageError, match=f"no game file at {path}"):
        read_limited(path, 10, "game file")
    path.write_bytes(b"0123456789")
    assert read_limited(path, 10, "game file") == b"0123456789"
    path.write_bytes(b"0123456789A")
    with pytest.raises(FormatError, match="game file .* is larger than 10 bytes"):
        read_limited(path, 10, "game file")
    with pytest.raises(StorageError, match="is a folder"):
        read_limited(tmp_path, 10, "game file")


def test_is_temp_name():
    assert is_temp_name(".game.toml.tmp-0a1b2c")
    assert not is_temp_name("game.toml")
    assert not is_temp_name(".lock")


def test_lock_excludes_threads(tmp_path):
    entered = threading.Event()
    release = threading.Event()

    def holder():
        with game_lock(tmp_path):
            entered.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    assert entered.wait(5)
    start = time.monotonic()
    with pytest.raises(LockedError, match=f"another resolve is running in {tmp_path} \\(lock held\\); try again"):
        with game_lock(tmp_path, wait=0.3):
            pass
    assert time.monotonic() - start >= 0.25
    release.set()
    t.join()
    with game_lock(tmp_path, wait=0):
        pass
    assert (tmp_path / ".lock").exists()


def test_lock_waits_for_release(tmp_path):
    entered = threading.Event()

    def holder():
        with game_lock(tmp_path):
            entered.set()
            time.sleep(0.3)

    t = threading.Thread(target=holder)
    t.start()
    assert entered.wait(5)
    with game_lock(tmp_path, wait=5):
        pass
    t.join()


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_lock_excludes_processes(tmp_path):
    code = (
        "import sys, time; from pathlib import Path; from koryo_pbm.store.lock import game_lock\n"
        "with game_lock(Path(sys.argv[1])):\n"
        "    print('locked', flush=True); time.sleep(3)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(LockedError):
            with game_lock(tmp_path, wait=0.2):
                pass
    finally:
        proc.kill()
        proc.wait()
    with game_lock(tmp_path, wait=2):
        pass


def test_lock_missing_folder(tmp_path):
    with pytest.raises(StorageError, match="cannot open the lock file"):
        with game_lock(tmp_path / "nope"):
            pass


def test_atomic_module_exports():
    assert atomic.TEMP_MARK == ".tmp-"


def test_read_limited_reads_a_growing_file_up_to_its_limit(tmp_path, monkeypatch):
    import os as _os

    import pytest

    from koryo_pbm.errors import FormatError
    from koryo_pbm.store import atomic

    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert atomic.read_limited(path, 10, "file") == b"x" * 10
    assert atomic.read_limited(path, 100, "file") == b"x" * 10
    real_stat = _os.stat

    class Small:  # stat says 4 bytes; the file holds 10 (it grew after stat)
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 4

    monkeypatch.setattr(atomic.os, "stat", lambda p: Small(real_stat(p)))
    assert atomic.read_limited(path, 100, "file") == b"x" * 10
    assert atomic.read_limited(path, 10, "file") == b"x" * 10
    with pytest.raises(FormatError):
        atomic.read_limited(path, 9, "file")
    with pytest.raises(FormatError):
        atomic.read_limited(path, 4, "file")
