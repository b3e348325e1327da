"""Concurrency: two resolves at once, players submitting at the same moment (and while the
moderator resolves), sync-conflict copies of the game file and of envelopes."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from attack_kit import PLAYERS4, assert_refused, game_id_of, head_of, identity, parse_envelope

N_PROCESS_SUBMITTERS = 4
N_THREADS_PER_PLAYER = 6


def _env(home: Path) -> dict:
    env = {**os.environ, "KORYO_PBM_HOME": str(home)}
    env.pop("KORYO_PBM_PASSPHRASE", None)
    return env


def _held(folder: Path, world) -> dict:
    from koryo_pbm import match

    doc = match.load_doc(folder / "game.toml")
    return match.open_moderator(doc, identity(world, "mod")).orders


def _log_accepted(folder: Path) -> list[str]:
    import tomllib

    doc = tomllib.loads((folder / "game.toml").read_text())
    return [d for entry in doc.get("log", []) for d in entry["accepted"]]


@pytest.fixture
def hold_lock():
    """Hold a game folder's lock from this process (as another resolve would)."""
    fds = []

    def hold(folder: Path) -> int:
        fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        fds.append(fd)
        return fd

    yield hold
    for fd in fds:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


# -- two resolves --------------------------------------------------------------------------------


def test_two_resolves_at_once_apply_the_decision_once(arena, world, hold_lock):
    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    fd = hold_lock(folder)
    procs = [subprocess.Popen([sys.executable, "-m", "koryo_pbm", "resolve", str(folder), "--as", "mod", "--json"],
                              cwd=arena.cwd, env=_env(arena.home), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(1.5)  # both started and wait for the lock
    assert all(p.poll() is None for p in procs), "a resolve did not wait for the lock"
    fcntl.flock(fd, fcntl.LOCK_UN)
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    results = [json.loads(o) for o, _ in outs]
    assert sorted(r["written"] for r in results) == [False, True]
    second = next(r for r in results if not r["written"])
    assert second["envelopes"] == [] and second["version"] == 2
    assert [a["decision"] for r in results for a in r["applied"]] == ["r1-orders"]
    assert len(_log_accepted(folder)) == 4
    assert sorted(p.name for p in (folder / "archive" / "accepted").iterdir()) == sorted(
        f"r1-orders--{p}.envelope" for p in PLAYERS4)


def test_a_resolve_that_cannot_get_the_lock_says_so(arena, world, hold_lock, monkeypatch):
    from koryo_pbm.match import run
    from koryo_pbm.store import lock

    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    waits = []

    def short_lock(directory, wait=10.0, **kw):  # 0.3 s instead of the 10 s a real resolve waits
        waits.append(wait)
        return lock.game_lock(directory, 0.3, **kw)

    # where resolve looks the lock up (patching koryo_pbm.store.lock alone left the 10 s wait)
    monkeypatch.setattr(run, "game_lock", short_lock)
    hold_lock(folder)
    err = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert len(waits) == 1
    assert "another resolve is running" in err
    assert (folder / "game.toml").read_bytes() == world.g4_v1
    assert len(list((folder / "inbox").iterdir())) == 4


# -- submitting ------------------------------------------------------------------------------------


def test_players_submitting_at_the_same_moment_as_processes(arena, world):
    folder = arena.game(world.g4_v1)
    orders = {}
    for p in PLAYERS4[:N_PROCESS_SUBMITTERS]:
        orders[p] = arena.cwd / f"{p}.toml"
        orders[p].write_text(world.orders4[p])
    go = arena.cwd / "go"
    script = ("import os, sys, time\n"
              f"while not os.path.exists({str(go)!r}): time.sleep(0.005)\n"
              "from koryo_pbm.cli.main import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, "submit", str(orders[p]), "--as", p,
                               "--game", str(folder)], cwd=arena.cwd, env=_env(arena.home),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in orders]
    time.sleep(0.5)
    go.write_text("")
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), outs
    assert sorted(p.name for p in (folder / "inbox").iterdir()) == sorted(
        f"r1-orders--{p}.envelope" for p in orders)
    r = arena.ok("resolve", folder, "--as", "mod", "--json")
    assert sorted(e["player"] for e in r.json["envelopes"] if e["status"] == "accepted") == sorted(orders)


