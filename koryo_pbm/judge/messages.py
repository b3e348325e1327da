"""What the judge's mails say: pure functions from the game's public data and what happened to
an :class:`Outgoing` mail (recipient, subject, text, attachment). Nothing here reads a file,
looks at a clock or sends anything, and nothing here ever sees a player's hidden cards: the
texts are made from the public game file (``GameDoc``), the envelopes' public headers and the
judge's decisions about them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from koryo_pbm.judge.incoming import ParsedMail

WRAP = 76
SIGNATURE = "-- \nkoryo-pbm judge\n"


@dataclass(frozen=True)
class Outgoing:
    """One mail to send. ``key`` names it in the outbox: the same mail is never queued twice."""

    key: str
    to: str
    subject: str
    body: str
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    attachments: tuple[tuple[str, bytes], ...] = ()
    reply_to: str | None = None


@dataclass
class Outcome:
    """What became of one envelope of a mail (or of something like one)."""

    status: str  # accepted | held | late | duplicate | superseded | refused | unreadable
    reason: str = ""
    player: str | None = None
    decision: str | None = None
    digest: str | None = None
    replaces: bool = False
    receipt: str | None = None  # the armoured, signed receipt (accepted and held)
    game: str | None = None  # the tag of the game it went to
    signed: bool = False  # signed by the key of the seat it names (only such a seat's key holder makes it)


@dataclass
class GameInfo:
    """The public facts about a game a mail needs."""

    tag: str  # the game folder's name, as in "[koryo-pbm friday]"
    game_id: str
    title: str  # the game's title
    version: int
    decision: dict[str, Any] | None
    round: int | None
    players: list[str]
    log: list[dict[str, Any]] = field(default_factory=list)
    deadline: str | None = None  # set by the deadlines feature, when there is one
    co_dealer: str | None = None  # a blind game's co-dealer seat: mailed only when awaited


def subject_tag(tag: str) -> str:
    return f"[koryo-pbm {tag}]"


SUBJECT_QUOTE = 60  # characters of an incoming subject quoted back in an answer's subject
# What a mail client may turn into a link: a scheme, www., an address, a domain name (with or
# without a path). Removed from what is quoted back, so that the judge never carries an
# attacker's link inside a genuine mail.
_LINK = re.compile(
    r"(?i)(?:\b[a-z][a-z0-9+.-]{0,30}:/+\S*|\b(?:mailto|data|javascript|file|tel|sms|callto|xmpp):\S*"
    r"|\S*@\S+|\bwww\.\S*|\S*[a-z0-9-]\.[a-z]{2,63}\b(?:[/:?#]\S*)?)"
)
_QUOTED = re.compile(r"(?<!\w)(?:'(?:[^'\\\n]|\\.){0,200}'|\"(?:[^\"\\\n]|\\.){0,200}\")(?!\w)")


def quote_text(text: str, limit: int) -> str:
    """Text another party wrote, made fit to be quoted back in a mail: printable characters
    only, whitespace collapsed, links and addresses replaced by ``[link]``, at most ``limit``
    characters (cut with ``…``)."""
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(_LINK.sub("[link]", " ".join(text.split())).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote_subject(subject: str) -> str:
    """An incoming subject as an answer's subject quotes it (see :func:`quote_text`)."""
    return quote_text(subject, SUBJECT_QUOTE)


def safe_reason(reason: str) -> str:
    """A refusal's reason as an answer's body shows it: values quoted from the mail (``'...'``)
    left out unless they are the armour's own lines, links removed, at most 300 characters."""
    def keep(m: re.Match[str]) -> str:
        inner = m.group()[1:-1]
        return m.group() if re.fullmatch(r"-----(BEGIN|END) KORYO-PBM [A-Z]+-----|[a-z_]{1,20}(: [a-z0-9./-]{0,40})?",
                                         inner) else "(…)"
    return quote_text(_QUOTED.sub(keep, reason), 300)


