"""``koryo-pbm read``: open press written to you (a press file, a saved mail, or a press folder)."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity
from koryo_pbm.errors import UsageError


def _game_for(file: Path, target: str | None) -> Path:
    """The game file: --game, else one found in the press file's folders (press/NAME/ sits in the
    game folder), else ./game.toml."""
    from koryo_pbm.store.folder import GAME_FILE, game_paths

    if target is not None:
        return game_paths(target)[1]
    start = file.resolve() if file.is_dir() else file.resolve().parent
    for folder in [start, *list(start.parents)[:3], Path(".")]:
        if (folder / GAME_FILE).is_file():
            return folder / GAME_FILE
    raise UsageError(f"no game file near {file}: name the game with --game GAME")


@click.command("read")
@click.argument("file", type=click.Path(path_type=Path))
@identity_options()
@click.option("--game", "game_target", metavar="GAME",
              help="The game folder or game file (default: the game folder FILE is in, or here).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(file: Path, as_name: str | None, key_file: Path | None, game_target: str | None,
            as_json: bool) -> None:
    """Open the press in FILE written to you: a press file, a saved mail from the judge that
    relays it, or a folder of press files (press/NAME/ of a shared folder). Each is checked: signed
    by its sender's key in the game, sealed to your key.
    """
    from koryo_pbm import match, press
    from koryo_pbm.cli.receipt import _texts
    from koryo_pbm.crypto.press import MAX_ARMORED, Press, scan_press
    from koryo_pbm.errors import FormatError
    from koryo_pbm.store.atomic import read_limited
    from koryo_pbm.transport.sources import MAIL_LIMIT

    doc = match.load_doc(_game_for(file, game_target))
    identity = load_identity(as_name, key_file, doc=doc)
    files = sorted(p for p in file.iterdir() if p.suffix == ".press") if file.is_dir() else [file]
    if not files:
        raise UsageError(f"{file} holds no .press file")
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for f in files:
        data = read_limited(f, MAIL_LIMIT if f.suffix != ".press" else MAX_ARMORED, "press file",
                           regular_only=False)
        items: list[Press] = []
        problems: list[str] = []
        for text in _texts(data):
            for item in scan_press(text):
                if isinstance(item, Press):
                    items.append(item)
                else:
                    problems.append(str(item))
        if not items:
            raise FormatError(f"{f}: " + (problems[0] if problems else
                                          "holds no press (a block starting -----BEGIN KORYO-PBM PRESS-----)"))
        for p in items:
            if p.digest in seen:
                continue
            seen.add(p.digest)
            sender, text = press.read(doc, identity, p)
            found.append({"from": sender, "to": ",".join(p.recipients), "sent": p.sent, "text": text})
    if as_json:
        echo_json({"press": found})
        return
    for n, entry in enumerate(found):
        if n:
            click.echo("")
        click.echo(f"press from {entry['from']} to {entry['to'].replace(',', ', ')}, sent {entry['sent']} "
                   "(signed by its sender, sealed to you):")
        click.echo(entry["text"].rstrip("\n"))
