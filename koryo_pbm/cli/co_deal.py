"""``koryo-pbm co-deal``: the co-dealer of a blind game answers what the game asks of it."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember
from koryo_pbm.errors import UsageError
from koryo_pbm.store.folder import game_paths


@click.command("co-deal")
@click.argument("target", metavar="GAME", required=False)
@identity_options(role="co-dealer")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the armoured envelope to this file (to mail to the judge) instead of the inbox.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, out: Path | None, as_json: bool) -> None:
    """As the co-dealer of the blind game GAME (a folder or its game.toml), answer the pending
    decision if it waits for you: your key share, your shuffle of a new deck with your shares
    of the cards dealt now (each sealed to its player), your shares of the cards a player
    reveals now, or, once the game is over, your secrets for the audit. Every step is checked
    against the public game file first; the signed, sealed envelope goes into the inbox (or, with
    --out, into a file to mail to the moderator's judge)."""
    import os

    from koryo_pbm import match
    from koryo_pbm.cli.common import NOW_ENV, now_utc
    from koryo_pbm.cli.submit import record_submission, utc_now
    from koryo_pbm.errors import NotForYou
    from koryo_pbm.match.codealer import answer
    from koryo_pbm.store import inbox

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc, answering=True)
    identity = load_identity(as_name, key_file, doc=doc)
    try:
        # the co-dealer's clock (KORYO_PBM_NOW in tests): it checks a claimed missed deadline by it
        clock = now_utc().strftime("%Y-%m-%dT%H:%M:%S.%fZ") if os.environ.get(NOW_ENV) else utc_now()
        done = answer(doc, folder, identity, submitted=clock)
    except NotForYou as exc:
        raise UsageError(str(exc)) from None
    if done.envelope is None:
        if as_json:
            echo_json({"id": doc.game_id, "answered": None, "why": done.why,
                       "waiting_for": (doc.decision or {}).get("waiting_for", [])})
        else:
            click.echo(f"nothing to do: {done.why}")
        return
    if out is not None:
        from koryo_pbm.cli.common import write_output

        record_submission(done.envelope)
        write_output(out, done.envelope.armor())
        if as_json:
            echo_json({"id": doc.game_id, "answered": done.decision, "envelope": str(out)})
        else:
            click.echo(f"{done.co_dealer} answered {done.decision}: {out} (mail it to the judge)")
        return
    if not inbox.inbox_dir(folder).is_dir():
        raise UsageError(f"{folder} has no inbox/ folder")
    record_submission(done.envelope)
    dropped = inbox.drop(folder, done.envelope)
    if as_json:
        echo_json({"id": doc.game_id, "answered": done.decision, "envelope": str(dropped)})
    else:
        click.echo(f"{done.co_dealer} answered {done.decision}: {dropped}")
