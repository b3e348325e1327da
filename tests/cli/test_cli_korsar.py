"""Korsar by mail: teams on the command line, a team's shared secret, every table size."""

from __future__ import annotations

import json

import pytest
from test_cli_bymail import make_keys, play_template_orders

FOUR = ["alice", "bob", "carol", "dave"]


def new_korsar(cli, lines, names, *extra, folder="k", seed="korsar"):
    args = ["new", folder, "--game", "korsar", "--as", "mod", "--seed", seed, *extra]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    return cli(*args)


def test_teams_must_be_neighbours_in_seat_order(cli):
    lines = make_keys(cli, FOUR)
    r = cli.fails(*["new", "k", "--game", "korsar", "--as", "mod",
                    *[x for n in FOUR for x in ("--player", f"{n}={lines[n]}")],
                    "--team", "alice,carol", "--team", "bob,dave"])
    assert "neighbour" in r.err or "side by side" in r.err or "consecutive" in r.err, r.err
    assert not (cli.cwd / "k" / "game.toml").exists()


@pytest.mark.parametrize("n,teams", [(7, False), (6, False), (3, True), (2, True), (5, True)])
def test_impossible_set_ups_are_refused(cli, n, teams):
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"][:n]
    lines = make_keys(cli, names)
    extra = []
    if teams:
        extra = ["--team", f"{names[0]},{names[1]}"]
    r = new_korsar(cli, lines, names, *extra)
    assert r.code != 0 and r.err.startswith("koryo-pbm: error: ") and "Traceback" not in r.err
    assert not (cli.cwd / "k" / "game.toml").exists()


def test_a_team_shares_its_secret_and_nobody_else_does(cli):
    lines = make_keys(cli, FOUR)
    cli.ok(*["new", "k", "--game", "korsar", "--as", "mod", "--seed", "teams",
             *[x for n in FOUR for x in ("--player", f"{n}={lines[n]}")],
             "--team", "alice,bob", "--team", "carol,dave"])
    views = {p: cli.ok("show", "k", "--as", p, "--json").json for p in FOUR}
    assert views["alice"]["partner_hand"] == views["bob"]["hand"]
    assert views["bob"]["partner_hand"] == views["alice"]["hand"]
    assert views["carol"]["partner_hand"] == views["dave"]["hand"]
    public = cli.ok("show", "k", "--json").json
    assert "hand" not in public and "partner_hand" not in public
    assert [sorted(t) for t in public["teams"]] == [["alice", "bob"], ["carol", "dave"]]
    # carol's key opens carol's part only: it never shows alice's or bob's hand.
    assert views["carol"]["hand"] != views["alice"]["hand"] or views["carol"]["partner_hand"] == views["dave"]["hand"]
    assert "alice" not in json.dumps({k: v for k, v in views["carol"].items() if k in ("hand", "partner_hand")})


def test_a_team_game_played_to_the_end_through_envelopes(cli):
    """A joined game (no --seed: the players' contributions deal), played to the end, verified by
    a player (this is also test_cli_verify's Korsar game: one game for both)."""
    lines = make_keys(cli, FOUR)
    cli.ok(*["new", "k", "--game", "korsar", "--as", "mod",
             *[x for n in FOUR for x in ("--player", f"{n}={lines[n]}")],
             "--team", "alice,bob", "--team", "carol,dave"])
    assert cli.ok("status", "k", "--json").json["decision"] == "join"
    play_template_orders(cli, cli.cwd / "k", max_steps=400)
    final = cli.ok("show", "k", "--json").json
    assert final["decision"] is None and final["winners"]
    out = cli.ok("verify", "k", "--as", "dave").out
    assert out.splitlines()[-1] == "verdict: the game verifies"
    # Teammates share the win and the score.
    assert final["scores"]["alice"] == final["scores"]["bob"]
    assert final["scores"]["carol"] == final["scores"]["dave"]
    # ... and the text tells each side's score once, not once per player
    text = cli.ok("show", "k").out
    ab, cd = final["scores"]["alice"], final["scores"]["carol"]
    assert f"Scores: alice + bob {ab}, carol + dave {cd}\n" in text
    breakdown = text.split("score breakdown:\n")[1]
    assert f"  alice + bob: {ab}\n" in breakdown and f"  carol + dave: {cd}\n" in breakdown
    assert "\n  bob: " not in breakdown and "\n  dave: " not in breakdown
    heads = [line for line in breakdown.splitlines() if not line.startswith("    ")]
    assert heads == [f"  alice + bob: {ab}", f"  carol + dave: {cd}"]


LEGAL = [(2, False), (3, False), (4, False), (4, True), (5, False), (6, True), (8, True)]


@pytest.mark.parametrize("n,teams", LEGAL)
def test_simulate_and_deal_at_every_legal_table_size(cli, n, teams):
    """Every legal size: whole games by ``simulate``, and the real set-up (keys, ``new``, each
    player's sealed hand opened by that player only, a team's partner hand). Playing whole games
    through the real protocol is the demo's job, once (below): the protocol does not depend on
    the table size, which the rules (simulated here) do."""
    extra = ["--teams"] if teams else []
    sim = cli.ok("simulate", "--game", "korsar", "--players", n, "--games", 3, "--seed", "t", "--json", *extra).json
    assert sim["games"] == 3 and len(sim["players"]) == n
    assert sum(sim["wins"].values()) >= 3
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"][:n]
    lines = make_keys(cli, names)
    pairs = [f"{names[i]},{names[i + 1]}" for i in range(0, n, 2)] if teams else []
    new_korsar(cli, lines, names, *[x for t in pairs for x in ("--team", t)])
    public = cli.ok("show", "k", "--json").json
    assert public["decision"] is not None and "hand" not in public
    hands = {p: cli.ok("show", "k", "--as", p, "--json").json for p in names}
    assert all(v["hand"] for v in hands.values())
    if teams:
        assert len(public["teams"]) == n // 2
        for i in range(0, n, 2):
            a, b = names[i], names[i + 1]
            assert hands[a]["partner_hand"] == hands[b]["hand"] and hands[b]["partner_hand"] == hands[a]["hand"]
    else:
        assert all("partner_hand" not in v for v in hands.values())


def test_a_whole_demo_at_the_largest_table(cli):
    """One Korsar demo through the real protocol (keys, join, sealed envelopes, resolve), at the
    largest table: eight players in four teams."""
    demo = cli.ok("demo", "--game", "korsar", "--players", 8, "--seed", "t", "--json", "--teams").json
    assert demo["winners"] and len(demo["scores"]) == 8 and demo["envelopes"] >= 8
    assert demo["decisions"] >= 2


@pytest.mark.parametrize("n,teams", [(7, False), (6, False), (2, True), (3, True), (5, True)])
def test_simulate_refuses_impossible_table_sizes(cli, n, teams):
    extra = ["--teams"] if teams else []
    r = cli.fails("simulate", "--game", "korsar", "--players", n, "--games", 1, *extra)
    assert "Korsar" in r.err or "korsar" in r.err


def test_a_korsar_position_starts_a_game(cli):
    import tomllib
    from pathlib import Path

    pos_file = Path(__file__).resolve().parents[2] / "examples" / "positions" / "korsar-source-example.toml"
    seats = tomllib.loads(pos_file.read_text())["players"]
    lines = make_keys(cli, seats)
    args = ["new", "p", "--game", "korsar", "--as", "mod", "--position", pos_file]
    for n in seats:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    status = cli.ok("status", "p", "--json").json
    assert status["game"] == "korsar" and status["waiting_for"]
