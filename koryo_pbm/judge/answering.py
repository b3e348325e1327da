"""Whom the judge answers, and with what: a player is never left in silence.

Hooks of :class:`koryo_pbm.judge.service.Judge` (which passes itself, as to
:mod:`koryo_pbm.judge.club`):

* :func:`answer`: the answer to a mail holding envelopes. A new envelope signed by a seat's key
  (its digest never answered before) is always answered, to that seat's own address, whatever
  became of it (counted, late, replaced, already counted, refused) and whatever the hourly limit:
  no one but the seat's key holder can make one. Anything else (copies of envelopes answered
  before, envelopes not signed by a seat's key, unreadable ones) is what an unauthenticated
  sender can trigger: answered to the sender, if a player, within the hourly limit.
* :func:`no_envelope`: a player's mail with a game's tag and no envelope: what it held (a
  secret key, the game file, a cut envelope, an empty mail, HTML only, a forwarded mail: named,
  with what to send instead), the help, and a plain-language mail forwarded to the moderator's
  own address (``serve --moderator``, or the game's ``new --moderator-email``); without one,
  the answer says whom to write to.
* :func:`untagged`: a mail without a game's tag and without an envelope from a player's address:
  the ``list`` answer (the games they play, with their tags).
* :func:`secret_key`: a mail carrying a secret key file: a warning first, to make a new key, and
  the moderator told (who should ``replace`` the seat). The key is never quoted back, forwarded or
  logged.

Every mail not answered gets a log line saying why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from koryo_pbm.judge import club, clubmail, commands, messages, notify, outbox
from koryo_pbm.judge.games import GameRef, Host
from koryo_pbm.judge.incoming import ParsedMail
from koryo_pbm.judge.limits import Limit
from koryo_pbm.judge.messages import GameInfo, Outcome, Outgoing
from koryo_pbm.transport.address import same_address

FORWARD = Limit("forward", 5, 3600.0, "forwards to the moderator")  # per game and player address
SECRET = Limit("secret-key", 3, 3600.0, "warnings about a secret key mailed")  # per game and address
RECEIPT = "receipt"  # Limits.first: the receipt of one envelope is mailed to its player once
ANSWERED = "signed-envelope"  # Limits.first: a signed envelope of a seat is answered to its seat once


class Answering(Host, Protocol):
    moderator: str | None

    def _is_queued(self, ref: GameRef, key: str) -> bool: ...

    def _public(self, ref: GameRef) -> Any: ...


def moderator_of(judge: Answering, ref: GameRef) -> str | None:
    """The moderator's own address: ``serve --moderator``, else the game's ``--moderator-email``."""
    if judge.moderator:
        return judge.moderator
    from koryo_pbm import deadlines

    try:
        doc = judge._public(ref)
        return deadlines.policy_of(doc.service, list(doc.players)).moderator_email or None
    except Exception:  # a game file that cannot be read now: no address known
        return None


def _forward(judge: Answering, ref: GameRef, out: Outgoing, address: str, what: str) -> bool:
    if judge._is_queued(ref, out.key):
        return True
    limits = judge._limits
    if not limits.allowed(FORWARD, game=ref.tag, address=address):
        limits.take(FORWARD, game=ref.tag, address=address, why=what)  # held back: logged
        return False
    if judge._queue(ref, out):
        limits.take(FORWARD, game=ref.tag, address=address, mail=outbox.safe_key(out.key))
        return True
    return False


def secret_key(judge: Answering, parsed: ParsedMail, digest: str) -> bool:
    """A mail carrying a secret key file: True when it was the sender's (a player's address),
    answered or held back (logged); False when the sender is not a player's (logged too)."""
    known = judge._known_sender(parsed, [g for g in judge.games.values() if g.tag in parsed.tags])
    if known is None or parsed.automatic:
        judge.log(f"{parsed.names()}: holds a secret key file; the sender is not a player's address"
                  + (f" ({parsed.automatic})" if parsed.automatic else "") + ": not answered")
        return known is not None
    ref, player = known
    address = ref.emails[player]
    moderator = moderator_of(judge, ref)
    forwarded = False
    if moderator is not None:
        note = messages.secret_key_forward(parsed, moderator, ref.tag, player, address, key=f"forward-{digest}")
        forwarded = _forward(judge, ref, note, address, f"the moderator's notice of {parsed.names()}")
    out = messages.secret_key_reply(parsed, address, ref.tag, key=f"answer-{digest}", forwarded=forwarded)
    if judge._queue_limited(ref, out, parsed, f"the warning for {parsed.names()} (a secret key)", SECRET):
        judge.log(f"{parsed.names()}: holds a secret key file: {player} warned"
                  + (f", the moderator told ({moderator})" if forwarded else ""))
    return True


