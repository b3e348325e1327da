"""``serve ROOT --as carl``: the co-dealer's side of the judge, by shared folder.

Each game folder under ROOT (or ROOT itself) whose file is a blind game with this key as its
co-dealer is looked at on every pass: when its pending decision waits for the co-dealer, the
answer (:func:`koryo_pbm.match.codealer.answer`, which checks everything against the public file first)
is signed, sealed to the moderator and dropped into the game's inbox, where the moderator's
judge or ``resolve`` counts it. Games of which the key is not the co-dealer are left alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from koryo_pbm.errors import KoryoPbmError, NotForYou, StorageError
from koryo_pbm.store.folder import GAME_FILE
from koryo_pbm.values import ID


def _folders(root: Path) -> list[Path]:
    if (root / GAME_FILE).is_file():
        return [root]
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise StorageError(f"cannot list {root}: {exc.strerror or exc}") from None
    return [root / n for n in names if not n.startswith(".") and (root / n / GAME_FILE).is_file()]


def co_dealt_games(root: Path, identity: Any) -> list[Path]:
    """The game folders under ``root`` whose co-dealer is ``identity``."""
    from koryo_pbm import blind
    from koryo_pbm.store import gamefile

    found = []
    for folder in _folders(Path(root)):
        try:
            doc = gamefile.read_game(folder / GAME_FILE)
            if doc.deal == "blind" and doc.players.get(blind.co_dealer_of(doc)) == identity.public:
                found.append(folder)
        except KoryoPbmError:
            continue
    return found


def serve_once(root: Path, identity: Any, log: Callable[[str], None],
               clock: Callable[[], float] | None = None) -> int:
    """One pass over ``root``: every game waiting for this co-dealer answered. Returns how many."""
    from koryo_pbm.match.codealer import answer
    from koryo_pbm.store import gamefile, inbox

    answered = 0
    for folder in co_dealt_games(Path(root), identity):
        try:
            doc = gamefile.read_game(folder / GAME_FILE)
            now = datetime.fromtimestamp(clock(), UTC) if clock else datetime.now(UTC)
            done = answer(doc, folder, identity, submitted=now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            if done.envelope is None:
                continue
            inbox.drop(folder, done.envelope)
        except NotForYou:
            continue
        except KoryoPbmError as exc:
            log(f"co-dealer {identity.name}: game {folder.name}: {exc}")
            continue
        answered += 1
        log(f"co-dealer {done.co_dealer}: answered {done.decision} of game {doc.game_id} ({folder.name})")
    return answered


# -- by mail -------------------------------------------------------------------------------------

CO_DEALER_HEADER = "X-Koryo-Pbm-Co-Dealer"  # on the co-dealer's own mails (one that comes back is not read)
ANSWERS = "answers"  # ROOT/<game id>/answers/<decision>.txt: the envelope sent for each decision


def _head(data: bytes) -> bytes:
    """A mail's header block, lower-case, LF line ends, beginning with a line end."""
    head = data[:65536].replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    return b"\n" + head.lower()


def _game_attachment(data: bytes) -> bytes | None:
    """The ``game.toml`` attached to a mail (the first one), or None."""
    import email
    import email.policy

    from koryo_pbm.store.gamedoc import MAX_GAME_FILE

    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
        for part in message.walk():
            if part.get_filename() == GAME_FILE and not part.is_multipart():
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes) and len(payload) <= MAX_GAME_FILE:
                    return payload
    except Exception:  # a mail the parser cannot make sense of carries no game file
        return None
    return None


JUDGE_ADDRESS = "judge-address"  # ROOT/<game id>/judge-address: the address its answers for the game go to


