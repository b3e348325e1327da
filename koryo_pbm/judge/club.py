"""The judge for a club: sign-up by mail, mail commands, press relay, and light state mails.

Hooks of :class:`koryo_pbm.judge.service.Judge` (which imports this module; this one knows the
judge only as a :class:`~koryo_pbm.judge.games.Host`, the members it uses):

* :func:`serve_signups` (at the start of each pass): for each folder under the root holding a
  ``signup.toml`` (``new --invite``) and no game yet, the invitations owed, the seats not taken
  by the sign-up deadline (logged once, and mailed to ``serve --moderator`` when the judge has
  one), and the game made once every seat is taken;
* :func:`without_envelope` (a mail without orders envelopes): a press block is relayed; a public
  key line from an invited address takes its seat; a mail whose subject carries a game's tag and
  whose text begins with a line holding only ``help``, ``status``, ``resend``, ``resend page``,
  ``history`` or ``list`` (as a player writes it: see :mod:`koryo_pbm.judge.commands`) is answered, to the game's players' addresses only and within the judge's rate limits
  (:mod:`koryo_pbm.judge.limits`). Anything else is left to the judge's help reply;
* :func:`state_mail`: the mail of ``--state-mail turn`` (``game.toml`` to the players who must act,
  a short text to the others) or of ``all``.

Bad input (a key line from an address not invited, a second key for a taken seat, a command from
a non-player, press to a player not in the game, a press too large) gets one line to the sender
(when a player) or to the log, and changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from koryo_pbm.errors import FormatError, KoryoPbmError
from koryo_pbm.judge import clubmail
from koryo_pbm.judge.games import GameRef, Host
from koryo_pbm.judge.incoming import ParsedMail
from koryo_pbm.judge.limits import Limit, Limits
from koryo_pbm.judge.messages import GameInfo, Outgoing, waiting

MAX_TEXTS = 8  # text parts of one mail read for commands, keys and press
MAX_TEXT = 2 * 1024 * 1024  # characters of one text part read (more than a press may hold)


COMMAND_RATE = Limit("mail-command", 5, 3600.0, "answers to mail commands")
PRESS_RATE = Limit("press", 30, 3600.0, "press relayed")
SIGNUP_RATE = Limit("signup-answer", 5, 3600.0, "answers to key lines")


def _limits(judge: Host) -> Limits:
    """The judge's rate limits (per game and address, kept under the root across restarts)."""
    return judge._limits


# -- reading a mail's text -------------------------------------------------------------------------


def mail_texts(data: bytes) -> list[str]:
    """The decoded text parts of a raw mail (plain first, then HTML as text), a few at most."""
    import email
    import email.policy
    import html
    import re

    from koryo_pbm.transport.mail import MAX_PART, check_structure

    if check_structure(data) is not None:
        return []
    try:
        message = email.message_from_bytes(data, policy=email.policy.compat32)
    except Exception:  # a mail that cannot be parsed holds no command
        return []
    plain: list[str] = []
    other: list[str] = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() != "text" or len(plain) + len(other) >= MAX_TEXTS:
            continue
        try:
            payload = part.get_payload(decode=True)
        except Exception:
            continue
        if not isinstance(payload, bytes) or len(payload) > MAX_PART:
            continue
        charset = part.get_content_charset() or "utf-8"
        try:
            text = payload.decode(charset, "replace")
        except LookupError:
            text = payload.decode("utf-8", "replace")
        text = text[:MAX_TEXT]
        if part.get_content_subtype() == "html":
            text = html.unescape(re.sub(r"<[^>]*>", "", re.sub(r"(?i)<\s*(br|/p|/div)\b[^>]*>", "\n", text)))
            other.append(text)
        else:
            plain.append(text)
    return plain + other


# -- sign-up ---------------------------------------------------------------------------------------


def signup_folders(judge: Host) -> list[Path]:
    """The sign-up folders under the judge's root: those without a game (as the judge last
    listed the root) holding a ``signup.toml``."""
    from koryo_pbm import signup
    from koryo_pbm.store.folder import GAME_FILE

    root = Path(judge.root)
    candidates = [root] if (root / signup.SIGNUP_FILE).is_file() else judge.other_folders()
    return [f for f in candidates if (f / signup.SIGNUP_FILE).is_file() and not (f / GAME_FILE).exists()]


