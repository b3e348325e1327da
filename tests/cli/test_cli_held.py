"""What a resolve that only holds an order writes, when the same process resolved the game
before (a judge): every part the players and the moderator open is what a resolve in a fresh
process writes from the same file and envelope. The judge's process keeps what a held order
leaves unchanged (the menus that fitted whole, the parts' padded sizes, the envelopes it
opened, the moderator's part it sealed, pieces of the file's TOML, the pictures' tiles):
nothing it keeps may show in what it writes."""

from __future__ import annotations

import json
import shutil

from conftest import run_subprocess
from test_cli_bymail import make_keys, new_game

from koryo_pbm.crypto.envelope import Envelope
from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.store import gamefile, gameparts

PLAYERS = ["p1", "p2", "p3"]


def _opened(cli, folder) -> dict:
    doc = gamefile.read_game(folder / "game.toml")
    keys = {name: load_identity(cli.home / "keys" / f"{name}.key") for name in ["mod", *PLAYERS]}
    return {"version": doc.version, "public": doc.public, "decision": doc.decision, "log": doc.log,
            "sizes": {name: len(part["data"]) for name, part in doc.sealed.items()},
            "parts": {name: gameparts.open_part(doc, name, keys["mod" if name == "moderator" else name])
                      for name in doc.sealed}}


def test_a_held_order_writes_what_a_fresh_resolve_writes(cli, monkeypatch):
    lines = make_keys(cli, PLAYERS)
    folder = new_game(cli, lines, PLAYERS, seed="held-1")
    opened = []
    open_signed = Envelope.open_signed
    monkeypatch.setattr(Envelope, "open_signed", lambda env, *a: opened.append(env.player) or open_signed(env, *a))
    holds = completions = 0
    while holds < 6 or completions < 4:
        status = cli.ok("status", folder, "--json").json
        assert status["decision"] is not None
        player = status["missing"][0]
        orders = cli.cwd / "orders.toml"
        orders.unlink(missing_ok=True)
        cli.ok("orders", folder, "--as", player, "-o", orders)
        cli.ok("submit", orders, "--as", player, "--game", folder)
        fresh, home = cli.cwd / "fresh", cli.cwd / "fresh-home"  # the same file, and the same pins
        for copy, original in ((fresh, folder), (home, cli.home)):
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(original, copy)
        opened.clear()
        done = cli.ok("resolve", folder, "--as", "mod", "--json").json
        held = not done["applied"]
        assert opened == [player], opened  # the orders held before were opened when they came
        kept = _opened(cli, folder)
        run = run_subprocess(["resolve", str(fresh), "--as", "mod", "--json"], home, cli.cwd)  # a fresh process
        assert run.returncode == 0, run.stderr
        again = json.loads(run.stdout)
        assert again["applied"] == done["applied"] and [e["status"] for e in again["envelopes"]] == ["held" if held else "accepted"]
        assert kept == _opened(cli, fresh), f"after {player}'s order for {status['decision']}"
        assert all("menu" not in part for part in kept["parts"].values())  # the moderator computes no menus
        holds += held
        completions += not held