@dataclass
class MailCoDealer:
    """``serve ROOT --as carl`` with mail options: the co-dealer answers the moderator's judge.

    Each mail of each source is read once. A mail carrying a ``game.toml`` of a blind game whose
    co-dealer is this key, signed by the moderator first seen for that game (pinned, as for a
    player: :mod:`koryo_pbm.pinning`), not older than a file seen before, whose pending decision
    waits for the co-dealer, is answered: the signed envelope (sealed to the moderator) goes to
    the game's judge, in a reply marked ``Auto-Submitted: auto-replied`` (the judge counts it
    and answers nothing). The newest file of each game is kept as ``ROOT/<game id>/game.toml``,
    its mails in ``ROOT/<game id>/outbox/`` (sent as the judge sends its own: retried, never
    lost). The answer to a decision is made once and kept (``answers/<decision>.txt``): a
    reminder for a decision already answered gets the same envelope again, which the judge
    counts once. Everything else is logged in one line and not answered: the co-dealer sends
    nothing but its answers.

    It is no relay (issue 29): anyone can put any address in a mail's ``From`` and attach a
    copy of a game file, so the co-dealer answers a game only at the address of its judge,
    the sender of the first mail it answered for that game (``ROOT/<game id>/judge-address``;
    with ``judges``, ``serve --judge``, only one of those addresses may be it; mails about the
    game from anywhere else are logged and not answered); its subject and body
    are its own (never the incoming subject); and a same answer sent again is an automatic
    answer under the moderator's judge's own limit (:data:`koryo_pbm.judge.limits.AUTOMATIC_ANSWER`:
    one an hour per game and address). A decision's first answer is the one the game needs:
    made once, to the game's judge only."""

    root: Path
    identity: Any
    sources: list[Any]
    sender: Any
    from_header: str
    log: Callable[[str], None]
    clock: Callable[[], float] = time.time
    retry_base: float = 60.0
    limits: Any = None  # koryo_pbm.judge.limits.Limits, under ROOT (made at the first use)
    judges: list[str] = field(default_factory=list)  # --judge: the only addresses a game's judge may be

    def _limits(self) -> Any:
        if self.limits is None:
            from koryo_pbm.judge.limits import LIMITS_FILE, STATE_DIR, Limits

            self.limits = Limits(Path(self.root) / STATE_DIR / LIMITS_FILE, clock=lambda: self.clock(),
                                 log=lambda line: self.log(f"co-dealer {self.identity.name}: {line}"))
        return self.limits

    def run_once(self) -> None:
        for source in self.sources:
            self._poll(source)
        self._flush()

    def wait(self, timeout: float) -> None:
        for source in self.sources:
            source.wait(timeout)
            return
        time.sleep(timeout)

    def _poll(self, source: Any) -> None:
        from koryo_pbm.transport.sources import SourceError

        try:
            for mail in source.fetch():
                try:
                    handled = self._handle(mail)
                except (KoryoPbmError, OSError) as exc:  # this mail only: logged, tried again next pass
                    self.log(f"co-dealer {self.identity.name}: {mail.label}: {exc}; kept for the next pass")
                    continue
                if handled:
                    source.mark_handled(mail)
        except SourceError as exc:
            self.log(f"co-dealer {self.identity.name}: cannot read {source.label}: {exc}; trying again later")

    def _handle(self, mail: Any) -> bool:
        """Handle one mail: True once done with it (moved to the done folder), False for a mail
        that is not about a game (left where it is)."""
        import hashlib

        from koryo_pbm.judge.incoming import JUDGE_HEADER, parse_mail

        name = self.identity.name
        parsed = parse_mail(mail.data, mail.label, head_only=True)
        parsed.digest = hashlib.sha256(mail.data).hexdigest()
        said = f"co-dealer {name}: {parsed.names()}"
        if mail.truncated:
            self.log(f"{said}: {mail.size} bytes, too large: not read")
            return True
        head = _head(mail.data)
        if b"\n" + CO_DEALER_HEADER.lower().encode() + b":" in head:
            self.log(f"{said}: one of the co-dealer's own mails came back; not answered")
            return True
        data = _game_attachment(mail.data)
        if data is None:
            from_judge = b"\n" + JUDGE_HEADER.lower().encode() + b":" in head
            if from_judge or parsed.tags:
                self.log(f"{said}: no game file attached; nothing to answer")
                return True
            return False  # not a game's mail: left alone
        self._answer_file(data, parsed, said)
        return True

    def _answer_file(self, data: bytes, parsed: Any, said: str) -> None:
        from koryo_pbm import blind, pinning
        from koryo_pbm.errors import TamperedError
        from koryo_pbm.judge.outbox import is_queued, queue
        from koryo_pbm.match.codealer import answer
        from koryo_pbm.store import gamefile
        from koryo_pbm.store.atomic import write_atomic

        try:
            doc = gamefile.decode(data, source="the attached game.toml")
        except KoryoPbmError as exc:
            self.log(f"{said}: {exc}; not answered")
            return
        try:
            carl = blind.co_dealer_of(doc)
        except KoryoPbmError:
            carl = None
        if carl is None or doc.players.get(carl) != self.identity.public:
            self.log(f"{said}: game {doc.game_id} is not a blind game of which {self.identity.name} is the "
                     "co-dealer; not answered")
            return
        if not ID.fits(doc.game_id):
            self.log(f"{said}: game id {doc.game_id[:40]!r} cannot name a folder; not answered")
            return
        try:
            sight = pinning.pin(doc, gamefile.signed_bytes(doc))
        except TamperedError as exc:
            self.log(f"{said}: {exc}; not answered")
            return
        if sight.older is not None:
            self.log(f"{said}: {sight.older.sentence()}; not answered")
            return
        folder = Path(self.root) / doc.game_id
        folder.mkdir(exist_ok=True)
        write_atomic(folder / GAME_FILE, data)
        decision = doc.decision
        if decision is None or carl not in decision.get("waiting_for", []) or carl in decision.get("received", []):
            waits = "nobody (it is over)" if decision is None else (
                ", ".join(p for p in decision.get("waiting_for", []) if p not in decision.get("received", []))
                or "nobody")
            self.log(f"{said}: game {doc.game_id} version {doc.version} waits for {waits}; nothing to answer")
            return
        if parsed.sender is None:
            self.log(f"{said}: the mail has no sender address to answer; not answered")
            return
        to = self._judge_of(folder, doc.game_id, parsed.sender, said)
        if to is None:
            return
        kept = folder / ANSWERS / f"{decision['id']}.txt"
        limited = kept.is_file()  # the same answer again: an automatic answer, within the judge's limit
        if limited:
            from koryo_pbm.judge.limits import AUTOMATIC_ANSWER

            if not self._limits().allowed(AUTOMATIC_ANSWER, game=doc.game_id, address=to):
                self._limits().take(AUTOMATIC_ANSWER, game=doc.game_id, address=to,
                                    why=f"the answer to {decision['id']} again")  # refused: logs it
                return
            armored = kept.read_text(encoding="ascii")
            again = " again (the same envelope)"
        else:
            now = datetime.fromtimestamp(self.clock(), UTC)
            done = answer(doc, folder, self.identity, submitted=now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            if done.envelope is None:
                self.log(f"{said}: {done.why}; nothing to answer")
                return
            armored = done.envelope.armor()
            kept.parent.mkdir(exist_ok=True)
            write_atomic(kept, armored.encode("ascii"))
            again = ""
        out = answer_mail(carl, doc.game_id, decision["id"], armored, to=to, key=f"answer-{decision['id']}-{parsed.short}",
                          in_reply_to=parsed.message_id)
        if is_queued(folder, out.key):
            return
        queue(folder, out, from_header=self.from_header, game_id=doc.game_id, tag=doc.game_id, now=self.clock(),
              mark=CO_DEALER_HEADER)
        if limited:
            from koryo_pbm.judge.limits import AUTOMATIC_ANSWER
            from koryo_pbm.judge.outbox import safe_key

            self._limits().take(AUTOMATIC_ANSWER, game=doc.game_id, address=to,
                                why=f"the answer to {decision['id']} again", mail=safe_key(out.key))
        self.log(f"co-dealer {carl}: answered {decision['id']} of game {doc.game_id}{again}, queued for {to}")

    def _judge_of(self, folder: Path, game_id: str, sender: str, said: str) -> str | None:
        """The address this co-dealer answers game ``game_id`` at: its judge's, the sender of
        the first mail it answered for the game (kept in ``folder``); ``None`` (logged) for a
        mail from any other address."""
        from koryo_pbm.store.atomic import write_atomic
        from koryo_pbm.transport.address import same_address

        path = folder / JUDGE_ADDRESS
        try:
            known = path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            if self.judges and not any(same_address(sender, judge) for judge in self.judges):
                self.log(f"{said}: game {game_id} is answered only at a judge's address given with --judge, "
                         "not at the sender's; not answered")
                return None
            write_atomic(path, (sender + "\n").encode("utf-8"))
            return sender
        except (OSError, UnicodeDecodeError) as exc:
            self.log(f"{said}: cannot read {path}: {exc}; not answered")
            return None
        if same_address(known, sender):
            return known
        self.log(f"{said}: game {game_id} is answered at its judge's address only ({known}), not at the "
                 "sender's; not answered")
        return None

    def _flush(self) -> None:
        from koryo_pbm.judge import outbox

        failed: list[str] = []
        for folder in _folders_with_outbox(Path(self.root)):
            try:
                outbox.flush(folder, self.sender, now=self.clock(), retry_base=self.retry_base, log=self.log,
                             failed=failed.append)
            except KoryoPbmError as exc:
                self.log(f"co-dealer {self.identity.name}: the outbox of {folder}: {exc}")
        for key in failed:  # reached nobody: it no longer counts against the limit
            self._limits().refund(key)


def answer_mail(co_dealer: str, game_id: str, decision: str, armored: str, *, to: str, key: str,
                in_reply_to: str | None = None) -> Any:
    """The co-dealer's answer as a mail: its subject and body are its own words and the
    envelope, never anything of the mail it answers (a pure function; queueing it is the edge)."""
    from koryo_pbm.judge.messages import Outgoing

    return Outgoing(key=key, to=to, subject=f"[koryo-pbm {game_id}] {co_dealer}'s answer to {decision}",
                    body=f"{co_dealer}'s answer to {decision} of game {game_id}, as its co-dealer.\n\n{armored}\n",
                    in_reply_to=in_reply_to)


def _folders_with_outbox(root: Path) -> list[Path]:
    from koryo_pbm.judge.outbox import outbox_dir, pending

    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise StorageError(f"cannot list {root}: {exc.strerror or exc}") from None
    return [root / n for n in names if not n.startswith(".") and outbox_dir(root / n).is_dir() and pending(root / n)]
