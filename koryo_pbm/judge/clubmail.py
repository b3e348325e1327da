"""What the judge's club mails say: invitations and sign-up answers, the answers to mail commands
(help, status, resend, history, list), relayed press, and the light state mails of
``--state-mail turn``. Pure functions from public facts to an :class:`Outgoing` mail, as
:mod:`koryo_pbm.judge.messages`; nothing here reads a file, a clock, or a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from koryo_pbm.judge.incoming import ParsedMail
from koryo_pbm.judge.messages import (
    SIGNATURE,
    GameInfo,
    Outgoing,
    _commands,
    _status_lines,
    _wrap,
    game_attachment,
    player_page_attachment,
    report,
    subject_tag,
    waiting,
    waiting_text,
)

COMMANDS = ("help", "status", "resend", "resend page", "history", "list")


def _reply(mail: ParsedMail, to: str, tag: str, what: str, body: str, *, key: str,
           attachments: tuple[tuple[str, bytes], ...] = ()) -> Outgoing:
    refs = tuple([*mail.references, mail.message_id] if mail.message_id else mail.references)[-10:]
    return Outgoing(key=key, to=to, subject=f"{subject_tag(tag)} {what}", body=body.rstrip("\n") + "\n\n" + SIGNATURE,
                    in_reply_to=mail.message_id, references=refs, attachments=attachments)


# -- sign-up ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invitation:
    tag: str
    title: str
    seat: str
    seats: Sequence[str]
    code: str
    answer_by: str  # human
    deadlines: str = ""  # "time to answer: 3d" when the game has deadlines


def invitation(inv: Invitation, to: str, *, key: str) -> Outgoing:
    others = [s for s in inv.seats if s != inv.seat]
    lines = [
        _wrap(f"You are invited to play {inv.title} by mail, in the game {inv.tag}: {len(inv.seats)} players "
              f"({', '.join(inv.seats)}), your seat is {inv.seat}."
              + (f" The others: {', '.join(others)}." if others else "")),
        "",
        _wrap("The judge at this address runs the game: it mails each player the game file and what to do, and "
              "takes the orders you mail back, signed and sealed by your player page (or koryo-pbm) on your "
              "computer. Your cards are sealed to your key: only you and the moderator, who deals them, can see them."
              + (f" Once the game runs, each decision has a deadline ({inv.deadlines})." if inv.deadlines else "")),
        "",
        _wrap(f"To take the seat, answer by {inv.answer_by}, with the attached player page "
              "(koryo-pbm-player-page.html: nothing to install; keep it, you play with it):"),
        "",
        "  1. Save the attached koryo-pbm-player-page.html and open it in your browser.",
        *_wrap(f"2. Under \"No key yet? Make one\", give your name {inv.seat} and a passphrase, make the key, and "
               "save the key file it offers (keep it, and never send it to anyone).", "  ", "   ").split("\n"),
        *_wrap("3. Copy the public key line it shows (it begins koryo-pbm-pub-v1:), reply to this mail, paste "
               "it into the text, and send. Keep the subject: it holds your invitation code.",
               "  ", "   ").split("\n"),
        "",
        _wrap("The judge answers with your key's fingerprint: compare it with the fingerprint your page showed "
              "when it made the key. When every seat is taken the game starts and you get the game file with the "
              "next steps. Not interested? Ignore this mail: the moderator hears of seats not taken."),
        "",
        _wrap(f"If you use the command line instead: install koryo-pbm (Python 3.11 or later; the moderator has "
              f"its address), run koryo-pbm keygen {inv.seat}, and reply with the public key line it prints; "
              "compare the fingerprint with the one it printed. `koryo-pbm player-page --check` tells whether a "
              "page is the genuine one."),
        "",
    ]
    return Outgoing(key=key, to=to, subject=f"{subject_tag(inv.tag)} invitation: seat {inv.seat} in a {inv.title} game "
                                            f"(code {inv.code})", body="\n".join(lines) + "\n" + SIGNATURE,
                    attachments=player_page_attachment())


def seat_answer(mail: ParsedMail, to: str, tag: str, seat: str, *, status: str, reason: str, fingerprint: str,
                missing: Sequence[str], key: str) -> Outgoing:
    if status in ("taken", "again"):
        text = [_wrap(f"Seat {seat} of game {tag} is yours, with the key of fingerprint {fingerprint}."
                      + (" (This key had taken it already.)" if status == "again" else "")), "",
                _wrap("Compare it with the fingerprint your player page showed when it made your key (if you use "
                      "the command line: the one `koryo-pbm keygen` printed). If they differ, tell the moderator at "
                      "once."), "",
                _wrap(f"The game starts when every seat is taken; still open: {', '.join(missing)}." if missing
                      else "Every seat is taken: the game starts now; its first mail follows.")]
        return _reply(mail, to, tag, f"seat {seat} taken, fingerprint {fingerprint}", "\n".join(text), key=key)
    return _reply(mail, to, tag, f"seat {seat}: key not taken",
                  _wrap(f"Your key was not taken for seat {seat}: {reason}.") + "\n\n"
                  + _wrap("Send the public key line your player page shows (it begins koryo-pbm-pub-v1:), alone, in "
                          "a reply to your invitation; never the key file."), key=key)


# -- mail commands ---------------------------------------------------------------------------------


def help_text(tag: str) -> str:
    t = subject_tag(tag)
    return "\n".join([
        _wrap("To play, use your player page (koryo-pbm-player-page.html): open it in your browser, drop on it the "
              "game.toml of the judge's latest mail and choose: the page signs, seals and copies your answer; press "
              "\"Reply to the judge\", or paste it into a reply to that mail. Replies to the judge's mails keep the game's tag in the subject."),
        "",
        _wrap(f"Mail commands: write one of these words alone on the first line of a mail to the judge, with {t} "
              "in the subject:"),
        "",
        "  help         this list",
        "  status       the game's public state: the decision, who answered, who is awaited",
        "  resend       the current game.toml, attached",
        "  resend page  the player page, attached",
        "  history      the public log of the game",
        "  list         the games this judge runs that you play",
        "",
        _wrap("Press to other players: the press block is pasted into a mail to the judge; the judge relays it and "
              "cannot read it. Anything else (a question, a problem): write to the moderator of the game."),
        "",
        _wrap("If you use the command line: orders are the envelope koryo-pbm submit --out makes, pasted into a "
              "mail (or attached); press is what koryo-pbm say --out makes."),
        "",
    ])


def command_help(mail: ParsedMail, to: str, tag: str, *, key: str) -> Outgoing:
    return _reply(mail, to, tag, "help", help_text(tag), key=key)


def status_text(info: GameInfo, player: str) -> str:
    lines = [_wrap(f"{info.title} game {info.tag} ({info.game_id}), version {info.version}."), "",
             _status_lines(info, player), ""]
    if info.decision is not None and player in waiting(info):
        lines += [_wrap("To answer: open the game.toml of the judge's latest mail to you in your player page (mail "
                        "\"resend\" to get the current one), choose, and paste the envelope into a reply."), ""]
    return "\n".join(lines)


def command_status(mail: ParsedMail, to: str, info: GameInfo, player: str, *, key: str) -> Outgoing:
    return _reply(mail, to, info.tag, "status", status_text(info, player), key=key)


def command_resend(mail: ParsedMail, to: str, info: GameInfo, player: str, game_file: bytes, *, key: str) -> Outgoing:
    body = "\n".join([_wrap(f"The current game.toml of {info.tag} (version {info.version}) is attached."), "",
                      _status_lines(info, player), ""])
    if info.decision is not None and player in waiting(info):
        body += "\n" + "\n".join(["What to do now:", "", *_commands(info, player, route="mail"), ""])
    return _reply(mail, to, info.tag, f"resend: game.toml version {info.version}", body, key=key,
                  attachments=(game_attachment(game_file),))


def command_resend_page(mail: ParsedMail, to: str, info: GameInfo, player: str, *, key: str) -> Outgoing:
    body = "\n".join([
        _wrap("Your player page is attached (koryo-pbm-player-page.html). Save it and open it in your browser: drop "
              "on it the game.toml of the judge's latest mail (mail \"resend\" for the current one). Your key stays "
              "in your browser or in the key file you saved."), "",
        _wrap("If you use the command line: koryo-pbm player-page --check koryo-pbm-player-page.html tells whether a "
              "page is the genuine one of your koryo-pbm."), "",
        _status_lines(info, player), ""])
    return _reply(mail, to, info.tag, "resend page: the player page", body, key=key,
                  attachments=player_page_attachment())


def command_history(mail: ParsedMail, to: str, info: GameInfo, lines: Sequence[str], *, key: str) -> Outgoing:
    body = "\n".join([_wrap(f"The public log of {info.title} game {info.tag} ({info.game_id}), version "
                            f"{info.version}:"), "", *(lines or ["(nothing yet: the game has not moved on)"]), ""])
    return _reply(mail, to, info.tag, "history", body, key=key)


def command_list(mail: ParsedMail, to: str, tag: str, games: Sequence[tuple[GameInfo, str]], *, key: str,
                 untagged: bool = False) -> Outgoing:
    """The games the player plays; ``untagged``: the answer to a mail without a game's tag."""
    lines = [_wrap("Your mail has no game tag in its subject, so the judge cannot tell which game it is about: "
                   "to send orders or a command for a game, reply to the judge's latest mail of that game (its "
                   "subject holds the tag), or write the tag, as below, in the subject."), ""] if untagged else []
    lines += [_wrap(f"The games this judge runs that {to} plays:"), ""]
    for info, player in games:
        d = info.decision
        if d is None:
            state = "over"
        else:
            where = f"round {info.round}, " if info.round is not None else ""
            state = (f"{where}{d['id']}: {waiting_text(info)}" + ("; your turn" if player in waiting(info) else "")
                     + (f"; deadline {info.deadline}" if info.deadline else ""))
        lines.append(_wrap(f"* {subject_tag(info.tag)} ({info.title}) as {player}: {state}", "", "  "))
    return _reply(mail, to, tag, "list", "\n".join(lines) + "\n", key=key)


