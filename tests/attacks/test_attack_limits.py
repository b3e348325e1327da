"""Size limits: every file koryo-pbm reads has one, and a file over it is refused before it
is read (a 1 GiB sparse file costs neither time nor memory; ``/dev/zero`` is not read forever).

| what                      | limit                  |
|---------------------------|------------------------|
| orders file (and stdin)   | 64 KiB                 |
| orders inside an envelope | 64 KiB (160 KiB sealed)|
| armoured envelope         | 256 KiB                |
| envelope file (inbox)     | 272 KiB                |
| position file             | 256 KiB                |
| key file (secret, public) | 64 KiB                 |
| game file                 | 16 MiB                 |
| mail: message / part      | 32 MiB / 8 MiB         |
| mail: mbox file           | 512 MiB                |
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import pytest
from attack_kit import PLAYERS4, assert_refused, game_id_of, head_of, identity

from koryo_pbm.crypto.envelope import MAX_ARMORED, MAX_ORDERS
from koryo_pbm.crypto.keys import KEY_FILE_LIMIT
from koryo_pbm.match import ORDERS_LIMIT
from koryo_pbm.store.gamedoc import MAX_GAME_FILE
from koryo_pbm.store.inbox import MAX_ENVELOPE_FILE
from koryo_pbm.transport.mail import MAX_MBOX, MAX_MESSAGE

GIB = 1 << 30
POSITION_LIMIT = 256 * 1024


def sparse(path, size=GIB, head=b""):
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return path


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_documented_limits():
    assert ORDERS_LIMIT == 64 * 1024 and MAX_ORDERS == 160 * 1024
    assert MAX_ARMORED == 256 * 1024 and MAX_ENVELOPE_FILE == 272 * 1024
    assert KEY_FILE_LIMIT == 64 * 1024 and MAX_GAME_FILE == 16 * 1024 * 1024
    assert MAX_MESSAGE == 32 * 1024 * 1024 and MAX_MBOX == 512 * 1024 * 1024
    from koryo_pbm.match import POSITION_LIMIT as P

    assert P == POSITION_LIMIT


def test_one_gib_sparse_files_are_refused_without_being_read(arena, world):
    folder = arena.game(world.g4_v1)
    lines = [f"--player={p}={world.lines[p]}" for p in PLAYERS4[:2]]
    cases = []
    # a 1 GiB game file, for each command that reads one
    big_game = arena.game(b"", name="big")
    sparse(big_game / "game.toml", head=world.g4_v1)
    for cmd in (("show", big_game), ("status", big_game), ("resolve", big_game, "--as", "mod"),
                ("orders", big_game, "--as", "alice"), ("submit", "x.toml", "--as", "alice", "--game", big_game)):
        cases.append((cmd, f"larger than {MAX_GAME_FILE} bytes"))
    cases += [
        (("submit", sparse(arena.cwd / "orders.toml"), "--as", "alice", "--game", folder),
         f"larger than {ORDERS_LIMIT} bytes"),
        (("new", arena.cwd / "n", "--as", "mod", "--position", sparse(arena.cwd / "pos.toml"), *lines),
         f"larger than {POSITION_LIMIT} bytes"),
        (("show", folder, "--key", sparse(arena.cwd / "big.key")), f"larger than {KEY_FILE_LIMIT} bytes"),
        (("new", arena.cwd / "n2", "--as", "mod", f"--player=alice={sparse(arena.cwd / 'big.pub')}", lines[1]),
         f"larger than {KEY_FILE_LIMIT} bytes"),
        (("resolve", folder, "--as", "mod", "--mail", sparse(arena.cwd / "big.eml")),
         "1 envelope(s) rejected"),
        (("resolve", folder, "--as", "mod", "--mail", sparse(arena.cwd / "big.mbox", head=b"From x\n")),
         f"larger than {MAX_MBOX} bytes"),
    ]
    (arena.key("alice")).chmod(0o600)
    sparse(arena.cwd / "big.key").chmod(0o600)
    before_rss = peak_rss_mib()
    for cmd, message in cases:
        t0 = time.perf_counter()
        err = assert_refused(arena(*cmd))
        assert message in err, (cmd, err)
        assert time.perf_counter() - t0 < 2.0, cmd
    assert peak_rss_mib() - before_rss < 100, "a big file was read into memory"
    assert (folder / "game.toml").read_bytes() == world.g4_v1


def test_a_one_gib_envelope_in_the_inbox_is_rejected_and_kept(arena, world):
    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    sparse(folder / "inbox" / "huge.envelope")
    before_rss = peak_rss_mib()
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert peak_rss_mib() - before_rss < 100
    assert r.code == 3
    by = {e["source"].rsplit("/", 1)[-1]: e for e in r.json["envelopes"]}
    assert by["huge.envelope"]["status"] == "rejected"
    assert f"larger than {MAX_ENVELOPE_FILE} bytes" in by["huge.envelope"]["reason"]
    assert r.json["applied"][0]["decision"] == "r1-orders"  # the valid ones were counted
    kept = folder / "archive" / "rejected" / "huge.envelope"
    assert kept.stat().st_size == GIB  # moved, never deleted


@pytest.mark.parametrize("what", ["orders", "position", "key", "mail", "game"])
def test_endless_files_are_not_read_forever(world, tmp_path, what):
    """/dev/zero in a process with 2 GiB of address space at most: refused, quickly."""
    import shutil

    shutil.copytree(world.root / "home", tmp_path / "home")
    shutil.copytree(world.root / "work" / "g4", tmp_path / "g4")
    script = f"""
