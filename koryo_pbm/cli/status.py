"""``koryo-pbm status``: the pending decision and who is still missing; for a folder of games
(a judge's root), one line per game.

Kept light on purpose: it reads and verifies the game file and the inbox's public envelope
headers, and loads no game plug-in. Like ``show``, it honours the memory of games seen: a file
signed by another moderator key than the one pinned is refused, a rolled-back one is told.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli import common
from koryo_pbm.cli.common import (
    deadline_json,
    deadline_lines,
    echo_json,
    identity_options,
    load_identity,
    now_utc,
    remember,
    warn_conflict_copies,
)
from koryo_pbm.errors import KoryoPbmError, UsageError


@click.command("status")
@click.argument("target", required=False, metavar="[DIR|FILE|ROOT]")
@identity_options(role="moderator's or a player")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """The pending decision of the game in DIR (default: here) and who is still missing.

    The first line ends with the head of the game's history (the hash of its last log entry,
    shortened): players who compare it (by phone, in person) know they were shown one history.

    \b
    ROOT, a folder of game folders (what `koryo-pbm serve` serves), gives one line per game:
    its decision, who it waits for, the deadline and the last activity (the game file or a
    mail sent, whichever is later); a game that waits for its seats (new --invite), the seats
    still open and the deadline to take them (with the moderator's key: the sign-up is sealed
    to it). --as NAME checks that NAME's key is the game's moderator or one of its players, and
    says which."""
    from koryo_pbm.store.folder import GAME_FILE

    if target is not None and Path(target).is_dir() and not (Path(target) / GAME_FILE).exists():
        _overview(Path(target), as_name, key_file, as_json)
        return
    _one(target, as_name, key_file, as_json)


def _role(doc: Any, identity: Any) -> str:
    """Who ``identity`` is in the game: "moderator", a player's name; else a UsageError."""
    if identity is None:
        return ""
    if identity.public == doc.moderator:
        return "moderator"
    for name, key in doc.players.items():
        if key == identity.public:
            return name
    raise UsageError(f"the key of {identity.name} is neither the moderator's nor a player's of game {doc.game_id}")