# -- press -----------------------------------------------------------------------------------------


def press_relay(info: GameInfo, to: str, player: str, sender: str, recipients: Sequence[str], armored: str, *,
                key: str) -> Outgoing:
    g = f"{info.tag}/game.toml"
    others = [r for r in recipients if r != player]
    lines = [
        _wrap(f"Press from {sender} in game {info.tag}, for you" + (f" and {', '.join(others)}" if others else "")
              + ". It is sealed to you: the judge relayed it and cannot read it."),
        "",
        _wrap("To read it: open your player page, drop on it (or paste into it) the block below, from its BEGIN "
              "line to its END line, and type your key's passphrase."),
        "",
        _wrap(f"If you use the command line: save this mail (or the block below) as press.txt and run: koryo-pbm "
              f"read press.txt --as {player} --game {g}"),
        "",
        armored.rstrip("\n"),
        "",
    ]
    return Outgoing(key=key, to=to, subject=f"{subject_tag(info.tag)} press from {sender}",
                    body="\n".join(lines) + "\n" + SIGNATURE)


def press_answer(mail: ParsedMail, to: str, tag: str, *, relayed: Sequence[str], refused: str, key: str) -> Outgoing:
    if refused:
        return _reply(mail, to, tag, "press not relayed", _wrap(f"Your press was not relayed: {refused}. "
                                                                "Nothing was sent."), key=key)
    return _reply(mail, to, tag, f"press relayed to {', '.join(relayed)}",
                  _wrap(f"Your press was relayed to {', '.join(relayed)}."), key=key)


