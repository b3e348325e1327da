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
from dataclasses import dataclass
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


@dataclass
class MailCoDealer:
    """``serve ROOT --as carl`` with mail options: the co-dealer answers the moderator's judge.

    Each mail of each source is read once. A mail carrying a ``game.toml`` of a blind game whose
    co-dealer is this key, signed by the moderator first seen for that game (pinned, as for a
    player: :mod:`koryo_pbm.pinning`), not older than a file seen before, whose pending decision
    waits for the co-dealer, is answered: the signed envelope (sealed to the moderator) goes to
    the mail's sender, in a reply marked ``Auto-Submitted: auto-replied`` (the judge counts it
    and answers nothing). The newest file of each game is kept as ``ROOT/<game id>/game.toml``,
    its mails in ``ROOT/<game id>/outbox/`` (sent as the judge sends its own: retried, never
    lost). The answer to a decision is made once and kept (``answers/<decision>.txt``): a
    reminder for a decision already answered gets the same envelope again, which the judge
    counts once. Everything else is logged in one line and not answered: the co-dealer sends
    nothing but its answers."""

    root: Path
    identity: Any
    sources: list[Any]
    sender: Any
    from_header: str
    log: Callable[[str], None]
    clock: Callable[[], float] = time.time
    retry_base: float = 60.0

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
        from koryo_pbm.judge.messages import Outgoing
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
        kept = folder / ANSWERS / f"{decision['id']}.txt"
        if kept.is_file():
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
        if parsed.sender is None:
            self.log(f"{said}: the mail has no sender address to answer; not answered")
            return
        subject = parsed.subject if parsed.subject.lower().startswith("re:") else f"Re: {parsed.subject}"
        out = Outgoing(key=f"answer-{decision['id']}-{parsed.short}", to=parsed.sender, subject=subject[:200],
                       body=f"{carl}'s answer to {decision['id']} of game {doc.game_id}, as its co-dealer.\n\n"
                            f"{armored}\n",
                       in_reply_to=parsed.message_id, references=tuple(parsed.references[-5:]) + (
                           (parsed.message_id,) if parsed.message_id else ()))
        if is_queued(folder, out.key):
            return
        queue(folder, out, from_header=self.from_header, game_id=doc.game_id, tag=doc.game_id, now=self.clock(),
              mark=CO_DEALER_HEADER)
        self.log(f"co-dealer {carl}: answered {decision['id']} of game {doc.game_id}{again}, queued for {parsed.sender}")

    def _flush(self) -> None:
        from koryo_pbm.judge import outbox

        for folder in _folders_with_outbox(Path(self.root)):
            try:
                outbox.flush(folder, self.sender, now=self.clock(), retry_base=self.retry_base, log=self.log)
            except KoryoPbmError as exc:
                self.log(f"co-dealer {self.identity.name}: the outbox of {folder}: {exc}")


def _folders_with_outbox(root: Path) -> list[Path]:
    from koryo_pbm.judge.outbox import outbox_dir, pending

    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise StorageError(f"cannot list {root}: {exc.strerror or exc}") from None
    return [root / n for n in names if not n.startswith(".") and outbox_dir(root / n).is_dir() and pending(root / n)]