def _reply_subject(tag: str, original: str, what: str) -> str:
    """``[koryo-pbm TAG] WHAT (re: ORIGINAL)``: what became of the mail first, so that an
    answer to a reply to "round 3: your turn" is never read as another "your turn". The original
    subject is quoted cut to :data:`SUBJECT_QUOTE` printable characters, without links."""
    text = " ".join(original.replace(subject_tag(tag), "").split())
    while text.lower().startswith(("re:", "aw:", "sv:")):
        text = text[3:].strip()
    text = quote_subject(text) or "(no subject)"
    return f"{subject_tag(tag)} {what} (re: {text})"


_SUBJECT_WORD = {"accepted": "received", "held": "received", "duplicate": "received", "late": "late",
                 "superseded": "not counted", "refused": "refused", "unreadable": "unreadable"}


def _named(o: Outcome, info: GameInfo | None) -> str | None:
    """``alice's orders for r3-orders``: only a player and a decision the game knows (a refused
    envelope's header is whatever its sender wrote, and is not quoted back)."""
    if not (o.player and o.decision and info is not None and o.player in info.players):
        return None
    known = {str(e.get("decision")) for e in info.log}
    if info.decision:
        known.add(str(info.decision.get("id")))
    return f"{o.player}'s orders for {o.decision}" if o.decision in known else None


