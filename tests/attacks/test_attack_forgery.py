"""Forgery and tampering: flipped bytes, stolen names, replays, rollbacks.

Figures (fixed by construction, asserted below):

* every byte position of a signed game file is flipped (one bit each, the bit cycling with the
  position) and the file read by the loader every command reads game files with: every one
  refused (every byte of a finished 2-player game; of a 4-player game after its first decision,
  every byte but a sample of its sealed blobs); the header, the signature line and a sample of
  the rest of the 4-player file given in turn to ``show``, ``status`` and ``resolve``: every one
  refused with one line, the file never rewritten;
* every bit of every byte of a player's envelope (8 x its length) flipped, each variant a file in
  the inbox: ``resolve`` rejects all but the one variant that changes only the line end after
  the armour (it decodes to the very same signed bytes, and is recognised as already counted);
  the game file stays byte-identical;
* one bit of every byte of the same envelope flipped inside an email (a Maildir message each):
  the same outcome through ``resolve --mail``.
"""

from __future__ import annotations

import random
import shutil

from attack_kit import (
    PLAYERS4,
    assert_refused,
    body_of,
    game_id_of,
    head_of,
    identity,
    parse_envelope,
    sign_game,
)

# -- the game file ---------------------------------------------------------------------------


def _flip_in_place(path, i: int) -> None:
    """Flip bit ``i % 8`` of byte ``i`` of ``path`` where it lies (a truncate-and-rewrite of the
    whole file costs ~2 ms on this machine's ext4, more than the command it feeds)."""
    with open(path, "r+b") as f:
        f.seek(i)
        b = f.read(1)[0] ^ (1 << (i % 8))
        f.seek(i)
        f.write(bytes([b]))


def _sealed_span(data: bytes) -> tuple[int, int]:
    """The byte range of a game file's ``[sealed.*]`` tables (the HPKE blobs: 48 KB of g4's 51 KB)."""
    start = data.index(b"\n[sealed.") + 1
    end = data.rfind(b"\n", 0, len(data) - 1) + 1  # the signature line follows the sealed tables
    assert data.find(b"\n[", data.rfind(b"\n[sealed.") + 1, end) < 0, "a table after [sealed]"
    return start, end


def test_every_byte_of_a_game_file_flipped_is_refused_by_the_loader(arena, world):
    """Every byte of two signed files flipped, each given to ``read_game``, the loader through
    which ``show``, ``status``, ``resolve`` and every other command read a game file (the next
    test shows the commands refusing through it): it must raise a ``KoryoPbmError``, which the
    CLI's one error boundary turns into one line and a non-zero exit; anything else would be a
    traceback. The finished 2-player game (24 KB) holds every kind of part but a decision (the
    header with seed and salt, players, public, log, replay, sealed, signature); of the
    4-player game after its first decision, every byte but its sealed blobs (the header,
    players, decision, public, log and the signature line), the sealed blobs by a seeded sample
    of 1,000 (the 2-player file's sealed tables are swept whole)."""
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store.gamefile import read_game

    g2_end, g4 = world.g2_versions[-1], world.g4_v2
    assert b"[[replay.orders]]" in g2_end and b"\nseed = " in g2_end and b"\n[sealed." in g2_end
    assert b"\n[decision]" in g4 and b"\n[[log]]" in g4
    lo, hi = _sealed_span(g4)
    rng = random.Random(20261125)
    cases = [(g2_end, range(len(g2_end))),
             (g4, [*range(lo), *sorted(rng.sample(range(lo, hi), 1000)), *range(hi, len(g4))])]
    swept = 0
    for n, (data, positions) in enumerate(cases):
        path = arena.game(data, name=f"g{n}") / "game.toml"
        read_game(path)  # the untouched file is read
        for i in positions:
            _flip_in_place(path, i)
            try:
                read_game(path)
            except KoryoPbmError as exc:
                assert str(exc) and "Traceback" not in str(exc)
            else:
                raise AssertionError(f"byte {i} of a {len(data)}-byte game file flipped and accepted")
            _flip_in_place(path, i)  # back
            swept += 1
        assert path.read_bytes() == data
    assert swept == len(g2_end) + len(g4) - (hi - lo) + 1000 > 20_000