def _one(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    from koryo_pbm.match.views import progress
    from koryo_pbm.store.folder import game_paths
    from koryo_pbm.store.gamedoc import describe_deal
    from koryo_pbm.store.gamefile import read_game
    from koryo_pbm.store.gamelog import head

    folder, path = game_paths(target)
    doc = read_game(path)
    remember(doc)  # the pin: a file signed by another moderator key is refused, a rollback told
    role = _role(doc, load_identity(as_name, key_file, required=False, doc=doc))
    history = head(doc)
    warn_conflict_copies(folder, path)
    decision = doc.decision or {}
    waiting = list(decision.get("waiting_for", []))
    received = set(decision.get("received", []))
    in_inbox = common.in_inbox(folder, doc)
    by_bot: list[str] = []
    if doc.service is not None:  # without one, the default policy: no bot plays a seat
        from koryo_pbm.deadlines import policy_of

        policy = policy_of(doc.service, list(doc.players))
        by_bot = [p for p in waiting if p not in received and policy.bot_plays(p)]
    missing = [p for p in waiting if p not in received and p not in in_inbox and p not in by_bot]
    received_list = [p for p in waiting if p in received]
    inbox_list = [p for p in waiting if p in in_inbox and p not in received]
    data = {
        "id": doc.game_id,
        "game": doc.game,
        "version": doc.version,
        "head": history,
        "decision": decision.get("id"),
        "kind": decision.get("kind"),
        "waiting_for": waiting,
        "received": received_list,
        "in_inbox": inbox_list,
        "missing": missing,
        "bot_plays": by_bot,
        **deadline_json(doc, now_utc()),
        "round": progress(doc)[0],
        "phase": progress(doc)[1] if doc.decision else "over",
        "over": doc.decision is None,
        "deal": doc.deal,
        **({"you": role} if role else {}),
    }
    if doc.deal == "blind":  # who the two dealers are: the players should know
        record = doc.public.get("blind")
        data["dealers"] = list(record.get("dealers", [])) if isinstance(record, dict) else []
    if as_json:
        echo_json(data)
        return
    click.echo(f"game {doc.game_id} ({doc.game}), version {doc.version}, history {history[7:23]}")
    click.echo(describe_deal(doc))
    if role == "moderator":
        click.echo("you are the moderator of this game")
    elif role:
        dealer = doc.deal == "blind" and (doc.decision or {}).get("kind") == "deal"
        click.echo(f"you are {role}: " + ("the game waits for your answer (koryo-pbm co-deal)" if dealer
                                          and role in missing else
                                          "the game waits for your orders" if role in missing else
                                          "your orders are in" if role in received_list or role in inbox_list else
                                          "nothing is needed from you now"))
    if doc.decision is None:
        click.echo("the game is over: `koryo-pbm show` gives the final scores")
        return
    where = f"round {data['round']}, " if data["round"] is not None else ""
    from koryo_pbm.waiting import waiting_words

    answered = [p for p in waiting if p in received or p in in_inbox]
    click.echo(f"{where}decision {data['decision']} ({data['kind']}), {waiting_words(waiting, answered)}")
    if received_list:
        click.echo(f"  received by the moderator: {', '.join(received_list)}")
    if inbox_list:
        click.echo(f"  in the inbox, not yet resolved: {', '.join(inbox_list)}")
    if by_bot:
        click.echo(f"  the bot plays at resolve: {', '.join(by_bot)}")
    click.echo(f"  missing: {', '.join(missing) if missing else 'nobody — the moderator can resolve'}")
    for line in deadline_lines(doc, now_utc()):
        click.echo(f"  {line}")


def _last_activity(folder: Path, path: Path) -> float:
    """When the game last changed or last mailed someone (seconds since the epoch)."""
    times = [path.stat().st_mtime]
    sent = folder / "outbox" / "sent"
    try:
        with os.scandir(sent) as entries:
            times += [e.stat(follow_symlinks=False).st_mtime for e in entries if e.name.endswith(".eml")]
    except OSError:
        pass
    return max(times)


def _overview(root: Path, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """One line per game folder under ``root``; a game that cannot be read is one line saying
    why (and the exit status is non-zero)."""
    import time

    from koryo_pbm import deadlines
    from koryo_pbm.match.views import progress
    from koryo_pbm.printable import printable
    from koryo_pbm.store.folder import GAME_FILE
    from koryo_pbm.store.gamefile import read_game

    try:
        names = sorted(n for n in os.listdir(root) if not n.startswith("."))
    except OSError as exc:
        raise UsageError(f"cannot list {root}: {exc.strerror or exc}") from None
    from koryo_pbm.signup import SIGNUP_FILE

    folders = [root / n for n in names if (root / n / GAME_FILE).is_file() or (root / n / SIGNUP_FILE).is_file()]
    if (root / SIGNUP_FILE).is_file():  # the folder of one game that waits for its seats
        folders = [root]
    if not folders:
        raise UsageError(f"no game file at {root / GAME_FILE}, nor in any folder of {root}")
    identity = load_identity(as_name, key_file, required=False)
    now = now_utc()
    rows: list[dict[str, Any]] = []
    for folder in folders:
        path = folder / GAME_FILE
        if not path.is_file():  # a game that waits for its seats (new --invite)
            rows.append(_signup_row(folder, identity))
            continue
        try:
            doc = read_game(path)
            role = _role(doc, identity) if identity is not None else ""
        except KoryoPbmError as exc:
            rows.append({"folder": folder.name, "error": str(exc)})
            continue
        d = doc.decision or {}
        received = set(d.get("received", []))
        policy = deadlines.policy_of(doc.service, list(doc.players))
        awaited = [p for p in d.get("waiting_for", []) if p not in received and not policy.bot_plays(p)]
        last = _last_activity(folder, path)
        rows.append({
            "folder": folder.name, "id": doc.game_id, "game": doc.game, "version": doc.version,
            "over": doc.decision is None, "decision": d.get("id"), "round": progress(doc)[0],
            "awaited": awaited, "received": [p for p in d.get("waiting_for", []) if p in received],
            "deadline": d.get("deadline"),
            "last_activity": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last)),
            **({"you": role} if role else {}),
        })
    if as_json:
        echo_json({"root": str(root), "games": rows})
    else:
        width = max(len(r["folder"]) for r in rows)
        for r in rows:
            name = printable(r["folder"]).ljust(width)
            if "error" in r:
                click.echo(f"{name}  cannot be read: {r['error']}")
                continue
            shown = r["last_activity"][:16].replace("T", " ") + " UTC"
            if r.get("signup"):
                click.echo(f"{name}  {_signup_words(r, now)}; last activity {shown}"
                           + (f"; you: {r['you']}" if r.get("you") else ""))
                continue
            if r["over"]:
                what = "game over"
            else:
                where = f"round {r['round']}, " if isinstance(r["round"], int) else ""
                what = f"{where}{r['decision']}: " + (f"awaiting {', '.join(r['awaited'])}" if r["awaited"] else
                                                      "every order in")
                if r["deadline"]:
                    when = deadlines.parse_stamp(r["deadline"])
                    what += f"; deadline {deadlines.human(when)} ({deadlines.relative(when, now)})"
                else:
                    what += "; no deadline"
            you = f"; you: {r['you']}" if r.get("you") else ""
            click.echo(f"{name}  {what}; last activity {shown}{you}")
    bad = [r for r in rows if "error" in r]
    if bad:
        raise UsageError(f"{len(bad)} of {len(rows)} games under {root} cannot be read")


def _signup_row(folder: Path, identity: Any) -> dict[str, Any]:
    """The line of a folder whose game waits for its seats: the seats still open and the deadline
    to take them, read with the moderator's key (the sign-up file is sealed to it: without that
    key, only that the folder waits for its seats)."""
    import time

    from koryo_pbm import signup

    path = folder / signup.SIGNUP_FILE
    last = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(_last_activity(folder, path)))
    row: dict[str, Any] = {"folder": folder.name, "signup": True, "last_activity": last}
    if identity is None:
        return {**row, "sealed": True}
    try:
        record = signup.read(folder, identity)
    except KoryoPbmError as exc:
        if "another moderator key" in str(exc):  # not this key's sign-up: as without a key
            return {**row, "sealed": True}
        return {"folder": folder.name, "error": str(exc)}
    return {**row, "sealed": False, "game": record.game, "answer_by": record.answer_by,
            "open_seats": [s.name for s in record.open_seats],
            "taken": [s.name for s in record.seats if s.key is not None], "you": "moderator"}


def _signup_words(r: dict[str, Any], now: Any) -> str:
    from koryo_pbm import deadlines
    from koryo_pbm.printable import printable

    if r["sealed"]:
        return "sign-up: waiting for its seats (which ones: --as the moderator; the sign-up file is sealed to it)"
    when = deadlines.parse_stamp(r["answer_by"])
    seats = ", ".join(printable(n) for n in r["open_seats"]) or "none"
    taken = f" ({', '.join(printable(n) for n in r['taken'])} taken)" if r["taken"] else ""
    return (f"sign-up ({printable(r['game'])}): seats open {seats}{taken}; answer by {deadlines.human(when)} "
            f"({deadlines.relative(when, now)})")
