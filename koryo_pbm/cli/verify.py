"""``koryo-pbm verify``: replay a finished game from its public file and check everything."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity
from koryo_pbm.errors import KoryoPbmError
from koryo_pbm.store.folder import game_paths


class Failed(KoryoPbmError):
    """A check failed: the report is printed; exit 1 with the first failure's reason."""


@click.command("verify")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """Replay the finished game in DIR or FILE (default: here) and check everything: the
    moderator's signature and the log's hash chain, the seed against its commitment, the deal
    (from the moderator's secret and every player's contribution, or chosen by the moderator:
    then not fair-proof), every published order against its player's signatures, every logged
    decision and event replayed with the game's rules, the final scores. With --as NAME (a
    player), also that every envelope this machine submitted last is the one the log counted.

    One line per check, then the verdict; exit 0 if all pass, else 1 with the first failure.
    """
    from koryo_pbm import match
    from koryo_pbm.store import submissions
    from koryo_pbm.verify import verify_game

    _, path = game_paths(target)
    doc = match.load_doc(path)
    player = None
    records = None
    if as_name is not None or key_file is not None:
        identity = load_identity(as_name, key_file, doc=doc)
        player = match.player_name(doc, identity)
        records = submissions.load(doc.game_id)
    report = verify_game(doc, player=player, submitted=records)
    failure = report.failure
    if as_json:
        echo_json({"id": doc.game_id, "ok": report.ok, "deal": doc.deal, "fair_proof": report.fair_proof,
                   "not_fair_proof": report.not_fair or None,
                   "checks": [c.to_dict() for c in report.checks]})
    else:
        for check in report.checks:
            click.echo(f"{'ok  ' if check.ok else 'FAIL'}  {check.name:<9}  {check.detail}")
        if failure is None:
            verdict = "the game verifies" + ("" if report.fair_proof else f" (but {report.not_fair}: not fair-proof)")
            click.echo(f"verdict: {verdict}")
    if failure is not None:
        raise Failed(f"game {doc.game_id} does not verify: {failure.detail}")
