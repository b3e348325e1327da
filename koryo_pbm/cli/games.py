"""``koryo-pbm games``: the installed games."""

from __future__ import annotations

import json

import click

from koryo_pbm.engine.registry import find_game, names


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(as_json: bool) -> None:
    """List the installed games (built-in and third-party plug-ins)."""
    rows = []
    for name in names():
        game = find_game(name)
        rows.append({"name": name, "title": game.title, "players": list(game.player_counts),
                     "options": dict(game.options)})
    if as_json:
        click.echo(json.dumps(rows, sort_keys=True))
        return
    for row in rows:
        counts = ", ".join(str(n) for n in row["players"])
        click.echo(f"{row['name']:<10} {row['title']} ({counts} players)")
