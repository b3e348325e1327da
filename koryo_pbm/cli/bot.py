"""``koryo-pbm bot``: a bot answers for a player, with that player's key and view only.

The bot reads the game file as the player does (the public part and the player's own sealed
part), chooses with :func:`koryo_pbm.engine.bots.choose_from_view`, and signs and seals its
orders with the player's key, exactly as ``submit`` does: the moderator cannot tell it from a
person. One run answers the pending decision if it waits for the player; ``--watch`` keeps
looking (like ``koryo-pbm wait``) until the game is over.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember, warn, write_armored
from koryo_pbm.errors import KoryoPbmError, UsageError
from koryo_pbm.store.folder import game_paths
from koryo_pbm.store.gamedoc import GameDoc


class _Warn(logging.Handler):
    """The bots' log (a fallback to a random order) as ``koryo-pbm: warning:`` lines."""

    def emit(self, record: logging.LogRecord) -> None:
        warn(record.getMessage())


def order_text(order: dict[str, Any]) -> str:
    """An order on one line, as its TOML keys say it: ``play = ["merchant", "spy"]``."""
    return "; ".join(f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in order.items())


def answer(folder: Path, doc: Any, identity: Any, level: str, limit: float, out: Path | None) -> dict[str, Any]:
    """Choose ``identity``'s order for the pending decision of ``doc`` with the bot ``level``,
    sign and seal it, and drop it into the inbox (or write it to ``out``). What was done."""
    import tomli_w

    from koryo_pbm import match
    from koryo_pbm.cli.submit import record_submission, seal_orders
    from koryo_pbm.engine import bots
    from koryo_pbm.fair import JOIN
    from koryo_pbm.store import inbox

    game = match.game_of(doc)
    name, private = match.open_private(doc, identity)
    decision = doc.decision["id"]
    if doc.decision["kind"] == JOIN:  # a player's contribution is fresh randomness, never a bot's predictable one
        example, _ = game.describe_choices(game.from_view(doc.public, private, name), name)
        choice = bots.BotChoice(example, level, "", 0.0)
    else:
        choice = bots.choose_from_view(game, doc.public, private, name, level,
                                       seed=bots.seat_seed(doc.game_id, decision, name), limit=limit)
    text = tomli_w.dumps({"game": doc.game_id, "decision": decision, **choice.order})
    envelope = seal_orders(doc, game, identity, text, source=f"the {level} bot's orders")
    if out is None:
        where = str(inbox.drop(folder, envelope))
    else:
        where = str(out) if write_armored(out, envelope.armor()) else "standard output"
    record_submission(envelope)  # as submit does: verify --as and the withdrawn-order notice read it
    return {"id": doc.game_id, "version": doc.version, "player": name, "decision": decision, "level": level,
            "order": choice.order, "fallback": choice.fallback, "seconds": round(choice.seconds, 4),
            "written": where}


@click.command("bot")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options()
@click.option("--level", metavar="LEVEL", default="heuristic", show_default=True,
              help="The bot's level: random (every game) or one of the game's own (koryo-pbm games --json lists them).")
@click.option("--time-limit", "--budget", "limit", type=click.FloatRange(min=0.001, max=600),
              default=30.0, show_default=True,
              help="A safety limit: seconds of CPU the bot may think per decision before a random legal order "
                   "stands in (its work is a fixed count, far within it).")
@click.option("--watch", is_flag=True, help="Keep looking, and answer every time you are waited for, until the "
                                            "game is over (Ctrl-C stops).")
@click.option("--poll", default=2.0, show_default=True, type=click.FloatRange(0.05, 3600),
              help="Seconds between looks with --watch.")
@click.option("--out", "out", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write the envelope here (- for standard output) to mail it, instead of the inbox.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line, for each decision answered.")
def command(target: str | None, as_name: str | None, key_file: Path | None, level: str, limit: float,
            watch: bool, poll: float, out: Path | None, as_json: bool) -> None:
    """Let a bot answer for you in the game in DIR or FILE (default: here): when the pending
    decision waits for you, the bot chooses from your view only (the public part and your own
    hand) and your key signs and seals its orders into the game's inbox/ (or --out FILE to
    mail). One line per decision says what it played. The bot's work is a fixed count, so the
    same view gives the same order on any machine; a bot that fails or passes its safety time
    limit is replaced by a random legal order, with a warning.

    Without --watch, one look: nothing is done when it is not your turn.

    \b
    Examples:
      koryo-pbm bot friday --as carol
      koryo-pbm bot friday --as carol --level search --watch
    """
    from koryo_pbm import match
    from koryo_pbm.cli.wait import waits_for
    from koryo_pbm.engine import bots
    from koryo_pbm.store import inbox
    from koryo_pbm.store.gamefile import read_game

    if watch and out is not None and str(out) != "-":
        raise UsageError("--watch answers many decisions: use --out - (standard output) or the inbox, not a file")
    folder, path = game_paths(target)
    doc: GameDoc | None = match.load_doc(path)
    assert doc is not None
    identity = load_identity(as_name, key_file, doc=doc)
    me = match.player_name(doc, identity)
    bots.check_level(match.game_of(doc), level)
    if out is None and not inbox.inbox_dir(folder).is_dir():
        raise UsageError(f"{folder} has no inbox/ folder: use --out FILE to write the envelope for email")
    say = (lambda text: click.echo(text, err=True)) if out is not None and str(out) == "-" else click.echo
    handler = _Warn()
    bots.log.addHandler(handler)
    answered: set[tuple[int, str]] = set()  # (version, decision): one answer per version of the file
    try:
        while True:
            if doc is not None:
                remember(doc, answering=True)
                d = doc.decision
                if d is None:
                    if as_json:
                        echo_json({"id": doc.game_id, "player": me, "over": True})
                    else:
                        say(f"game {doc.game_id} is over: nothing to answer")
                    return
                mine = (doc.version, d["id"])
                if mine not in answered and (waits_for(folder, doc, me) if out is None else
                                             me in d["waiting_for"] and me not in d.get("received", [])):
                    did = answer(folder, doc, identity, level, limit, out)
                    answered.add(mine)
                    if as_json:
                        echo_json(did)
                    else:
                        how = f" (a random legal order: {did['fallback']})" if did["fallback"] else ""
                        say(f"{me} ({level} bot) answered {did['decision']} in {did['seconds']:.2f} s: "
                            f"{order_text(did['order'])}{how} -> {did['written']}")
                elif not watch:
                    why = (f"decision {d['id']} does not wait for {me} (it waits for {', '.join(d['waiting_for'])})"
                           if me not in d["waiting_for"] else f"{me}'s orders for {d['id']} are in already")
                    if as_json:
                        echo_json({"id": doc.game_id, "player": me, "over": False, "answered": False,
                                   "decision": d["id"]})
                    else:
                        say(f"nothing to answer: {why}")
            if not watch:
                return
            time.sleep(poll)
            try:
                doc = read_game(path)
            except KoryoPbmError:
                doc = None  # being replaced, or a sync tool is writing it: look again
            if doc is not None:
                me = match.player_name(doc, identity)  # refused if the seat was given to another key
    finally:
        bots.log.removeHandler(handler)
