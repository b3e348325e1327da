"""``koryo-pbm show``: verify a game file and show it (with your own cards, with ``--as``)."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import (
    PathType,
    answered,
    deadline_json,
    deadline_lines,
    echo_json,
    identity_options,
    load_identity,
    now_utc,
    remember,
    shell_quote,
    submit_command,
    waiting_line,
    warn_conflict_copies,
)
from koryo_pbm.store.folder import game_paths


@click.command("show")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--html", "html", type=PathType(path_type=Path), metavar="FILE",
              help="Write a picture of the table to FILE (one self-contained HTML page).")
@click.option("--svg", "svg", type=PathType(path_type=Path), metavar="FILE",
              help="Write a picture of the table to FILE as one SVG image.")
def command(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool,
            html: Path | None = None, svg: Path | None = None) -> None:
    """Verify the moderator's signature on the game in DIR or FILE (default: here) and show the
    public state; with --as NAME, also your hand and face-down cards. --html/--svg FILE write a
    picture of the table instead (with --as, one that shows your hidden cards: keep it local)."""
    from koryo_pbm import match
    from koryo_pbm.store.gamedoc import describe_deal

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    first_seen = remember(doc)
    warn_conflict_copies(folder, path)
    game = match.game_of(doc)
    identity = load_identity(as_name, key_file, required=False, doc=doc)
    private = None
    me = None
    if identity is not None and identity.public != doc.moderator:
        me, private = match.open_private(doc, identity)
    view = match.full_view(doc, game, private)
    if me is not None:
        view["me"] = me
        view["withdrawn"] = withdrawn_notice(doc, me)
    view["deal"] = doc.deal
    if doc.seed is not None:
        view["seed"] = doc.seed
    if html is not None or svg is not None:
        from koryo_pbm.cli.pictures import write_pictures

        write_pictures(doc, game, view, html, svg, answered(folder, doc))
        if not as_json:
            return
    view["moderator"] = {"fingerprint": doc.moderator.fingerprint(), "first_seen": first_seen}
    from koryo_pbm.cli import log

    news: list[str] = []
    if me is not None:  # what happened since this player last looked, remembered per game
        last = log.last_shown(doc.game_id, me)
        log_command = "koryo-pbm log" + (f" {shell_quote(target)}" if target else "")
        news, view["happened"] = log.happened(doc, game, me, last, log_command)
        view["last_seen"] = last
        log.record_shown(doc.game_id, me, doc.version)
    ends, view["breakdown"] = log.breakdown(game, view)
    now = now_utc()
    view.update(deadline_json(doc, now))
    if as_json:
        echo_json(view)
        return
    for line in news:
        click.echo(line)
    if news:
        click.echo("")
    click.echo(f"game {doc.game_id} ({game.title}), version {doc.version}, signed by moderator "
               f"{doc.moderator.fingerprint()}" + (f" (key first seen here {first_seen})" if first_seen else ""))
    click.echo(game.render(view))
    click.echo(describe_deal(doc))
    for line in ends:
        click.echo(line)
    if doc.decision:
        click.echo(f"decision {doc.decision['id']}: {waiting_line(folder, doc)}")
        for line in deadline_lines(doc, now):
            click.echo(line)
        if me is not None and me in doc.decision["waiting_for"] and me not in doc.decision.get("received", []):
            who = f"--as {shell_quote(as_name)}" if as_name else f"--key {shell_quote(str(key_file))}"
            where = f" {shell_quote(target)}" if target else ""
            if doc.decision.get("kind") == "deal" and doc.deal == "blind":  # the co-dealer's answer is computed
                click.echo(f"your move: koryo-pbm co-deal{where} {who}")
            else:
                click.echo(f"your move: koryo-pbm orders{where} {who} -o orders.toml, edit it, "
                           f"then {submit_command('orders.toml', as_name, key_file, target)}")


def withdrawn_notice(doc, me: str) -> list[str]:
    """Warn (one line each) where the log counted an older envelope of ``me`` than the last one
    this machine submitted for that decision (the withdrawn-order attack); the warnings."""
    from koryo_pbm.cli.common import warn
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store import submissions

    try:
        problems = submissions.withdrawn(doc.log, submissions.load(doc.game_id), me)
    except KoryoPbmError as exc:
        warn(f"cannot read the record of what this machine submitted: {exc}")
        return []
    for problem in problems:
        warn(problem)
    return problems
