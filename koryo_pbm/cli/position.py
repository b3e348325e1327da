"""``koryo-pbm position``: check a position file, or write out a game's position."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, write_output
from koryo_pbm.errors import PositionError, UsageError
from koryo_pbm.store.folder import game_paths


@click.command("position")
@click.argument("position_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--from", "source", metavar="DIR|FILE",
              help="Write out the position of this game instead (moderator: it shows every hand).")
@identity_options(role="moderator")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="With --from: write here (default: standard output).")
@click.option("--seed", default="position", show_default=True, help="Seed for the cards the position leaves unplaced.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(position_file: Path | None, source: str | None, as_name: str | None, key_file: Path | None,
            output: Path | None, seed: str, as_json: bool) -> None:
    """Check POSITION_FILE (it names its game) and show the decision it starts with, or, with
    --from DIR --as MODERATOR, write out the current position of a game.

    \b
    Examples:
      koryo-pbm position my-position.toml
      koryo-pbm position --from friday --as mod -o bug-report.toml
    """
    import tomli_w

    from koryo_pbm import match
    from koryo_pbm.engine.registry import find_game

    if (position_file is None) == (source is None):
        raise UsageError("give a position file to check, or --from DIR to write a game's position")
    if source is not None:
        identity = load_identity(as_name, key_file)
        _, path = game_paths(source)
        mv = match.load_for_resolve(path, identity)
        text = tomli_w.dumps(mv.game.dump_position(mv.state))
        if write_output(output, text):
            click.echo(f"wrote {output}", err=True)
        return
    assert position_file is not None
    doc = match.read_position(position_file)
    name = doc.get("game")
    if not isinstance(name, str):
        from koryo_pbm.engine.registry import names

        raise PositionError(f"{position_file} does not say which game it is for (game = \"NAME\", one of: "
                            f"{', '.join(names())})")
    game = find_game(name)
    state = game.load_position(doc, seed)
    decision = game.pending(state)
    view = game.view(game.public(state), None)
    summary = {"game": name, "valid": True, "decision": decision.id if decision else None,
               "waiting_for": list(decision.players) if decision else [], **view}
    if as_json:
        echo_json(summary)
        return
    click.echo(f"{position_file}: a valid {game.title} position")
    click.echo(game.render(view))
    if decision is not None:
        click.echo(f"decision {decision.id}: waiting for {', '.join(decision.players)}")
