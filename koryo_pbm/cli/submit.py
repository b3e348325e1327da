"""``koryo-pbm submit``: sign orders and seal them to the moderator."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from koryo_pbm.cli.common import PathType, identity_options, load_identity, remember, write_armored
from koryo_pbm.errors import FormatError, UsageError
from koryo_pbm.store.folder import game_paths


def utc_now() -> str:
    """Submission time: it orders a player's envelopes (the later replaces the earlier)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def seal_orders(doc, game, identity, text: str, *, source: str = "orders", submitted: str | None = None):
    """Check ``text`` against the player's own view, then sign and seal its canonical form (no
    comments: its size is the decision's, not the player's writing) with the head of the
    history it answers: an envelope."""
    from koryo_pbm import match
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.store.gamelog import head

    name, private = match.open_private(doc, identity)
    body = match.check_own_order(doc, game, name, private, text, source=source)
    canonical = match.canonical_orders(doc.game_id, doc.decision["id"], body)
    return make_envelope(identity, doc.moderator, game_id=doc.game_id, decision=doc.decision["id"],
                         answers=head(doc), player=name, orders_text=canonical, submitted=submitted or utc_now())


def record_submission(envelope) -> None:
    """Remember the envelope in this machine's record of what it submitted (``verify --as`` and
    the withdrawn-order notice of ``show --as`` read it); a record that cannot be written is
    told, not fatal."""
    from koryo_pbm.cli.common import warn
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store import submissions

    try:
        submissions.add(envelope.game_id, submissions.Submission(envelope.decision, envelope.player,
                                                                 envelope.digest, envelope.submitted))
    except KoryoPbmError as exc:
        warn(f"cannot record the envelope in the record of what this machine submitted ({exc})")


def earlier_orders(folder: Path, doc, me: str) -> str | None:
    """Where ``me``'s orders for the pending decision already are (received by the moderator,
    in the inbox, or sent from this machine), or ``None``: orders submitted now replace them."""
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store import inbox, submissions

    decision = doc.decision
    if decision is None:
        return None
    if me in decision.get("received", []):
        return "the moderator has received them"
    try:
        if inbox.inbox_dir(folder).is_dir() and any(
                not isinstance(item.envelope, Exception) and item.envelope.player == me
                and item.envelope.decision == decision["id"] for item in inbox.list_inbox(folder)):
            return "they are in the inbox"
        if any(r.player == me and r.decision == decision["id"] for r in submissions.load(doc.game_id)):
            return "you submitted them from this machine"
    except KoryoPbmError:  # an unreadable inbox or record: resolve and show say why
        return None
    return None


def _read_stdin(limit: int) -> str:
    """Orders from standard input, never more than ``limit`` bytes."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        raw = stream.read(limit + 1)
    else:  # a text stream without bytes underneath (tests)
        raw = sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
    if len(raw) > limit:
        raise FormatError(f"the orders on standard input are larger than {limit} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("the orders on standard input are not UTF-8 text") from None


@click.command("submit")
@click.argument("orders_file", type=PathType(dir_okay=False, allow_dash=True, path_type=Path))
@identity_options()
@click.option("--game", "target", metavar="DIR|FILE",
              help="The game folder or game file (default: here).")
@click.option("--out", "out", type=PathType(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write the envelope here (- for standard output) to mail it, instead of the inbox.")
def command(orders_file: Path, as_name: str | None, key_file: Path | None, target: str | None,
            out: Path | None) -> None:
    """Check ORDERS_FILE against your view of the game, sign it, seal it to the moderator, and
    drop the envelope into the game's inbox/ (shared folder) or write it with --out (mail).

    Submitting again before the moderator resolves replaces your earlier orders.
    """
    from koryo_pbm import match
    from koryo_pbm.store import inbox

    folder, path = game_paths(target)
    if target is None and not path.exists():
        raise UsageError(f"no game file here ({path}): name the game with --game DIR|FILE, or run submit "
                         "in the game's folder")
    doc = match.load_doc(path)
    remember(doc, answering=True)
    identity = load_identity(as_name, key_file, doc=doc)
    game = match.game_of(doc)
    text = _read_stdin(match.ORDERS_LIMIT) if str(orders_file) == "-" else match.read_orders_file(orders_file)
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors (Notepad) write first
    envelope = seal_orders(doc, game, identity, text, source=str(orders_file))
    replaced = earlier_orders(folder, doc, envelope.player)
    again = f" (they replace your earlier orders for {envelope.decision}: {replaced})" if replaced else ""
    record_submission(envelope)
    if out is not None:
        if write_armored(out, envelope.armor()):
            click.echo(f"wrote {out}: attach it to (or paste it into) an email to your moderator{again}", err=True)
        return
    if not inbox.inbox_dir(folder).is_dir():
        raise UsageError(f"{folder} has no inbox/ folder: use --out FILE to write the envelope for email")
    dropped = inbox.drop(folder, envelope)
    click.echo(f"submitted {envelope.player}'s orders for {envelope.decision}: {dropped}{again}", err=True)
