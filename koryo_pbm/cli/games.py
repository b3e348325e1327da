"""``koryo-pbm games``: the installed games."""

from __future__ import annotations

import json

import click

from koryo_pbm.engine.registry import default_name, find_game, names
from koryo_pbm.errors import UnknownGame


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(as_json: bool) -> None:
    """List the installed games (built-in and third-party plug-ins). A game that is registered but
    breaks the game contract is listed with the reason it is refused."""
    rows: list[dict] = []
    try:
        default = default_name()
    except UnknownGame:
        default = ""
    for name in names():
        try:
            game = find_game(name)
        except UnknownGame as exc:
            rows.append({"name": name, "refused": str(exc)})
            continue
        rows.append({"name": name, "title": game.title, "players": list(game.player_counts),
                     "options": dict(game.options), "levels": ["random", *game.bot_levels()],
                     "default": name == default})
    if as_json:
        click.echo(json.dumps(rows, sort_keys=True))
        return
    for row in rows:
        if "refused" in row:
            click.echo(f"{row['name']:<10} refused: {row['refused']}")
            continue
        counts = ", ".join(str(n) for n in row["players"])
        click.echo(f"{row['name']:<10} {row['title']} ({counts} players)" + ("; the default" if row["default"] else ""))
