"""``koryo-pbm address``: the moderator lists, adds, changes or removes players' mail addresses."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember
from koryo_pbm.store.folder import game_paths


@click.command("address")
@click.argument("target", metavar="GAME")
@click.argument("changes", nargs=-1, metavar="[NAME=ADDRESS]...")
@identity_options(role="moderator")
@click.option("--remove", "removals", multiple=True, metavar="NAME",
              help="Forget NAME's address (that player is then served through the shared folder only).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str, changes: tuple[str, ...], as_name: str | None, key_file: Path | None,
            removals: tuple[str, ...], as_json: bool) -> None:
    """List the players' mail addresses of GAME (a folder or a game file), or set them.

    Addresses are kept in the moderator's sealed part of the game file, never in the public
    file. Setting one writes the next version of the game file (signed by you).

    \b
    Examples:
      koryo-pbm address friday --as mod
      koryo-pbm address friday --as mod alice=alice@new.example.org
      koryo-pbm address friday --as mod --remove bob
    """
    from koryo_pbm import match
    from koryo_pbm.cli.new import parse_email_specs
    from koryo_pbm.errors import UsageError
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.lock import game_lock

    folder, path = game_paths(target)
    identity = load_identity(as_name, key_file)
    updates: dict[str, str | None] = dict(parse_email_specs(changes, option="NAME=ADDRESS"))
    for name in removals:
        if name in updates:
            raise UsageError(f"{name} is both given an address and removed")
        updates[name] = None
    with game_lock(folder):
        mv = match.load_for_resolve(path, identity)
        remember(mv.doc, strict=True)
        doc = mv.doc
        emails = dict(mv.emails)
        if updates:
            doc = match.with_emails(mv, updates)
            gamefile.write_game(path, doc, identity)
            remember(doc, strict=True)
            emails = {n: a for n, a in {**emails, **updates}.items() if a is not None}
    if as_json:
        echo_json({"id": doc.game_id, "version": doc.version, "written": bool(updates),
                   "addresses": {n: emails.get(n) for n in doc.players}})
        return
    for name in doc.players:
        click.echo(f"{name:<12} {emails.get(name) or '(none: shared folder only)'}")
    if updates:
        click.echo(f"written: game {doc.game_id} version {doc.version}")
