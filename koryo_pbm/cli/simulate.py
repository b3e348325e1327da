"""``koryo-pbm simulate``: many random games in-process."""

from __future__ import annotations

import json
import time

import click

from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import simulate
from koryo_pbm.errors import SetupError


@click.command("simulate")
@click.option("--game", "game_name", default="koryo", show_default=True, help="Which game.")
@click.option("--players", "n_players", type=int, default=4, show_default=True, help="Players per game.")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=100, show_default=True, help="How many games.")
@click.option("--seed", default="0", show_default=True, help="Seed text; the same seed gives the same games.")
@click.option("--teams", is_flag=True, help="Play in teams of two (games that have teams).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def command(game_name: str, n_players: int, n_games: int, seed: str, teams: bool, as_json: bool) -> None:
    """Play GAMES complete games between random legal players and print wins and mean
    score per seat."""
    from koryo_pbm.cli.common import check_player_count

    game = find_game(game_name)
    check_player_count(game, n_players)
    options = {}
    if teams:
        if "teams" not in game.options:
            raise SetupError(f"{game.title} has no teams")
        options["teams"] = True
    result = simulate(game, n_players, n_games, seed, options=options, clock=time.perf_counter)
    if as_json:
        click.echo(json.dumps(result.to_dict(), sort_keys=True))
        return
    click.echo(f"{game.title}: {result.games} games, {n_players} players, seed {seed!r}")
    click.echo(f"{'seat':<8}{'wins':>8}{'win %':>9}{'mean score':>13}")
    for p in result.players:
        share = 100.0 * result.wins[p] / result.games
        click.echo(f"{p:<8}{result.wins[p]:>8}{share:>8.1f}%{result.mean_scores[p]:>13.2f}")
    rate = result.games / result.seconds if result.seconds > 0 else float("inf")
    click.echo(f"{result.seconds:.2f} s, {rate:.0f} games per second (shared wins count for every winner)")
