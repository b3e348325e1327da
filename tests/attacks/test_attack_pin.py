"""Equivocation and rewritten history are caught as they happen (issue 9, item 6).

Players' tools pin the head of the hash chain (with the version) and keep a copy of the game
file they saw: a moderator who re-signs a rewritten log, or shows two players two different
files of one version, is refused by every player command with a message that says what the two
files prove, and where the pinned copy is.
"""

from __future__ import annotations

import shutil
import tomllib

import pytest
from attack_kit import assert_refused, game_id_of, identity

from koryo_pbm.store import gamedoc, gamefile, gamelog, gameparts

PLAYER_COMMANDS = [
    ("show", "g", "--as", "alice"),
    ("inspect", "g", "--as", "alice"),
    ("status", "g"),
    ("log", "g"),
    ("orders", "g", "--as", "alice"),
    ("play", "g", "--as", "alice"),
]


def rewritten(data: bytes, mod, *, entry: int = 0) -> bytes:
    """The same version of a game, its log entry ``entry`` rewritten, the chain recomputed and
    the file re-signed by the moderator: a history that verifies on its own."""
    doc = gamefile.decode(data)
    prev = gamedoc.ZERO_HASH
    log = []
    for i, e in enumerate(doc.log):
        e = dict(e)
        if i == entry:
            e["events"] = [*e["events"], "alice scores 9 points (rewritten)"]
        e["prev"] = prev
        e["hash"] = gamelog._entry_hash(e)
        prev = e["hash"]
        log.append(e)
    doc.log = log
    return gamefile.encode(doc, mod)


def pinned_copy(home, data: bytes):
    return home / "pinned" / f"{game_id_of(data)}.toml"


def second_home(arena, name: str):
    home = arena.root / name
    shutil.copytree(arena.world.keys, home / "keys")
    return home


@pytest.mark.parametrize("later", [True, False], ids=["a later version", "the same version"])
def test_a_resigned_rewritten_log_is_refused_by_every_player_command(arena, later):
    """alice saw version 3 of a game; the moderator rewrites the first log entry, recomputes the
    chain and re-signs (as version 4, or as version 3 again). Every player command refuses the
    file, says what it proves and where the copy of what alice saw is; the copy is the file
    alice saw, byte for byte; the game folder is left as it was."""
    versions = arena.world.g2_versions
    mod = identity(arena.world, "mod")
    folder = arena.game(versions[2])
    arena.ok("show", "g", "--as", "alice")
    copy = pinned_copy(arena.home, versions[2])
    assert copy.read_bytes() == versions[2]
    forged = rewritten(versions[3] if later else versions[2], mod)
    (folder / "game.toml").write_bytes(forged)
    gid = game_id_of(forged)
    for args in PLAYER_COMMANDS:
        line = assert_refused(arena(*args), code=1)
        heads = (gamelog.head(gamefile.decode(forged))[7:23], gamelog.head(gamefile.decode(versions[2]))[7:23])
        first = gamefile.decode(versions[2]).log[0]["decision"]
        assert line == (f"koryo-pbm: error: the moderator signed two different histories of game {gid}: version "
                        f"{4 if later else 3} here has head {heads[0]}, the version 3 you saw has head {heads[1]}; "
                        f"they part at log entry 1 ({first}); the copy you saw is {copy}; keep both files: together "
                        "they prove it (both carry the moderator's signature)"), line
    assert (folder / "game.toml").read_bytes() == forged
    assert copy.read_bytes() == versions[2]
    assert gamefile.decode(copy.read_bytes()).version == 3  # both files carry the moderator's signature
    assert gamefile.decode(forged).moderator == gamefile.decode(copy.read_bytes()).moderator


def test_submit_refuses_a_rewritten_history_too(arena):
    versions = arena.world.g2_versions
    # a version after the first resolve that waits for alice (which one depends on the deal)
    data = next(v for v in versions[1:]
                if "alice" in tomllib.loads(v.decode("utf-8")).get("decision", {}).get("waiting_for", []))
    folder = arena.game(data)
    arena.ok("orders", "g", "--as", "alice", "-o", "mine.toml")
    (folder / "game.toml").write_bytes(rewritten(data, identity(arena.world, "mod")))
    line = assert_refused(arena("submit", "mine.toml", "--as", "alice", "--game", "g"), code=1)
    assert "signed two different histories" in line
    assert list((folder / "inbox").iterdir()) == []


