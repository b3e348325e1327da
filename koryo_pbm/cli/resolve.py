"""``koryo-pbm resolve``: the moderator verifies envelopes and advances the game."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import (
    PathType,
    echo_json,
    identity_options,
    load_identity,
    remember,
    warn,
    warn_conflict_copies,
)
from koryo_pbm.errors import KoryoPbmError
from koryo_pbm.store.folder import game_paths


class RejectedEnvelopes(KoryoPbmError):
    """Some envelopes were refused (each reported with its reason)."""

    exit_code = 3


def mail_candidates(mail: tuple[Path, ...], empty: list[str]) -> list:
    """The envelopes in the ``--mail`` files, as resolve candidates (``empty`` gets the mails
    that held none)."""
    from koryo_pbm.match import Candidate
    from koryo_pbm.transport.mail import envelopes_from_mail  # the email package is costly

    candidates = []
    for source in mail:
        for label, found in envelopes_from_mail(source, empty=empty):
            if isinstance(found, Exception):
                candidates.append(Candidate(source=label, envelope=None, error=found))
            else:
                candidates.append(Candidate(source=label, envelope=found))
    return candidates


def run_resolve(folder: Path, path: Path, identity, mail: tuple[Path, ...] = (), *, seen=None, now=None):
    """:func:`koryo_pbm.match.run.run_resolve` with the ``--mail`` files read under the lock and
    the clock of the command line (``KORYO_PBM_NOW`` when set) unless ``now`` is given."""
    from koryo_pbm.cli.common import now_utc
    from koryo_pbm.match.run import run_resolve as run

    return run(folder, path, identity, now=now if now is not None else now_utc, seen=seen,
               more=(lambda empty: mail_candidates(mail, empty)) if mail else None)


@click.command("resolve")
@click.argument("target", required=False, metavar="[DIR]")
@identity_options(role="moderator")
@click.option("--mail", "mail", multiple=True, type=PathType(exists=True, path_type=Path),
              help="Also read envelopes from a mail file or folder (.eml, mbox, Maildir). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, mail: tuple[Path, ...],
            as_json: bool) -> None:
    """Verify every envelope in the inbox (and in --mail files); when everyone the pending
    decision waits for has a valid order in, apply the rules and write the next state.

    Rejected envelopes are reported with their reason. Processed envelopes are moved to
    archive/, never deleted.
    """
    from koryo_pbm import match
    from koryo_pbm.cli.common import now_utc

    folder, path = game_paths(target)
    identity = load_identity(as_name, key_file)
    from koryo_pbm.match.run import refuse_later_copies

    refuse_later_copies(warn_conflict_copies(folder, path), path)
    result = run_resolve(folder, path, identity, mail, seen=lambda doc: remember(doc, strict=True))
    doc = result.doc
    decision = doc.decision
    if as_json:
        echo_json({
            "id": doc.game_id, "version": doc.version, "written": result.written,
            "applied": [{"decision": d.id, "events": [e.to_dict() for e in ev]} for d, ev in result.applied],
            "envelopes": [{"source": c.source, "status": c.status, "reason": c.reason,
                           "player": getattr(c.envelope, "player", None),
                           "decision": getattr(c.envelope, "decision", None),
                           "conflict_copy": c.conflict} for c in result.candidates],
            "decision": decision["id"] if decision else None,
            "waiting_for": decision["waiting_for"] if decision else [],
            "received": decision.get("received", []) if decision else [],
            "deadline": decision.get("deadline") if decision else None,
            "mails_without_envelope": result.no_envelope,
        })
        _fail_on_rejects(result)
        return
    for c in result.candidates:
        if c.conflict:
            warn(f"{c.source} is a sync-conflict copy of an envelope; it was treated as an envelope ({c.status})")
    for line in match.describe_candidates(c for c in result.candidates
                                          if c.status not in ("accepted", "held", "set-aside")):
        click.echo(f"  {line}", err=True)
    aside: dict[tuple[str, str], int] = {}
    for c in result.set_aside:
        key = (c.envelope.player, c.envelope.decision)
        aside[key] = aside.get(key, 0) + 1
    for (player, decision_id), n in aside.items():  # one line per player, not one per envelope
        click.echo(f"  {'set-aside':<10} {n} envelopes of {player} for {decision_id}, unread (only the "
                   f"{match.MAX_PER_DECISION} latest of a player for a decision are read)", err=True)
    from koryo_pbm.printable import printable

    for label in result.no_envelope:  # no mail is skipped silently
        click.echo(f"  {'no envelope':<10} {printable(label)}", err=True)
    lines = []  # what is printed on standard output, in one write (click.echo costs some 30 µs a call)
    for d, events in result.applied:
        lines.append(f"resolved {d.id}")
        lines += [f"  {e.text}" for e in events]
    if not result.candidates:
        lines.append("no envelopes found (inbox empty" + (", none in the mail given)" if mail else ")"))
    if decision is None:
        lines.append(f"game {doc.game_id} is over")
    else:
        from koryo_pbm.waiting import waiting_words

        lines.append(f"decision {decision['id']}, version {doc.version}: "
                     f"{waiting_words(decision['waiting_for'], decision.get('received', []))}")
        if "deadline" in decision:
            from koryo_pbm import deadlines

            when = deadlines.parse_stamp(decision["deadline"])
            lines.append(f"deadline {deadlines.human(when)} ({deadlines.relative(when, now_utc())})")
    click.echo("\n".join(lines))
    _fail_on_rejects(result)


def _fail_on_rejects(result) -> None:
    """Valid work is done and written; bad envelopes (and links in the inbox) still make the
    exit status non-zero."""
    rejected, skipped, aside = result.rejected, result.skipped, result.set_aside
    if rejected or skipped or aside:
        parts = []
        if rejected:  # where they are now: inbox files are archived, mail is left where it is
            inbox_n = sum(1 for c in rejected if c.path is not None)
            mail_n = len(rejected) - inbox_n
            where = ("archived under archive/rejected" if not mail_n else
                     "in the mail given, which is left where it is" if not inbox_n else
                     f"{inbox_n} of the inbox archived under archive/rejected, {mail_n} in the mail given, "
                     "which is left where it is")
            parts.append(f"{len(rejected)} envelope(s) rejected ({where})")
        if aside:
            from koryo_pbm.match import MAX_PER_DECISION

            parts.append(f"{len(aside)} envelope(s) set aside unread (more than {MAX_PER_DECISION} of one player "
                         "for one decision; archived under archive/set-aside)")
        if skipped:
            parts.append(f"{len(skipped)} inbox entr{'y' if len(skipped) == 1 else 'ies'} skipped "
                         "(symbolic links: not followed, left in place; delete them)")
        raise RejectedEnvelopes(f"{'; '.join(parts)}; the valid ones were counted")