def _signup_ref(folder: Path) -> GameRef:
    from koryo_pbm import signup

    return GameRef(folder, folder / signup.SIGNUP_FILE, folder.name, game_id=f"signup-{folder.name}")


def _human(stamp: str) -> str:
    from koryo_pbm import deadlines

    return deadlines.human(deadlines.parse_stamp(stamp))


def serve_signups(judge: Host) -> list[GameRef]:
    """The invitations owed, the late seats reported, the games whose seats are all taken made.
    The sign-up folders (their outboxes are sent with the games')."""
    refs = []
    for folder in signup_folders(judge):
        ref = _signup_ref(folder)
        try:
            _serve_signup(judge, ref)
        except KoryoPbmError as exc:
            judge._once(f"signup:{folder}:{exc}", f"sign-up {folder}: {exc}")
        except OSError as exc:
            judge._once(f"signup:{folder}:{exc}", f"sign-up {folder}: {exc.strerror or exc}")
        refs.append(ref)
    return refs


def _serve_signup(judge: Host, ref: GameRef) -> None:
    from koryo_pbm import deadlines, signup
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store.lock import game_lock

    with game_lock(ref.folder):
        s = signup.read(ref.folder, judge.identity)
        if not s.open_seats:
            path = signup.start(ref.folder, s, judge.identity, judge._now())
            judge.log(f"sign-up {ref.tag}: every seat is taken; game made ({path})")
            return
    game = find_game(s.game)
    policy = deadlines.policy_of(s.make.get("service"), [x.name for x in s.seats])
    answer_by = deadlines.parse_stamp(s.answer_by)
    for seat in s.open_seats:
        assert seat.email is not None
        inv = clubmail.Invitation(tag=ref.tag, title=game.title, seat=seat.name, seats=[x.name for x in s.seats],
                                  code=seat.code, answer_by=_human(s.answer_by),
                                  deadlines=(policy.describe() or [""])[0])
        if judge._queue(ref, clubmail.invitation(inv, seat.email, key=f"invite-{seat.name}-{seat.code}"),
                        automatic="auto-generated"):
            from koryo_pbm.judge import notify

            notify.page_sent(_limits(judge), seat.email)  # the invitation carries it: not again
            judge.log(f"sign-up {ref.tag}: invitation queued for {seat.name} ({seat.email})")
        if judge._now() >= answer_by:
            line = (f"sign-up {ref.tag}: seat {seat.name} ({seat.email}) was not taken by its deadline "
                    f"{s.answer_by}; the game waits for it")
            judge._once(f"signup-late:{ref.folder}:{seat.name}", line)
            moderator = getattr(judge, "moderator", None)
            if isinstance(moderator, str) and moderator:
                judge._queue(ref, Outgoing(key=f"signup-late-{seat.name}-{seat.code}", to=moderator,
                                           subject=f"[koryo-pbm {ref.tag}] seat {seat.name} not taken",
                                           body=line + ".\n\n" + clubmail.SIGNATURE), automatic="auto-generated")


def _signup_mail(judge: Host, parsed: ParsedMail, texts: list[str], digest: str) -> bool | None:
    """A mail holding key lines, or tagged for a sign-up: the seat taken (or one line why not)."""
    from koryo_pbm import signup
    from koryo_pbm.store.lock import game_lock

    text = "\n".join(texts)
    lines = signup.key_lines(text)
    folders = signup_folders(judge)
    if not folders:
        return None  # no game waits for its seats: a key line is only text (a command may follow)
    tagged = [f for f in folders if f.name in parsed.tags]
    if not tagged and not lines:
        return None
    candidates = tagged or folders
    for folder in candidates:
        ref = _signup_ref(folder)
        with game_lock(ref.folder):
            s = signup.read(folder, judge.identity)
            seat = s.seat_of(parsed.sender or "")
            if seat is None:
                continue
            now = judge._now().strftime("%Y-%m-%dT%H:%M:%SZ")
            result = signup.take_seat(s, seat, lines, codes_seen=signup.codes(parsed.subject + "\n" + text), now=now)
            if result.status == "taken":
                signup.write(folder, s, judge.identity)
            missing = [x.name for x in s.open_seats]
        judge.log(f"{parsed.names()}: sign-up {ref.tag}, seat {seat.name}: {result.status}"
                  + (f" (key {result.fingerprint})" if result.fingerprint else "")
                  + (f" ({result.reason})" if result.reason else ""))
        if parsed.automatic:
            return True
        out = clubmail.seat_answer(parsed, seat.email or "", ref.tag, seat.name, status=result.status,
                                   reason=result.reason, fingerprint=result.fingerprint, missing=missing,
                                   key=f"answer-{digest}")
        if result.status == "taken":  # the answer to a seat taken is never held back
            judge._queue(ref, out)
        else:
            judge._queue_limited(ref, out, parsed, "an answer to a key line", SIGNUP_RATE)
        if result.status == "taken" and not missing:
            with game_lock(ref.folder):
                path = signup.start(folder, s, judge.identity, judge._now())
            judge.log(f"sign-up {ref.tag}: every seat is taken; game made ({path})")
        return True
    if lines:
        judge.log(f"{parsed.names()}: a key line from an address not invited to "
                  f"{', '.join(f.name for f in candidates) or 'any sign-up'}; nothing changed, not answered")
        return True
    return None


