"""Positions on the command line: check a file, start a game from it, write one out."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from test_cli_bymail import make_keys

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "positions").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_position_is_valid(cli, path):
    r = cli.ok("position", path, "--json").json
    assert r["valid"] and r["game"] == tomllib.loads(path.read_text())["game"]
    assert r["decision"]


def test_impossible_position_is_refused_with_its_reason(cli):
    bad = cli.cwd / "bad.toml"
    bad.write_text('game = "koryo"\nround = 3\nphase = "orders"\nplayers = ["a", "b"]\nfirst = "a"\n'
                   '[tables]\na = ["merchant"]\n[hands]\na = ["omniscient", "omniscient"]\nb = ["spy"]\n')
    r = cli.fails("position", bad)
    assert "omniscient" in r.err


def test_a_game_started_from_a_position_and_written_out_again(cli):
    path = next(p for p in EXAMPLES if p.name == "koryo-senator-discard.toml")
    doc = tomllib.loads(path.read_text())
    lines = make_keys(cli, doc["players"])
    args = ["new", "g", "--as", "mod", "--position", path]
    for n in doc["players"]:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    shown = cli.ok("show", "g", "--json").json
    assert shown["round"] == doc["round"]
    assert {p: sum(t.values()) for p, t in shown["tables"].items()} == {p: len(c) for p, c in doc["tables"].items()}
    # The moderator writes the position out; a new game from it shows the same public state.
    out = cli.cwd / "again.toml"
    cli.ok("position", "--from", "g", "--as", "mod", "-o", out)
    cli.ok("new", "h", "--as", "mod", "--position", out, *[x for n in doc["players"] for x in ("--player", f"{n}={lines[n]}")])
    again = cli.ok("show", "h", "--json").json
    for key in ("round", "phase", "tables", "tokens", "bank", "decision", "waiting_for", "first"):
        assert again[key] == shown[key], key
    # A player cannot write out the position: it needs the moderator's key.
    r = cli.fails("position", "--from", "g", "--as", doc["players"][0])
    assert "not the moderator" in r.err


def test_position_players_must_match_the_named_players(cli):
    path = next(p for p in EXAMPLES if p.name == "koryo-senator-discard.toml")
    lines = make_keys(cli, ["x", "y"])
    r = cli.fails("new", "g", "--as", "mod", "--position", path, "--player", f"x={lines['x']}", "--player", f"y={lines['y']}")
    assert "position" in r.err and not (cli.cwd / "g").exists()
