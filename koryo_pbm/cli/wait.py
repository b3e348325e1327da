"""``koryo-pbm wait``: return when a player is waited for (for players' scripts)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NoReturn

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity
from koryo_pbm.errors import KoryoPbmError


class GameOver(KoryoPbmError):
    """The game ended: nothing to wait for."""

    exit_code = 3


class TimedOut(KoryoPbmError):
    """--timeout passed first."""

    exit_code = 4


def waits_for(folder: Path, doc, me: str) -> bool:
    """Whether the pending decision of ``doc`` waits for ``me``'s orders: ``me`` is waited for,
    none of ``me``'s orders is received, and none of ``me``'s envelopes for it is in the inbox."""
    from koryo_pbm.store import inbox

    d = doc.decision
    if d is None or me not in d["waiting_for"] or me in d.get("received", []):
        return False
    if not inbox.inbox_dir(folder).is_dir():
        return True
    return not any(
        not isinstance(item.envelope, Exception) and item.envelope.player == me and item.envelope.decision == d["id"]
        for item in inbox.list_inbox(folder)
    )


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of the game file from the next (it is replaced by a rename)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _game_over(doc, as_json: bool) -> NoReturn:
    """The end of the wait when the game is over: the final scores (as ``show`` ends with them),
    exit status 3."""
    from koryo_pbm import match
    from koryo_pbm.cli import log

    game = match.game_of(doc)
    view = match.full_view(doc, game, None)
    lines, rows = log.breakdown(game, view)
    if as_json:
        echo_json({"id": doc.game_id, "over": True, "scores": view.get("scores"), "breakdown": rows})
    else:
        click.echo(f"game {doc.game_id} is over: nothing to wait for")
        for line in lines:
            click.echo(line)
    raise click.exceptions.Exit(GameOver.exit_code)


@click.command("wait")
@click.argument("target", metavar="GAME")
@identity_options(role="player")
@click.option("--timeout", type=click.FloatRange(0), help="Give up after SECONDS (exit status 4).")
@click.option("--poll", default=2.0, show_default=True, type=click.FloatRange(0.05, 3600), help="Seconds between looks.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str, as_name: str | None, key_file: Path | None, timeout: float | None, poll: float,
            as_json: bool) -> None:
    """Return as soon as the game GAME (folder or game file) waits for your orders: the pending
    decision waits for you and none of yours is received or in the inbox.

    Exit status 0: your turn; 3: the game is over (the final scores are printed); 4: --timeout
    passed.

    \b
    Example (a notification when it is your turn):
      koryo-pbm wait friday --as alice && notify-send "your turn"
    """
    from koryo_pbm import match
    from koryo_pbm.store.folder import game_paths
    from koryo_pbm.store.gamefile import read_game

    folder, path = game_paths(target)
    identity = load_identity(as_name, key_file)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        before = _stamp(path)
        try:
            doc = read_game(path)
        except KoryoPbmError:
            doc = None  # being replaced, or a sync tool is writing it: look again
        if doc is not None:
            me = match.player_name(doc, identity)
            d = doc.decision
            if d is None:
                _game_over(doc, as_json)
            if waits_for(folder, doc, me):
                if _stamp(path) != before:
                    # replaced while the inbox was looked at: a resolve writes the next version
                    # before it archives the envelopes it counted, so yours, gone from the inbox
                    # meanwhile, is counted in a version this did not read: look again at once
                    continue
                if as_json:
                    echo_json({"id": doc.game_id, "player": me, "decision": d["id"], "kind": d["kind"],
                               "version": doc.version})
                else:
                    click.echo(f"your turn, {me}: decision {d['id']} of game {doc.game_id} (version {doc.version})")
                return
        if deadline is not None and time.monotonic() >= deadline:
            raise TimedOut(f"still not your turn after {timeout:g} seconds")
        time.sleep(poll if deadline is None else max(0.0, min(poll, deadline - time.monotonic())))
