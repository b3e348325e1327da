"""The public lines the match layer itself writes into a game's log (deadlines moved, seats taken
over, bots that played), as patterns: what :mod:`koryo_pbm.match.policy` writes and
:mod:`koryo_pbm.verify` reads back. A module of its own so that ``verify`` reads them without
importing the policy and, through it, game creation and the views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from koryo_pbm.values import LazyPattern

# The public lines the match layer itself logs (the games log the rest): a log entry made only
# of SERVICE_ONLY lines resolves nothing (a deadline moved, a seat taken over); BOT_NOTES open
# the entry of a decision in which the moderator's bot played for somebody.
# (Compiled on first use, and only for a line holding the needle: verify reads every log line.)
MOVED_NOTE = LazyPattern(r"the moderator (?:set|extended|moved) the deadline of (?P<decision>\S+) to (?P<when>.+)",
                         needle=" the deadline of ")
TAKEN_OVER_NOTE = LazyPattern(r"(?P<seat>\S+)'s seat is taken over by a new player \(key fingerprint "
                              r"(?P<new>[0-9a-f]{16}); the former key was (?P<old>[0-9a-f]{16})\)",
                              needle="'s seat is taken over by a new player")
# that a seat's mail address changed, never the address (the addresses are sealed to the moderator)
ADDRESS_NOTE = LazyPattern(r"the moderator (?:set|changed|removed) (?P<seat>\S+)'s mail address",
                           needle="'s mail address")
# a seat taken over while the join waited: every join made before is void (a join signed before
# the new key came to the table is never counted, so no key chooses its contribution knowing one)
REJOIN_NOTE = LazyPattern(r"the join starts again: every player joins anew \(joins signed before (?P<seat>\S+)'s seat "
                          r"changed hands are not counted\)", needle="the join starts again: ")
SERVICE_ONLY = (MOVED_NOTE, TAKEN_OVER_NOTE, ADDRESS_NOTE, REJOIN_NOTE)

# A missed deadline's note records the deadline, the grace and when the decision was resolved
# (the moderator's clock), so that verify checks the claim against the policy.
MISSED_NOTE = LazyPattern(r"(?P<seat>\S+) missed the deadline: the (?P<level>\S+) bot played for them"
                          r"(?: \(deadline (?P<deadline>\S+), grace (?P<grace>[^,()]+), resolved at (?P<resolved>\S+)\))?"
                          r"( \(.*\))?", needle=" missed the deadline: the ")
ABANDONED_NOTE = LazyPattern(r"(?P<seat>\S+)'s seat is abandoned: the (?P<level>\S+) bot played for them( \(.*\))?",
                             needle="'s seat is abandoned: the ")
BOT_SEAT_NOTE = LazyPattern(r"the (?P<level>\S+) bot played (?P<seat>\S+)'s seat( \(.*\))?", needle=" bot played ")
ABANDON_NOTE = LazyPattern(r"(?P<player>\S+) missed (?P<count>\d+) decisions? in a row: the seat is abandoned; .+",
                           needle=" in a row: the seat is abandoned; ")
BOT_NOTES = (MISSED_NOTE, ABANDONED_NOTE, BOT_SEAT_NOTE, ABANDON_NOTE)


def is_service_entry(entry: Mapping[str, Any]) -> bool:
    """True for a log entry that resolves nothing (only the match layer's service lines)."""
    events = entry.get("events") or []
    return (not entry.get("accepted") and bool(events)
            and all(any(p.fullmatch(str(e)) for p in SERVICE_ONLY) for e in events))