# -- press -----------------------------------------------------------------------------------------


def _relay(judge: Host, parsed: ParsedMail, found: list[Any], digest: str) -> bool:
    from koryo_pbm import press
    from koryo_pbm.crypto.press import Press
    from koryo_pbm.store import gamefile

    by_id = judge._by_id()
    for n, item in enumerate(found[:10]):
        key = f"answer-{digest}" + (f"-{n}" if n else "")
        known = judge._known_sender(parsed)
        if isinstance(item, FormatError):
            judge.log(f"{parsed.names()}: a press that cannot be read: {item}")
            if known is not None and not parsed.automatic:
                ref, player = known
                judge._queue_limited(ref, clubmail.press_answer(parsed, ref.emails[player], ref.tag, relayed=(),
                                                                refused=f"it cannot be read ({item})", key=key),
                                     parsed, "a press refusal", PRESS_RATE)
            continue
        assert isinstance(item, Press)
        game_ref = by_id.get(item.game_id)
        sender = judge._player_of(game_ref, parsed.sender) if game_ref is not None else None
        if game_ref is None or sender is None:
            judge.log(f"{parsed.names()}: press for game {item.game_id}"
                      + (" (not a game of this judge)" if game_ref is None else " from an address that is not a "
                                                                                   "player's")
                      + "; nothing sent")
            continue
        ref = game_ref
        address = ref.emails[sender]
        try:
            doc = gamefile.read_game(ref.path, expected_moderator=judge.identity.public)
            press.check(doc, item)
            if item.sender_name != sender:
                raise press.PressRefused(f"it is {item.sender_name}'s press and came from {sender}'s address")
        except KoryoPbmError as exc:
            judge.log(f"{parsed.names()}: press from {sender} in {ref.tag} refused: {exc}")
            if not parsed.automatic:
                judge._queue_limited(ref, clubmail.press_answer(parsed, address, ref.tag, relayed=(), refused=str(exc),
                                                                key=key), parsed, "a press refusal", PRESS_RATE)
            continue
        why = f"the press from {sender}"
        if not _limits(judge).allowed(PRESS_RATE, game=ref.tag, address=address):
            _limits(judge).take(PRESS_RATE, game=ref.tag, address=address, why=why)  # held back: logged
            continue
        info = judge._info(ref, doc)
        armored = item.armor()
        relayed = []
        fresh = False  # anything not relayed before (a judge stopped before this mail was marked handled)
        for name in item.recipients:
            to = ref.emails.get(name)
            if to is not None:
                fresh |= judge._queue(ref, clubmail.press_relay(info, to, name, sender, item.recipients, armored,
                                                                key=f"press-{item.digest[:24]}-{name}"),
                                      automatic="auto-generated")
                relayed.append(name)
            else:
                fresh |= not (ref.folder / press.PRESS_DIR / name / press.file_name(item)).exists()
                press.deliver(ref.folder, item)
                relayed.append(f"{name} (into the shared folder)")
        if not parsed.automatic:
            fresh |= judge._queue(ref, clubmail.press_answer(parsed, address, ref.tag, relayed=relayed, refused="",
                                                             key=key))
        if fresh:  # counted once relayed, never before, and once
            _limits(judge).take(PRESS_RATE, game=ref.tag, address=address, why=why)
        judge.log(f"{parsed.names()}: press from {sender} in {ref.tag} relayed to {', '.join(relayed)}")
    return True


# -- mail commands ---------------------------------------------------------------------------------