def test_players_resubmitting_at_the_same_moment_from_threads(arena, world):
    """Four players, each submitting several times at once: one envelope per player survives,
    whole, and resolve counts exactly one per player."""
    from koryo_pbm import match
    from koryo_pbm.cli.submit import seal_orders
    from koryo_pbm.store import inbox

    folder = arena.game(world.g4_v1)
    doc = match.load_doc(folder / "game.toml")
    game = match.game_of(doc)
    keys = {p: identity(world, p) for p in PLAYERS4}
    envelopes = {(p, k): seal_orders(doc, game, keys[p], world.orders4[p])
                 for p in PLAYERS4 for k in range(N_THREADS_PER_PLAYER)}
    barrier = threading.Barrier(len(envelopes))
    errors = []

    def submit(env):
        try:
            barrier.wait()
            inbox.drop(folder, env)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=submit, args=(e,)) for e in envelopes.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    files = sorted((folder / "inbox").iterdir())
    assert [f.name for f in files] == sorted(f"r1-orders--{p}.envelope" for p in PLAYERS4)  # no temp file left
    digests = {e.digest for e in envelopes.values()}
    for f in files:  # each file is one whole envelope, one of those submitted
        assert parse_envelope(f.read_text()).digest in digests
    r = arena.ok("resolve", folder, "--as", "mod", "--json")
    assert sorted(e["player"] for e in r.json["envelopes"] if e["status"] == "accepted") == sorted(PLAYERS4)
    assert len(_log_accepted(folder)) == 4


@pytest.mark.parametrize("hard_links", [True, False])
def test_a_resubmission_during_a_resolve_is_not_lost(arena, world, monkeypatch, hard_links):
    """alice replaces her envelope while the moderator's resolve runs: the new one is either
    counted or still in the inbox afterwards, never archived unread."""
    import errno

    if not hard_links:  # a file system without hard links (archive falls back to renaming)
        def no_link(*a, **kw):
            raise OSError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_link)
    from koryo_pbm import match
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.store import inbox

    folder = arena.game(world.g4_v1, envelopes={"r1-orders--alice.envelope": world.env4["alice"]})
    alice, mod = identity(world, "alice"), identity(world, "mod")
    newer = make_envelope(alice, mod.public, game_id=game_id_of(world.g4_v1), decision="r1-orders",
                          player="alice", orders_text=world.orders4["alice"], submitted="2099-01-01T00:00:00Z",
                          answers=head_of(world.g4_v1))
    real = match.resolve

    def resolve_while_alice_resubmits(*a, **kw):
        result = real(*a, **kw)
        inbox.drop(folder, newer)  # the shared folder delivers alice's new envelope just now
        return result

    monkeypatch.setattr(match, "resolve", resolve_while_alice_resubmits)
    arena.ok("resolve", folder, "--as", "mod")
    monkeypatch.setattr(match, "resolve", real)
    assert _held(folder, world)["alice"]["digest"] == parse_envelope(world.env4["alice"]).digest
    assert [p.name for p in (folder / "inbox").iterdir()] == ["r1-orders--alice.envelope"]
    arena.ok("resolve", folder, "--as", "mod")
    assert _held(folder, world)["alice"]["digest"] == newer.digest
    assert not list((folder / "inbox").iterdir())
    # (the first file was replaced by alice herself, as submitting again does; the newer is archived)
    assert [p.name for p in (folder / "archive" / "accepted").iterdir()] == ["r1-orders--alice.envelope"]
    assert parse_envelope((folder / "archive" / "accepted" / "r1-orders--alice.envelope").read_text()) == newer


# -- sync-conflict copies -----------------------------------------------------------------------------

CONFLICT_NAMES = ["game (conflicted copy 2026-01-02).toml", "game.sync-conflict-20260102-123456-ABCDEFG.toml"]


