"""The player copy (issue 18's mail volume): the game file without the moderator's sealed part,
its digest in its place, under the same signature. The judge mails it; every player command
reads it as the file; the moderator's commands refuse it in one line."""

from __future__ import annotations

import shutil

from test_cli_bymail import make_keys, new_game

from koryo_pbm.store import playercopy

PLAYERS = ["alice", "bob"]


def copy_for(cli, folder, player):
    """What the judge mails ``player``: the player copy of the game file, saved in a folder of
    their own."""
    mine = cli.cwd / "players" / player
    mine.mkdir(parents=True, exist_ok=True)
    whole = (folder / "game.toml").read_bytes()
    copy = playercopy.player_copy(whole)
    (mine / "game.toml").write_bytes(copy)
    return mine, whole, copy


def test_a_player_copy_is_shown_played_submitted_and_resolved_from_and_resolve_refuses_it(cli):
    lines = make_keys(cli, PLAYERS)
    folder = new_game(cli, lines, names=PLAYERS, seed="player-copy")
    for step in range(2):
        status = cli.ok("status", folder, "--json").json
        for p in status["missing"]:
            mine, whole, copy = copy_for(cli, folder, p)
            assert len(copy) < len(whole) and b"[sealed.moderator]\nrecipient" in copy
            # the same machine saw the whole file of this version (the moderator's resolve pinned
            # it): the copy is the same file, not a second one of the version
            shown = cli.ok("show", mine, "--as", p, "--json").json
            assert shown["version"] == status["version"] and shown["hand"]
            assert "this is a player copy" in cli.ok("inspect", mine, "--as", p).out
            seen = cli.ok("inspect", mine, "--as", "mod", "--json").json  # the moderator's key opens nothing here
            assert seen["player_copy"] is True and seen["opened"] == [] and "moderator" not in seen["not_opened"]
            envelope = mine / "orders.txt"  # to paste into the reply
            if step == 0:
                orders = cli.cwd / f"{p}.toml"
                cli.ok("orders", mine, "--as", p, "-o", orders)
                cli.ok("submit", orders, "--as", p, "--game", mine, "--out", envelope)
            else:
                cli.ok("play", mine, "--as", p, "--out", envelope, stdin="\n" * 40 + "y\n")
            shutil.move(envelope, folder / "inbox" / f"{status['decision']}--{p}.envelope")
        if step == 0:
            # the moderator's commands need the whole file: one line, nothing written
            before = (cli.cwd / "players" / "alice" / "game.toml").read_bytes()
            for command in (["resolve"], ["address", "--as", "mod"], ["deadline", "--as", "mod", "+1d"]):
                args = command[:1] + [cli.cwd / "players" / "alice"] + (command[1:] or ["--as", "mod"])
                r = cli.fails(*args, code=1)
                assert r.err.count("\n") == 1 and "is a player copy of game" in r.err, r.err
                assert "the moderator's commands need the whole file" in r.err
            assert (cli.cwd / "players" / "alice" / "game.toml").read_bytes() == before
        applied = cli.ok("resolve", folder, "--as", "mod", "--json").json["applied"]
        assert applied and applied[0]["decision"] == status["decision"]


def test_a_player_copy_with_its_digest_changed_is_refused_by_every_player_command(cli):
    lines = make_keys(cli, PLAYERS)
    folder = new_game(cli, lines, names=PLAYERS, seed="player-copy")
    mine, _, copy = copy_for(cli, folder, "alice")
    digest = copy[copy.index(b'digest = "sha256:') + 17:][:64]
    (mine / "game.toml").write_bytes(copy.replace(digest, digest[::-1]))
    for args in (["show", mine, "--as", "alice"], ["status", mine], ["orders", mine, "--as", "alice"],
                 ["verify", mine], ["inspect", mine, "--as", "alice"]):
        r = cli.fails(*args)
        assert "does not verify: it was changed after the moderator signed it" in r.err, r.err