def _command(judge: Host, parsed: ParsedMail, word: str, digest: str) -> bool | None:
    from koryo_pbm import history
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile

    tagged = [g for g in judge.games.values() if g.tag in parsed.tags]
    if not tagged:
        return None
    for ref in tagged:
        player = judge._player_of(ref, parsed.sender)
        if player is None:
            continue
        address = ref.emails[player]
        if parsed.automatic:
            judge.log(f"{parsed.names()}: automatic mail ({parsed.automatic}); not answered")
            return True
        why = f"the answer to {word!r}"
        if not _limits(judge).allowed(COMMAND_RATE, game=ref.tag, address=address):
            _limits(judge).take(COMMAND_RATE, game=ref.tag, address=address, why=why)  # held back: logged
            return True
        data = gamefile.read_game_bytes(ref.path)
        doc = gamefile.decode_remembered(data, expected_moderator=judge.identity.public, source=f"game file {ref.path}")
        info = judge._info(ref, doc)
        key = f"answer-{digest}"
        out: Outgoing
        if word == "help":
            out = clubmail.command_help(parsed, address, ref.tag, key=key)
        elif word == "status":
            out = clubmail.command_status(parsed, address, info, player, key=key)
        elif word == "resend":
            out = clubmail.command_resend(parsed, address, info, player, data, key=key)
        elif word == "resend page":
            out = clubmail.command_resend_page(parsed, address, info, player, key=key)
        elif word == "history":
            game = find_game(doc.game)
            lines = [line for part in history.sections(game, list(doc.players), history.log_events(doc.log))
                     for line in part.lines()]
            out = clubmail.command_history(parsed, address, info, lines, key=key)
        else:
            mine: list[tuple[GameInfo, str]] = []
            for other in sorted(judge.games.values(), key=lambda g: g.tag):
                name = judge._player_of(other, parsed.sender)
                if name is not None:
                    mine.append((judge._info(other), name))
            out = clubmail.command_list(parsed, address, ref.tag, mine, key=key)
        if judge._queue_limited(ref, out, parsed, why, COMMAND_RATE):  # counted once queued
            if word == "resend page":
                from koryo_pbm.judge import notify

                notify.page_sent(_limits(judge), address)
            judge.log(f"{parsed.names()}: mail command {word!r} of {player} in {ref.tag}: answered")
        return True
    judge.log(f"{parsed.names()}: mail command {word!r} for {', '.join(g.tag for g in tagged)} from an address "
              "that is not a player's; nothing sent")
    return True


def concerns(judge: Host, parsed: ParsedMail, data: bytes) -> bool:
    """Is a mail without the tag of a game served (and without envelopes) one of ours: press, or
    a mail for a game that waits for its seats (tagged, or holding a key line)?"""
    from koryo_pbm.crypto.press import BEGIN
    from koryo_pbm.signup import KEY_PREFIX

    if BEGIN.encode("ascii") in data:
        return True
    folders = signup_folders(judge)
    return bool(folders) and (any(f.name in parsed.tags for f in folders) or KEY_PREFIX.encode("ascii") in data)


def without_envelope(judge: Host, data: bytes, parsed: ParsedMail, digest: str) -> bool | None:
    """Handle a mail without orders envelopes if it is press, a key line or a command: True; None
    when it is none of these (the judge's help reply then)."""
    from koryo_pbm.crypto.press import BEGIN, scan_press

    texts = mail_texts(data)
    found: list[Any] = [item for text in texts if BEGIN in text for item in scan_press(text)]
    if found:
        return _relay(judge, parsed, found, digest)
    done = _signup_mail(judge, parsed, texts, digest)
    if done is not None:
        return done
    from koryo_pbm.judge.commands import find_command

    word = find_command(texts)
    if word:
        return _command(judge, parsed, word, digest)
    return None


# -- light state mails -----------------------------------------------------------------------------


def state_mail(info: GameInfo, doc: Any, player: str, to: str, since_version: int, game_file: bytes, *,
               key: str, page: bool = False) -> Outgoing:
    """The state mail of the game's ``--state-mail`` (see :mod:`koryo_pbm.judge.notify`), with the
    player page attached when ``page``."""
    from koryo_pbm.judge import messages, notify

    if notify.mode_of(doc) == "all":
        return messages.state_mail(info, player, to, since_version, game_file, key=key, page=page)
    full = info.decision is None or player in waiting(info) or since_version == 0
    return clubmail.light_state_mail(info, player, to, since_version, game_file, key=key, full=full, page=page)
