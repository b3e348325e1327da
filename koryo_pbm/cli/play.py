"""``koryo-pbm play``: answer the pending decision from numbered menus, without editing TOML.

The dialogue is line by line on the terminal (a number, Enter for the suggestion, ``b`` to go
back, ``q`` to quit); the menus themselves come from the game (:meth:`Game.menu`, pure). Nothing
is written before the player confirms the summary; the envelope is then dropped into the
inbox (shared folder) or written with ``--out`` (mail), as ``submit`` does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import PathType, identity_options, load_identity, remember, shell_quote, waiting_line, write_armored
from koryo_pbm.errors import KoryoPbmError, StaleError, UsageError
from koryo_pbm.store.folder import game_paths


class Quit(KoryoPbmError):
    """The player left the menus (q or end of input): nothing was submitted. Exit status 130,
    as for Ctrl-C, so that a loop around ``play`` can stop on it."""

    exit_code = 130


def _ask(say, prompt: str) -> str:
    """One line typed by the player (Ctrl-C propagates: the CLI says "interrupted", exit 130)."""
    click.echo(prompt + " ", nl=False, err=say.err)
    line = sys.stdin.readline()
    if not line:
        raise Quit("no answer (end of input): nothing was submitted")
    return line.rstrip("\r\n")


class _Say:
    def __init__(self, err: bool) -> None:
        self.err = err

    def __call__(self, text: str = "") -> None:
        click.echo(text, err=self.err)


def choose(game: Any, state: Any, name: str, hint: dict[str, Any] | None,
           say: _Say) -> tuple[dict[str, Any], list[str]]:
    """Walk the game's menus with the player; return the order they picked and the labels of
    the options that made it."""
    from koryo_pbm.engine.menus import Menu

    picked: list[Any] = []
    labels: list[str] = []
    while True:
        menu = game.menu(state, name, picked, hint)
        if not isinstance(menu, Menu):
            return menu, labels
        say("")
        say(menu.question)
        width = len(str(len(menu.options)))
        for i, option in enumerate(menu.options, 1):
            mark = "   (suggested)" if menu.default == i - 1 else ""
            say(f"  {i:>{width}}) {option.label}{mark}")
        keys = f"1-{len(menu.options)}" if len(menu.options) > 1 else "1"
        enter = ", Enter for the suggestion" if menu.default is not None else ""
        back = ", b to go back" if picked else ""
        while True:
            answer = _ask(say, f"Your choice ({keys}{enter}{back}, q to quit):").strip().lower()
            if answer == "" and menu.default is not None:
                picked.append(menu.options[menu.default].value)
                labels.append(menu.options[menu.default].label)
                break
            if answer in ("b", "back") and picked:
                picked.pop()
                labels.pop()
                break
            if answer in ("q", "quit"):
                raise Quit("stopped: nothing was submitted")
            if answer.isdigit() and 1 <= int(answer) <= len(menu.options):
                picked.append(menu.options[int(answer) - 1].value)
                labels.append(menu.options[int(answer) - 1].label)
                break
            say(f"not on the menu: {answer!r}; type a number from {keys}" + (", b" if picked else "") + " or q")


@click.command("play")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("--out", "out", type=PathType(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write the envelope here (- for standard output) to mail it, instead of the inbox.")
def command(target: str | None, as_name: str | None, key_file: Path | None, out: Path | None) -> None:
    """Tell what happened since you last looked, then answer the decision the game in DIR or
    FILE (default: here) waits for from numbered menus of your legal choices (orders already in
    are replaced), then confirm: the signed, sealed envelope goes into the
    game's inbox/ (shared folder) or, with --out FILE, into FILE to mail (- for standard
    output; the menus then go to standard error).

    In a menu: a number picks, Enter takes the suggestion (the heuristic bot's choice from
    your view), b goes back, q quits without submitting anything. q, Ctrl-C and the end of
    input stop play with exit status 130.
    """
    from koryo_pbm import match
    from koryo_pbm.cli import log
    from koryo_pbm.cli.orders import suggestion
    from koryo_pbm.cli.submit import earlier_orders, record_submission, seal_orders
    from koryo_pbm.fair import JOIN
    from koryo_pbm.store import inbox

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc, answering=True)
    identity = load_identity(as_name, key_file, doc=doc)
    game = match.game_of(doc)
    name, private = match.open_private(doc, identity)
    decision = doc.decision
    if decision is None:
        raise StaleError(f"game {doc.game_id} is over; there is nothing to play")
    if name not in decision["waiting_for"]:
        raise StaleError(f"decision {decision['id']} does not wait for {name} "
                         f"(it waits for {', '.join(decision['waiting_for'])})")
    if out is None and not inbox.inbox_dir(folder).is_dir():
        raise UsageError(f"{folder} has no inbox/ folder: use --out FILE to write the envelope for email")
    say = _Say(err=out is not None and str(out) == "-")
    # what happened since this player last looked (as `show --as` tells it), then marked seen
    at = f" {shell_quote(target)}" if target else ""
    news, _ = log.happened(doc, game, name, log.last_shown(doc.game_id, name), f"koryo-pbm log{at}")
    for line in news:
        say(line)
    if news:
        say("")
    log.record_shown(doc.game_id, name, doc.version)
    view = match.full_view(doc, game, private)
    view["me"] = name
    say(f"game {doc.game_id} ({game.title}), version {doc.version}, signed by moderator "
        f"{doc.moderator.fingerprint()}")
    say(game.render(view))
    say(f"decision {decision['id']}: {waiting_line(folder, doc)}")
    earlier = earlier_orders(folder, doc, name)
    if earlier:
        say(f"your orders for {decision['id']} are already in ({earlier}): orders you confirm now replace them")
    state = match.player_state(doc, game, name, private)
    example, _comments = game.describe_choices(state, name)
    hint, _said = suggestion(doc, game, name, state, example)
    while True:
        order, labels = choose(game, state, name, dict(hint), say)
        if decision["kind"] == JOIN:
            labels = [f"join the game; your contribution to the deal: {order['contribution']} "
                      "(fresh random bytes)"]
        import tomli_w  # once an order is chosen: most calls of play end at the menu

        text = tomli_w.dumps({"game": doc.game_id, "decision": decision["id"], **order})
        say("")
        say(f"Your orders for {decision['id']}:")
        for label in labels:
            say(f"  - {label}")
        where = "into the game's inbox" if out is None else ("to standard output" if str(out) == "-" else f"into {out}")
        answer = ""
        while answer not in ("y", "yes", "n", "no", "q", "quit"):
            answer = _ask(say, f"Sign and seal them {where}? (y: yes, n: choose again, q: quit)").strip().lower()
        if answer in ("q", "quit"):
            raise Quit("stopped: nothing was submitted")
        if answer in ("y", "yes"):
            break
    envelope = seal_orders(doc, game, identity, text, source="play")
    again = f" (they replace your earlier orders: {earlier})" if earlier else ""
    record_submission(envelope)
    if out is not None:
        if write_armored(out, envelope.armor()):
            say(f"wrote {out}: attach it to (or paste it into) an email to your moderator{again}")
        return
    dropped = inbox.drop(folder, envelope)
    say(f"submitted {envelope.player}'s orders for {envelope.decision}: {dropped}{again}")
    say(f"decision {decision['id']}: {waiting_line(folder, doc)}")
    say(f"replace them before the moderator resolves by playing again: koryo-pbm play"
        f"{' ' + shell_quote(target) if target else ''} "
        + (f"--as {shell_quote(as_name)}" if as_name else f"--key {shell_quote(str(key_file))}"))
