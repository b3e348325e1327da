"""The pin, case by case (:mod:`koryo_pbm.pinning`): what a game file read later is, against
what this machine saw: the same file, another file of the same version, an older file of the
same history (nobody's fault), an older file of another, a newer one that extends the history
or rewrites it, a CRLF copy, the pinned copy missing or damaged.

Real game files (the attack world's 2-player game, every version) and real moderator
signatures; the pin lives in a temporary ``$KORYO_PBM_HOME``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from attack_kit import identity
from test_attack_pin import rewritten

from koryo_pbm import match, pinning
from koryo_pbm.errors import StaleError, TamperedError
from koryo_pbm.store import gamefile, gamelog, gameparts


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def versions(world):
    return world.g2_versions


def see(data: bytes, **kw) -> pinning.Sight:
    return pinning.pin(gamefile.decode(data), data, **kw)


def head(data: bytes) -> str:
    return gamelog.head(gamefile.decode(data))[7:23]


def gid(data: bytes) -> str:
    return gamefile.decode(data).game_id


def pinned_version(data: bytes) -> int | None:
    return pinning.read_pin(gid(data))[0].version


def test_the_same_file_twice_says_nothing(home, versions):
    first = see(versions[2])
    assert (first.older, first.notes) == (None, [])
    pin_file = pinning.seen_path(gid(versions[2]))
    before = pin_file.read_bytes()
    again = see(versions[2])
    assert (again.older, again.notes, again.first_seen) == (None, [], first.first_seen)
    assert pin_file.read_bytes() == before
    assert pinning.pinned_copy(gid(versions[2])).read_bytes() == versions[2]


def test_another_history_of_the_same_version_is_two_histories(home, versions, world):
    see(versions[2])
    forged = rewritten(versions[2], identity(world, "mod"), entry=1)
    with pytest.raises(TamperedError) as caught:
        see(forged)
    decision = gamefile.decode(versions[2]).log[1]["decision"]
    assert str(caught.value) == (
        f"the moderator signed two different histories of game {gid(forged)}: version 3 here has head "
        f"{head(forged)}, the version 3 you saw has head {head(versions[2])}; they part at log entry 2 ({decision}); "
        f"the copy you saw is {pinning.pinned_copy(gid(forged))}; {pinning.KEEP}")
    assert pinned_version(versions[2]) == 3


def test_another_file_of_the_same_version_and_history_is_two_files(home, versions, world):
    mod = identity(world, "mod")
    see(versions[2])
    doc = gamefile.decode(versions[2])
    alice = identity(world, "alice")
    doc.sealed["alice"] = gameparts.seal_part(doc, "alice", alice.public, gameparts.open_part(doc, "alice", alice))
    other = gamefile.encode(doc, mod)  # alice's part sealed anew: the same history, other bytes
    assert other != versions[2] and head(other) == head(versions[2])
    with pytest.raises(TamperedError, match=r"the moderator signed two different files of version 3 of game .*: the "
                                            r"same history, but another public state or other sealed parts"):
        see(other)


def test_an_older_file_of_the_same_history_is_older_not_a_fault(home, versions):
    see(versions[6])
    sight = see(versions[3])
    copy = pinning.pinned_copy(gid(versions[3]))
    older = sight.older
    assert older is not None and older.copy_problem is None and older.resolved
    assert (older.version, older.seen_version, older.copy) == (4, 7, copy)
    assert older.sentence() == (
        f"game {gid(versions[3])}: this file is version 4, older than the version 7 you saw; it is part of the same "
        f"history (an old mail or a stale copy: nobody's fault); the newer copy is {copy}")
    decision = gamefile.decode(versions[3]).decision["id"]
    assert older.refusal() == (
        f"game {gid(versions[3])}: this file is version 4, older than the version 7 you saw, and its decision "
        f"{decision} is resolved already: answer the newer copy ({copy})")
    assert pinned_version(versions[6]) == 7 and copy.read_bytes() == versions[6]  # the pin stays
    with pytest.raises(StaleError, match="this file is version 4, older than the version 7 you saw .*refusing to "
                                         "resolve from it"):
        see(versions[3], strict=True)


def test_an_older_file_whose_decision_is_still_open_may_be_answered(home, versions, world):
    """Version 4 and a version 5 that only moved the deadline wait for the same decision: the
    older file is older, and its decision is not resolved (an answer to it still counts)."""
    mv = match.open_moderator(gamefile.decode(versions[3]), identity(world, "mod"))
    moved = gamefile.encode(match.set_deadline(mv, datetime(2030, 1, 1, tzinfo=UTC)), identity(world, "mod"))
    see(moved)
    older = see(versions[3]).older
    assert older is not None and older.copy_problem is None and not older.resolved


def test_an_older_file_of_another_history_is_two_histories(home, versions, world):
    see(versions[6])
    forged = rewritten(versions[3], identity(world, "mod"), entry=2)
    with pytest.raises(TamperedError) as caught:
        see(forged)
    assert (f"version 4 here has head {head(forged)}, the version 7 you saw has head {head(versions[6])}; they "
            "part at log entry 3 (") in str(caught.value)


def test_a_newer_file_that_extends_the_history_is_pinned(home, versions):
    see(versions[2])
    assert see(versions[6]).older is None
    assert pinned_version(versions[6]) == 7
    assert pinning.pinned_copy(gid(versions[6])).read_bytes() == versions[6]


def test_a_newer_file_that_rewrites_the_history_is_two_histories(home, versions, world):
    see(versions[4])
    forged = rewritten(versions[6], identity(world, "mod"), entry=3)
    with pytest.raises(TamperedError) as caught:
        see(forged)
    decision = gamefile.decode(versions[6]).log[3]["decision"]
    assert (f"version 7 here has head {head(forged)}, the version 5 you saw has head {head(versions[4])}; they part "
            f"at log entry 4 ({decision}); the copy you saw is") in str(caught.value)
    assert pinned_version(versions[4]) == 5


def test_a_crlf_copy_is_the_same_file(home, versions):
    see(versions[5])
    crlf = versions[5].replace(b"\n", b"\r\n")
    assert see(crlf).older is None
    older = see(versions[2].replace(b"\n", b"\r\n")).older
    assert older is not None and older.copy_problem is None
    first = pinning.pinned_copy(gid(versions[5]))
    first.unlink()
    see(crlf)  # the copy is kept as signed: plain line endings
    assert first.read_bytes() == versions[5]


@pytest.mark.parametrize("how", ["missing", "garbage", "another version"])
def test_the_pinned_copy_missing_or_damaged(home, versions, world, how):
    see(versions[6])
    copy = pinning.pinned_copy(gid(versions[6]))
    if how == "missing":
        copy.unlink()
        said = "missing"
    elif how == "garbage":
        copy.write_bytes(b"not a game file\n")
        said = "damaged (the pinned copy"
    else:  # the copy of an earlier version (what an older koryo-pbm kept after the moderator's resolve)
        copy.write_bytes(versions[1])
        said = "damaged (it holds version 2, not the version 7 seen)"
    # an older file: older, and whether it is of the same history cannot be told here
    older = see(versions[3]).older
    assert older is not None and older.resolved and older.copy_problem is not None
    assert older.copy_problem.startswith(said), older.copy_problem
    assert older.sentence().startswith(f"game {gid(versions[3])}: this file is version 4, older than the version 7 "
                                       f"you saw; the copy of version 7 kept at {copy} is {said}")
    assert older.sentence().endswith("so whether this file is part of the same history cannot be checked here; "
                                     "get the latest game file")
    # a newer rewrite is still told by the pin alone, as precisely as it knows
    forged = rewritten(versions[8], identity(world, "mod"), entry=2)
    with pytest.raises(TamperedError, match=r"they part at log entry 6 or before; you saw it on this machine \("):
        see(forged)
    # the version seen again mends the copy
    see(versions[6])
    assert copy.read_bytes() == versions[6]
    assert see(versions[3]).older.copy_problem is None


def test_the_moderator_s_copy_follows_what_it_writes(home, versions, world, tmp_path):
    """The moderator's commands pin the version they write without reading it back: the
    copy is that version's bytes (an older koryo-pbm kept the first version read, and then
    accused the moderator itself of two histories when it looked at an older file)."""
    mod = identity(world, "mod")
    mv = match.open_moderator(gamefile.decode(versions[3]), mod)
    see(versions[3], strict=True)
    moved = match.set_deadline(mv, datetime(2030, 1, 1, tzinfo=UTC))
    gamefile.write_game(tmp_path / "game.toml", moved, mod)
    written = gamefile.signed_bytes(moved)
    assert written == (tmp_path / "game.toml").read_bytes()
    pinning.pin(moved, written, strict=True)
    assert pinning.pinned_copy(moved.game_id).read_bytes() == written
    older = see(versions[2]).older
    assert older is not None and older.copy_problem is None
