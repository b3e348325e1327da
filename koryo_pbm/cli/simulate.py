"""``koryo-pbm simulate``: many games in-process, between random players or bots."""

from __future__ import annotations

import json
import time

import click

from koryo_pbm.engine.registry import default_name, find_game
from koryo_pbm.engine.simulate import SimulationResult, simulate
from koryo_pbm.errors import SetupError, UsageError


@click.command("simulate")
@click.option("--game", "game_name", help="Which game (default: the default game, koryo-pbm games).")
@click.option("--players", "n_players", type=int, default=None,
              help="Players per game  [default: 4, or one per --bots level]")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=100, show_default=True, help="How many games.")
@click.option("--seed", default="0", show_default=True, help="Seed text; the same seed gives the same games.")
@click.option("--teams", is_flag=True, help="Play in teams of two (games that have teams).")
@click.option("--bots", "bots_text", metavar="LEVEL,LEVEL,...",
              help="One bot level per seat, e.g. heuristic,random,random,random (default: all random). "
                   "The levels move one seat on each game.")
@click.option("--time-limit", "--budget", "limit", type=click.FloatRange(min=0.001, max=600), default=30.0,
              show_default=True, help="A safety limit: seconds of CPU a bot may think per decision before a random "
                                      "legal order stands in (a bot's work is a fixed count, far within it).")
@click.option("--progress", "every", type=click.IntRange(min=1), default=None, metavar="N",
              help="Print the standings so far on stderr every N games.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def command(game_name: str | None, n_players: int | None, n_games: int, seed: str, teams: bool,
            bots_text: str | None, limit: float, every: int | None, as_json: bool) -> None:
    """Play GAMES complete games and print wins and mean score per seat; with --bots, per bot
    level too (wins, win share per seat, seconds per decision).

    \b
    Examples:
      koryo-pbm simulate --games 1000
      koryo-pbm simulate --bots heuristic,random,random,random --games 2000
      koryo-pbm simulate --game GAME --bots heuristic,random,random
    """
    from koryo_pbm.cli.common import check_player_count
    from koryo_pbm.engine import bots as B

    game = find_game(game_name or default_name())
    options = {}
    if teams:
        if "teams" not in game.options:
            raise SetupError(f"{game.title} has no teams")
        options["teams"] = True
    levels = None
    if bots_text is not None:
        levels = B.parse_levels(game, bots_text)
        if n_players is not None and n_players != len(levels):
            raise UsageError(f"--bots names {len(levels)} seat(s) but --players says {n_players}")
        n_players = len(levels)
    n_players = 4 if n_players is None else n_players
    check_player_count(game, n_players)

    def progress(i: int, partial: SimulationResult) -> None:
        if every and (i + 1) % every == 0 and partial.levels is not None:
            parts = [f"{lv} {st.wins} wins ({100.0 * st.wins / (partial.games * st.seats):.1f}%/seat)"
                     for lv, st in partial.levels.items()]
            click.echo(f"after {partial.games} games: " + ", ".join(parts), err=True)

    result = simulate(game, n_players, n_games, seed, options=options, clock=time.perf_counter,
                      bots=levels, limit=limit, progress=progress if every else None)
    if as_json:
        click.echo(json.dumps(result.to_dict(), sort_keys=True))
        return
    click.echo(f"{game.title}: {result.games} games, {n_players} players, seed {seed!r}")
    if levels is not None and result.levels is not None:
        click.echo(f"bots: {', '.join(levels)} (moving one seat each game), safety time limit {limit:g} s per decision")
        click.echo(f"{'level':<11}{'seats':>6}{'wins':>8}{'win %':>9}{'mean score':>12}{'s/decision':>12}{'max s':>9}"
                   f"{'fallbacks':>11}")
        for lv, st in result.levels.items():
            d = st.to_dict(result.games)
            click.echo(f"{lv:<11}{st.seats:>6}{st.wins:>8}{100.0 * d['win_share']:>8.1f}%{d['mean_score']:>12.2f}"
                       f"{d['mean_seconds_per_decision']:>12.4f}{st.seconds_max:>9.3f}{st.fallbacks:>11}")
        click.echo("win % is per seat of that level; by seat:")
    click.echo(f"{'seat':<8}{'wins':>8}{'win %':>9}{'mean score':>13}")
    for p in result.players:
        share = 100.0 * result.wins[p] / result.games
        click.echo(f"{p:<8}{result.wins[p]:>8}{share:>8.1f}%{result.mean_scores[p]:>13.2f}")
    rate = result.games / result.seconds if result.seconds > 0 else float("inf")
    click.echo(f"{result.seconds:.2f} s, {rate:.0f} games per second (shared wins count for every winner)")