def untagged(judge: Answering, parsed: ParsedMail, digest: str, raw: bytes) -> bool:
    """A mail without a game's tag and without an envelope: the ``list`` answer when it comes from
    a player's address (True), else logged and left alone (False)."""
    known = judge._known_sender(parsed)
    if known is None:
        judge._once(f"untagged:{parsed.digest}", f"{parsed.names()}: no game tag, no envelope, not from a player's "
                    "address: not for the judge, left alone")
        return False
    if parsed.automatic:
        judge.log(f"{parsed.names()}: automatic mail ({parsed.automatic}); not answered")
        return True
    ref, _player = known
    address = ref.emails[_player]
    mine: list[tuple[GameInfo, str]] = []
    for other in sorted(judge.games.values(), key=lambda g: g.tag):
        name = judge._player_of(other, parsed.sender)
        if name is not None:
            mine.append((judge._info(other), name))
    out = clubmail.command_list(parsed, address, ref.tag, mine, key=f"answer-{digest}", untagged=True)
    if judge._queue_limited(ref, out, parsed, f"the list for {parsed.names()} (no game tag)", club.COMMAND_RATE):
        judge.log(f"{parsed.names()}: no game tag: the list of {address}'s games queued")
    return True


def no_envelope(judge: Answering, parsed: ParsedMail, digest: str, raw: bytes) -> bool:
    """A mail without envelopes with a game's tag: the help (naming what it held) to its player,
    and a plain-language mail forwarded to the moderator's address. False: not the judge's."""
    tagged = [g for g in judge.games.values() if g.tag in parsed.tags]
    if not tagged:
        return untagged(judge, parsed, digest, raw)
    for ref in tagged:
        player = judge._player_of(ref, parsed.sender)
        if player is None:
            continue
        if parsed.automatic:
            judge.log(f"{parsed.names()}: automatic mail ({parsed.automatic}); not answered")
            return True
        from koryo_pbm.store import gamefile

        address = ref.emails[player]
        data = gamefile.read_game_bytes(ref.path)
        info = judge._info(ref, gamefile.decode_remembered(data, expected_moderator=judge.identity.public,
                                                            source=f"game file {ref.path}"))
        received = commands.mistake(raw, club.mail_texts(raw), parsed.subject)
        moderator = moderator_of(judge, ref) if received is None else None  # plain language only
        forward = moderator is not None and judge._limits.allowed(FORWARD, game=ref.tag, address=address)
        page = notify.page_due(judge._limits, address)
        out = messages.help_reply(parsed, address, info, player, key=f"answer-{digest}", game_file=data,
                                  forwarded=forward, received=received, page=page)
        helped = judge._queue_limited(ref, out, parsed, f"the help for {parsed.names()}")
        if helped:
            if page:
                notify.page_sent(judge._limits, address)
            judge.log(f"{parsed.names()}: no envelope" + (f" ({received[0]})" if received else "")
                      + f"; help queued for {player}")
        if moderator is not None:
            note = messages.forward(parsed, raw, moderator, ref.tag, player, address, key=f"forward-{digest}",
                                    answered=helped)
            if _forward(judge, ref, note, address, f"the forward of {parsed.names()}"):
                judge.log(f"{parsed.names()}: forwarded to the moderator ({moderator})")
        elif received is None:
            judge.log(f"{parsed.names()}: no moderator address (serve --moderator, new --moderator-email): "
                      "not forwarded")
        return True
    judge.log(f"{parsed.names()}: tagged for {', '.join(g.tag for g in tagged)} but not from a player's "
              "address; not answered")
    return True


