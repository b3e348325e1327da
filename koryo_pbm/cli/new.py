"""``koryo-pbm new``: the moderator creates a game folder."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity
from koryo_pbm.errors import SetupError, StorageError, UsageError
from koryo_pbm.store.folder import GAME_FILE


def _parse_player(spec: str):
    from koryo_pbm.crypto.keys import load_public

    name, sep, key = spec.partition("=")
    name, key = name.strip(), key.strip()
    if not sep or not name or not key:
        raise UsageError(f"--player takes NAME=PUBLIC_KEY (the key line or a .pub file), not {spec!r}")
    return name, load_public(key)


def parse_email_specs(specs: tuple[str, ...], option: str = "--email") -> dict[str, str]:
    """``{player: address}`` from ``NAME=ADDRESS`` items (each address checked)."""
    from koryo_pbm.transport.address import check_address

    emails: dict[str, str] = {}
    for spec in specs:
        name, sep, address = spec.partition("=")
        name, address = name.strip(), address.strip()
        if not sep or not name or not address:
            raise UsageError(f"{option} takes NAME=ADDRESS (alice=alice@example.org), not {spec!r}")
        if name in emails:
            raise UsageError(f"{name} is given two addresses in {option}")
        emails[name] = check_address(address, who=f"{name}'s address")
    return emails


@click.command("new")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--game", "game_name", default="koryo", show_default=True, help="Which game.")
@identity_options(role="moderator")
@click.option("--player", "player_specs", multiple=True, metavar="NAME=PUB",
              help="A player and their public key (the line from keygen, or a .pub file); in seat order.")
@click.option("--email", "email_specs", multiple=True, metavar="NAME=ADDRESS",
              help="A player's mail address, for the judge (koryo-pbm serve); kept sealed to you. "
                   "A player without one plays through the shared folder.")
@click.option("--first", help="The first player (default: drawn by the seed).")
@click.option("--seed", help="Deal at once from this seed text instead of the players joining first (for tests "
                             "and replays: the deal is then your choice, not fair-proof). Its salted hash is "
                             "published; keep it secret until the end.")
@click.option("--position", "position_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Start from a position file instead of a new deal (no join: not fair-proof).")
@click.option("--team", "teams", multiple=True, metavar="A,B",
              help="A team of two neighbouring players (games with teams, e.g. korsar).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(directory: Path, game_name: str, as_name: str | None, key_file: Path | None,
            player_specs: tuple[str, ...], email_specs: tuple[str, ...], first: str | None, seed: str | None,
            position_file: Path | None, teams: tuple[str, ...], as_json: bool) -> None:
    """Create the game folder DIRECTORY: game.toml (signed by you, the moderator), inbox/ and
    archive/. Without --seed or --position the game begins with the join: every player
    contributes randomness to the deal, mixed with your secret (committed to in game.toml).

    \b
    Example:
      koryo-pbm new friday --as mod --player alice=alice.pub --player bob=koryo-pbm-pub-v1:...
          --email alice=alice@example.org --email bob=bob@example.net
    """
    import shlex

    from koryo_pbm import match
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile, inbox

    moderator = load_identity(as_name, key_file)
    game = find_game(game_name)
    players = dict(_parse_player(spec) for spec in player_specs)
    if len(players) != len(player_specs):
        raise UsageError("a player is named twice in --player")
    if not players:
        raise UsageError("name the players: --player NAME=PUBLIC_KEY, once per player, in seat order")
    emails = parse_email_specs(email_specs)
    options = {}
    if teams:
        if "teams" not in game.options:
            raise SetupError(f"{game.title} has no teams")
        options["teams"] = [[m.strip() for m in t.split(",")] for t in teams]
    position = match.read_position(position_file) if position_file else None
    if position is not None and position.get("game", game.name) != game.name:
        raise SetupError(f"the position is for {position.get('game')!r}, not {game.name!r}")
    path = directory / GAME_FILE
    if path.exists():
        raise StorageError(f"{path} exists already: choose a new folder (nothing was changed)")
    doc, _ = match.create(game, moderator, players, seed=seed, first=first, options=options, position=position,
                          emails=emails)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        inbox.inbox_dir(directory).mkdir(exist_ok=True)
        inbox.archive_dir(directory).mkdir(exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    gamefile.write_game(path, doc, moderator)
    decision = doc.decision or {}
    if as_json:
        echo_json({"id": doc.game_id, "game": doc.game, "path": str(path),
                   "decision": decision.get("id"), "waiting_for": decision.get("waiting_for", [])})
        return
    click.echo(f"created game {doc.game_id} ({game.title}) in {directory}")
    if decision:
        click.echo(f"waiting for {', '.join(decision['waiting_for'])} (decision {decision['id']})")
    if decision.get("kind") == "join":
        click.echo(f"not dealt yet: every player joins first (koryo-pbm play {shlex.quote(str(directory))} --as NAME, "
                   "or orders and "
                   "submit); resolve then deals from your committed secret and their contributions")
    elif doc.deal != "joined":
        click.echo(f"deal: chosen by you ({'--position' if doc.deal == 'position' else '--seed'}): not fair-proof")
    click.echo(f"share {path} with the players (mail it, or share the folder)")