def test_the_true_history_goes_on_being_accepted(arena):
    """Following the real game version after version never trips the pin, and the copy follows."""
    versions = arena.world.g2_versions
    folder = arena.game(versions[0])
    for data in versions:
        (folder / "game.toml").write_bytes(data)
        arena.ok("status", "g")
        assert pinned_copy(arena.home, data).read_bytes() == data
    # an older version of the same history is older (told, with where the newer copy is), not a second history
    (folder / "game.toml").write_bytes(versions[3])
    r = arena.ok("status", "g")
    assert (f"this file is version 4, older than the version {len(versions)} you saw; it is part of the same "
            f"history (an old mail or a stale copy: nobody's fault); the newer copy is "
            f"{pinned_copy(arena.home, versions[3])}") in r.err


def test_an_older_file_from_another_history_is_refused(arena):
    versions = arena.world.g2_versions
    folder = arena.game(versions[5])
    arena.ok("status", "g")
    (folder / "game.toml").write_bytes(rewritten(versions[3], identity(arena.world, "mod")))
    line = assert_refused(arena("status", "g"), code=1)
    assert "signed two different histories" in line and "the version 6 you saw has head" in line
    assert "they part at log entry 1 (" in line


def test_two_files_of_one_version_shown_to_two_players(arena):
    """The moderator resolves the first decision twice (with alice's earlier envelope, and with
    her later one) and sends version 2 of one history to alice, of the other to bob. Each alone
    looks fine; the moment alice is given bob's file (a shared folder, a forwarded mail), her
    tools refuse it and name both heads."""
    world = arena.world
    first = arena.game(world.g4_v2, "g")
    other = arena.game(world.g4_v1, "other", envelopes={
        "a.envelope": world.env4_old_alice, "b.envelope": world.env4["bob"],
        "c.envelope": world.env4["carol"], "d.envelope": world.env4["dave"]})
    arena.ok("resolve", "other", "--as", "mod", home=second_home(arena, "modhome"))
    forked = (other / "game.toml").read_bytes()
    assert gamefile.decode(forked).version == gamefile.decode(world.g4_v2).version == 2
    assert gamelog.head(gamefile.decode(forked)) != gamelog.head(gamefile.decode(world.g4_v2))
    bob_home = second_home(arena, "bobhome")
    arena.ok("show", "other", "--as", "bob", home=bob_home)  # bob's file, on bob's machine: fine
    arena.ok("show", "g", "--as", "alice")  # alice's
    # what they would compare on the phone: status names the head of the history each was shown
    heads = [arena.ok("status", "g").out.splitlines()[0], arena.ok("status", "other", home=bob_home).out.splitlines()[0]]
    assert heads == [f"game {game_id_of(forked)} (koryo), version 2, history {h[7:23]}"
                     for h in (gamelog.head(gamefile.decode(world.g4_v2)), gamelog.head(gamefile.decode(forked)))]
    assert arena.ok("status", "g", "--json").json["head"] == gamelog.head(gamefile.decode(world.g4_v2))
    (first / "game.toml").write_bytes(forked)
    line = assert_refused(arena("show", "g", "--as", "alice"), code=1)
    head_alice = gamelog.head(gamefile.decode(world.g4_v2)).removeprefix("sha256:")[:16]
    head_bob = gamelog.head(gamefile.decode(forked)).removeprefix("sha256:")[:16]
    assert line == (f"koryo-pbm: error: the moderator signed two different histories of game "
                    f"{game_id_of(forked)}: version 2 here has head {head_bob}, the version 2 you saw has "
                    f"head {head_alice}; they part at log entry 1 (r1-orders); the copy you saw is {pinned_copy(arena.home, forked)}; keep both files: "
                    "together they prove it (both carry the moderator's signature)")


