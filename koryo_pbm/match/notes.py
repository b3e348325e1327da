"""The public lines the match layer itself writes into a game's log (deadlines moved, seats taken
over, bots that played), as patterns: what :mod:`koryo_pbm.match.policy` writes and
:mod:`koryo_pbm.verify` reads back. A module of its own so that ``verify`` reads them without
importing the policy and, through it, game creation and the views."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# The public lines the match layer itself logs (the games log the rest): a log entry made only
# of SERVICE_ONLY lines resolves nothing (a deadline moved, a seat taken over); BOT_NOTES open
# the entry of a decision in which the moderator's bot played for somebody.
MOVED_NOTE = re.compile(r"the moderator (?:set|extended|moved) the deadline of (?P<decision>\S+) to (?P<when>.+)")
TAKEN_OVER_NOTE = re.compile(r"(?P<seat>\S+)'s seat is taken over by a new player \(key fingerprint "
                             r"(?P<new>[0-9a-f]{16}); the former key was (?P<old>[0-9a-f]{16})\)")
# that a seat's mail address changed, never the address (the addresses are sealed to the moderator)
ADDRESS_NOTE = re.compile(r"the moderator (?:set|changed|removed) (?P<seat>\S+)'s mail address")
SERVICE_ONLY = (MOVED_NOTE, TAKEN_OVER_NOTE, ADDRESS_NOTE)

# A missed deadline's note records the deadline, the grace and when the decision was resolved
# (the moderator's clock), so that verify checks the claim against the policy.
MISSED_NOTE = re.compile(r"(?P<seat>\S+) missed the deadline: the (?P<level>\S+) bot played for them"
                         r"(?: \(deadline (?P<deadline>\S+), grace (?P<grace>[^,()]+), resolved at (?P<resolved>\S+)\))?"
                         r"( \(.*\))?")
ABANDONED_NOTE = re.compile(r"(?P<seat>\S+)'s seat is abandoned: the (?P<level>\S+) bot played for them( \(.*\))?")
BOT_SEAT_NOTE = re.compile(r"the (?P<level>\S+) bot played (?P<seat>\S+)'s seat( \(.*\))?")
ABANDON_NOTE = re.compile(r"(?P<player>\S+) missed (?P<count>\d+) decisions? in a row: the seat is abandoned; .+")
BOT_NOTES = (MISSED_NOTE, ABANDONED_NOTE, BOT_SEAT_NOTE, ABANDON_NOTE)


def is_service_entry(entry: Mapping[str, Any]) -> bool:
    """True for a log entry that resolves nothing (only the match layer's service lines)."""
    events = entry.get("events") or []
    return (not entry.get("accepted") and bool(events)
            and all(any(p.fullmatch(str(e)) for p in SERVICE_ONLY) for e in events))