def signed_by_seat(doc: Any, env: Any) -> bool:
    """Whether ``env`` carries a valid signature by the key of the seat it names in ``doc``."""
    key = doc.players.get(env.player) if isinstance(doc.players, dict) else None
    if key is None:
        return False
    try:
        env.verify(key)
    except Exception:  # any refusal: not signed by that seat's key
        return False
    return True


def answer(judge: Answering, parsed: ParsedMail, outcomes: list[tuple[GameRef | None, Outcome]],
           infos: dict[Path, GameInfo], digest: str) -> None:
    """Queue the answer(s) to a mail holding envelopes (see the module docstring). The receipt of
    an envelope goes to its seat's own address, once; a new envelope signed by a seat's key is
    answered to that seat's address, once, whatever the limits. What is not answered is logged."""
    if parsed.automatic:
        judge.log(f"{parsed.names()}: automatic mail ({parsed.automatic}); not answered")
        return
    limits = judge._limits
    involved = [ref for ref, _ in outcomes if ref is not None]
    known = judge._known_sender(parsed, involved)
    groups: dict[tuple[str, Path], list[Outcome]] = {}
    fresh: set[str] = set()  # digests of envelopes whose receipt was never mailed
    owed: set[str] = set()  # digests of new envelopes signed by their seat: answered whatever the limit
    for ref, o in outcomes:
        seat_address = ref.emails.get(o.player) if ref is not None and o.player is not None else None
        if o.signed and ref is not None and o.digest and seat_address is not None \
                and not limits.seen(ANSWERED, game=ref.game_id, key=o.digest):
            owed.add(o.digest)
            if o.status in ("accepted", "held", "duplicate") and not limits.seen(RECEIPT, game=ref.game_id,
                                                                                 key=o.digest):
                fresh.add(o.digest)
            groups.setdefault((seat_address, ref.folder), []).append(o)
        elif o.status in ("accepted", "held", "duplicate") and ref is not None and o.player is not None:
            if seat_address is None:
                judge.log(f"{parsed.names()}: {o.player} has no address in {ref.tag}; the receipt is not sent")
                continue
            if o.digest and not limits.seen(RECEIPT, game=ref.game_id, key=o.digest):
                fresh.add(o.digest)
            elif not (parsed.sender and same_address(parsed.sender, seat_address)):
                judge.log(f"{parsed.names()}: a copy of {o.player}'s envelope for {o.decision}, whose receipt was "
                          f"mailed to {o.player} before; the sender is not {o.player}'s address: not answered")
                continue
            groups.setdefault((seat_address, ref.folder), []).append(o)
        elif known is not None:
            target, player = known
            if ref is not None and judge._player_of(ref, parsed.sender) is not None:
                target, player = ref, judge._player_of(ref, parsed.sender) or player
            groups.setdefault((target.emails[player], target.folder), []).append(o)
        else:
            judge.log(f"{parsed.names()}: {o.status}: {o.reason} (the sender is not a player's address; "
                      "not answered)")
    for n, ((address, folder), items) in enumerate(sorted(groups.items())):
        ref = judge.games[folder]
        info = infos.get(folder) or judge._info(ref)
        key = f"answer-{digest}" + (f"-{n}" if n else "")
        seat = judge._player_of(ref, address)
        current = info.decision["id"] if info.decision else None
        game_file = b""
        if (seat is not None and seat in messages.waiting(info)
                and any(o.status in ("late", "duplicate", "refused") and o.decision and o.decision != current
                        for o in items)):
            from koryo_pbm.store import gamefile

            game_file = gamefile.read_game_bytes(ref.path)  # what the steps to answer begin with
        out = messages.answer(parsed, address, items, info, key=key, player=seat, game_file=game_file)
        new = [o.digest for o in items if o.digest in fresh]
        signed = [o.digest for o in items if o.digest in owed]
        what = ", ".join(sorted({o.status for o in items}))
        if new or signed:
            queued = judge._queue(ref, out) or judge._is_queued(ref, out.key)
        else:
            queued = judge._queue_limited(ref, out, parsed, f"the answer to {parsed.names()} ({what})")
        if queued:
            for d in new:  # only once it is queued: a judge stopped before this mails it again
                limits.first(RECEIPT, game=ref.game_id, key=d)
            for d in signed:
                limits.first(ANSWERED, game=ref.game_id, key=d)
            judge.log(f"{parsed.names()}: answered ({what}), queued for {address}")