def test_an_answer_to_another_history_is_refused_by_resolve(arena):
    """Each envelope names the head of the history it answers (signed, in its header). A player
    shown the forked version 2 answers it; resolve on the game's real version 2 refuses that
    envelope, saying so, and nothing changes; the player's answer to the real file is taken."""
    world = arena.world
    real = arena.game(world.g4_v2, "g")
    other = arena.game(world.g4_v1, "other", envelopes={
        "a.envelope": world.env4_old_alice, "b.envelope": world.env4["bob"],
        "c.envelope": world.env4["carol"], "d.envelope": world.env4["dave"]})
    arena.ok("resolve", "other", "--as", "mod", home=second_home(arena, "modhome"))
    player = arena.ok("status", "other", "--json", home=second_home(arena, "h1")).json["waiting_for"][0]
    home = second_home(arena, "player")
    arena.ok("orders", "other", "--as", player, "-o", "forked.toml", home=home)
    arena.ok("submit", "forked.toml", "--as", player, "--game", "other", "--out", "forked.envelope", home=home)
    forked = (arena.cwd / "forked.envelope").read_text()
    assert f"answers: {gamelog.head(gamefile.decode((other / 'game.toml').read_bytes()))[7:]}\n" in forked
    (real / "inbox" / "forked.envelope").write_text(forked)
    before = (real / "game.toml").read_bytes()
    r = arena("resolve", "g", "--as", "mod", "--json")
    assert r.code == 3, r.err
    [env] = r.json["envelopes"]
    head_real = gamelog.head(gamefile.decode(world.g4_v2))[7:23]
    assert env["status"] == "rejected"
    assert env["reason"].endswith(f"but the history of game {game_id_of(world.g4_v2)} at "
                                  f"{gamefile.decode(world.g4_v2).decision['id']} ends with {head_real}: the player "
                                  "was shown another file"), env["reason"]
    assert (real / "game.toml").read_bytes() == before
    # the player's own tools, having seen the fork, now refuse the real file: the proof is theirs
    assert "signed two different histories" in assert_refused(arena("orders", "g", "--as", player, home=home))
    # the same player answering the real file (on a machine that never saw the fork) is counted
    fresh = second_home(arena, "player2")
    arena.ok("orders", "g", "--as", player, "-o", "real.toml", home=fresh)
    arena.ok("submit", "real.toml", "--as", player, "--game", "g", home=fresh)
    r = arena.ok("resolve", "g", "--as", "mod", "--json")
    assert [e["status"] for e in r.json["envelopes"]] in (["accepted"], ["held"])


def test_another_file_of_the_same_version_and_history_is_refused(arena):
    """The moderator deals alice another hand in a second file of version 2 (same log, so the
    same head): the file's digest is pinned too, and alice's tools refuse the second file."""
    world = arena.world
    mod, alice = identity(world, "mod"), identity(world, "alice")
    folder = arena.game(world.g4_v2)
    arena.ok("show", "g", "--as", "alice")
    doc = gamefile.decode(world.g4_v2)
    mine = gameparts.open_part(doc, "alice", alice)
    other_hand = {**mine, "hand": [*sorted(mine["hand"], reverse=True)[:-1], "omniscient"]}
    assert other_hand != mine
    doc.sealed["alice"] = gameparts.seal_part(doc, "alice", alice.public, other_hand)
    forged = gamefile.encode(doc, mod)
    assert gamelog.head(gamefile.decode(forged)) == gamelog.head(gamefile.decode(world.g4_v2))
    (folder / "game.toml").write_bytes(forged)
    line = assert_refused(arena("show", "g", "--as", "alice"), code=1)
    assert line.startswith(f"koryo-pbm: error: the moderator signed two different files of version 2 of game "
                           f"{game_id_of(forged)}: the same history, but another public state or other sealed "
                           "parts (file "), line
    assert line.endswith(f"the copy you saw is {pinned_copy(arena.home, forged)}; keep both files: together they "
                         "prove it (both carry the moderator's signature)"), line
    # the same file again, its line endings turned into CRLF by a mail client, is the same file
    (folder / "game.toml").write_bytes(world.g4_v2.replace(b"\n", b"\r\n"))
    arena.ok("show", "g", "--as", "alice")


def test_an_envelope_of_the_old_format_is_refused_with_a_reason(arena):
    """An envelope written by an older koryo-pbm (format v1: no ``answers``) left in the inbox:
    resolve rejects it, says to submit again, and the game does not change."""
    import re

    world = arena.world
    v1 = re.sub(r"answers: [0-9a-f]{64}\n", "", world.env4["alice"]).replace(
        "format: koryo-pbm-envelope/v2", "format: koryo-pbm-envelope/v1")
    folder = arena.game(world.g4_v1, envelopes={"old.envelope": v1})
    before = (folder / "game.toml").read_bytes()
    r = arena("resolve", "g", "--as", "mod", "--json")
    assert r.code == 3
    [env] = r.json["envelopes"]
    assert env["status"] == "rejected"
    assert env["reason"] == ("envelope file g/inbox/old.envelope: envelope format koryo-pbm-envelope/v1 is no "
                             "longer read (this koryo-pbm reads koryo-pbm-envelope/v2, which names the history it "
                             "answers): submit the orders again")
    assert (folder / "game.toml").read_bytes() == before