def test_game_files_with_a_byte_flipped_are_refused_by_show_status_and_resolve(arena, world):
    """The real commands given flipped game files: every byte of the header and of the signature
    line of the 4-player game after its first decision, and a seeded sample of 1,500 of the rest,
    each in turn to ``show``, ``status`` and ``resolve``: every one refused with one line, the
    file never rewritten (the loader test above flips every byte)."""
    data = world.g4_v2
    folder = arena.game(data)
    path = folder / "game.toml"
    commands = (("show", folder, "--as", "alice"), ("status", folder), ("resolve", folder, "--as", "mod"))
    refused = {c[0]: 0 for c in commands}
    header_end = data.index(b"\n[") + 1
    signature_line = data.rfind(b"\n", 0, len(data) - 1) + 1
    rest = range(header_end, signature_line)
    positions = [*range(header_end), *sorted(random.Random(7).sample(rest, 1500)), *range(signature_line, len(data))]
    for n, i in enumerate(positions):
        flipped = bytearray(data)
        flipped[i] ^= 1 << (i % 8)
        _flip_in_place(path, i)
        cmd = commands[n % 3]
        r = arena(*cmd)
        assert_refused(r)
        assert path.read_bytes() == flipped, f"{cmd[0]} rewrote a tampered game file (byte {i})"
        _flip_in_place(path, i)
        refused[cmd[0]] += 1
    assert sum(refused.values()) == len(positions) > 1800
    assert min(refused.values()) >= len(positions) // 3
    assert not (folder / "archive" / "accepted").exists()
    # the untouched file is accepted by all three
    assert path.read_bytes() == data
    for cmd in commands:
        assert arena(*cmd).code == 0


# -- envelopes -------------------------------------------------------------------------------


def _held_alice(arena, world):
    """Game v1 with alice's envelope already received (held): the starting point for flips."""
    folder = arena.game(world.g4_v1, envelopes={"r1-orders--alice.envelope": world.env4["alice"]})
    r = arena.ok("resolve", folder, "--as", "mod", "--json")
    assert [e["status"] for e in r.json["envelopes"]] == ["held"]
    return folder


def _flips(data: bytes, bits=range(8)):
    for i in range(len(data)):
        for bit in bits:
            flipped = bytearray(data)
            flipped[i] ^= 1 << bit
            yield i, bit, bytes(flipped)


def test_every_bit_of_an_inbox_envelope_flipped_is_rejected(arena, world):
    folder = _held_alice(arena, world)
    original = parse_envelope(world.env4["alice"])
    data = world.env4["alice"].encode("ascii")
    game_before = (folder / "game.toml").read_bytes()
    names = {}
    for i, bit, flipped in _flips(data):
        name = f"flip-{i:05d}-{bit}.envelope"
        (folder / "inbox" / name).write_bytes(flipped)
        names[name] = flipped
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert r.code == 3
    assert r.json["written"] is False and r.json["applied"] == []
    assert (folder / "game.toml").read_bytes() == game_before
    statuses = {}
    for e in r.json["envelopes"]:
        statuses[e["source"].rsplit("/", 1)[-1]] = e["status"]
    assert set(statuses) == set(names)
    duplicates = sorted(n for n, s in statuses.items() if s != "rejected")
    # the only variant not rejected is the one whose change is in the line end after the armour:
    # it is the very same envelope (same signed bytes), already counted
    assert len(duplicates) == 1, duplicates
    assert all(statuses[n] == "duplicate" for n in duplicates)
    assert parse_envelope(names[duplicates[0]].decode("utf-8")).digest == original.digest
    rejected = len(names) - len(duplicates)
    assert len(names) == 8 * len(data) and rejected == len(names) - 1
    # nothing lost: every file moved to the archive, byte for byte
    assert not [p for p in (folder / "inbox").iterdir()]
    archived = sorted(p.read_bytes() for p in (folder / "archive").rglob("flip-*"))
    assert archived == sorted(names.values())
    assert len(list((folder / "archive" / "rejected").iterdir())) == rejected


