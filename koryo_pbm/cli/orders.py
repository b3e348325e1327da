"""``koryo-pbm orders``: write an orders file for the pending decision."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import PathType, identity_options, load_identity, remember, submit_command, write_output
from koryo_pbm.errors import StaleError, StorageError
from koryo_pbm.store.atomic import write_atomic
from koryo_pbm.store.folder import game_paths


def orders_text(doc, game, name: str, private, *, submit: str | None = None) -> str:
    """The orders file for ``name``: the pending decision, an example legal order, and the
    legal choices as comments. ``submit`` is the command that submits it, THIS_FILE standing for
    the file (default: ``koryo-pbm submit THIS_FILE --as NAME``)."""
    import tomli_w

    from koryo_pbm import match

    decision = doc.decision
    if decision is None:
        raise StaleError(f"game {doc.game_id} is over; no orders are taken")
    if name not in decision["waiting_for"]:
        raise StaleError(
            f"decision {decision['id']} does not wait for {name} (it waits for {', '.join(decision['waiting_for'])})"
        )
    state = match.player_state(doc, game, name, private)
    example, comments = game.describe_choices(state, name)
    example, said = suggestion(doc, game, name, state, example)
    head = [
        f"# koryo-pbm orders for {name}: game {doc.game_id} ({doc.game}), decision {decision['id']}",
        "# Edit the order below, then: " + (submit or f"koryo-pbm submit THIS_FILE --as {name}"),
        "#",
        *(f"# {line}" if line else "#" for line in comments),
        "#",
        f"# {said}",
        "",
    ]
    body = tomli_w.dumps({"game": doc.game_id, "decision": decision["id"], **example})
    return "\n".join(head) + "\n" + body


def suggestion(doc, game, name: str, state, example: dict) -> tuple[dict, str]:
    """The order an orders file proposes, and a line saying what it is: the heuristic bot's
    choice from ``name``'s own view when the game has that bot (seeded by the game, the
    decision and the player, so the same file is written every time), else the game's example.
    ``state``: the state rebuilt from that view (``match.player_state``)."""
    from koryo_pbm.engine import bots
    from koryo_pbm.fair import JOIN

    if doc.decision["kind"] == JOIN:  # never a bot's choice: the contribution must be fresh randomness
        return example, "Keep the contribution as it is: fresh random bytes from your computer, written just now."
    if "heuristic" not in bots.levels(game):
        return example, "The order below is only an example of a legal order."
    choice = bots.choose_in_view(game, state, name, "heuristic", seed=f"{doc.game_id}/{doc.decision['id']}/{name}")
    if choice.fallback:
        return choice.order, "The order below is a random legal order (the heuristic bot could not choose)."
    return choice.order, "Suggested order (the heuristic bot's choice from your view): keep it or change it."


@click.command("orders")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("-o", "--output", type=PathType(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write here (default: standard output).")
def command(target: str | None, as_name: str | None, key_file: Path | None, output: Path | None) -> None:
    """Write an orders file for the decision the game in DIR (default: here) waits for, with an
    example legal order and the legal choices as comments."""
    from koryo_pbm import match

    _, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc, answering=True)
    identity = load_identity(as_name, key_file, doc=doc)
    game = match.game_of(doc)
    name, private = match.open_private(doc, identity)
    text = orders_text(doc, game, name, private, submit=submit_command("THIS_FILE", as_name, key_file, target))
    hint = submit_command(str(output), as_name, key_file, target)
    if output is not None and str(output) != "-" and output.exists() and not output.is_dir():
        replaced = _past_orders_file(output, doc, name)
        if replaced is None:
            raise StorageError(f"{output} exists already and is not an orders file of yours for an earlier decision "
                               "of this game (nothing was written): choose another name")
        pending = doc.decision or {}
        if doc.deal == "joined" and pending.get("kind") == "join" and replaced == pending.get("id"):
            # a join has nothing to edit, and one written before the join started again (a seat
            # changed hands) holds a contribution the moderator may have read: always a fresh one
            write_atomic(output, text.encode("utf-8"))
            click.echo(f"replaced {output} with a fresh join (new random bytes): {hint}", err=True)
            return
        if doc.decision is not None and replaced == doc.decision["id"]:
            raise StorageError(f"{output} holds your orders for {replaced} already (perhaps edited; nothing was "
                               f"written): submit it with {hint}, or delete it to start again")
        write_atomic(output, text.encode("utf-8"))
        click.echo(f"replaced {output} (its orders were for {replaced}, which is past): edit it, then {hint}", err=True)
        return
    if write_output(output, text):
        click.echo(f"wrote {output}: edit it, then {hint}", err=True)


def _past_orders_file(path: Path, doc, name: str) -> str | None:
    """The decision of ``path`` if it is an orders file that ``koryo-pbm orders`` wrote for
    ``name`` in this game (its first line and its keys say so), else ``None``."""
    import tomllib

    try:
        with open(path, "rb") as f:
            data = f.read(64 * 1024 + 1)
        text = data.decode("utf-8")
        body = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    decision = body.get("decision")
    mark = f"# koryo-pbm orders for {name}: game {doc.game_id} "
    if len(data) > 64 * 1024 or not text.startswith(mark) or body.get("game") != doc.game_id:
        return None
    return decision if isinstance(decision, str) else None
