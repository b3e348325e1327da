"""``koryo-pbm receipt``: check the judge's signed receipt(s) in a saved mail or text file."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json


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


@click.command("receipt")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--game", "game_target", metavar="GAME",
              help="Also check it against this game (folder or game file): its moderator and its log.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(file: Path, game_target: str | None, as_json: bool) -> None:
    """Check the receipts in FILE (a saved answer from the judge, or the receipt block alone).

    A receipt is the moderator's signed statement that one envelope (named by its digest) was
    accepted. With --game, the signing key must be that game's moderator, and the log says
    whether the decision it was for has been resolved with it.
    """
    from koryo_pbm.crypto.receipt import Receipt, scan_receipts
    from koryo_pbm.errors import FormatError, StaleError, TamperedError
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
    doc = None
    if game_target is not None:
        from koryo_pbm.store import gamefile
        from koryo_pbm.store.folder import game_paths

        doc = gamefile.read_game(game_paths(game_target)[1])
    results = []
    for r in receipts:
        r.verify()
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
        echo_json({"receipts": results})
        return
    for e in results:
        click.echo(f"valid receipt: game {e['game_id']}, decision {e['decision']}, player {e['player']}")
        click.echo(f"  envelope {e['envelope']} (submitted {e['submitted']}, received {e['received']})")
        if e["replaces"]:
            click.echo(f"  it replaces the earlier envelope {e['replaces']}")
        click.echo(f"  signed by the moderator key {e['moderator']}"
                   + (" (the moderator of this game)" if doc is not None else " (give --game to check it is your game's)"))
        if e["resolved"] is True:
            click.echo(f"  the game's log counts it: decision {e['decision']} was resolved with it")
        elif e["resolved"] is False:
            click.echo("  not (yet) in the game's log: the decision is pending, or a later envelope replaced it")
