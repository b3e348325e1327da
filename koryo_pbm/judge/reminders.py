"""The reminders and late notices a game's pending decision owes, and when they are due.

A reminder goes to each missing player with an address ``remind`` before the deadline (the game's
``--remind``, else the judge's; at most half the decision's time to answer, so never together
with the state mail), a late notice to every player with an address once the deadline has passed
with players missing (only to the late players when a game mails only when it counts), and
(``missed = "wait"``, or a person's join, which no bot plays) a reminder to each late player every ``remind``
after it; each once per decision and deadline (their outbox keys say which).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from koryo_pbm import deadlines
from koryo_pbm.judge import messages, notify
from koryo_pbm.judge.games import GameRef, Host, stamp


def step(policy: deadlines.Policy, kind: str, default: timedelta) -> timedelta:
    """How long before the deadline a reminder goes (and how often after it, for a game that waits)."""
    remind = deadlines.parse_duration(policy.remind) if policy.remind else default
    given = policy.duration(kind)
    return remind if given is None else min(remind, given / 2)


def next_due(doc: Any, remind: timedelta, now: datetime) -> float:
    """The first time after ``now`` at which a pass may owe this version of a game something
    without any change to it (a reminder, a late notice, a late reminder, a bot's orders);
    ``now`` itself when a bot is due already; infinity when nothing is. Early rather than late:
    a pass at a time when nothing is due costs one look at the game."""
    from koryo_pbm.match import bot_due

    d = doc.decision
    if d is None:
        return math.inf
    if bot_due(doc, now):
        return now.timestamp()
    if "deadline" not in d:
        return math.inf
    policy = deadlines.policy_of(doc.service, list(doc.players))
    deadline = deadlines.parse_stamp(d["deadline"])
    every = step(policy, d["kind"], remind)
    times = [deadline - every, deadline, deadline + policy.grace_period()]
    if every > timedelta(0):  # the reminders after the deadline of a game that waits
        k = max(0, int((now - deadline) / every)) if now >= deadline else 0
        times += [deadline + (k + 1) * every, deadline + (k + 2) * every]
    later = [t.timestamp() for t in times if t > now]
    return min(later) if later else math.inf


def deadline_mails(judge: Host, ref: GameRef) -> None:
    """Queue the reminders and the late notices the pending decision owes (each once: its
    key names the decision, the deadline and the player)."""
    from koryo_pbm import deadlines
    from koryo_pbm.store import gamefile

    if judge.from_header is None or not ref.emails:
        return
    if ref.no_deadline is not None and ref.no_deadline == stamp(ref.path):
        return  # the file has not changed since it was seen without a deadline
    doc = judge._public(ref)
    d = doc.decision
    if d is None or "deadline" not in d:
        return
    policy = deadlines.policy_of(doc.service, list(doc.players))
    deadline = deadlines.parse_stamp(d["deadline"])
    now = judge._now()
    missing = [p for p in d["waiting_for"] if p not in d.get("received", []) and not policy.bot_plays(p)]
    if not missing:
        return
    remind = step(policy, d["kind"], judge.remind)
    info = judge._info(ref, doc)
    data = gamefile.read_game_bytes(ref.path)  # the steps of a reminder begin with saving it
    when = deadlines.human(deadline)
    tag = f"{d['id']}-{deadline.strftime('%Y%m%dT%H%M')}"
    from koryo_pbm.match.policy import bot_may_play

    bot = bot_may_play(str(d.get("kind", "")), "missed")  # a person's join is never the bot's: it waits
    if deadline - remind <= now < deadline:
        for player in missing:
            address = ref.emails.get(player)
            if address is None:
                continue
            out = messages.reminder(info, player, address, deadline=when,
                                    left=deadlines.relative(deadline, now), key=f"remind-{tag}-{player}",
                                    next_step=policy.next_step(deadline, "you", bot=bot), game_file=data)
            if judge._queue(ref, out, automatic="auto-generated"):
                judge.log(f"game {ref.tag}: reminder for {d['id']} queued for {player}")
    elif now >= deadline + remind and (policy.missed == "wait" or not bot):
        # the game waits: the reminders go on, one every `remind` (only the latest one owed
        # after a judge was stopped for a while, never a burst)
        k = int((now - deadline) / remind)
        for player in missing:
            address = ref.emails.get(player)
            if address is None:
                continue
            out = messages.reminder(info, player, address, deadline=when, overdue=True,
                                    left=deadlines.relative(deadline, now), key=f"remind-{tag}-late{k}-{player}",
                                    next_step=policy.next_step(deadline, "you", bot=bot), game_file=data)
            if judge._queue(ref, out, automatic="auto-generated"):
                judge.log(f"game {ref.tag}: reminder {k} after the deadline of {d['id']} queued for {player}")
    if now >= deadline:
        act = notify.mode_of(doc) == "act"  # then only the late players are told (they must act)
        for player in doc.players:
            address = ref.emails.get(player)
            if address is None or (player == info.co_dealer and player not in missing) or (
                    act and player not in missing):
                continue
            out = messages.late_notice(info, player, address, late=missing, deadline=when,
                                       next_step=policy.next_step(deadline, bot=bot), key=f"late-{tag}-{player}",
                                       game_file=data)
            if judge._queue(ref, out, automatic="auto-generated"):
                judge.log(f"game {ref.tag}: late notice for {d['id']} queued for {player}")