@pytest.mark.parametrize("copy_name", CONFLICT_NAMES)
def test_an_older_conflict_copy_of_the_game_file_is_reported_and_left_alone(arena, world, copy_name):
    folder = arena.game(world.g4_v2)
    copy = folder / copy_name
    copy.write_bytes(world.g4_v1)
    for cmd in (("resolve", folder, "--as", "mod"), ("show", folder), ("status", folder)):
        r = arena.ok(*cmd)
        assert f"{copy_name} is a sync-conflict copy of the game file" in r.err, (cmd, r.err)
    assert copy.read_bytes() == world.g4_v1
    assert (folder / "game.toml").read_bytes() == world.g4_v2


@pytest.mark.parametrize("copy_name", CONFLICT_NAMES)
def test_a_later_conflict_copy_of_the_game_file_stops_resolve(arena, world, copy_name):
    """The sync tool kept the older file as game.toml: resolving it would fork the game."""
    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    (folder / copy_name).write_bytes(world.g4_v2)
    err = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert copy_name in err and "version 2" in err and "version 1" in err
    assert (folder / "game.toml").read_bytes() == world.g4_v1
    assert (folder / copy_name).read_bytes() == world.g4_v2
    assert len(list((folder / "inbox").iterdir())) == 4


def test_a_forked_conflict_copy_of_the_game_file_stops_resolve(arena, world):
    """Two resolves on two machines wrote two different version-2 files."""
    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    arena.ok("resolve", folder, "--as", "mod")
    mine = (folder / "game.toml").read_bytes()
    (folder / CONFLICT_NAMES[1]).write_bytes(world.g4_v2)  # the same decision, resolved elsewhere
    assert mine != world.g4_v2
    err = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert CONFLICT_NAMES[1] in err
    assert (folder / "game.toml").read_bytes() == mine


def test_conflict_copies_of_an_envelope_count_once(arena, world):
    from koryo_pbm.crypto.envelope import make_envelope

    alice, mod = identity(world, "alice"), identity(world, "mod")
    newer = make_envelope(alice, mod.public, game_id=game_id_of(world.g4_v1), decision="r1-orders",
                          player="alice", orders_text=world.orders4["alice"], submitted="2099-01-01T00:00:00Z",
                          answers=head_of(world.g4_v1))
    files = {f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4}
    files["r1-orders--alice (conflicted copy 2026-01-02).envelope"] = world.env4["alice"]  # the same bytes
    files["r1-orders--alice.sync-conflict-20260102-123456-ABCDEFG.envelope"] = world.env4_old_alice  # older
    files["r1-orders--alice (1).envelope"] = newer.armor()  # newer: it wins
    folder = arena.game(world.g4_v1, envelopes=files)
    r = arena.ok("resolve", folder, "--as", "mod", "--json")
    by = {Path(e["source"]).name: e for e in r.json["envelopes"]}
    assert by["r1-orders--alice (1).envelope"]["status"] == "accepted"
    assert by["r1-orders--alice.envelope"]["status"] in ("superseded", "duplicate")
    assert by["r1-orders--alice (conflicted copy 2026-01-02).envelope"]["status"] in ("superseded", "duplicate")
    assert by["r1-orders--alice.sync-conflict-20260102-123456-ABCDEFG.envelope"]["status"] == "superseded"
    assert sum(e["conflict_copy"] for e in r.json["envelopes"]) == 3
    accepted = _log_accepted(folder)
    assert len(accepted) == len(set(accepted)) == 4 and newer.digest in accepted
    assert len(list((folder / "archive").rglob("*.envelope"))) == len(files)
    # without --json, the moderator is told about each conflict copy
    folder2 = arena.game(world.g4_v1, name="g2", envelopes=files)
    shutil.rmtree(arena.home / "seen")  # (the memory of games seen has version 2 of this game)
    r = arena.ok("resolve", folder2, "--as", "mod")
    assert r.err.count("is a sync-conflict copy of an envelope") == 3
