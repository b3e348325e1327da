"""The service around the rules: the log lines the match itself writes (deadlines moved, seats
taken over, bots that played), the pending decision's deadline, and when and for whom the
moderator's bot plays (bot seats, abandoned seats, missed deadlines), from the public
``[service]`` policy (:mod:`koryo_pbm.deadlines`) and the ``now`` a caller passes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from koryo_pbm import deadlines
from koryo_pbm.engine.contract import Decision
from koryo_pbm.errors import StaleError
from koryo_pbm.store import gamelog
from koryo_pbm.store.gamedoc import GameDoc

if TYPE_CHECKING:
    from koryo_pbm.engine import bots
    from koryo_pbm.match.views import ModeratorView

# game creation (and through it the menus) and the views are imported where a version is
# written: a resolve with nothing to do asks bot_due alone

#: The join's decision kind (:data:`koryo_pbm.fair.JOIN`, which a dealt game's resolve does not
#: import; ``tests/match`` checks that the two agree). A person's seat never has its join played
#: by the bot: the moderator reads every join as it comes in, so a bot contribution it could put
#: in the place of any join would let it choose among the deals of the subsets it drops.
JOIN_KIND = "join"


def bot_may_play(decision_kind: str, why: str) -> bool:
    """Whether the moderator's bot may answer a decision of ``decision_kind`` for a seat for
    this reason (``seat``: a bot seat; ``abandoned``; ``missed``: a deadline passed). At the
    join only a bot seat's: its contribution is fixed by public values before anyone joins, so
    the deal is one whatever the moderator does; a person's seat is waited for (or taken over
    by a substitute, :func:`koryo_pbm.match.seats.replace_seat`)."""
    return why == "seat" or decision_kind != JOIN_KIND


def _deadline(doc: GameDoc, decision_id: str) -> datetime | None:
    """The deadline of ``doc``'s pending decision if it is ``decision_id`` and has one."""
    d = doc.decision
    if d is None or d.get("id") != decision_id or "deadline" not in d:
        return None
    return deadlines.parse_stamp(d["deadline"])


def deadline_of(doc: GameDoc) -> datetime | None:
    """The pending decision's deadline, if it has one."""
    return _deadline(doc, doc.decision["id"]) if doc.decision else None


def bot_due(doc: GameDoc, now: datetime) -> bool:
    """True when a resolve at ``now`` would have the bot play even with no new envelope: the
    deadline and grace of a ``missed = "bot"`` game have passed with players missing, or only
    bot seats and abandoned seats are missing (the judge resolves then)."""
    d = doc.decision
    if d is None or (doc.deal == "blind" and d.get("kind") == "deal"):  # no bot answers for a dealer
        return False
    policy = deadlines.policy_of(doc.service, list(doc.players))
    missing = [p for p in d["waiting_for"] if p not in d.get("received", [])]
    kind = str(d.get("kind", ""))
    if missing and all(p in policy.bots or (p in policy.abandoned and bot_may_play(kind, "abandoned"))
                       for p in missing):
        return True
    deadline = deadline_of(doc)
    return (bool(missing) and deadline is not None and policy.missed == "bot" and bot_may_play(kind, "missed")
            and now >= deadline + policy.grace_period())


def _bot_players(policy: deadlines.Policy, decision: Decision, held: Mapping[str, Any],
                 deadline: datetime | None, now: datetime | None) -> dict[str, tuple[str, str]] | None:
    """``{player: (level, why)}`` for every player of ``decision`` the bot answers for now,
    or ``None`` when a player the game still waits for is missing (nothing is played then)."""
    from koryo_pbm.engine import bots  # imported where it is used: most commands play no bot

    played: dict[str, tuple[str, str]] = {}
    passed = (deadline is not None and now is not None and policy.missed == "bot"
              and now >= deadline + policy.grace_period())
    for p in decision.players:
        if p in held:
            continue
        if p in policy.bots:
            played[p] = (policy.bots[p], "seat")
        elif not bot_may_play(decision.kind, "missed"):  # a person's join: waited for (see bot_may_play)
            return None
        elif p in policy.abandoned:
            played[p] = (policy.bot_level or bots.RANDOM, "abandoned")
        elif passed:
            played[p] = (policy.bot_level or bots.RANDOM, "missed")
        else:
            return None
    return played


def _bot_note(player: str, level: str, why: str, policy: deadlines.Policy, choice: bots.BotChoice,
              deadline: datetime | None = None, now: datetime | None = None) -> str:
    """The public log line that says the bot played for ``player``; for a missed deadline,
    with the deadline, the grace and the time of this resolve (``now``)."""
    if why == "missed":
        times = (f" (deadline {deadlines.stamp(deadline)}, grace {policy.grace or '0m'}, resolved at "
                 f"{deadlines.stamp(now)})" if deadline is not None and now is not None else "")
        text = f"{player} missed the deadline: the {level} bot played for them{times}"
    elif why == "abandoned":
        text = f"{player}'s seat is abandoned: the {level} bot played for them"
    else:
        text = f"the {level} bot played {player}'s seat"
    if choice.timed_out:  # verify cannot choose this one again: it says so, and checks the stand-in
        text += f" (the {level} bot hit its safety time limit; a random legal order stood in)"
    elif choice.fallback:  # what failed stays private: its message might show the seat's hidden cards
        text += f" (the {level} bot failed; a random legal order stood in)"
    return text


def _count_missed(policy: deadlines.Policy, decision: Decision, played: Mapping[str, tuple[str, str]]) -> list[str]:
    """Count the decisions each player missed in a row (their own order resets the count);
    abandon a seat at ``policy.abandon_after``. Returns the public notes."""
    from koryo_pbm.engine import bots  # imported where it is used: most commands play no bot

    notes = []
    for p in decision.players:
        why = played.get(p, ("", "own"))[1]
        if why == "own":
            policy.missed_in_row.pop(p, None)
        elif why == "missed":
            count = policy.missed_in_row.get(p, 0) + 1
            if policy.abandon_after and count >= policy.abandon_after:
                policy.missed_in_row.pop(p, None)
                policy.abandoned.append(p)
                notes.append(f"{p} missed {count} decision{'s' if count != 1 else ''} in a row: the seat is "
                             "abandoned; the "
                             f"{policy.bot_level or bots.RANDOM} bot plays it until a substitute takes it over")
            else:
                policy.missed_in_row[p] = count
    return notes


def set_deadline(mv: ModeratorView, when: datetime) -> GameDoc:
    """The next version with the pending decision's deadline set to ``when`` (checked by the
    caller: in the future), logged publicly. The caller writes it."""
    doc = mv.doc
    if doc.decision is None:
        raise StaleError(f"game {doc.game_id} is over: it has no deadline")
    from koryo_pbm.match.creation import _fill, _secret, next_version

    before = deadline_of(doc)
    new = next_version(doc)
    new.decision = {**doc.decision, "deadline": deadlines.stamp(when)}
    verb = "set" if before is None else ("extended" if when > before else "moved")
    gamelog.append_log(new, doc.decision["id"],
                        [f"the moderator {verb} the deadline of {doc.decision['id']} to {deadlines.human(when)}"], [])
    _fill(new, mv.game, mv.state, _secret(mv.secrets, mv.orders, mv.emails, mv.former))
    return new