# -- light state mails -----------------------------------------------------------------------------


def decision_subject(info: GameInfo, player: str) -> str:
    """The subject of a state mail, naming the decision: ``round 3: your action turn``,
    ``round 3: discard, waiting for bob``."""
    d = info.decision
    if d is None:
        return f"{subject_tag(info.tag)} game over"
    kind = d.get("kind", "orders")
    if kind == "join":
        return (f"{subject_tag(info.tag)} your turn: join the game" if player in waiting(info)
                else f"{subject_tag(info.tag)} join: {waiting_text(info)}")
    where = f"round {info.round}" if info.round is not None else f"decision {d['id']}"
    start = "the game starts, " if not info.log else ""
    named = "" if kind == "turn" else kind  # a game whose decisions are all "turn"s
    if player in waiting(info):
        return f"{subject_tag(info.tag)} {where}: {start}your {named + ' ' if named else ''}turn"
    return f"{subject_tag(info.tag)} {where}: {start}{named + ', ' if named else ''}{waiting_text(info)}"


def light_state_mail(info: GameInfo, player: str, to: str, since_version: int, game_file: bytes, *, key: str,
                     full: bool, page: bool = False) -> Outgoing:
    """The mail to ``player`` after the game moves on: with ``game.toml`` when ``full`` (the
    player must act, or the game is over), else what happened and a pointer to ``resend``; with
    the player page when ``page`` (the first mail of this release to the address)."""
    body = report(info, player, since_version, route="mail", page=page)
    if not full:
        body += "\n" + _wrap(f"No game file is attached: you have nothing to do now. For the current one, mail the "
                             f"judge \"resend\" with {subject_tag(info.tag)} in the subject.") + "\n"
    return Outgoing(key=key, to=to, subject=decision_subject(info, player), body=body + "\n" + SIGNATURE,
                    attachments=((game_attachment(game_file),) if full else ()) + (player_page_attachment() if page
                                                                                   else ()))