def test_flipped_inbox_envelopes_one_at_a_time(arena, world):
    """A seeded sample, each alone in the inbox: no batch effect hides an acceptance."""
    folder = _held_alice(arena, world)
    data = world.env4["alice"].encode("ascii")
    game_before = (folder / "game.toml").read_bytes()
    rng = random.Random(20260102)
    for n in range(60):
        i, bit = rng.randrange(len(data) - 1), rng.randrange(8)
        flipped = bytearray(data)
        flipped[i] ^= 1 << bit
        (folder / "inbox" / f"one-{n}.envelope").write_bytes(flipped)
        r = arena("resolve", folder, "--as", "mod", "--json")
        assert r.code == 3, (i, bit, r.err)
        assert [e["status"] for e in r.json["envelopes"]] == ["rejected"]
        assert (folder / "game.toml").read_bytes() == game_before


def test_every_byte_of_a_mailed_envelope_flipped_is_rejected(arena, world, tmp_path):
    folder = _held_alice(arena, world)
    game_before = (folder / "game.toml").read_bytes()
    original = parse_envelope(world.env4["alice"])
    data = world.env4["alice"].encode("ascii")
    maildir = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    head = b"From: alice@example.org\nTo: mod@example.org\nSubject: my orders\n\nHere they are:\n\n"
    n = 0
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 1 << (i % 8)
        (maildir / "new" / f"{i:05d}.alice").write_bytes(head + bytes(flipped))
        n += 1
    r = arena("resolve", folder, "--as", "mod", "--mail", maildir, "--json")
    assert r.code == 3, r.err
    assert r.json["written"] is False
    assert (folder / "game.toml").read_bytes() == game_before
    statuses = [e["status"] for e in r.json["envelopes"]]
    found = {int(e["source"].rsplit("/", 1)[-1].split(".")[0]) for e in r.json["envelopes"]}
    # a flip inside the BEGIN line (or its line end) hides the block: no envelope in that message
    hidden = set(range(n)) - found
    assert hidden <= set(range(len("-----BEGIN KORYO-PBM ENVELOPE-----\n")))
    not_rejected = [e for e in r.json["envelopes"] if e["status"] != "rejected"]
    assert len(not_rejected) <= 1 and all(e["status"] == "duplicate" for e in not_rejected)
    assert statuses.count("rejected") >= n - len(hidden) - 1
    assert original.digest  # the only non-rejected one is, by digest, the envelope already held


# -- names and keys ---------------------------------------------------------------------------


def _craft(signer, moderator_public, *, game_id, decision, player, orders, answers, sender_fpr=None):
    """An envelope built like make_envelope, but with any sender fingerprint in its header."""
    import os

    from koryo_pbm.crypto import envelope as E
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    header = {"format": E.FORMAT, "game_id": game_id, "decision": decision, "answers": answers[7:],
              "player": player,
              "submitted": "2026-01-02T03:04:05Z", "nonce": os.urandom(16).hex(),
              "moderator": moderator_public.fingerprint(),
              "sender": sender_fpr or signer.public.fingerprint()}
    hb = E.header_bytes(header)
    orders_b = orders.encode("utf-8")
    inner = sign(signer, E.INNER_CONTEXT, hb + orders_b)
    ct = seal(moderator_public, inner + E.pad(orders_b), E.SEAL_INFO_PREFIX + hb)
    return E.Envelope(header, ct, sign(signer, E.OUTER_CONTEXT, hb + ct))


