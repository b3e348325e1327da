"""The small frictions a new user met (issue 10, "Why"), each with the message the user reads.

Every test drives the real command line with real keys in a temporary folder and checks the
exact words printed, so that a message drifting back to the old one fails here.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

PLAYERS = ["alice", "bob", "carol"]


def setup_game(cli, names=PLAYERS, folder="g", seed="frictions"):
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *names]}
    args = ["new", folder, "--as", "mod", "--seed", seed]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return cli.cwd / folder, lines


def run_printed(cli, command: str):
    """Run a command exactly as koryo-pbm printed it (from the same folder)."""
    words = shlex.split(command)
    assert words[0] == "koryo-pbm", command
    return cli.ok(*words[1:])


# -- hints are commands that work as printed ------------------------------------------------


def test_show_hint_names_the_game_and_works_as_printed(cli):
    folder, _ = setup_game(cli)
    out = cli.ok("show", "g", "--as", "alice").out
    hint = out.strip().splitlines()[-1]
    assert hint == ("your move: koryo-pbm orders g --as alice -o orders.toml, edit it, then "
                    "koryo-pbm submit orders.toml --as alice --game g")
    orders_cmd, submit_cmd = re.fullmatch(r"your move: (.*), edit it, then (.*)", hint).groups()
    r = run_printed(cli, orders_cmd)
    assert r.err == "wrote orders.toml: edit it, then koryo-pbm submit orders.toml --as alice --game g\n"
    r = run_printed(cli, submit_cmd)
    assert r.err.startswith("submitted alice's orders for r1-orders: ")
    assert list((folder / "inbox").iterdir())


def test_orders_file_says_how_to_submit_it_with_the_game(cli):
    setup_game(cli)
    text = cli.ok("orders", "g", "--as", "bob").out
    assert text.splitlines()[1] == "# Edit the order below, then: koryo-pbm submit THIS_FILE --as bob --game g"
    # from inside the game folder no --game is needed, and none is printed
    cli.cwd = cli.cwd / "g"
    text = cli.ok("orders", "--as", "bob").out
    assert text.splitlines()[1] == "# Edit the order below, then: koryo-pbm submit THIS_FILE --as bob"
    hint = cli.ok("show", "--as", "bob").out.strip().splitlines()[-1]
    assert hint.endswith("then koryo-pbm submit orders.toml --as bob")


# -- orders -o on the second turn ----------------------------------------------------------------


def test_orders_o_second_turn_replaces_its_own_past_file(cli):
    _folder, _ = setup_game(cli)
    for p in PLAYERS:
        cli.ok("orders", "g", "--as", p, "-o", f"{p}.toml")
    # the same decision again: the file may hold the player's edits; nothing is written
    r = cli.fails("orders", "g", "--as", "alice", "-o", "alice.toml", code=1)
    assert r.err == ("koryo-pbm: error: alice.toml holds your orders for r1-orders already (perhaps edited; nothing "
                     "was written): submit it with koryo-pbm submit alice.toml --as alice --game g, or delete it to "
                     "start again\n")
    for p in PLAYERS:
        cli.ok("submit", f"{p}.toml", "--as", p, "--game", "g")
    cli.ok("resolve", "g", "--as", "mod")
    decision = cli.ok("status", "g", "--json").json["decision"]
    assert decision != "r1-orders"
    who = cli.ok("status", "g", "--json").json["waiting_for"][0]
    r = cli.ok("orders", "g", "--as", who, "-o", f"{who}.toml")
    assert r.err == (f"replaced {who}.toml (its orders were for r1-orders, which is past): edit it, then "
                     f"koryo-pbm submit {who}.toml --as {who} --game g\n")
    assert f"decision = \"{decision}\"" in (cli.cwd / f"{who}.toml").read_text()
    cli.ok("submit", f"{who}.toml", "--as", who, "--game", "g")


def test_orders_o_never_replaces_a_file_it_did_not_write(cli):
    setup_game(cli)
    (cli.cwd / "notes.toml").write_text('game = "x"\n')
    r = cli.fails("orders", "g", "--as", "alice", "-o", "notes.toml", code=1)
    assert r.err == ("koryo-pbm: error: notes.toml exists already and is not an orders file of yours for an earlier "
                     "decision of this game (nothing was written): choose another name\n")
    assert (cli.cwd / "notes.toml").read_text() == 'game = "x"\n'
    # another player's orders file is not alice's to replace either
    cli.ok("orders", "g", "--as", "bob", "-o", "bob.toml")
    before = (cli.cwd / "bob.toml").read_bytes()
    cli.fails("orders", "g", "--as", "alice", "-o", "bob.toml", code=1)
    assert (cli.cwd / "bob.toml").read_bytes() == before


# -- a game file with Windows line endings --------------------------------------------------------


def test_crlf_game_file_is_read_as_the_signed_file_it_is(cli):
    folder, _ = setup_game(cli)
    data = (folder / "game.toml").read_bytes()
    (cli.cwd / "mailed.toml").write_bytes(data.replace(b"\n", b"\r\n"))
    shown = cli.ok("show", "mailed.toml", "--as", "alice", "--json").json
    again = cli.ok("show", "g", "--as", "alice", "--json").json
    # the same game: alice has seen this version once now, so only 'last_seen' differs
    assert shown.pop("last_seen") is None and again.pop("last_seen") == shown["version"]
    assert shown == again
    # changed as well as converted: named precisely
    bad = data.replace(b"bank = 8", b"bank = 7").replace(b"\n", b"\r\n")
    assert bad != data.replace(b"\n", b"\r\n")
    (cli.cwd / "changed.toml").write_bytes(bad)
    r = cli.fails("show", "changed.toml", code=1)
    assert r.err == ("koryo-pbm: error: game file changed.toml has Windows line endings (CRLF), and with plain line "
                     "endings it is still not a valid game file: the signature of game file changed.toml does not "
                     "verify: it was changed after the moderator signed it\n")


# -- keys -----------------------------------------------------------------------------------


def test_key_option_with_a_public_key_says_so_first(cli):
    setup_game(cli)
    pub = cli.home / "keys" / "bob.pub"
    assert pub.stat().st_mode & 0o077  # readable by others, as a public key may be
    r = cli.fails("show", "g", "--key", str(pub), code=1)
    assert r.err == (f"koryo-pbm: error: {pub} is a public key; --key needs your secret key file (keygen wrote the "
                     f"secret one beside it: {cli.home / 'keys' / 'bob.key'})\n")


def test_as_without_the_key_on_another_machine_does_not_suggest_a_new_key(cli, tmp_path):
    setup_game(cli)
    other = tmp_path / "bobs-machine"
    r = cli("show", "g", "--as", "alice", home=other)
    fp = cli.ok("show", "g", "--json").json  # the public view names no keys; take it from the file
    assert r.code == 1 and "keygen" not in r.err
    match = re.fullmatch(
        r"koryo-pbm: error: no key for 'alice' in (.*): game (\S+) seats alice with key ([0-9a-f]{16}); if that is you, "
        r"give your key file with --key FILE \(or set \$KORYO_PBM_HOME to the folder that holds keys/alice\.key\)\n",
        r.err)
    assert match and match.group(1) == str(other / "keys") and match.group(2) == fp["id"]
    r = cli("orders", "g", "--as", "zed", home=other)
    assert r.err == (f"koryo-pbm: error: no key for 'zed' in {other / 'keys'}, and zed is not a player of game "
                     f"{fp['id']} (the players are alice, bob, carol)\n")
    # without a game to explain it, keygen is the answer
    r = cli("position", "--from", "g", "--as", "zed", home=other)
    assert "create one with: koryo-pbm keygen zed" in r.err


def test_a_key_of_the_right_name_but_not_the_seat_s_key(cli, tmp_path):
    _folder, _ = setup_game(cli)
    other = tmp_path / "other"
    cli.ok("keygen", "bob", home=other)  # a second 'bob' key, not the one the game seats
    r = cli.fails("show", "g", "--as", "bob", home=other, code=1)
    game_id = cli.ok("show", "g", "--json").json["id"]
    assert re.fullmatch(
        rf"koryo-pbm: error: key 'bob' \([0-9a-f]{{16}}\) is not the key game {game_id} has for bob \([0-9a-f]{{16}}\): "
        r"use the key whose public line you gave the moderator \(--key FILE\)\n", r.err)
    cli.ok("keygen", "eve", home=other)
    r = cli.fails("show", "g", "--as", "eve", home=other, code=1)
    assert re.fullmatch(rf"koryo-pbm: error: key 'eve' \([0-9a-f]{{16}}\) is not the key of any player of game "
                        rf"{game_id} \(the players are alice, bob, carol\)\n", r.err)


def test_the_same_public_key_for_two_seats_is_refused_at_new(cli):
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice"]}
    r = cli.fails("new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--player",
                  f"bob={lines['alice']}", code=1)
    assert re.fullmatch(r"koryo-pbm: error: alice and bob have the same public key \([0-9a-f]{16}\): each player "
                        r"needs a key of their own \(koryo-pbm keygen NAME\)\n", r.err)
    r = cli.fails("new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--player",
                  f"bob={lines['mod']}", code=1)
    assert r.err == ("koryo-pbm: error: bob's public key is the moderator's own key: the moderator sees everything, "
                     "so a player needs a key of their own\n")
    assert not (cli.cwd / "g").exists()


def _no_terminal(args, home, cwd, env=None):
    """koryo-pbm in a process of its own with no terminal at all (a new session, stdin empty)."""
    full = {**os.environ, "KORYO_PBM_HOME": str(home), **(env or {})}
    full.pop("KORYO_PBM_PASSPHRASE", None)
    return subprocess.run([sys.executable, "-m", "koryo_pbm", *args], cwd=cwd, env=full, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, start_new_session=True, timeout=60)


def test_passphrase_without_a_terminal_is_one_clear_line(cli, tmp_path):
    folder, _lines = setup_game(cli)
    home = tmp_path / "pat-home"
    pat = _no_terminal(["keygen", "pat", "--passphrase"], home, cli.cwd, env={})
    assert pat.returncode == 2
    assert pat.stderr == ("koryo-pbm: error: keygen --passphrase asks for the passphrase on a terminal, and there is "
                          "none: set $KORYO_PBM_PASSPHRASE\n")
    made = subprocess.run([sys.executable, "-m", "koryo_pbm", "keygen", "alice", "--passphrase", "--force"],
                          env={**os.environ, "KORYO_PBM_HOME": str(cli.home), "KORYO_PBM_PASSPHRASE": "long enough"},
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0
    r = _no_terminal(["show", str(folder), "--as", "alice"], cli.home, cli.cwd)
    assert r.returncode == 1
    assert r.stderr == (f"koryo-pbm: error: key {cli.home / 'keys' / 'alice.key'} is protected by a passphrase and "
                        "there is no terminal to ask for it: set $KORYO_PBM_PASSPHRASE\n")
    assert "Warning" not in r.stderr and "wrong passphrase" not in r.stderr and r.stdout == ""


# -- usage errors and numbers ------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["show", "--bogus"], "no such option '--bogus' (see: koryo-pbm show --help)"),
    (["show", "--as"], "option '--as' requires an argument (see: koryo-pbm show --help)"),
    (["bogus"], "no such command 'bogus' (see: koryo-pbm --help)"),
    (["simulate", "--games", "x"], "invalid value for '--games': 'x' is not a valid integer range (see: koryo-pbm simulate --help)"),
    (["submit"], "missing argument 'ORDERS_FILE' (see: koryo-pbm submit --help)"),
])
def test_usage_errors_are_one_line(cli, args, message):
    r = cli.fails(*args, code=2)
    assert r.err == f"koryo-pbm: error: {message}\n"


def test_bare_command_prints_the_help(cli):
    r = cli.ok()
    assert r.out.startswith("Usage: koryo-pbm") and "Commands:" in r.out


@pytest.mark.parametrize(("args", "message"), [
    (["simulate", "--players", "-3"], "Koryo is for 2 to 4 players, not -3"),
    (["simulate", "--players", "0"], "Koryo is for 2 to 4 players, not 0"),
    (["simulate", "--game", "korsar", "--players", "7"], "Korsar is for 2, 3, 4, 5, 6 or 8 players, not 7"),
    (["demo", "--players", "-3"], "Koryo is for 2 to 4 players, not -3"),
])
def test_player_counts_name_the_number_given(cli, args, message):
    r = cli.fails(*args, code=1)
    assert r.err == f"koryo-pbm: error: {message}\n"


# -- the demo ------------------------------------------------------------------------------------


def test_demo_has_a_round_1_header_and_prints_the_scores_once(cli):
    out = cli.ok("demo", "--seed", "frictions").out.splitlines()
    assert out[1] == "the join"  # the bots join first: the deal comes from their contributions
    assert out[2:6] == [f"  {p} joined (contribution {out[2 + i].split('(contribution ')[1]}"
                        for i, p in enumerate(["alice", "bob", "carol", "dave"])]
    assert out[7] == "round 1"
    headers = [ln for ln in out if ln.startswith("round ")]
    assert [h.split(":")[0] for h in headers] == [f"round {r}" for r in range(1, 9)]
    over = [ln for ln in out if "game over" in ln]
    assert len(over) == 1
    scores = re.search(r"\((.*)\)", over[0]).group(1)
    assert sum(scores in ln for ln in out) == 1  # the scores, once
    assert not any(ln.startswith(("final scores", "winner")) for ln in out)


def test_version(cli):
    from koryo_pbm import __version__

    r = cli.ok("--version")
    assert r.out == f"koryo-pbm, version {__version__}\n"


# -- submitting again says it replaced the earlier orders ----------------------------------------


def test_submit_again_says_it_replaces_the_earlier_orders(cli):
    setup_game(cli)
    cli.ok("orders", "g", "--as", "bob", "-o", "bob.toml")
    first = cli.ok("submit", "bob.toml", "--as", "bob", "--game", "g")
    assert first.err == "submitted bob's orders for r1-orders: g/inbox/r1-orders--bob.envelope\n"
    again = cli.ok("submit", "bob.toml", "--as", "bob", "--game", "g")
    assert again.err == ("submitted bob's orders for r1-orders: g/inbox/r1-orders--bob.envelope "
                         "(they replace your earlier orders for r1-orders: they are in the inbox)\n")
    mailed = cli.ok("submit", "bob.toml", "--as", "bob", "--game", "g", "--out", "bob.txt")
    assert mailed.err.endswith("(they replace your earlier orders for r1-orders: they are in the inbox)\n")


# -- one wording of who is awaited, everywhere ---------------------------------------------------


def test_show_log_status_and_the_picture_say_who_answered_and_who_is_awaited(cli):
    setup_game(cli)
    for name in ("alice", "bob"):
        cli.ok("orders", "g", "--as", name, "-o", f"{name}.toml")
        cli.ok("submit", f"{name}.toml", "--as", name, "--game", "g")
    words = "waiting for carol (alice, bob answered)"
    assert f"decision r1-orders: {words}\n" in cli.ok("show", "g", "--as", "carol").out
    assert f"decision r1-orders: {words}\n" in cli.ok("show", "g").out
    assert f"now: decision r1-orders, {words}\n" in cli.ok("log", "g").out
    assert f"decision r1-orders (orders), {words}\n" in cli.ok("status", "g").out
    cli.ok("show", "g", "--html", "table.html", "--svg", "table.svg")
    assert words in (cli.cwd / "table.html").read_text() and words in (cli.cwd / "table.svg").read_text()
    played = cli.ok("play", "g", "--as", "carol", "--out", "carol.txt", stdin="\n" * 40 + "y\n").out
    assert f"decision r1-orders: {words}\n" in played  # play shows the table and who is awaited
    resolved = cli.ok("resolve", "g", "--as", "mod").out  # holds the two orders: the same words
    assert "decision r1-orders, version " in resolved and f": {words}\n" in resolved
    assert f"decision r1-orders: {words}\n" in cli.ok("show", "g").out
    played = cli.ok("play", "g", "--as", "carol", stdin="\n" * 40 + "y\n").out  # into the inbox
    everybody = "waiting for the moderator to resolve (alice, bob, carol answered)"
    assert f"decision r1-orders: {everybody}\n" in played
    assert everybody in cli.ok("show", "g").out and everybody in cli.ok("status", "g").out


# -- card values in the text view; no Merchant power ---------------------------------------------


def test_the_text_view_gives_card_values_and_no_merchant_power(cli):
    from pathlib import Path

    position = Path(__file__).resolve().parents[2] / "examples" / "positions" / "koryo-barbarian-guardian.toml"
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob", "carol"]}
    cli.ok("new", "g", "--as", "mod", "--position", str(position),
           *[a for n in ("alice", "bob", "carol") for a in ("--player", f"{n}={lines[n]}")])
    out = cli.ok("show", "g", "--as", "alice").out
    assert "    table: merchant (9) ×2, priest (4)\n" in out  # (alice's table in the position)
    assert "your face-down cards: barbarian (event, -1) ×2\n" in out
    powers = next(line for line in out.splitlines() if line.startswith("powers: "))
    assert "guardian carol" in powers and "merchant" not in powers  # the Merchant has no power


# -- an orders file with a byte-order mark; submit without --game ------------------------------


def test_an_orders_file_with_a_byte_order_mark_is_read(cli):
    setup_game(cli)
    cli.ok("orders", "g", "--as", "alice", "-o", "alice.toml")
    text = (cli.cwd / "alice.toml").read_text(encoding="utf-8")
    (cli.cwd / "notepad.toml").write_bytes(text.encode("utf-8-sig"))  # as Notepad saves it
    r = cli.ok("submit", "notepad.toml", "--as", "alice", "--game", "g")
    assert r.err.startswith("submitted alice's orders for r1-orders: ")
    r = cli.ok("submit", "-", "--as", "alice", "--game", "g", stdin="\ufeff" + text)
    assert r.err.startswith("submitted alice's orders for r1-orders: ")


def test_submit_without_a_game_here_names_the_game_option(cli):
    setup_game(cli)
    cli.ok("orders", "g", "--as", "alice", "-o", "alice.toml")
    r = cli.fails("submit", "alice.toml", "--as", "alice", code=2)
    assert r.err == ("koryo-pbm: error: no game file here (game.toml): name the game with --game DIR|FILE, "
                     "or run submit in the game's folder\n")
    assert not (cli.cwd / "g" / "inbox").exists() or not list((cli.cwd / "g" / "inbox").iterdir())


def test_option_errors_name_the_option_and_suggest_a_close_long_one(cli):
    """A mistyped long option gets click's suggestion, an unknown short one its line; both exit 2."""
    setup_game(cli)
    assert cli.fails("orders", "g", "--as", "bob", "--outptu", "x", code=2).err == (
        "koryo-pbm: error: no such option '--outptu'. Did you mean '--output'? (see: koryo-pbm orders --help)\n")
    assert cli.fails("orders", "g", "--as", "bob", "-x", code=2).err == (
        "koryo-pbm: error: no such option '-x' (see: koryo-pbm orders --help)\n")
    cli.ok("orders", "g", "--as", "bob", "-o", "o.toml")
    assert (cli.cwd / "o.toml").read_text().startswith("# koryo-pbm orders for bob")
