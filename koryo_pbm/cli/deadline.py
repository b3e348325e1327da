"""``koryo-pbm deadline``: the moderator extends (or sets) the pending decision's deadline."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, now_utc, remember
from koryo_pbm.store.folder import game_paths


@click.command("deadline")
@click.argument("target", metavar="GAME")
@click.argument("when", metavar="+DURATION|TIME")
@identity_options(role="moderator")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str, when: str, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """Set the deadline of GAME's pending decision (GAME: a folder or a game file): +DURATION
    extends it (30m, 12h, 3d, 1w, 1d12h; counted from the current deadline, or from now when
    there is none or it has passed), or give a UTC time (2026-11-30T18:00Z), which must be in the future.

    Writes the next version of the game file; the change is in the public log.

    \b
    Examples:
      koryo-pbm deadline friday --as mod +1d
      koryo-pbm deadline friday --as mod 2026-11-30T18:00Z
    """
    from koryo_pbm import deadlines, match
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.lock import game_lock

    folder, path = game_paths(target)
    identity = load_identity(as_name, key_file)
    now = now_utc()
    with game_lock(folder):
        mv = match.load_for_resolve(path, identity)
        remember(mv.doc, strict=True)
        if mv.doc.decision is None:
            from koryo_pbm.errors import StaleError

            raise StaleError(f"game {mv.doc.game_id} is over: it has no deadline")
        new_time = deadlines.parse_new_deadline(when, match.deadline_of(mv.doc), now)
        doc = match.set_deadline(mv, new_time)
        gamefile.write_game(path, doc, identity)
        remember(doc, strict=True)
    assert doc.decision is not None
    if as_json:
        echo_json({"id": doc.game_id, "version": doc.version, "decision": doc.decision["id"],
                   "deadline": doc.decision["deadline"]})
        return
    click.echo(doc.log[-1]["events"][0])
    click.echo(f"written: game {doc.game_id} version {doc.version}")