import json, os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from koryo_pbm.cli.main import main
os.environ["KORYO_PBM_HOME"] = {str(tmp_path / 'home')!r}
g4 = {str(tmp_path / 'g4')!r}
lines = {json.dumps([f"{p}={world.lines[p]}" for p in PLAYERS4[:2]])}
what = {what!r}
if what == "orders":
    argv = ["submit", "/dev/zero", "--as", "alice", "--game", g4, "--out", "-"]
elif what == "position":
    argv = ["new", {str(tmp_path / 'n')!r}, "--as", "mod", "--position", "/dev/zero",
            "--player", lines[0], "--player", lines[1]]
elif what == "key":
    argv = ["show", g4, "--key", "/dev/zero"]
elif what == "mail":
    argv = ["resolve", g4, "--as", "mod", "--mail", "/dev/zero"]
else:
    argv = ["show", "/dev/zero"]
sys.exit(main(argv))
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("koryo-pbm: error: "), r.stderr


def test_limits_at_their_edge(arena, world):
    folder = arena.game(world.g4_v1)
    gid = game_id_of(world.g4_v1)
    head = f'game = "{gid}"\ndecision = "r1-orders"\n'
    orders = arena.cwd / "o.toml"
    for size, too_big in ((ORDERS_LIMIT, False), (ORDERS_LIMIT + 1, True)):
        orders.write_text(head + "#" * (size - len(head) - 1) + "\n")
        assert orders.stat().st_size == size
        err = assert_refused(arena("submit", orders, "--as", "alice", "--game", folder))
        assert ("larger than" in err) == too_big, err
        err = assert_refused(arena("submit", "-", "--as", "alice", "--game", folder, stdin=orders.read_text()))
        assert ("larger than" in err) == too_big, err
    # an envelope file just over its limit is rejected unread; orders over the limit inside a
    # valid envelope (a crafted client) are rejected by resolve
    from koryo_pbm.crypto.envelope import make_envelope

    (folder / "inbox" / "big.envelope").write_bytes(b"x" * (MAX_ENVELOPE_FILE + 1))
    env = make_envelope(identity(world, "alice"), identity(world, "mod").public, game_id=gid,
                        decision="r1-orders", player="alice", submitted="2026-01-02T03:04:05Z",
                        answers=head_of(world.g4_v1), orders_text=world.orders4["alice"] + "#" * ORDERS_LIMIT + "\n")
    (folder / "inbox" / "fat.envelope").write_text(env.armor())
    r = arena("resolve", folder, "--as", "mod", "--json")
    reasons = {e["source"].rsplit("/", 1)[-1]: e["reason"] for e in r.json["envelopes"]}
    assert f"larger than {MAX_ENVELOPE_FILE} bytes" in reasons["big.envelope"]
    assert f"larger than {ORDERS_LIMIT} bytes" in reasons["fat.envelope"]
    assert (folder / "game.toml").read_bytes() == world.g4_v1
    with pytest.raises(Exception, match="larger than"):
        make_envelope(identity(world, "alice"), identity(world, "mod").public, game_id=gid, decision="r1-orders",
                      player="alice", submitted="2026-01-02T03:04:05Z", orders_text="#" * (MAX_ORDERS + 1),
                      answers=head_of(world.g4_v1))
    # a game file one byte over its limit
    big = arena.game(world.g4_v1 + b"#" * (MAX_GAME_FILE + 1 - len(world.g4_v1)), name="big")
    assert f"larger than {MAX_GAME_FILE} bytes" in assert_refused(arena("show", big))
    # a position file one byte over
    pos = arena.cwd / "p.toml"
    pos.write_bytes(b"#" * (POSITION_LIMIT + 1))
    err = assert_refused(arena("new", arena.cwd / "n", "--as", "mod", "--position", pos,
                               "--player", f"alice={world.lines['alice']}", "--player", f"bob={world.lines['bob']}"))
    assert "larger than" in err and not (arena.cwd / "n").exists()
