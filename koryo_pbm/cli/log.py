"""``koryo-pbm log``: the public history of a game, by round; and what ``show --as`` tells a
player of what happened since they last looked.

The history is read from the game file's signed, hash-chained log (``koryo_pbm.history``
turns it into parts); nothing here needs a key. What a player last saw is remembered per game
in ``$KORYO_PBM_HOME/shown/GAME_ID.toml`` (one ``NAME = VERSION`` line per player shown on
this machine).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import (
    deadline_json,
    deadline_lines,
    echo_json,
    now_utc,
    remember,
    waiting_line,
    warn,
    warn_conflict_copies,
)
from koryo_pbm.printable import printable
from koryo_pbm.store.folder import game_paths

#: at most this many events open ``show --as`` (the rest: ``koryo-pbm log``)
SHOW_LIMIT = 40
ONLY_MOVE = "the only legal move"  # how the games' logs say the engine played a move


def _shown_path(game_id: str) -> Path:
    from koryo_pbm.crypto.keys import keyring_dir

    return keyring_dir().parent / "shown" / f"{game_id}.toml"


def _read_shown(game_id: str) -> dict[str, Any]:
    path = _shown_path(game_id)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        warn(f"the memory of what you were shown ({path}) is unreadable; starting it anew")
        return {}
    return data


def last_shown(game_id: str, player: str) -> int | None:
    """The version of game ``game_id`` last shown to ``player`` on this machine."""
    version = _read_shown(game_id).get(player)
    return version if isinstance(version, int) and not isinstance(version, bool) and version >= 0 else None


def record_shown(game_id: str, player: str, version: int) -> None:
    """Remember that ``player`` was shown ``version`` (never goes back)."""
    seen = {k: v for k, v in _read_shown(game_id).items() if isinstance(v, int) and not isinstance(v, bool)}
    if seen.get(player, -1) >= version:
        return
    import tomli_w  # only to write: most calls have nothing new to remember

    from koryo_pbm.errors import StorageError
    from koryo_pbm.store.atomic import write_atomic

    seen[player] = version
    path = _shown_path(game_id)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, tomli_w.dumps(dict(sorted(seen.items()))).encode("utf-8"))
    except (OSError, StorageError) as exc:  # remembering is a help, not a condition
        warn(f"cannot record what {player} was shown of game {game_id} ({getattr(exc, 'strerror', None) or exc})")


def _played_for(line: str, me: str) -> str:
    """Mark a line where the engine played ``me``'s only legal move."""
    text = line.strip()
    if ONLY_MOVE in text and (text.startswith(f"{me} ") or text.startswith(f"{me}'s ")):
        return f"{line}   <- played for you"
    return line


def happened(doc, game, me: str, since: int | None, log_command: str = "koryo-pbm log"
             ) -> tuple[list[str], list[dict[str, Any]]]:
    """What ``show --as me`` opens with: lines of the public events after version ``since``
    (``None``: never shown before, the whole history), and the same as JSON sections."""
    from koryo_pbm import history

    if since is not None and doc.version <= since:  # (an older file: `remember` warned of it)
        return ([f"nothing new since you last looked (version {since})"] if doc.version == since else []), []
    parts = history.sections(game, list(doc.players), history.log_events(doc.log), since=since or 0)
    if not parts:
        return [], []
    lines, skipped = history.text_lines(parts, limit=SHOW_LIMIT)
    head = (f"what happened since version {since}, which you last saw:" if since is not None
            else "what happened so far:")
    out = [head]
    if skipped:
        out.append(f"  ({skipped} earlier event{'s' if skipped != 1 else ''}: {log_command})")
    out += [printable(_played_for(line, me)) for line in lines]
    return out, [p.to_dict() for p in parts]


def breakdown(game, view) -> tuple[list[str], list[dict[str, Any]] | None]:
    """The score breakdown at the end of a game, as lines and as rows (none before the end)."""
    from koryo_pbm import history

    rows = game.score_breakdown(view)
    if not rows:
        return [], None
    lines = history.breakdown_lines(rows, view["players"], view.get("scores", {}))
    return [printable(line) for line in lines], rows


@click.command("log")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@click.option("--since", type=click.IntRange(min=0), metavar="VERSION",
              help="Only what happened after this version of the game file.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, since: int | None, as_json: bool) -> None:
    """Print the public history of the game in DIR or FILE (default: here), round by round,
    from its signed log; at the end of a game, the score breakdown."""
    from koryo_pbm import history, match

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc)
    warn_conflict_copies(folder, path)
    game = match.game_of(doc)
    parts = history.sections(game, list(doc.players), history.log_events(doc.log), since=since or 0)
    view = match.full_view(doc, game, None)
    lines, rows = breakdown(game, view)
    if as_json:
        echo_json({"id": doc.game_id, "game": doc.game, "version": doc.version, "since": since or 0,
                   "sections": [p.to_dict() for p in parts], "over": doc.decision is None,
                   "scores": view.get("scores") if doc.decision is None else None, "breakdown": rows,
                   **deadline_json(doc, now_utc())})
        return
    click.echo(f"game {doc.game_id} ({game.title}), version {doc.version}: "
               + (f"what happened after version {since}" if since else "the whole public history"))
    body, _ = history.text_lines(parts)
    for line in body:
        click.echo(printable(line))
    if not body:
        click.echo("  nothing yet" if not since else f"  nothing after version {since}")
    if doc.decision is not None:
        click.echo(f"now: decision {doc.decision['id']}, {waiting_line(folder, doc)}")
        for line in deadline_lines(doc, now_utc())[:1]:  # the deadline (the policy: `status`)
            click.echo(line)
    for line in lines:
        click.echo(line)