def test_a_key_that_is_not_the_players_cannot_submit_for_them(arena, world):
    eve, alice, mod = identity(world, "eve"), identity(world, "alice"), identity(world, "mod")
    folder = arena.game(world.g4_v1)
    before = (folder / "game.toml").read_bytes()
    gid = game_id_of(world.g4_v1)
    head = head_of(world.g4_v1)
    orders = world.orders4["alice"]
    forged = {
        # eve signs as herself, claiming to be alice
        "eve-as-alice.envelope": _craft(eve, mod.public, game_id=gid, answers=head, decision="r1-orders", player="alice",
                                        orders=orders),
        # eve writes alice's fingerprint as the sender, but can only sign with her own key
        "eve-with-alices-fpr.envelope": _craft(eve, mod.public, game_id=gid, answers=head, decision="r1-orders",
                                               player="alice", orders=orders,
                                               sender_fpr=alice.public.fingerprint()),
        # alice (a real player) submits for bob
        "alice-as-bob.envelope": _craft(alice, mod.public, game_id=gid, answers=head, decision="r1-orders", player="bob",
                                        orders=world.orders4["bob"]),
        # eve claims the moderator's seat
        "eve-as-mod.envelope": _craft(eve, mod.public, game_id=gid, answers=head, decision="r1-orders", player="moderator",
                                      orders=orders),
    }
    # alice's genuine envelope, with the signatures of eve grafted on
    real = parse_envelope(world.env4["alice"])
    from koryo_pbm.crypto.envelope import OUTER_CONTEXT, Envelope
    from koryo_pbm.crypto.sign import sign

    forged["grafted.envelope"] = Envelope(real.header, real.ciphertext,
                                          sign(eve, OUTER_CONTEXT, real.header_bytes() + real.ciphertext))
    for name, env in forged.items():
        (folder / "inbox" / name).write_text(env.armor())
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert r.code == 3
    by = {e["source"].rsplit("/", 1)[-1]: e for e in r.json["envelopes"]}
    assert all(e["status"] == "rejected" for e in by.values()), by
    assert "signed by key" in by["eve-as-alice.envelope"]["reason"]
    assert "does not verify" in by["eve-with-alices-fpr.envelope"]["reason"]
    assert "signed by key" in by["alice-as-bob.envelope"]["reason"]
    assert "not a player" in by["eve-as-mod.envelope"]["reason"]
    assert "does not verify" in by["grafted.envelope"]["reason"]
    assert (folder / "game.toml").read_bytes() == before
    assert len(list((folder / "archive" / "rejected").iterdir())) == len(forged)
    # and through the CLI, eve's key is not a player's key
    orders_file = arena.cwd / "o.toml"
    orders_file.write_text(orders)
    err = assert_refused(arena("submit", orders_file, "--key", arena.key("eve"), "--game", folder))
    assert "is not the key of any player" in err
    assert not list((folder / "inbox").iterdir())


# -- replays ---------------------------------------------------------------------------------


def test_replay_into_a_later_decision_is_refused(arena, world):
    folder = arena.game(world.g4_v2, envelopes={
        "again.envelope": world.env4["alice"],  # counted in r1-orders already
        "old.envelope": world.env4_old_alice,  # never counted, for r1-orders
    })
    before = (folder / "game.toml").read_bytes()
    r = arena("resolve", folder, "--as", "mod", "--json")
    by = {e["source"].rsplit("/", 1)[-1]: e for e in r.json["envelopes"]}
    assert by["again.envelope"]["status"] == "duplicate"
    # late, not counted; not a failure of the run either (issue 8: late envelopes are not errors)
    assert by["old.envelope"]["status"] == "late" and "was resolved already" in by["old.envelope"]["reason"]
    assert r.code == 0 and r.json["written"] is False
    assert (folder / "game.toml").read_bytes() == before
    assert (folder / "archive" / "duplicate" / "again.envelope").exists()
    assert (folder / "archive" / "late" / "old.envelope").exists()


def test_replay_into_another_game_is_refused(arena, world):
    folder = arena.game(world.other_v1, envelopes={f"{p}.envelope": world.env4[p] for p in PLAYERS4})
    before = (folder / "game.toml").read_bytes()
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert r.code == 3 and r.json["written"] is False
    assert all(e["status"] == "rejected" and "for game" in e["reason"] for e in r.json["envelopes"])
    assert (folder / "game.toml").read_bytes() == before


