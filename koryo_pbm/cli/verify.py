"""``koryo-pbm verify``: replay a finished game from its public file and check everything."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import PathType, echo_json, identity_options, load_identity
from koryo_pbm.errors import KoryoPbmError, UsageError
from koryo_pbm.store.folder import game_paths


class Failed(KoryoPbmError):
    """A check failed: the report is printed; exit 1 with the first failure's reason."""


def read_receipts(file: Path, doc):
    """The receipts in ``file``, each checked: its signature, by the game's moderator, for the game."""
    from koryo_pbm.cli.receipt import receipts_in
    from koryo_pbm.errors import StaleError, TamperedError

    found = receipts_in(file)
    for r in found:
        r.verify()
        if r.moderator != doc.moderator:
            raise TamperedError(f"the receipt in {file} is signed by key {r.moderator.fingerprint()}, not by the "
                                f"moderator of game {doc.game_id} ({doc.moderator.fingerprint()})")
        if r.header["game_id"] != doc.game_id:
            raise StaleError(f"the receipt in {file} is for game {r.header['game_id']}, not {doc.game_id}")
    return found


@click.command("verify")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("--receipt", "receipt_files", multiple=True, type=PathType(dir_okay=False, path_type=Path),
              metavar="FILE", help="With --as: a receipt the moderator sent you (a saved mail or the block alone); "
                                   "may be repeated. An order of yours it receipts must not have been played by the bot.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, receipt_files: tuple[Path, ...],
            as_json: bool) -> None:
    """Replay the finished game in DIR or FILE (default: here) and check everything: the
    moderator's signature and the log's hash chain, the seed against its commitment, the deal
    (from the moderator's secret and every player's contribution, or chosen by the moderator:
    then not fair-proof; a join it cannot prove fair, a person's join the bot played or a seat
    that changed hands during the join, is named: not fair-proof), every published order against its player's signatures, every logged
    decision and event replayed with the game's rules, the final scores. With --as NAME (a
    player), also that every envelope this machine submitted last is the one the log counted,
    and that the bot never played an order of yours that this machine submitted before the
    decision was resolved, or that a receipt given with --receipt proves was in on time.

    One line per check, then the verdict; exit 0 if all pass, else 1 with the first failure.
    """
    from koryo_pbm import match
    from koryo_pbm.verify import verify_game

    _, path = game_paths(target)
    doc = match.load_doc(path)
    player = None
    records = None
    if as_name is not None or key_file is not None:
        identity = load_identity(as_name, key_file, doc=doc)
        player = match.player_name(doc, identity)
        from koryo_pbm.store import submissions  # a player's record of what this machine submitted

        records = submissions.load(doc.game_id)
    if receipt_files and player is None:
        raise UsageError("--receipt needs --as NAME (or --key FILE): the receipts are a player's")
    receipts = [r for f in receipt_files for r in read_receipts(f, doc)]
    report = verify_game(doc, player=player, submitted=records, receipts=receipts)
    failure = report.failure
    if as_json:
        echo_json({"id": doc.game_id, "ok": report.ok, "deal": doc.deal, "fair_proof": report.fair_proof,
                   "not_fair_proof": report.not_fair or None, "not_rederivable": report.not_rederivable,
                   "checks": [c.to_dict() for c in report.checks]})
    else:
        for check in report.checks:
            click.echo(f"{'ok  ' if check.ok else 'FAIL'}  {check.name:<9}  {check.detail}")
        if failure is None:
            verdict = "the game verifies" + ("" if report.fair_proof else f" (but {report.not_fair}: not fair-proof)")
            verdict += _not_rederivable(report.not_rederivable)
            click.echo(f"verdict: {verdict}")
    if failure is not None:
        raise Failed(f"game {doc.game_id} does not verify: {failure.detail}")


def _not_rederivable(decisions: list[str]) -> str:
    """The verdict's note on bot orders nobody can choose again (a bot hit its time limit)."""
    if not decisions:
        return ""
    n = len(decisions)
    return (f"; {n} bot order{'s are' if n != 1 else ' is'} not re-derivable (the bot hit its safety time "
            f"limit: {', '.join(decisions[:3])}{', ...' if n > 3 else ''})")
