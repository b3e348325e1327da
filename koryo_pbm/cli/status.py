"""``koryo-pbm status``: the pending decision and who is still missing.

Kept light on purpose: it reads and verifies the game file and the inbox's public envelope
headers, and loads no game plug-in. Like ``show``, it honours the memory of games seen: a file
signed by another moderator key than the one pinned is refused, a rolled-back one is told.
"""

from __future__ import annotations

import click

from koryo_pbm.cli import common
from koryo_pbm.cli.common import deadline_json, deadline_lines, echo_json, now_utc, remember, warn_conflict_copies


@click.command("status")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_json: bool) -> None:
    """The pending decision of the game in DIR (default: here) and who is still missing.

    The first line ends with the head of the game's history (the hash of its last log entry,
    shortened): players who compare it (by phone, in person) know they were shown one history."""
    from koryo_pbm.store.folder import game_paths
    from koryo_pbm.store.gamefile import describe_deal, head, read_game

    folder, path = game_paths(target)
    doc = read_game(path)
    remember(doc)  # the pin: a file signed by another moderator key is refused, a rollback told
    history = head(doc)
    warn_conflict_copies(folder, path)
    decision = doc.decision or {}
    waiting = list(decision.get("waiting_for", []))
    received = set(decision.get("received", []))
    in_inbox = common.in_inbox(folder, doc)
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
        "round": doc.public.get("round"),
        "phase": doc.public.get("phase") if doc.decision else "over",
        "over": doc.decision is None,
        "deal": doc.deal,
    }
    if as_json:
        echo_json(data)
        return
    click.echo(f"game {doc.game_id} ({doc.game}), version {doc.version}, history {history[7:23]}")
    click.echo(describe_deal(doc))
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