def test_replay_after_the_game_ended_is_refused(arena, world):
    final = world.g2_versions[-1]
    # an envelope never counted, for the last decision, made from the last-but-one version
    prev = arena.game(world.g2_versions[-2], name="prev")
    status = arena.ok("status", prev, "--json").json
    late = arena.cwd / "late.envelope"
    player = status["waiting_for"][0]
    arena.ok("orders", prev, "--as", player, "-o", arena.cwd / "late.toml")
    arena.ok("submit", arena.cwd / "late.toml", "--as", player, "--game", prev, "--out", late)
    envelopes = {f"{k:03d}-{d}--{p}.envelope": text for k, (d, p, text) in enumerate(world.g2_envelopes)}
    envelopes["late.envelope"] = late.read_text()
    folder = arena.game(final, envelopes=envelopes)
    r = arena("resolve", folder, "--as", "mod", "--json")
    assert r.code == 0 and r.json["written"] is False and r.json["decision"] is None  # late is no failure
    by = {e["source"].rsplit("/", 1)[-1]: e for e in r.json["envelopes"]}
    late_entry = by.pop("late.envelope")
    assert late_entry["status"] == "late" and late_entry["reason"].endswith("is over")
    assert by and all(e["status"] == "duplicate" for e in by.values())
    assert (folder / "game.toml").read_bytes() == final
    assert len(list((folder / "archive").rglob("*.envelope"))) == len(envelopes)


# -- the moderator's key and rollbacks ---------------------------------------------------------


def test_a_rolled_back_game_file_is_noticed(arena, world):
    folder = arena.game(world.g4_v1)
    path = folder / "game.toml"
    assert "warning" not in arena.ok("show", folder, "--as", "alice").err
    path.write_bytes(world.g4_v2)
    assert "warning" not in arena.ok("show", folder, "--as", "alice").err
    path.write_bytes(world.g4_v1)  # somebody with write access to the shared folder rolls it back
    r = arena.ok("show", folder, "--as", "alice")
    gid = game_id_of(world.g4_v1)
    assert (f"koryo-pbm: warning: game {gid}: this file is version 1, older than the version 2 you saw; it is "
            "part of the same history (an old mail or a stale copy: nobody's fault); the newer copy is "
            f"{arena.home / 'pinned' / (gid + '.toml')}") in r.err
    r = arena.ok("show", folder)  # without --as as well: the memory is per user, not per key
    assert "older than the version 2 you saw" in r.err


def test_the_moderator_does_not_resolve_a_rolled_back_game(arena, world):
    folder = arena.game(world.g4_v1, envelopes={f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4})
    path = folder / "game.toml"
    arena.ok("resolve", folder, "--as", "mod")
    assert b"version = 2" in path.read_bytes()
    # a player who dislikes the outcome puts version 1 back, then submits other orders
    path.write_bytes(world.g4_v1)
    shutil.copy(arena.cwd / "g" / "archive" / "accepted" / "r1-orders--bob.envelope",
                folder / "inbox" / "r1-orders--bob.envelope")
    err = assert_refused(arena("resolve", folder, "--as", "mod"))
    assert "this file is version 1, older than the version 2 you saw" in err and "refusing to resolve" in err
    assert path.read_bytes() == world.g4_v1
    assert (folder / "inbox" / "r1-orders--bob.envelope").exists()


def test_a_game_file_signed_by_another_key_is_refused_once_pinned(arena, world):
    folder = arena.game(world.g4_v1)
    arena.ok("show", folder)
    # eve makes a game of her own, then gives it the id of the real one and signs it
    eve_game = arena.cwd / "eve"
    args = ["new", eve_game, "--key", arena.key("eve"), "--seed", "x"]
    for p in PLAYERS4:
        args += ["--player", f"{p}={world.lines[p]}"]
    arena.ok(*args)
    eve_data = (eve_game / "game.toml").read_bytes()
    body = body_of(eve_data).replace(game_id_of(eve_data).encode(), game_id_of(world.g4_v1).encode())
    (folder / "game.toml").write_bytes(sign_game(body, identity(world, "eve")))
    for cmd in (("show", folder), ("show", folder, "--as", "alice"),
                ("orders", folder, "--as", "alice")):
        err = assert_refused(arena(*cmd))
        assert "is now signed by moderator key" in err
    # the real moderator's resolve refuses it too (not the moderator of that file)
    assert "is not the moderator" in assert_refused(arena("resolve", folder, "--as", "mod"))