def _answer_what(outcomes: Sequence[Outcome], info: GameInfo | None = None) -> str:
    """What the subject of an answer says: ``received: alice's orders for r3-orders``, ``refused:
    ...``, or for several envelopes each kind counted (``2 received, 1 refused``)."""
    words = [_SUBJECT_WORD.get(o.status, o.status) for o in outcomes]
    if len(outcomes) == 1:
        return f"{words[0]}: " + (_named(outcomes[0], info) or "an envelope")
    counts: dict[str, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return ", ".join(f"{n} {w}" for w, n in counts.items())


@lru_cache(maxsize=4096)
def _wrap(text: str, indent: str = "", hang: str = "") -> str:
    """``text`` filled to :data:`WRAP` columns. Remembered: the judge wraps the same lines (a
    decision's events, the status line, the commands) for each player's state mail and report
    of a version, and again in later mails; ``textwrap`` was a tenth of its own time."""
    import textwrap

    return textwrap.fill(text, WRAP, initial_indent=indent, subsequent_indent=indent + hang,
                         break_long_words=False, break_on_hyphens=False)


def waiting(info: GameInfo) -> list[str]:
    d = info.decision
    if not d:
        return []
    received = set(d.get("received", []))
    return [p for p in d.get("waiting_for", []) if p not in received]


def waiting_text(info: GameInfo) -> str:
    """Who the pending decision waits for, and who answered, in the words ``show``, ``log``,
    ``status``, ``play`` and the pictures use (:func:`koryo_pbm.waiting.waiting_words`):
    ``waiting for carol (alice, bob answered)``."""
    from koryo_pbm.waiting import waiting_words

    d = info.decision or {}
    return waiting_words(d.get("waiting_for", []), d.get("received", []))


# -- answers to mail ------------------------------------------------------------------------------


_STATUS_TEXT = {
    "accepted": "ACCEPTED",
    "held": "ACCEPTED",
    "duplicate": "ALREADY COUNTED",
    "late": "LATE, NOT COUNTED",
    "superseded": "NOT COUNTED",
    "refused": "REFUSED",
    "unreadable": "CANNOT BE READ",
}


def answer(mail: ParsedMail, to: str, outcomes: Sequence[Outcome], info: GameInfo | None, *, key: str,
           player: str | None = None, game_file: bytes = b"") -> Outgoing:
    """The one answer to ``mail``, covering each of its ``outcomes``, sent to ``to`` (``player``:
    whose address it is). When an envelope came for a decision other than the one the game
    waits for and ``player`` is awaited, it says what to send now (with ``game_file`` attached,
    when given: the steps begin with saving it)."""
    tag = info.tag if info is not None else (outcomes[0].game if outcomes and outcomes[0].game else "judge")
    n = len(outcomes)
    lines = [_wrap(f"{mail.describe()[0].upper()}{mail.describe()[1:]} held "
                   f"{n} envelope{'s' if n != 1 else ''}. What became of {'each' if n != 1 else 'it'}:"), ""]
    receipts = []
    for o in outcomes:
        what = _named(o, info) or ("an envelope" if o.status != "unreadable" else "something like an envelope")
        lines.append(_wrap(f"* {_STATUS_TEXT.get(o.status, o.status.upper())}: {what}"
                           + (f" (envelope {o.digest[:16]})" if o.digest else "") + ".", "", "  "))
        detail = _detail(o, info)
        if detail:
            lines.append(_wrap(detail, "  "))
        if o.receipt:
            receipts.append(o.receipt)
        lines.append("")
    current = info.decision["id"] if info is not None and info.decision else None
    elsewhere = any(o.status in ("late", "duplicate", "refused") and o.decision and o.decision != current
                    for o in outcomes)
    if info is not None and info.decision is not None:
        missing = waiting(info)
        lines.append(_wrap(f"Game {info.tag}, decision {info.decision['id']}: {waiting_text(info)}."))
        lines.append("")
        if elsewhere and player is not None and player in missing:
            lines += [_wrap(f"{player}, the game waits for your orders for {_where(info)}: send them, made "
                            "from the game file of that decision" + (" (attached)." if game_file else
                                                                      " (the judge's latest mail to you).")),
                      "", *_commands(info, player, route="mail"), ""]
    elif info is not None:
        lines += ["Game " + info.tag + " is over.", ""]
    if receipts:
        game = f"{info.tag}/game.toml" if info is not None else "GAME"
        lines.append(_wrap("Your receipt, signed by the moderator, is below: keep this mail. It proves that the "
                           "judge received your orders; there is nothing to do with it."))
        lines.append("")
        lines.append(_wrap("If you use the command line: saved to a file (receipt.txt), `koryo-pbm receipt "
                           f"receipt.txt --game {game}` checks it."))
        lines.append("")
        for r in receipts:
            lines.append(r.rstrip("\n"))
            lines.append("")
    body = "\n".join(lines).rstrip("\n") + "\n\n" + SIGNATURE
    refs = tuple([*mail.references, mail.message_id] if mail.message_id else mail.references)[-10:]
    attach = (game_attachment(game_file),) if game_file and elsewhere and player is not None else ()
    return Outgoing(key=key, to=to, subject=_reply_subject(tag, mail.subject, _answer_what(outcomes, info)), body=body,
                    in_reply_to=mail.message_id, references=refs, attachments=attach)


def _where(info: GameInfo) -> str:
    d = info.decision or {}
    return f"decision {d.get('id')}" + (f" (round {info.round})" if info.round is not None else "")


def _detail(o: Outcome, info: GameInfo | None = None) -> str:
    current = info.decision["id"] if info is not None and info.decision else None
    if o.status in ("accepted", "held"):
        text = "Counted for this decision."
        if o.replaces:
            text += " It replaces your earlier orders for it."
        if o.status == "accepted":
            text += " The decision is resolved: the judge mails you the new state (it may arrive before this)."
        return text
    if o.status == "duplicate":
        if o.decision and info is not None and o.decision != current:
            return (f"This envelope was received before and counted once, for decision {o.decision}, which is "
                    "resolved.")
        return "This envelope was received before and is counted once; nothing else to do for this decision."
    if o.status == "late":
        return ((f"It arrived after decision {o.decision} was resolved, so it was not counted."
                 if _named(o, info) else "It arrived after its decision was resolved, so it was not counted.")
                + " It was made from an old game file: make your orders from the game file of the judge's latest "
                  "mail to you.")
    if o.status == "superseded":
        reason = safe_reason(o.reason)
        return f"{reason[:1].upper()}{reason[1:]}."
    if o.status == "unreadable":
        reason = safe_reason(o.reason).rstrip(".")
        return (f"{reason[:1].upper()}{reason[1:]}. Nothing was counted: send it again, the whole "
                "envelope from its BEGIN line to its END line (the page's Copy button copies all of it) pasted "
                "as plain text, or the file the page saves attached. If you use the command line: "
                "koryo-pbm submit ... --out orders.txt writes it.")
    return f"Reason: {safe_reason(o.reason)}"


WRITE_TO_MODERATOR = ("The judge is a program: it reads envelopes and mail commands only. For anything else, write "
                      "to the moderator of the game (the person who set it up and invited you) at their own address, "
                      "not to the judge.")


def help_reply(mail: ParsedMail, to: str, info: GameInfo, player: str, *, key: str,
               game_file: bytes = b"", forwarded: bool = False, received: tuple[str, str] | None = None,
               page: bool = False) -> Outgoing:
    """The answer to a mail with the game's tag but no envelope: what it held (``received``:
    what was sent by mistake and what to send instead), whether it went to the moderator
    (``forwarded``) or whom to write to, and the steps to send orders with the current
    ``game_file`` attached (and the player page, when ``page``)."""
    first = f"{mail.describe()[0].upper()}{mail.describe()[1:]} holds no envelope, so it changed nothing in game {info.tag}."
    lines = [_wrap(first), ""]
    if received is not None:
        what, instead = received
        lines += [_wrap(what + (f" {instead}" if instead else "")), ""]
    lines += [_wrap("It was forwarded to the moderator, who can answer you." if forwarded else WRITE_TO_MODERATOR), ""]
    if info.decision is not None and player in waiting(info):
        lines += ["To send your orders:", "",
                  *_commands(info, player, route="mail", attached=bool(game_file),
                             page="the attached player page (koryo-pbm-player-page.html)" if page else PAGE_HOME), ""]
    lines += [_status_lines(info, player), "",
              _wrap("Mail commands, alone on the first line of a mail to the judge with "
                    f"{subject_tag(info.tag)} in the subject: help, status, resend (the game file), resend page "
                    "(the player page), history, list."), "", SIGNATURE]
    refs = tuple([*mail.references, mail.message_id] if mail.message_id else mail.references)[-10:]
    attach = ((game_attachment(game_file),) if game_file and info.decision is not None and player in waiting(info)
              else ()) + (player_page_attachment() if page else ())
    return Outgoing(key=key, to=to, subject=_reply_subject(info.tag, mail.subject, "no envelope, help"),
                    body="\n".join(lines), in_reply_to=mail.message_id, references=refs, attachments=attach)


def secret_key_reply(mail: ParsedMail, to: str, tag: str, *, key: str, forwarded: bool) -> Outgoing:
    """The answer to a mail that carries a secret key file: said first; nothing of it quoted."""
    body = "\n".join([
        _wrap("WARNING: your mail holds a SECRET KEY FILE. Whoever has it and its passphrase can play your seat. "
              f"{mail.describe()[0].upper()}{mail.describe()[1:]} changed nothing in the game. The judge did not "
              "forward it, but it is still in the judge's mailbox and in your own sent mail: treat the key as "
              "known to others."),
        "",
        _wrap("Make a new key now: in your player page, \"No key yet? Make one\" (if you use the command line: "
              "koryo-pbm keygen NAME). Then "
              + ("the moderator, who has been told, will replace your seat's key with your new public key line: "
                 "send it to them." if forwarded else
                 "write to the moderator of the game (the person who set it up) at their own address: tell them "
                 "your key was exposed and send them your new public key line, so that they replace your seat's "
                 "key.")),
        "",
        _wrap("Never attach the key file to a mail: the judge needs only the envelope the page makes."),
        "",
        SIGNATURE,
    ])
    refs = tuple([*mail.references, mail.message_id] if mail.message_id else mail.references)[-10:]
    return Outgoing(key=key, to=to, subject=f"{subject_tag(tag)} WARNING: your mail holds your secret key",
                    body=body, in_reply_to=mail.message_id, references=refs)


def secret_key_forward(mail: ParsedMail, to: str, tag: str, player: str, address: str, *, key: str) -> Outgoing:
    """The moderator told that a player mailed a secret key file (the mail itself is not attached:
    the key goes nowhere)."""
    body = "\n".join([
        _wrap(f"A mail to the judge about game {tag} (received {mail.received}, mail {mail.short}), from "
              f"{player}'s address ({address}), holds a secret key file. The judge told {player} to make a new "
              "key and did not forward the mail; it is in the judge's folder of handled mail: delete it there."),
        "",
        _wrap(f"If it is {player}'s key, it is exposed: replace the seat's key with the new public key line "
              f"{player} sends you: koryo-pbm replace GAME {player}=NEW-PUBLIC-KEY-LINE (see the "
              "moderators' guide)."),
        "",
        SIGNATURE,
    ])
    return Outgoing(key=key, to=to, subject=f"{subject_tag(tag)} {player} mailed a secret key file", body=body,
                    reply_to=address)


def too_large(mail: ParsedMail, to: str, size: int, limit: int, tag: str, *, key: str) -> Outgoing:
    body = "\n".join([
        _wrap(f"{mail.describe()[0].upper()}{mail.describe()[1:]} is {size // 1024} KiB, more than the "
              f"{limit // (1024 * 1024)} MiB the judge reads, so it was not read. Send the envelope alone, "
              "pasted into the text or as a small attachment."),
        "",
        SIGNATURE,
    ])
    refs = tuple([*mail.references, mail.message_id] if mail.message_id else mail.references)[-10:]
    return Outgoing(key=key, to=to, subject=_reply_subject(tag, mail.subject, "too large, not read"), body=body,
                    in_reply_to=mail.message_id, references=refs)


FORWARD_LIMIT = 1024 * 1024  # bytes of a mail forwarded whole to the moderator (else its head only)


def forward(mail: ParsedMail, raw: bytes, to: str, tag: str, player: str, address: str, *, key: str,
            answered: bool) -> Outgoing:
    """A player's mail without an envelope, forwarded to the moderator's own address: the mail
    attached as it came (``mail-DIGEST.eml``; its first 64 KiB when larger than
    :data:`FORWARD_LIMIT`), replies going to the player. ``answered``: the player had the judge's
    help (else a rate limit held it back)."""
    whole = len(raw) <= FORWARD_LIMIT
    body = "\n".join([
        _wrap(f"A mail to the judge about game {tag} (received {mail.received}, mail {mail.short}) holds no "
              "envelope. Its From line "
              f"names {player}'s address ({address}); anyone can write that line, so do not take it as proof."),
        "",
        _wrap(("It is attached as it came" if whole else
               f"It is {len(raw) // 1024} KiB: its first 64 KiB are attached")
              + f" (mail-{mail.short}.eml). Replying to this mail writes to {address}."),
        "",
        _wrap(f"The judge answered {player} with its help." if answered else
              f"The judge did not answer {player} (at most one automatic answer per hour to an address)."),
        "",
        SIGNATURE,
    ])
    return Outgoing(key=key, to=to, subject=f"{subject_tag(tag)} from {player}: "
                    f"{quote_subject(mail.subject.replace(subject_tag(tag), '')) or '(no subject)'}",
                    body=body, reply_to=address,
                    attachments=((f"mail-{mail.short}.eml", raw if whole else raw[:64 * 1024]),))


# -- state mails ------------------------------------------------------------------------------------


def _is_join(info: GameInfo) -> bool:
    return bool(info.decision) and info.decision.get("kind") == "join"  # type: ignore[union-attr]


def _co_dealer_commands(info: GameInfo, player: str, *, route: str) -> list[str]:
    """What the co-dealer of a blind game does: its serve answers by itself, or by hand."""
    if route == "mail":
        g = f"{info.tag}/game.toml"
        return [
            *_wrap(f"You are the co-dealer of this blind game: `koryo-pbm serve DIR --as {player} --co-dealer` "
                   "with your mail options answers this mail by itself. By hand:", "  ", "  ").split("\n"),
            f"  1. Save the attached game.toml as {g} (a folder of its own).",
            f"  2. koryo-pbm co-deal {g} --as {player} --out answer.txt",
            "  3. Reply to this mail with answer.txt pasted into the text, or attached.",
        ]
    return ["  In this folder (where game.toml is), as the co-dealer:", f"     koryo-pbm co-deal --as {player}"]


PAGE_ATTACHED = "the attached player page (koryo-pbm-player-page.html: keep it, the judge sends it once)"
PAGE_HOME = ("your player page (koryo-pbm-player-page.html, the file that came with the judge's first mail to you; "
             "mail the judge \"resend page\" to get it again)")


def page_steps(info: GameInfo, player: str, *, attached: bool = True, page: str = PAGE_HOME) -> list[str]:
    """What to do with the player page, for someone who has never opened a terminal."""
    what = ("your join (it holds fresh random bytes for the deal: nothing to choose)" if _is_join(info)
            else "your choices")
    save = "Save the attached game.toml." if attached else ("Save game.toml from the judge's latest mail to you (or "
                                                            "mail \"resend\" for it).")
    return [
        *_wrap(f"With {page}:", "  ", "  ").split("\n"),
        *_wrap(f"1. {save}", "  ", "   ").split("\n"),
        *_wrap("2. Open the player page in your browser and drop game.toml on it (and your key file, unless "
               "the page remembers your key).", "  ", "   ").split("\n"),
        *_wrap(f"3. Type your key's passphrase and make {what}: the page signs and seals your answer and "
               "copies it.", "  ", "   ").split("\n"),
        *_wrap("4. Send it: press \"Reply to the judge\" (your mail program opens with it written), or reply to "
               "this mail, paste, and send.", "  ", "   ").split("\n"),
    ]


def _commands(info: GameInfo, player: str, *, route: str, attached: bool = True, page: str = PAGE_HOME) -> list[str]:
    if player == info.co_dealer:
        return _co_dealer_commands(info, player, route=route)
    edit = ("     (it holds your contribution to the deal, fresh random bytes: submit it as it is)"
            if _is_join(info) else "     (then edit orders.toml: your legal choices are listed in it)")
    if route == "mail":
        g = f"{info.tag}/game.toml"
        return [
            *page_steps(info, player, attached=attached, page=page),
            "",
            *_wrap(f"If you use the command line: save game.toml as {g} (a folder of its own), then",
                   "  ").split("\n"),
            f"     koryo-pbm play {g} --as {player} --out orders.txt",
            "  and reply with orders.txt pasted into the text, or attached. Step by step:",
            f"     koryo-pbm show {g} --as {player}",
            f"     koryo-pbm orders {g} --as {player} -o orders.toml",
            "  " + edit,
            f"     koryo-pbm submit orders.toml --as {player} --game {g} --out orders.txt",
            f"  (--as {player}: the name of your key, if you gave it another one)",
        ]
    # a report lies next to the game file: its commands run from that folder (no path needed)
    return [
        "  In this folder (where game.toml is), either answer from menus of your legal choices:",
        f"     koryo-pbm play --as {player}",
        "  or step by step:",
        f"  1. koryo-pbm show --as {player}",
        f"  2. koryo-pbm orders --as {player} -o orders.toml",
        edit,
        f"  3. koryo-pbm submit orders.toml --as {player}",
        "  (either way your orders go into the shared folder's inbox; the judge resolves when all are in)",
    ]


def _status_lines(info: GameInfo, player: str) -> str:
    if info.decision is None:
        return _wrap(f"Game {info.tag} is over.")
    missing = waiting(info)
    d = info.decision
    if _is_join(info):
        text = ("The cards are not dealt yet: every player joins first, and the deal comes from the moderator's "
                f"committed secret and every player's contribution. Decision {d['id']}: {waiting_text(info)}.")
        text += " It is your turn: join the game." if player in missing else " You have joined."
        text += f" Deadline: {info.deadline}." if info.deadline else " There is no deadline."
        return _wrap(text)
    where = f"Round {info.round}, decision {d['id']}" if info.round is not None else f"Decision {d['id']}"
    text = f"{where} ({d.get('kind', 'orders')}): {waiting_text(info)}."
    text += " It is your turn." if player in missing else (
        " Your orders are in." if player in d.get("waiting_for", []) else " Nothing is needed from you now.")
    text += f" Deadline: {info.deadline}." if info.deadline else " There is no deadline."
    return _wrap(text)


def state_subject(info: GameInfo, player: str) -> str:
    where = f"round {info.round}" if info.round is not None else (
        f"decision {info.decision['id']}" if info.decision else "")
    if info.decision is None:
        return f"{subject_tag(info.tag)} game over"
    if _is_join(info):
        if player in waiting(info):
            return f"{subject_tag(info.tag)} your turn: join the game"
        return f"{subject_tag(info.tag)} join: {waiting_text(info)}"
    if not info.log:
        now = "the game starts, your turn" if player in waiting(info) else "the game starts"
        return f"{subject_tag(info.tag)} {where}: {now}"
    if player in waiting(info):
        return f"{subject_tag(info.tag)} {where}: your turn"
    return f"{subject_tag(info.tag)} {where}: {waiting_text(info)}"


def report(info: GameInfo, player: str, since_version: int, *, route: str, page: bool = False) -> str:
    """The per-player text after the game starts or moves on: what happened since version
    ``since_version`` (public events), whose turn it is, the deadline, and the commands to run."""
    lines = [_wrap(f"{info.title} game {info.tag} ({info.game_id}), version {info.version}, for {player}."), ""]
    entries = [e for e in info.log if int(e.get("version", 0)) > since_version]
    if not info.log:
        lines += [_wrap(f"The game starts. Players in seat order: {', '.join(info.players)}."), ""]
    elif entries:
        lines += ["What happened since the last mail:", ""]
        for e in entries:
            lines.append(f"  {e.get('decision')}:")
            for event in e.get("events", []):
                lines.append(_wrap(str(event), "    ", "  "))
        lines.append("")
    lines += [_status_lines(info, player), ""]
    if info.decision is not None and player in waiting(info):
        lines += ["What to do now:", "", *_commands(info, player, route=route, page=PAGE_ATTACHED if page
                                                       else PAGE_HOME), ""]
    elif route == "mail" and page:
        lines += [_wrap("Attached: your player page (koryo-pbm-player-page.html). Keep it: open it in your browser "
                        "with the game file when the judge says it is your turn."), ""]
    elif info.decision is None:
        at = f" {info.tag}/game.toml" if route == "mail" else ""  # a report: in its own folder
        if route == "mail":  # the commands need the final file, not the last one the player saved
            lines += [_wrap("The game is over; nothing more is needed from you. The final game file is attached: "
                            "open it in your player page to see the final table and the scores."), "",
                      _wrap(f"If you use the command line: save it as {info.tag}/game.toml (over the one you have). "
                            f"Final state: koryo-pbm show{at} --as {player}. The seed and every order are published "
                            f"in the game file, so anyone can check the whole game: koryo-pbm verify{at} --as "
                            f"{player}"), ""]
        else:
            lines += [_wrap(f"Final state: koryo-pbm show{at} --as {player}. The seed and every order are published "
                            f"in the game file, so anyone can check the whole game: koryo-pbm verify{at} --as "
                            f"{player}"), ""]
    return "\n".join(lines)


PLAYER_PAGE_NAME = "koryo-pbm-player-page.html"


def game_attachment(game_file: bytes) -> tuple[str, bytes]:
    """The game file as players get it: its player copy (``game.toml``), without the moderator's
    sealed part, which no player can open (its digest stands for it: the same signature, the
    same version; see :func:`koryo_pbm.store.playercopy.player_copy`)."""
    return ("game.toml", _player_copy(game_file))


@lru_cache(maxsize=4)
def _player_copy(game_file: bytes) -> bytes:
    """The player copy of ``game_file``, made once for the state mails of every player of a
    version (the same bytes object each time, so its attachment's encoding is remembered too)."""
    from koryo_pbm.store.playercopy import player_copy

    return player_copy(game_file)


def player_page_attachment() -> tuple[tuple[str, bytes], ...]:
    """The player page of this release, as an attachment (the same bytes for every game)."""
    from koryo_pbm.assets import player_page

    return ((PLAYER_PAGE_NAME, player_page()),)


def state_mail(info: GameInfo, player: str, to: str, since_version: int, game_file: bytes, *, key: str,
               page: bool = False) -> Outgoing:
    """The mail to ``player`` after the game starts or moves on, with ``game.toml`` attached (and
    the player page, when ``page``)."""
    body = report(info, player, since_version, route="mail", page=page) + "\n" + SIGNATURE
    return Outgoing(key=key, to=to, subject=state_subject(info, player), body=body,
                    attachments=(game_attachment(game_file), *(player_page_attachment() if page else ())))


def reminder(info: GameInfo, player: str, to: str, *, deadline: str, left: str, next_step: str,
             key: str, overdue: bool = False, game_file: bytes = b"") -> Outgoing:
    """The reminder to ``player``, still missing, some time before the deadline; ``overdue``:
    one of the reminders that go on after it while the game waits. Its steps begin with saving
    the attached game file: ``game_file`` is attached."""
    d = info.decision or {}
    when = (f"The deadline was {deadline} ({left}): {next_step}." if overdue
            else f"The deadline is {deadline} ({left}). If your orders are not in by then, {next_step}.")
    lines = [
        _wrap(f"Reminder: {info.title} game {info.tag} ({info.game_id}) waits for your orders for decision "
              f"{d.get('id')}."),
        "",
        _wrap(when),
        "",
        "What to do now:",
        "",
        *_commands(info, player, route="mail"),
        "",
        SIGNATURE,
    ]
    subject = (f"{subject_tag(info.tag)} reminder: the game waits for your orders for {d.get('id')}" if overdue
               else f"{subject_tag(info.tag)} reminder: your orders for {d.get('id')} are due {deadline}")
    return Outgoing(key=key, to=to, subject=subject, body="\n".join(lines),
                    attachments=(game_attachment(game_file),) if game_file else ())


def late_notice(info: GameInfo, player: str, to: str, *, late: Sequence[str], deadline: str, next_step: str,
                key: str, game_file: bytes = b"") -> Outgoing:
    """The notice to every player once the deadline has passed with ``late`` players missing;
    a late player's says what to do, beginning with saving ``game_file``, attached to it."""
    d = info.decision or {}
    from koryo_pbm.waiting import waiting_words

    names = ", ".join(late)
    you = player in late
    lines = [
        _wrap(f"The deadline of decision {d.get('id')} of {info.title} game {info.tag} ({info.game_id}) passed at "
              f"{deadline}."),
        "",
        _wrap(f"Late: {names}." + (" That includes you." if you else "")),
        "",
        _wrap(f"What happens next: {next_step}."),
        "",
    ]
    if you:
        lines += ["Your orders are still taken until the game moves on:", "", *_commands(info, player, route="mail"), ""]
    lines.append(SIGNATURE)
    return Outgoing(key=key, to=to, subject=f"{subject_tag(info.tag)} deadline passed: {waiting_words(late)}",
                    body="\n".join(lines), attachments=(game_attachment(game_file),) if game_file and you else ())
