"""A receipt means the game's moderator (issue 17, item 5).

Anybody can sign a well-formed receipt with a key of their own. Checked against no game,
``receipt`` says which key signed it and exits 1 unless ``--any-key``; with ``--game`` the key
must be the game's moderator key as pinned on this machine, and a game file whose key differs
from the pin is refused.
"""

from __future__ import annotations

from attack_kit import assert_refused, body_of, game_id_of, identity, parse_envelope, sign_game

from koryo_pbm.crypto.receipt import make_receipt


def receipt_file(arena, signer: str, game: bytes, name: str) -> tuple:
    env = parse_envelope(arena.world.env4["alice"])
    signed = make_receipt(identity(arena.world, signer), game_id=game_id_of(game), decision=env.decision,
                          player=env.player, envelope=env.digest, submitted=env.submitted, replaces=None,
                          received="2026-11-25T18:00:00Z")
    path = arena.cwd / name
    path.write_text("Your receipt:\n\n" + signed.armor())
    return path, signed.moderator.fingerprint()


def test_a_receipt_checked_against_no_game_is_not_called_valid(arena):
    """eve signs a receipt for alice's envelope: without --game it is refused with the key
    named, whatever key signed it (the moderator's too: nothing says it is the game's)."""
    world = arena.world
    for signer in ("eve", "mod"):
        path, key = receipt_file(arena, signer, world.g4_v1, f"{signer}.txt")
        line = assert_refused(arena("receipt", path), code=1)
        assert line == (f"koryo-pbm: error: the receipt in {path} is signed by key {key}; not checked against any "
                        "game: give --game GAME to check it is your moderator's (or --any-key to accept any key)")
        assert_refused(arena("receipt", path, "--json"), code=1)
        r = arena.ok("receipt", path, "--any-key")
        assert "valid receipt: game " in r.out
        assert f"  signed by key {key}; not checked against any game\n" in r.out
        assert arena.ok("receipt", path, "--any-key", "--json").json["game"] is None


def test_a_receipt_of_another_key_is_refused_against_the_game(arena):
    world = arena.world
    arena.game(world.g4_v1)
    path, key = receipt_file(arena, "eve", world.g4_v1, "eve.txt")
    line = assert_refused(arena("receipt", path, "--game", "g"))
    assert line.startswith(f"koryo-pbm: error: the receipt is signed by key {key}, not by the moderator of game "), line
    good, mod = receipt_file(arena, "mod", world.g4_v1, "mod.txt")
    r = arena.ok("receipt", good, "--game", "g")
    assert f"  signed by the moderator key {mod} (the moderator of this game), pinned on this machine since " in r.out
    line = assert_refused(arena("receipt", good, "--game", "g", "--any-key"), code=2)
    assert line.startswith("koryo-pbm: error: --any-key is for a receipt checked against no game"), line


def test_against_the_game_the_pinned_key_decides(arena):
    """alice's machine pinned the game's moderator key. eve gives her a game file of the same id
    signed by eve's key, with a receipt eve signed: the file and the receipt agree with each
    other, not with the pin: refused, and the pin is unchanged."""
    world = arena.world
    folder = arena.game(world.g4_v1)
    arena.ok("status", "g")
    pinned = (arena.home / "seen" / f"{game_id_of(world.g4_v1)}.toml").read_bytes()
    eve_game = arena.cwd / "eve"
    args = ["new", eve_game, "--key", arena.key("eve"), "--seed", "x"]
    for p in ("alice", "bob", "carol", "dave"):
        args += ["--player", f"{p}={world.lines[p]}"]
    arena.ok(*args)
    eve_data = (eve_game / "game.toml").read_bytes()
    body = body_of(eve_data).replace(game_id_of(eve_data).encode(), game_id_of(world.g4_v1).encode())
    (folder / "game.toml").write_bytes(sign_game(body, identity(world, "eve")))
    path, key = receipt_file(arena, "eve", world.g4_v1, "eve.txt")
    line = assert_refused(arena("receipt", path, "--game", "g"))
    assert f"is now signed by moderator key {key}, but it was signed by " in line, line
    assert (arena.home / "seen" / f"{game_id_of(world.g4_v1)}.toml").read_bytes() == pinned
