"""``koryo-pbm replace``: the moderator gives a seat to a substitute (a new player's key)."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember
from koryo_pbm.store.folder import game_paths


@click.command("replace")
@click.argument("target", metavar="GAME")
@click.argument("spec", metavar="NAME=PUB")
@identity_options(role="moderator")
@click.option("--email", "email_specs", multiple=True, metavar="NAME=ADDRESS",
              help="The new player's mail address, for the judge (default: none; the seat is then "
                   "served through the shared folder only).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str, spec: str, as_name: str | None, key_file: Path | None, email_specs: tuple[str, ...],
            as_json: bool) -> None:
    """Give NAME's seat in GAME (a folder or a game file) to a new player, whose public key PUB
    is the line from their keygen or a .pub file.

    From the next version (written and signed by you) the seat's hand is sealed to the new key,
    envelopes signed by the former key are refused, and the public log says that the seat was
    taken over. Orders the former key had in for the pending decision are dropped: the new
    player answers it. The former player's address is forgotten (--email gives the new one).
    While the game waits for its join, the join starts again: every player joins anew.

    \b
    Example:
      koryo-pbm replace friday --as mod bob=dave.pub --email bob=dave@example.org
    """
    from koryo_pbm import match
    from koryo_pbm.cli.new import _parse_player, parse_email_specs
    from koryo_pbm.errors import UsageError
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.lock import game_lock

    seat, key = _parse_player(spec, option="NAME=PUB")
    emails = parse_email_specs(email_specs)
    others = [name for name in emails if name != seat]
    if others:
        raise UsageError(f"--email names {others[0]}, but only {seat}'s seat is being replaced")
    folder, path = game_paths(target)
    identity = load_identity(as_name, key_file)
    with game_lock(folder):
        mv = match.load_for_resolve(path, identity)
        remember(mv.doc, strict=True)
        done = match.replace_seat(mv, seat, key, email=emails.get(seat))
        gamefile.write_game(path, done.doc, identity)
        remember(done.doc, strict=True)
    doc = done.doc
    if as_json:
        echo_json({"id": doc.game_id, "version": doc.version, "player": seat, "key": done.new,
                   "former_key": done.former, "dropped": done.dropped, "email": done.email, "rejoin": done.rejoin,
                   "fair_proof": not done.rejoined})
        return
    click.echo(f"{seat}'s seat in game {doc.game_id} is now held by key {done.new} (version {doc.version}); "
               f"envelopes signed by the former key {done.former} are refused from now on")
    if done.dropped:
        click.echo(f"{seat}'s orders for {done.dropped}, sent with the former key, were dropped: "
                   f"the new player answers {done.dropped}")
    if done.rejoined:
        if done.rejoin:
            click.echo(f"the join starts again: {', '.join(done.rejoin)} joined before the seat changed hands and "
                       "join anew (no contribution made before a key came to the table counts)")
        click.echo(f"the deal will not be fair-proof (verify names {seat}: a key that comes to the table during the "
                   "join could join last and choose its contribution); for a fair-proof deal, start a new game "
                   "with the new player instead")
    click.echo(f"{seat}'s address: {done.email or 'none (shared folder only)'}")
    click.echo(f"share {path} with the new player: `koryo-pbm show` with their key shows {seat}'s hand")
