"""GOPS through the real command line: a joined game played to the end by envelopes, its status,
text, pictures and verification; an illegal bid refused in one line; a bot seat."""

from __future__ import annotations

from test_cli_bymail import make_keys, play_template_orders


def test_a_joined_gops_game_played_to_the_end_and_verified(cli):
    lines = make_keys(cli, ["alice", "bob", "carol"])
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--game", "gops", "--as", "mod", *[f"--player={n}={lines[n]}" for n in ("alice", "bob", "carol")])
    assert cli.ok("status", folder, "--json").json["decision"] == "join"
    play_template_orders(cli, folder, max_steps=20)
    final = cli.ok("show", folder, "--json").json
    assert final["decision"] is None and final["winners"] and set(final["scores"]) == {"alice", "bob", "carol"}
    assert cli.ok("verify", folder, "--as", "carol").out.splitlines()[-1] == "verdict: the game verifies"
    text = cli.ok("show", folder).out
    assert "GOPS, round 13 of 13; game over" in text and "score breakdown:" in text
    cli.ok("show", folder, "--html", cli.cwd / "g.html")
    assert "GOPS, round 13 of 13; game over" in (cli.cwd / "g.html").read_text()
    log = cli.ok("log", folder).out
    assert "round 13: p" in log and "(the only legal move)" in log


def test_status_names_the_round_and_a_bad_bid_is_refused_in_one_line(cli):
    lines = make_keys(cli, ["alice", "bob"])
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--game", "gops", "--as", "mod", "--seed", "s", "--player", f"alice={lines['alice']}",
           "--player", "bob=bot", "--bot", "bob=random")
    status = cli.ok("status", folder, "--json").json
    assert (status["decision"], status["round"], status["phase"]) == ("r1-bid", 1, None)
    assert "round 1, decision r1-bid (bid)" in cli.ok("status", folder).out
    orders = cli.cwd / "o.toml"
    cli.ok("orders", folder, "--as", "alice", "-o", orders)
    cli.ok("show", folder, "--as", "alice", "--html", cli.cwd / "a.html")
    picture = (cli.cwd / "a.html").read_text()  # the table: the prize turned up, every player's cards left
    assert picture.count('data-card="b') == 26 and picture.count('data-card="p') == 1
    orders.write_text(orders.read_text().replace('bid = "b1"', 'bid = "b14"'))
    r = cli.fails("submit", orders, "--as", "alice", "--game", folder)
    assert r.err.strip().splitlines() == ["koryo-pbm: error: illegal order: alice has no b14 left (cards left: "
                                          + ", ".join(f"b{v}" for v in range(1, 14)) + ")"]
    orders.write_text(orders.read_text().replace('bid = "b14"', 'bid = "b13"'))
    cli.ok("submit", orders, "--as", "alice", "--game", folder)
    cli.ok("resolve", folder, "--as", "mod")
    assert cli.ok("status", folder, "--json").json["round"] == 2
    assert "the random bot played bob's seat" in cli.ok("log", folder).out


def test_the_ties_option_is_set_at_new_and_a_wrong_one_refused_in_one_line(cli):
    lines = make_keys(cli, ["alice", "bob"])
    players = [f"--player={n}={lines[n]}" for n in ("alice", "bob")]
    for spec, reason in (("ties=split", 'GOPS takes one option: ties = "discard" or "carry"'),
                         ("colour=red", "GOPS has no option 'colour' (options: ties)"),
                         ("ties", "--option takes NAME=VALUE, not 'ties'")):
        r = cli.fails("new", "bad", "--game", "gops", "--as", "mod", "--option", spec, *players)
        assert r.err.strip() == f"koryo-pbm: error: {reason}" and not (cli.cwd / "bad").exists()
    cli.ok("new", "g", "--game", "gops", "--as", "mod", "--seed", "s", "--option", "ties=carry", *players)
    assert cli.ok("show", "g", "--json").json["ties"] == "carry"


def test_a_search_bot_seat_plays_gops_and_verify_chooses_its_orders_again(cli):
    """The engine's generic search, offered to GOPS by the contract: the moderator's bot seat
    plays it through a whole game; a player's verify replays the game and re-derives each of
    the bot's orders from public values."""
    lines = make_keys(cli, ["alice"])
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--game", "gops", "--as", "mod", "--seed", "s", "--player", f"alice={lines['alice']}",
           "--player", "bob=bot", "--bot", "bob=search")
    play_template_orders(cli, folder, max_steps=20)
    assert "the search bot played bob's seat" in cli.ok("log", folder).out
    out = cli.ok("verify", folder, "--as", "alice").out
    assert out.splitlines()[-1].startswith("verdict: the game verifies")
    assert "every one of the 12 orders the moderator's bots played is the one the bot chooses again" in out
