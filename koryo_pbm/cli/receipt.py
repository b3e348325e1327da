"""``koryo-pbm receipt``: check the judge's signed receipt(s) in a saved mail or text file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import echo_json
from koryo_pbm.errors import KoryoPbmError


class Unchecked(KoryoPbmError):
    """A valid receipt checked against no game: its key may be anybody's."""


def _texts(data: bytes) -> list[str]:
    """The file as text, and, if it is a saved mail, each of its decoded text parts."""
    texts = [data.decode("utf-8", "replace")]
    head = data[:4096].lower()
    if b"\nsubject:" in head or head.startswith((b"from:", b"subject:", b"return-path:", b"received:",
                                                 b"mime-version:", b"date:", b"message-id:")):
        import email
        import email.policy

        try:
            message = email.message_from_bytes(data, policy=email.policy.default)
            for part in message.walk():
                if part.is_multipart() or part.get_content_maintype() != "text":
                    continue
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes):
                    texts.append(payload.decode(part.get_content_charset() or "utf-8", "replace"))
        except Exception:  # a broken mail: the raw text was scanned already
            pass
    return texts


def receipts_in(file: Path) -> list[Any]:
    """The receipts (``Receipt``) in ``file``, not yet checked; ``FormatError`` when none can be read."""
    from koryo_pbm.crypto.receipt import Receipt, scan_receipts
    from koryo_pbm.errors import FormatError
    from koryo_pbm.store.atomic import read_limited
    from koryo_pbm.transport.sources import MAIL_LIMIT

    data = read_limited(file, MAIL_LIMIT, "receipt file", regular_only=False)
    receipts: list[Receipt] = []
    problems: list[str] = []
    for text in _texts(data):
        for item in scan_receipts(text):
            if isinstance(item, FormatError):
                problems.append(str(item))
            elif item.signature not in {r.signature for r in receipts}:
                receipts.append(item)
    if not receipts:
        raise FormatError(f"{file} holds no readable receipt" + (f" ({problems[0]})" if problems else ""))
    return receipts


@click.command("receipt")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--game", "game_target", metavar="GAME",
              help="Also check it against this game (folder or game file): its moderator and its log.")
@click.option("--any-key", is_flag=True,
              help="Without --game: accept a receipt signed by any key (it then proves nothing of your game).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(file: Path, game_target: str | None, any_key: bool, as_json: bool) -> None:
    """Check the receipts in FILE (a saved answer from the judge, or the receipt block alone)
    against the game (--game): a folder or game file.

    A receipt is the moderator's signed statement that one envelope (named by its digest) was
    accepted. With --game, the signing key must be that game's moderator key as pinned on
    this machine (a game file whose key differs from the pin is refused), and the log says
    whether the decision it was for has been resolved with it. Without --game, anybody's key
    could have signed it: the command says which key and exits 1, unless --any-key.
    """
    from koryo_pbm.errors import StaleError, TamperedError, UsageError

    receipts = receipts_in(file)
    doc = None
    first_seen = None
    if game_target is not None:
        from koryo_pbm.cli.common import remember
        from koryo_pbm.store import gamefile
        from koryo_pbm.store.folder import game_paths

        if any_key:
            raise UsageError("--any-key is for a receipt checked against no game: with --game, the game's "
                             "moderator key must have signed it")
        doc = gamefile.read_game(game_paths(game_target)[1])
        first_seen = remember(doc)  # the pinned moderator key: a file signed by another is refused
    for r in receipts:
        r.verify()
    if doc is None and not any_key:
        keys = ", ".join(dict.fromkeys(r.moderator.fingerprint() for r in receipts))
        raise Unchecked(f"the receipt{'s' if len(receipts) > 1 else ''} in {file} {'are' if len(receipts) > 1 else 'is'} "
                        f"signed by key {keys}; not checked against any game: give --game GAME to check it is your "
                        "moderator's (or --any-key to accept any key)")
    results = []
    for r in receipts:
        h = r.header
        entry: dict[str, object] = {"game_id": h["game_id"], "decision": h["decision"], "player": h["player"], "envelope": h["envelope"],
                 "submitted": h["submitted"], "received": h["received"],
                 "replaces": None if h["replaces"] == "none" else h["replaces"],
                 "moderator": r.moderator.fingerprint(), "resolved": None}
        if doc is not None:
            if doc.game_id != h["game_id"]:
                raise StaleError(f"the receipt is for game {h['game_id']}, not {doc.game_id}")
            if doc.moderator != r.moderator:
                raise TamperedError(
                    f"the receipt is signed by key {r.moderator.fingerprint()}, not by the moderator of game "
                    f"{doc.game_id} ({doc.moderator.fingerprint()})")
            entry["resolved"] = any(h["envelope"] in e.get("accepted", []) for e in doc.log)
        results.append(entry)
    if as_json:
        echo_json({"receipts": results, "game": doc.game_id if doc is not None else None})
        return
    for e in results:
        click.echo(f"valid receipt: game {e['game_id']}, decision {e['decision']}, player {e['player']}")
        click.echo(f"  envelope {e['envelope']} (submitted {e['submitted']}, received {e['received']})")
        if e["replaces"]:
            click.echo(f"  it replaces the earlier envelope {e['replaces']}")
        if doc is not None:
            click.echo(f"  signed by the moderator key {e['moderator']} (the moderator of this game), pinned on this "
                       f"machine since {first_seen}")
        else:
            click.echo(f"  signed by key {e['moderator']}; not checked against any game")
        if e["resolved"] is True:
            click.echo(f"  the game's log counts it: decision {e['decision']} was resolved with it")
        elif e["resolved"] is False:
            click.echo("  not (yet) in the game's log: the decision is pending, or a later envelope replaced it")
