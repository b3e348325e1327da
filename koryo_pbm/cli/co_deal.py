"""``koryo-pbm co-deal``: the co-dealer of a blind game answers what the game asks of it."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember
from koryo_pbm.errors import GameError, UsageError
from koryo_pbm.store.folder import game_paths


@click.command("co-deal")
@click.argument("target", metavar="GAME", required=False)
@identity_options(role="co-dealer")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """As the co-dealer of the blind game GAME (a folder or its game.toml), answer the pending
    decision if it waits for you: your key share, your shuffle of a new deck with your shares
    of the cards dealt now (each sealed to its player), your shares of the cards a player
    reveals now, or, once the game is over, your secrets for the audit. Every step is checked
    against the public game file first; the signed, sealed envelope goes into the inbox."""
    from koryo_pbm import blind, match
    from koryo_pbm.cli.submit import record_submission, seal_orders
    from koryo_pbm.store import inbox

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc, answering=True)
    identity = load_identity(as_name, key_file, doc=doc)
    if doc.deal != "blind":
        raise UsageError(f"game {doc.game_id} is not a blind game: it has no co-dealer")
    game = match.game_of(doc)
    state = game.from_view(doc.public, {}, identity.name)
    if doc.players.get(state.co_dealer) != identity.public:
        raise UsageError(f"key {identity.name!r} is not the co-dealer of game {doc.game_id} "
                         f"(the co-dealer is {state.co_dealer})")
    decision = doc.decision
    if decision is None or decision.get("waiting_for") != [state.co_dealer]:
        waits = "nobody (the game is over)" if decision is None else ", ".join(decision.get("waiting_for", []))
        message = f"nothing to do: game {doc.game_id} waits for {waits}"
        if as_json:
            echo_json({"id": doc.game_id, "answered": None, "waiting_for": [] if decision is None
                       else decision.get("waiting_for", [])})
        else:
            click.echo(message)
        return
    from koryo_pbm.cli.submit import earlier_orders

    already = earlier_orders(folder, doc, state.co_dealer)
    if already and "from this machine" not in already:  # (an envelope sent but lost may be sent again)  # answering twice would count nothing more: say so, send nothing
        if as_json:
            echo_json({"id": doc.game_id, "answered": None, "already": already, "waiting_for": [state.co_dealer]})
        else:
            click.echo(f"nothing to do: {state.co_dealer}'s answer to {decision['id']} is sent already ({already})")
        return
    if state.co_dealer in decision.get("received", []):
        raise GameError(f"the moderator has received {state.co_dealer}'s answer to {decision['id']} already: "
                        "nothing is sent twice")
    body = blind.co_deal(game, doc.public, {n: k for n, k in doc.players.items() if n != state.co_dealer},
                         identity, decision["id"], doc.log)
    text = match.canonical_orders(doc.game_id, decision["id"], body)
    envelope = seal_orders(doc, game, identity, text, source=f"co-dealer's answer to {decision['id']}")
    record_submission(envelope)
    if not inbox.inbox_dir(folder).is_dir():
        raise UsageError(f"{folder} has no inbox/ folder")
    dropped = inbox.drop(folder, envelope)
    if as_json:
        echo_json({"id": doc.game_id, "answered": decision["id"], "envelope": str(dropped)})
    else:
        click.echo(f"{state.co_dealer} answered {decision['id']}: {dropped}")
