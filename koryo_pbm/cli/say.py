"""``koryo-pbm say``: write press to other players, signed by you and sealed to each of them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, write_armored
from koryo_pbm.errors import FormatError


def _text(text: str) -> str:
    from koryo_pbm.crypto.press import MAX_TEXT

    if text == "-":
        stream = getattr(sys.stdin, "buffer", None)
        raw = stream.read(MAX_TEXT + 1) if stream is not None else sys.stdin.read(MAX_TEXT + 1).encode()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError("the press on standard input is not UTF-8 text") from None
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > MAX_TEXT:
        raise FormatError(f"the press text is {size} bytes or more, more than the {MAX_TEXT} a press may hold: "
                          "nothing was sent")
    if not text.strip():
        raise FormatError("the press text is empty: nothing was sent")
    return text


@click.command("say")
@click.argument("game_target", metavar="GAME")
@click.argument("text")
@identity_options()
@click.option("--to", "to", required=True, metavar="NAME[,NAME]|all",
              help="The players it is for: one name, several separated by commas, or all.")
@click.option("--out", "out", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write the press here (- for standard output) to mail it to the judge, instead of "
                   "delivering it into the shared folder's press/.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(game_target: str, text: str, as_name: str | None, key_file: Path | None, to: str,
            out: Path | None, as_json: bool) -> None:
    """Write press: TEXT (- reads it from standard input, at most 16,000 bytes) for the players
    --to names, signed by you and sealed to each of them. The moderator relays it and cannot read
    it; it never enters the game file.

    \b
    By mail: koryo-pbm say friday/game.toml --as alice --to bob "Truce?" --out press.txt
             (mail press.txt to the judge, as orders: it relays it to bob)
    Shared folder: koryo-pbm say friday --as alice --to all "Hello"
             (delivered into friday/press/NAME/ of each recipient)
    """
    from koryo_pbm import match, press
    from koryo_pbm.cli.submit import utc_now
    from koryo_pbm.store.folder import game_paths

    body = _text(text)
    folder, path = game_paths(game_target)
    doc = match.load_doc(path)
    identity = load_identity(as_name, key_file, doc=doc)
    made = press.write(doc, identity, to, body, sent=utc_now()[:19] + "Z")
    if out is not None:
        if not write_armored(out, made.armor()):
            return
        if as_json:
            echo_json({"to": made.recipients, "out": str(out), "digest": made.digest})
            return
        click.echo(f"wrote {out}: press for {', '.join(made.recipients)}; mail it to the judge (pasted or attached)",
                   err=True)
        return
    written = press.deliver(folder, made)
    if as_json:
        echo_json({"to": made.recipients, "delivered": [str(p) for p in written], "digest": made.digest})
        return
    click.echo(f"press for {', '.join(made.recipients)} delivered into {folder / press.PRESS_DIR}/")