def test_the_pinned_copy_is_the_file_read_not_another_of_the_same_version(arena):
    """One process reads a rewritten file of version 3 (refused), then a player who never saw
    the game reads the true version 3: the copy kept is the true file, byte for byte (the two
    differ in their log alone)."""
    versions = arena.world.g2_versions
    folder = arena.game(versions[2])
    arena.ok("status", "g")
    (folder / "game.toml").write_bytes(rewritten(versions[2], identity(arena.world, "mod")))
    assert_refused(arena("status", "g"), code=1)
    other = second_home(arena, "carol-home")
    (folder / "game.toml").write_bytes(versions[2])
    arena.ok("status", "g", home=other)
    assert pinned_copy(other, versions[2]).read_bytes() == versions[2]


# -- an older copy: nobody's fault (issue 17, item 1) --------------------------------------------


def test_an_older_copy_on_the_moderator_s_machine_is_no_accusation(arena):
    """The moderator resolves three decisions one by one, then looks at last week's copy of the
    game (version 2): it is older, of the same history. (An older koryo-pbm kept the copy of the
    first version it read, and told the moderator that it had signed two different histories.)"""
    world = arena.world
    folder = arena.game(world.g2_versions[0])
    decisions = list(dict.fromkeys(d for d, _, _ in world.g2_envelopes))
    written = [world.g2_versions[0]]
    for decision in decisions[:3]:
        for d, player, text in world.g2_envelopes:
            if d == decision:
                (folder / "inbox" / f"{d}--{player}.envelope").write_text(text)
        arena.ok("resolve", "g", "--as", "mod")
        written.append((folder / "game.toml").read_bytes())
    assert gamefile.decode(written[3]).version == 4
    (folder / "game.toml").write_bytes(written[1])
    copy = pinned_copy(arena.home, written[1])
    for args in (("status", "g"), ("log", "g"), ("show", "g", "--as", "alice")):
        r = arena.ok(*args)
        assert "two different" not in r.err
        assert (f"koryo-pbm: warning: game {game_id_of(world.g2_versions[1])}: this file is version 2, older than "
                "the version 4 you saw; it is part of the same history (an old mail or a stale copy: nobody's "
                f"fault); the newer copy is {copy}\n") in r.err, r.err
    assert copy.read_bytes() == written[3]


def test_an_older_copy_is_told_and_its_resolved_decision_not_answered(arena):
    """alice saw version 7; a stale synced copy puts version 4 back. show, status, log say it is
    older (both numbers) and where the newer copy is; orders, submit and play refuse to answer
    its decision, which is resolved already; nothing is written."""
    versions = arena.world.g2_versions
    stale = next(v for v in versions[1:6]
                 if "alice" in tomllib.loads(v.decode("utf-8")).get("decision", {}).get("waiting_for", []))
    folder = arena.game(stale)
    arena.ok("orders", "g", "--as", "alice", "-o", "new.toml", home=second_home(arena, "then"))  # written back then
    (folder / "game.toml").write_bytes(versions[6])
    arena.ok("show", "g", "--as", "alice")
    (folder / "game.toml").write_bytes(stale)
    old = gamefile.decode(stale)
    copy = pinned_copy(arena.home, stale)
    older = (f"game {old.game_id}: this file is version {old.version}, older than the version 7 you saw")
    for args in (("show", "g", "--as", "alice"), ("status", "g"), ("log", "g")):
        r = arena.ok(*args)
        assert f"koryo-pbm: warning: {older}; it is part of the same history" in r.err, r.err
        assert f"the newer copy is {copy}" in r.err
    refusal = (f"koryo-pbm: error: {older}, and its decision {old.decision['id']} is resolved already: answer the "
               f"newer copy ({copy})")
    assert assert_refused(arena("orders", "g", "--as", "alice", "-o", "old.toml")) == refusal
    assert not (arena.cwd / "old.toml").exists()
    assert assert_refused(arena("play", "g", "--as", "alice", stdin="q\n")) == refusal
    assert assert_refused(arena("submit", "new.toml", "--as", "alice", "--game", "g")) == refusal
    assert list((folder / "inbox").iterdir()) == []
    assert (folder / "game.toml").read_bytes() == stale and copy.read_bytes() == versions[6]
