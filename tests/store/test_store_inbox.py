"""The shared-folder inbox: drop, replace, conflict copies, archive."""

from __future__ import annotations

import os

import pytest

from koryo_pbm.crypto.envelope import make_envelope
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import FormatError, StorageError
from koryo_pbm.store import inbox
from koryo_pbm.store.inbox import (
    InboxItem,
    archive,
    archive_dir,
    conflict_copies,
    drop,
    inbox_dir,
    is_conflict_name,
    list_inbox,
)

pytestmark = pytest.mark.real_fsync  # the store's writes fsync, as in every koryo-pbm process (see conftest._unsynced_session)


@pytest.fixture(scope="module")
def keys():
    return {n: Identity.generate(n) for n in ("mod", "alice", "bob")}


def env(keys, player="alice", orders="x = 1\n", when="2026-01-02T03:04:05Z", decision="r1-orders"):
    return make_envelope(keys[player], keys["mod"].public, game_id="g-1", decision=decision, player=player,
                         orders_text=orders, submitted=when, answers="sha256:" + "ab" * 32)


def test_dirs(tmp_path):
    assert inbox_dir(tmp_path) == tmp_path / "inbox"
    assert archive_dir(tmp_path) == tmp_path / "archive"
    assert list_inbox(tmp_path) == []


def test_drop_and_replace(tmp_path, keys):
    first = env(keys)
    path = drop(tmp_path, first)
    assert path == tmp_path / "inbox" / "r1-orders--alice.envelope"
    [item] = list_inbox(tmp_path)
    assert item.path == path and item.envelope == first and item.conflict is False
    p, e = item  # unpacks as (path, envelope)
    assert p == path and e == first
    second = env(keys, orders="x = 2\n", when="2026-01-02T04:00:00Z")
    assert drop(tmp_path, second) == path
    [item] = list_inbox(tmp_path)
    assert item.envelope == second
    drop(tmp_path, env(keys, "bob"))
    assert [i.envelope.player for i in list_inbox(tmp_path)] == ["alice", "bob"]


def test_drop_needs_game_folder(tmp_path, keys):
    with pytest.raises(StorageError):
        drop(tmp_path / "missing", env(keys))


def test_conflict_copies_listed_and_flagged(tmp_path, keys):
    path = drop(tmp_path, env(keys))
    later = env(keys, orders="x = 3\n", when="2026-01-02T05:00:00Z")
    folder = inbox_dir(tmp_path)
    names = [
        "r1-orders--alice (conflicted copy 2026-01-02).envelope",
        "r1-orders--alice (1).envelope",
        "r1-orders--alice.sync-conflict-20260102-123456-ABCDEF.envelope",
    ]
    for n in names:
        (folder / n).write_text(later.armor())
    (folder / ".r1-orders--alice.envelope.tmp-abcdef").write_text("half")
    (folder / ".DS_Store").write_bytes(b"\0")
    (folder / "notes.txt").write_text("hello")
    (folder / "sub.envelope").mkdir()
    items = list_inbox(tmp_path)
    assert {i.path.name for i in items} == {path.name, *names}
    for i in items:
        assert i.conflict == (i.path.name != path.name)
        assert not isinstance(i.envelope, FormatError)


def test_bad_files_are_error_items(tmp_path, keys):
    folder = inbox_dir(tmp_path)
    folder.mkdir()
    (folder / "a.envelope").write_text("not an envelope")
    (folder / "b.envelope").write_bytes(b"\xff\xfe")
    (folder / "c.envelope").write_text(env(keys).armor() + env(keys, "bob").armor())
    (folder / "d.envelope").write_bytes(b"x" * (inbox.MAX_ENVELOPE_FILE + 1))
    items = list_inbox(tmp_path)
    assert len(items) == 4
    assert all(isinstance(i.envelope, FormatError) for i in items)
    assert "a.envelope" in str(items[0].envelope)
    assert "larger than" in str(items[3].envelope)


def test_archive_never_overwrites(tmp_path, keys):
    archived = []
    for n in range(3):
        path = drop(tmp_path, env(keys, orders=f"x = {n}\n"))
        archived.append(archive(tmp_path, path, status="accepted"))
        assert not path.exists()
    assert [p.name for p in archived] == [
        "r1-orders--alice.envelope", "r1-orders--alice-1.envelope", "r1-orders--alice-2.envelope"]
    assert all(p.parent == tmp_path / "archive" / "accepted" for p in archived)
    texts = {p.read_text() for p in archived}
    assert len(texts) == 3  # all three kept
    assert list_inbox(tmp_path) == []


def test_archive_without_hard_links(tmp_path, keys, monkeypatch):
    first = archive(tmp_path, drop(tmp_path, env(keys)), status="rejected")

    def no_links(*a, **kw):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    second = archive(tmp_path, drop(tmp_path, env(keys, orders="y = 1\n")), status="rejected")
    assert first != second and first.exists() and second.exists()


def test_archive_errors(tmp_path):
    with pytest.raises(StorageError, match="invalid archive status"):
        archive(tmp_path, tmp_path / "x", status="../up")
    with pytest.raises(StorageError, match="no longer exists"):
        archive(tmp_path, tmp_path / "inbox" / "gone.envelope", status="rejected")


def test_game_file_conflict_copies(tmp_path):
    for n in ["game.toml", "game (conflicted copy 2026-01-02).toml", "game (1).toml",
              "game.sync-conflict-20260102-123456-ABCDEF.toml", "other.toml", "game.toml.bak"]:
        (tmp_path / n).write_text("x")
    assert [p.name for p in conflict_copies(tmp_path)] == [
        "game (1).toml", "game (conflicted copy 2026-01-02).toml",
        "game.sync-conflict-20260102-123456-ABCDEF.toml"]
    assert conflict_copies(tmp_path / "missing") == []


@pytest.mark.parametrize(
    "name,expected",
    [("r1--alice.envelope", False), ("r1--alice (Bob's conflicted copy 2026-01-02).envelope", True),
     ("r1--alice (2).envelope", True), ("r1--alice.sync-conflict-20260102-123456-ABCDEF.envelope", True),
     ("r1.5--alice.envelope", False), ("r1--alice (draft).envelope", False)],
)
def test_is_conflict_name(name, expected):
    assert is_conflict_name(name) is expected


def test_inbox_item_repr(tmp_path):
    item = InboxItem(tmp_path, FormatError("x"), True)
    assert "conflict=True" in repr(item)
