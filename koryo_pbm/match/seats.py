"""Who holds a seat: players' mail addresses changed, a seat taken over by a substitute, a
bot seat or an abandoned seat given back to a player."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from koryo_pbm import deadlines
from koryo_pbm.crypto.keys import PublicIdentity
from koryo_pbm.errors import SetupError, StaleError
from koryo_pbm.match.creation import _fill, _secret, check_emails, next_version
from koryo_pbm.match.policy import JOIN_KIND
from koryo_pbm.match.views import ModeratorView
from koryo_pbm.store import gamelog
from koryo_pbm.store.gamedoc import GameDoc


def with_emails(mv: ModeratorView, changes: Mapping[str, str | None]) -> GameDoc:
    """The next version of the game with players' addresses set (``None``: removed); nothing
    else changes. The caller writes it. Each change is logged publicly, never the address
    ("the moderator changed bob's mail address"): the addresses stay sealed to the moderator,
    but that they changed is no secret (mail to a player goes elsewhere from then on)."""
    doc = mv.doc
    emails = dict(mv.emails)
    for name, address in changes.items():
        if address is None:
            if name not in doc.players:
                raise SetupError(f"{name!r} is not a player (the players are {', '.join(doc.players)})")
            emails.pop(name, None)
        else:
            emails[name] = address
    emails = check_emails(emails, doc.players)
    lines = []
    for name in doc.players:
        before, after = mv.emails.get(name), emails.get(name)
        if before != after:
            verb = "set" if before is None else ("removed" if after is None else "changed")
            lines.append(f"the moderator {verb} {name}'s mail address")
    if lines and doc.decision is None:
        raise StaleError(f"game {doc.game_id} is over: no mail goes to its players any more")
    new = next_version(doc)
    if lines:
        assert doc.decision is not None
        gamelog.append_log(new, doc.decision["id"], lines, [])
    _fill(new, mv.game, mv.state, _secret(mv.secrets, mv.orders, emails, mv.former))
    return new


@dataclass
class Replacement:
    """What :func:`replace_seat` did: the next ``doc``, the seat, the former and new keys'
    fingerprints, the decision whose held order of the former key was dropped (or ``None``),
    and the seat's mail address now (``None``: shared folder only)."""

    doc: GameDoc
    seat: str
    former: str
    new: str
    dropped: str | None
    email: str | None
    rejoin: list[str] = field(default_factory=list)  # at the join: the others whose joins were dropped
    rejoined: bool = False  # the seat changed hands during the join: it started again


def replace_seat(mv: ModeratorView, seat: str, key: PublicIdentity, *, email: str | None = None) -> Replacement:
    """The next version of the game with ``seat`` held by ``key`` (a substitute): the seat's
    part sealed to the new key from this version on, a public log line saying so, the former
    key remembered (its envelopes are refused by name at resolve), an order it had in for the
    pending decision dropped (the substitute answers anew). While a joined game's join is
    pending, the join starts again: every join held is dropped and only joins signed after
    this version count (a key that came to the table after a contribution was made could
    choose its own knowing it; ``verify`` reports such a deal as not fair-proof). The seat's mail address becomes
    ``email``, or none (the former player's address is not the substitute's). The caller
    writes the document."""
    doc = mv.doc
    if seat not in doc.players:
        raise SetupError(f"{seat!r} is not a player of game {doc.game_id} (the players are {', '.join(doc.players)})")
    pending = mv.game.pending(mv.state)
    if pending is None:
        raise StaleError(f"game {doc.game_id} is over: there is no seat to take over")
    fingerprint = key.fingerprint()
    if key == doc.moderator:
        raise SetupError(f"key {fingerprint} is the moderator's own key: the moderator sees everything, so a "
                         "player needs a key of their own")
    for name, held in doc.players.items():
        if held == key:
            raise SetupError(f"key {fingerprint} is already at the table: it is {name}'s key (each player needs "
                             "a key of their own: koryo-pbm keygen NAME)")
    for name, keys in mv.former.items():
        if key in keys:
            raise SetupError(f"key {fingerprint} held {name}'s seat before: a substitute needs a key that was "
                             "never at the table")
    old = doc.players[seat]
    emails = dict(mv.emails)
    emails.pop(seat, None)
    if email is not None:
        emails[seat] = email
    emails = check_emails(emails, doc.players)
    former = {name: list(keys) for name, keys in mv.former.items()}
    if old != doc.moderator:  # a bot seat held the moderator's key: nobody's to refuse
        former.setdefault(seat, []).append(old)
    orders = dict(mv.orders)
    dropped = pending.id if orders.pop(seat, None) is not None else None
    lines = [f"{seat}'s seat is taken over by a new player (key fingerprint {fingerprint}; "
             f"the former key was {old.fingerprint()})"]
    rejoin: list[str] = []
    if doc.deal == "joined" and pending.kind == JOIN_KIND:
        # The join starts again: a key that comes to the table after a contribution was made
        # could choose its own knowing it (the moderator reads every join). Every join held is
        # dropped, and resolve counts only joins that answer this version or a later one.
        rejoin = sorted(orders)
        orders = {}
        lines.append(f"the join starts again: every player joins anew (joins signed before {seat}'s seat changed "
                     "hands are not counted)")
    new = next_version(doc)
    unabandon(new, seat)  # an abandoned seat or a bot seat: the substitute plays it from now on
    new.players = {name: (key if name == seat else held) for name, held in doc.players.items()}
    gamelog.append_log(new, pending.id, lines, [])
    _fill(new, mv.game, mv.state, _secret(mv.secrets, orders, emails, former))
    return Replacement(new, seat, old.fingerprint(), fingerprint, dropped, emails.get(seat), rejoin, bool(lines[1:]))


def unabandon(doc: GameDoc, seat: str) -> bool:
    """Clear ``seat``'s abandoned flag (and its count of missed decisions), or its bot seat, in
    ``doc``'s ``[service]`` table, in place: for a substitute taking the seat over (``doc`` is
    the next version its caller writes). True if the bot played the seat."""
    policy = deadlines.policy_of(doc.service, list(doc.players))
    was = seat in policy.abandoned or seat in policy.bots
    policy.abandoned = [p for p in policy.abandoned if p != seat]
    policy.bots.pop(seat, None)
    policy.missed_in_row.pop(seat, None)
    doc.service = policy.to_table() or None
    return was
