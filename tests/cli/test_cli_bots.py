"""Bots on the command line: ``simulate --bots`` and the suggestion in an orders file."""

from __future__ import annotations

import tomllib

import pytest
from test_cli_bymail import make_keys, new_game

from koryo_pbm.engine import bots
from koryo_pbm.engine.registry import find_game


def test_simulate_seats_one_level_per_seat_and_reports_each_level(cli):
    r = cli.ok("simulate", "--bots", "heuristic,random,random,random", "--games", "8", "--seed", "cli")
    lines = r.out.splitlines()
    assert lines[0] == "Koryo: 8 games, 4 players, seed 'cli'"
    assert lines[1] == "bots: heuristic, random, random, random (moving one seat each game), safety time limit 30 s per decision"
    heur = next(ln for ln in lines if ln.startswith("heuristic "))
    rand = next(ln for ln in lines if ln.startswith("random "))
    assert heur.split()[1] == "1" and rand.split()[1] == "3"  # seats
    j = cli.ok("simulate", "--bots", "heuristic,random,random,random", "--games", "8", "--seed", "cli", "--json").json
    assert j["games"] == 8 and j["bots"] == ["heuristic", "random", "random", "random"]
    assert int(heur.split()[2]) == j["levels"]["heuristic"]["wins"]
    assert j["levels"]["random"]["seats"] == 3 and j["levels"]["heuristic"]["fallbacks"] == 0
    assert 0 < j["levels"]["heuristic"]["max_seconds_per_decision"] <= 1.0


def test_simulate_korsar_bots_with_progress(cli):
    r = cli.ok("simulate", "--game", "korsar", "--bots", "heuristic,random,random", "--games", "4", "--progress", "2")
    assert r.err.splitlines()[0].startswith("after 2 games: heuristic ")
    assert len(r.err.splitlines()) == 2
    assert r.out.startswith("Korsar: 4 games, 3 players")


@pytest.mark.parametrize("args,reason", [
    (["--bots", "heuristic,expert,random,random"],
     "Koryo has no bot level 'expert' (levels: random, heuristic, search)"),
    (["--game", "korsar", "--bots", "mcts,random,random"],
     "Korsar has no bot level 'mcts' (levels: random, heuristic, search)"),
    (["--bots", "heuristic,,random"], "--bots takes one level per seat, separated by commas"),
    (["--bots", "heuristic,random", "--players", "3"], "--bots names 2 seat(s) but --players says 3"),
])
def test_simulate_refuses_bad_levels_in_one_line(cli, args, reason):
    r = cli.fails("simulate", *args, code=2)
    assert r.err.startswith(f"koryo-pbm: error: {reason}")
    assert r.err.count("\n") == 1 and not r.out


def test_simulate_refuses_a_budget_out_of_range(cli):
    r = cli.fails("simulate", "--bots", "search,heuristic", "--budget", "0", code=2)
    assert "--budget" in r.err and "Traceback" not in r.err


def test_orders_file_suggests_the_heuristic_bots_order_and_it_is_accepted(cli):
    lines = make_keys(cli, ["alice", "bob", "carol"])
    folder = new_game(cli, lines, names=["alice", "bob", "carol"], seed="suggest")
    r = cli.ok("orders", folder, "--as", "alice")
    assert "# Suggested order (the heuristic bot's choice from your view): keep it or change it." in r.out
    body = tomllib.loads(r.out)
    # exactly what the bot chooses from alice's own parts, seeded by the game, decision and player
    show = cli.ok("show", folder, "--as", "alice", "--json").json
    game = find_game("koryo")
    from koryo_pbm import match
    from koryo_pbm.crypto.keys import load_identity

    doc = match.load_doc(folder / "game.toml")
    _, private = match.open_private(doc, load_identity(cli.home / "keys" / "alice.key"))
    choice = bots.choose_from_view(game, doc.public, private, "alice", "heuristic",
                                   seed=f"{doc.game_id}/{show['decision']}/alice")
    assert body["play"] == choice.order["play"]
    again = cli.ok("orders", folder, "--as", "alice")
    assert again.out == r.out  # the same file every time
    out = cli.cwd / "a.toml"
    out.write_text(r.out)
    cli.ok("submit", out, "--as", "alice", "--game", folder)
