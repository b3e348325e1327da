"""The judge: serves every game folder under a root, from mail and from the games' inboxes.

One pass (:meth:`Judge.run_once`) does, in this order, each step safe to repeat after a crash:

1. for each game, the state mails and per-player reports it owes (the game started, or a
   resolve moved it on since the last ones) are queued / written;
2. each mail of each source is read, its envelopes routed to their games by game id and
   resolved under the game's lock, its one answer queued, and only then marked handled;
3. each game's ``inbox/`` is resolved as ``koryo-pbm resolve`` does (also with an empty inbox
   when the bot has orders to play: a missed deadline, or only bot seats missing);
4. the reminders and late notices each game owes are queued (:mod:`koryo_pbm.judge.reminders`);
5. each game's outbox is sent.

A pass looks only at the games that may have something to do (:mod:`koryo_pbm.judge.games`).

The judge's time is its ``clock`` (tests give it a fake one): deadlines are compared with it.

What makes repeating safe: the game file records every counted envelope's digest, so a mail
handled again gives the same receipts and changes nothing; every queued mail has a key saying
what it is for (see :mod:`koryo_pbm.judge.outbox`), so nothing is queued twice.

Bad input costs bounded time and memory and gets at most one answer; any error about one mail or
one game is logged and the judge goes on with the others.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.envelope import Envelope
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import FormatError, KoryoPbmError
from koryo_pbm.judge import answering, club, commands, messages, notify, outbox, reminders, shards
from koryo_pbm.judge.games import FULL_SCAN, INDEX_FILE, GameIndex, GameRef, Reports, Seen, owed_since, settled
from koryo_pbm.judge.games import moved as moved_on
from koryo_pbm.judge.games import stamp as _stamp
from koryo_pbm.judge.incoming import ParsedMail, parse_mail
from koryo_pbm.judge.limits import AUTOMATIC_ANSWER, LIMITS_FILE, STATE_DIR, Limit, Limits
from koryo_pbm.judge.messages import GameInfo, Outcome, Outgoing
from koryo_pbm.store.folder import GAME_FILE
from koryo_pbm.transport.address import same_address
from koryo_pbm.transport.senders import Sender
from koryo_pbm.transport.sources import MAIL_LIMIT, IncomingMail, Source, SourceError

REPORT_PREFIX = "report-"
SEND_CONNECTIONS = 4  # connections a sender that can fork (SMTP) sends through at once
SYNC_BATCH = 50  # handled mails made durable by one fsync barrier, then marked handled
WRITTEN_KEPT = 256  # at most this many game files the judge wrote last, kept in memory (see Judge._load),
WRITTEN_BYTES = 16 * 1024 * 1024  # and at most this many bytes of them (in memory about 1.4 times that)
MAX_ENVELOPES_PER_MAIL = 50  # more are refused in one line: a mail is a player's, not a flood


def _received(now: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))


def _utc(now: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))


@dataclass
class Judge:
    root: Path
    identity: Identity
    sources: list[Source] = field(default_factory=list)
    sender: Sender | None = None
    from_header: str | None = None
    log: Callable[[str], None] = print
    clock: Callable[[], float] = time.time
    retry_base: float = 60.0
    remind: timedelta = timedelta(days=1)  # before a deadline, unless the game says otherwise
    moderator: str | None = None  # the moderator's own address: players' mails without envelope go there too
    shard: tuple[int, int] | None = None  # (K, N): serves the games of shard K of N only (koryo_pbm.judge.shards)
    watch: bool = True  # told by the kernel which games changed (inotify): for a judge that keeps running
    limits: Limits | None = None  # the rate limits (default: under ROOT/.koryo-pbm-judge)
    games: dict[Path, GameRef] = field(default_factory=dict)
    _complained: set[str] = field(default_factory=set)
    _ignored: set[tuple[str, str]] = field(default_factory=set)
    _source_wait: dict[int, float] = field(default_factory=dict)
    _source_fail: dict[int, int] = field(default_factory=dict)
    _senders: list[Any] = field(default_factory=list)
    _written: dict[Path, tuple[tuple[int, int, int], Any, int]] = field(default_factory=dict)
    _written_bytes: int = 0  # the sizes of the files kept in _written
    _unreadable: set[Path] = field(default_factory=set)  # game folders that could not be read this pass
    _failed: list[tuple[str, str]] = field(default_factory=list)  # (game tag, outbox key) given up for good
    _names: dict[Path, set[str]] = field(default_factory=dict)  # each outbox's queued names, this pass (_queued)
    _reports: Reports = field(default_factory=Reports)  # the versions of the reports the judge wrote
    _busy: dict[Path, tuple[GameRef, Any]] = field(default_factory=dict)  # the games this pass looks at, stamps
    _others: list[Path] = field(default_factory=list)  # folders under the root without a game
    _index: GameIndex = field(init=False)

    def __post_init__(self) -> None:
        if self.limits is None:
            # saved once per batch of mails, with what they changed, before they are marked handled
            self.limits = Limits(Path(self.root) / STATE_DIR / LIMITS_FILE, clock=lambda: self.clock(),
                                 log=lambda line: self.log(line), autosave=False)
        self._index = GameIndex(Path(self.root), Path(self.root) / STATE_DIR / INDEX_FILE, self.remind, self.watch)

    @property
    def _limits(self) -> Limits:
        assert self.limits is not None
        return self.limits

    # -- games ---------------------------------------------------------------------------------

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _once(self, what: str, message: str) -> None:
        """Log ``message`` once per ``what`` (a broken game is not reported every few seconds)."""
        if what not in self._complained:
            self._complained.add(what)
            self.log(message)

    def discover(self, full: bool = True) -> list[GameRef]:
        """Every game folder served: ROOT itself if it holds a game, else each folder in it that
        does. ``full``: each folder looked at again (else only when the root's listing changed, and
        the folders that held no game: :class:`GameIndex`)."""
        root = Path(self.root)
        if not self._index.loaded_once:
            self._index.load(self.log)
        names = ["."] if (root / GAME_FILE).is_file() else self._index.names(full)
        if names is None:  # the listing is as it was: only the folders without a game are looked at
            folders, keep = self._others, True
        else:
            folders, keep = [root if n == "." else root / n for n in names if not n.startswith(".")], False
        self._others = []
        found = {}
        self._unreadable = set()
        for folder in folders:
            ref = self.games.get(folder) or self._index.ref_from_entry(folder, folder.name if folder != root else ".")
            if ref is not None and not full and ref.clean is not None:
                found[folder] = ref  # its stamps are looked at by the pass (GameIndex.pick)
            elif folder != root and not (folder / GAME_FILE).is_file():
                self._others.append(folder)
                continue
            else:
                ref = ref or GameRef(folder, folder / GAME_FILE, folder.name)
                try:
                    self._refresh(ref)
                except KoryoPbmError as exc:
                    self._once(f"game:{folder}:{exc}", f"not serving {folder}: {exc}")
                    self._unreadable.add(folder)
                    self._others.append(folder)
                    continue
                found[folder] = ref
        if self.shard is not None:  # the other shards' games: not served here (said once)
            for folder, ref in list(found.items()):
                k = shards.shard_of(ref.game_id, self.shard[1])
                if k != self.shard[0]:
                    self._once(f"shard:{folder}", f"not serving {folder}: game {ref.game_id} is shard {k}'s "
                               f"of {self.shard[1]}, not this judge's ({self.shard[0]})")
                    del found[folder]
                    self._others.append(folder)
        for folder, ref in found.items():
            if folder not in self.games:  # new: looked at by this pass, and watched
                self._index.track(ref)
                self._index.dirty.add(folder)
                if ref.pending:
                    self._index.pending.add(folder)
        if keep:
            self.games.update(found)
        else:
            for folder in set(self.games) - set(found):
                self._index.forget(folder)
            self.games = found
        return list(self.games.values())

    def other_folders(self) -> list[Path]:
        """The folders under the root that held no game when it was last listed (a sign-up's)."""
        return list(self._others)

    def _refresh(self, ref: GameRef) -> None:
        """Re-read the game's id and addresses when its file changed."""
        stamp = _stamp(ref.path)
        if stamp == ref.stamp and ref.game_id:
            return
        mv = self._load(ref, stamp)
        ref.game_id, ref.emails, ref.stamp = mv.doc.game_id, dict(mv.emails), stamp
        # kept as the judge keeps what it wrote: read and verified here (its moderator's part
        # opened, so it is the judge's), not read again for the first mail in this pass
        self._keep_written(ref, mv.doc, stamp[1])

    def _load(self, ref: GameRef, stamp: tuple[int, int, int]) -> Any:
        """The moderator's view of the game file (``stamp``: its current one).

        A file the judge itself wrote last (same time, size and inode) is not read, parsed
        and verified again: the document it signed is kept in memory for the games written
        last (at most ``WRITTEN_KEPT`` of them, whose files together are at most
        ``WRITTEN_BYTES``), and its moderator's part is not opened either while the state and
        secrets sealed into it are kept (:func:`match.creation.reopen_moderator`).
        A file :meth:`_refresh` read and verified is kept the same way. Any other change (a
        command run by hand, a restored copy) is read from disk."""
        from koryo_pbm import match
        from koryo_pbm.match.creation import reopen_moderator

        kept = self._written.get(ref.folder)
        if kept is not None and kept[0] == stamp:
            doc = kept[1]
            # its moderator's part as this process sealed it (the state and secrets it had), not
            # opened and rebuilt again when it is still the one kept
            return reopen_moderator(doc.replace(players=dict(doc.players), log=list(doc.log),
                                                sealed=dict(doc.sealed)), self.identity)
        return match.load_for_resolve(ref.path, self.identity)

    def _public(self, ref: GameRef) -> Any:
        """The game file's document as signed (its public part): the one the judge wrote last when
        the file is still that one (same time, size and inode), else read and verified from disk."""
        from koryo_pbm.store import gamefile

        kept = self._written.get(ref.folder)
        if kept is not None and kept[0] == _stamp(ref.path):
            return kept[1]
        return gamefile.read_game(ref.path, expected_moderator=self.identity.public)

    def _keep_written(self, ref: GameRef, doc: Any, size: int) -> None:
        old = self._written.pop(ref.folder, None)
        if old is not None:
            self._written_bytes -= old[2]
        while self._written and (len(self._written) >= WRITTEN_KEPT or self._written_bytes + size > WRITTEN_BYTES):
            self._written_bytes -= self._written.pop(next(iter(self._written)))[2]
        self._written[ref.folder] = (ref.stamp, doc, size)
        self._written_bytes += size
        self._seen(ref, ref.stamp, doc)

    @staticmethod
    def _seen(ref: GameRef, stamp: tuple[int, int, int], doc: Any) -> None:
        """Keep the public facts of ``doc``, the file's version at ``stamp`` (:class:`Seen`)."""
        moved = moved_on(doc)
        decision = None if doc.decision is None else {k: list(v) if isinstance(v, list) else v
                                                      for k, v in doc.decision.items()}
        ref.seen = Seen(stamp, doc.replace(public={}, log=[], sealed={}, replay=None, decision=decision), moved)

    def _seen_now(self, ref: GameRef, stamp: tuple[int, int, int]) -> Seen | None:
        return ref.seen if ref.seen is not None and ref.seen.stamp == stamp else None

    def _by_id(self) -> dict[str, GameRef]:
        return {g.game_id: g for g in self.games.values()}

    def _player_of(self, ref: GameRef, address: str | None) -> str | None:
        if not address:
            return None
        for name, known in ref.emails.items():
            if same_address(known, address):
                return name
        return None

    def _known_sender(self, parsed: ParsedMail, prefer: Iterable[GameRef] = ()) -> tuple[GameRef, str] | None:
        """The game (``prefer`` first, then one tagged in the subject, then any) knowing the sender."""
        tagged = [g for g in self.games.values() if g.tag in parsed.tags]
        for ref in [*prefer, *tagged, *self.games.values()]:
            player = self._player_of(ref, parsed.sender)
            if player is not None:
                return ref, player
        return None

    # -- one pass ------------------------------------------------------------------------------

    def run_once(self) -> None:
        """One pass over the games that may have something to do (the module's docstring; which
        games: :mod:`koryo_pbm.judge.games`)."""
        self._names.clear()  # the outboxes are listed again: a pass sees what changed since the last one
        if not self._index.loaded_once:
            self._index.load(self.log)
        full = time.time() >= self._index.next_full
        self.discover(full)
        signups = club.serve_signups(self)  # invitations; games whose seats are all taken are made
        if any((ref.folder / GAME_FILE).is_file() for ref in signups):
            self.discover(False)  # served from this pass on
        if full:
            self._index.next_full, self._index.dirty_file = time.time() + FULL_SCAN, True
        busy, gone = self._index.pick(self.games, self.clock(), full)
        for ref in gone:  # its file is gone or unreadable: looked for again at the next pass
            self._once(f"game:{ref.folder}", f"not serving {ref.folder}: cannot read {ref.path}")
            self._unreadable.add(ref.folder)
            self.games.pop(ref.folder, None)
            self._index.forget(ref.folder)
            self._others.append(ref.folder)
        self._busy = {folder: (self.games[folder], stamps) for folder, stamps in busy.items()}
        failed: set[Path] = set()
        for ref, _ in list(self._busy.values()):
            self._step(f"game {ref.folder}", self._owed, ref, failed)
        for source in self.sources:
            self._poll(source)  # a game that gets mail joins the busy ones (_resolve_mail)
        self._limits.save()  # (saved at each batch; this is for a pass that ended early)
        looked = list(self._busy.values())
        for ref, _ in looked:
            self._step(f"the inbox of {ref.folder}", self._serve_inbox, ref, failed)
        for ref, _ in looked:
            self._step(f"the deadline of {ref.folder}", lambda r: reminders.deadline_mails(self, r), ref, failed)
        if self.sender is not None:
            due = {ref.folder: ref for ref in signups}  # (a sign-up that made its game: sent once, as the game)
            due.update((f, self.games[f]) for f in self._index.pending if f in self.games)
            due.update((ref.folder, ref) for ref, _ in looked)
            self._flush_all(list(due.values()))
            self._refund_failed()
        for ref, stamps in looked:
            self._settle(ref, stamps, ref.folder in failed)
        self._busy = {}
        if self._index.dirty_file:
            self._guard("the judge's index", lambda _: self._index.save(list(self.games.values())), None)

    def _settle(self, ref: GameRef, stamps: Any, failed: bool) -> None:
        """Note what the judge knows of a game it finished with in this pass (``stamps``: its
        stamps before the pass looked at it): looked at again when they change, or when due."""
        if ref.folder not in self.games:
            return
        try:
            if failed or not settled(stamps) or stamps[0] != _stamp(ref.path):  # changed meanwhile
                self._index.settle(ref, None, ref.due, self.clock())
                return
            seen = self._seen_now(ref, stamps[0])
            due = reminders.next_due(seen.doc if seen is not None else self._public(ref), self.remind, self._now())
        except KoryoPbmError:
            self._index.settle(ref, None, ref.due, self.clock())
            return
        self._index.settle(ref, stamps, due, self.clock())

    def _step(self, what: str, step: Callable[[GameRef], None], ref: GameRef, failed: set[Path]) -> None:
        if not self._guard(what, step, ref):
            failed.add(ref.folder)

    def _guard(self, what: str, step: Callable[[Any], None], ref: Any) -> bool:
        try:
            step(ref)
            return True
        except KoryoPbmError as exc:
            self._once(f"{what}:{exc}", f"{what}: {exc}")
        except OSError as exc:  # a disk error in one game's folder: the others are still served
            self._once(f"{what}:{exc}", f"{what}: {exc.strerror or exc}; tried again at the next pass")
        return False

    def _poll(self, source: Source) -> None:
        sid = id(source)
        if self._source_wait.get(sid, 0.0) > self.clock():
            return
        from koryo_pbm.store.atomic import batched_sync, sync_now

        done: list[IncomingMail] = []

        def mark_done() -> None:
            # What the handled mails changed (game files, answers and state mails queued) is
            # made durable by one barrier before any of them leaves the source: a power cut can
            # then never lose the effect of a mail already moved away. The rate limits those
            # mails used are saved with them.
            self._limits.save()
            sync_now()
            for handled_mail in done:
                source.mark_handled(handled_mail)
            done.clear()

        try:
            with batched_sync():
                for mail in source.fetch():
                    if (source.label, mail.key) in self._ignored:
                        continue
                    handled = self._handle(mail, source)
                    if handled == "moved":
                        continue
                    if handled is True:
                        done.append(mail)
                        if len(done) >= SYNC_BATCH:
                            mark_done()
                    elif handled is False:
                        self._ignored.add((source.label, mail.key))
                    # None: try again at the next pass
                mark_done()
        except SourceError as exc:
            fails = self._source_fail.get(sid, 0) + 1
            self._source_fail[sid] = fails
            wait = min(self.retry_base * 2 ** (fails - 1), outbox.MAX_BACKOFF)
            self._source_wait[sid] = self.clock() + wait
            self.log(f"cannot read {source.label} (attempt {fails}): {exc}; trying again in {wait:g} s")
            return
        except KoryoPbmError as exc:
            self._once(f"source:{source.label}:{exc}", f"{source.label}: {exc}")
            return
        self._source_fail.pop(sid, None)

    def wait(self, timeout: float) -> None:
        """Until new mail may have come (IMAP IDLE) or ``timeout`` seconds passed."""
        for source in self.sources:
            source.wait(timeout)
            return
        time.sleep(timeout)

    # -- mail --------------------------------------------------------------------------------------

    def _handle(self, mail: IncomingMail, source: Source | None = None) -> bool | str | None:
        """Handle one mail completely: True. False: it is not for the judge (left where it is).
        None: it cannot be handled now (a game is locked); it is tried again at the next pass.
        ``"moved"``: it is another shard's, moved to that shard's folder of ``source``."""
        full = hashlib.sha256(mail.data).hexdigest()
        digest = full[:24]
        if mail.truncated:
            parsed = self._parse(mail, full, head_only=True)
            self.log(f"received {parsed.names()} ({mail.label})")
            self.log(f"{parsed.names()}: {mail.size} bytes, larger than {MAIL_LIMIT}: not read")
            known = self._known_sender(parsed)
            if known is not None and not parsed.automatic and not parsed.from_judge:
                ref, player = known
                out = messages.too_large(parsed, ref.emails[player], mail.size, MAIL_LIMIT, ref.tag,
                                         key=f"answer-{digest}")
                self._queue_limited(ref, out, parsed, f"the answer to {parsed.names()} (too large)")
            return True
        parsed = self._parse(mail, full)
        secret = commands.holds_secret_key(mail.data)
        if (not parsed.found and not parsed.from_judge and not any(g.tag in parsed.tags for g in self.games.values())
                # not press, nor a key line for a sign-up, nor from a player (who gets the list): left alone
                and not secret and not club.concerns(self, parsed, mail.data) and self._known_sender(parsed) is None):
            return answering.untagged(self, parsed, digest, mail.data)  # logged once
        self.log(f"received {parsed.names()} ({mail.size} bytes, {mail.label})")
        if parsed.from_judge:
            self.log(f"{parsed.names()}: one of the judge's own mails came back; not answered")
            return True
        if secret:  # said first, never quoted back: make a new key; the moderator told
            answering.secret_key(self, parsed, digest)
            if not parsed.found:
                return True
        if not parsed.found:
            done = club.without_envelope(self, mail.data, parsed, digest)  # press, a key line, a command
            return self._no_envelope(parsed, digest, mail.data) if done is None else done
        by_id = self._by_id()
        if self.shard is not None and not any(isinstance(i, Envelope) and i.game_id in by_id for i in parsed.found):
            elsewhere = [k for i in parsed.found if isinstance(i, Envelope)
                         for k in [shards.shard_of(i.game_id, self.shard[1])] if k != self.shard[0]]
            if elsewhere:
                return self._move(mail, parsed, source, elsewhere[0])
        outcomes: list[tuple[GameRef | None, Outcome]] = []
        groups: dict[Path, list[tuple[int, Envelope]]] = {}
        for i, item in enumerate(parsed.found):
            if i >= MAX_ENVELOPES_PER_MAIL:
                outcomes.append((None, Outcome("refused", f"the mail holds more than {MAX_ENVELOPES_PER_MAIL} "
                                                          "envelopes; the rest were not read")))
                break
            if isinstance(item, FormatError):
                reason = str(item).replace(f"{mail.label}: ", "")
                outcomes.append((None, Outcome("unreadable", reason)))
                self.log(f"{parsed.names()}: unreadable: {reason}")
                continue
            found_ref = by_id.get(item.game_id)
            if found_ref is None and self._unreadable:
                # it may be for a game that cannot be read right now (an I/O error, a file being
                # restored): the mail waits in the source, untouched, until every game can be read
                self._once(f"unknown:{mail.label}", f"{parsed.names()}: an envelope for game {item.game_id}, "
                           "not one of the games read; kept for the next pass (a game under the root cannot "
                           "be read: " + ", ".join(sorted(str(f) for f in self._unreadable)) + ")")
                return None
            if found_ref is None:
                outcomes.append((None, Outcome("refused", f"it is for game {item.game_id}, which this judge does "
                                                          "not serve", item.player, item.decision, item.digest)))
                self.log(f"{parsed.names()}: refused: an envelope for game {item.game_id}, not served here")
                continue
            outcomes.append((found_ref, Outcome("pending", "", item.player, item.decision, item.digest,
                                                game=found_ref.tag)))
            groups.setdefault(found_ref.folder, []).append((len(outcomes) - 1, item))
        infos: dict[Path, GameInfo] = {}
        for folder, items in groups.items():
            ref = self.games[folder]
            try:
                results, infos[folder] = self._resolve_mail(ref, [env for _, env in items], parsed)
            except KoryoPbmError as exc:
                # the game cannot be served now (locked, broken): the mail waits for the next pass
                self.log(f"{parsed.names()}: game {ref.tag}: {exc}; the mail is kept for the next pass")
                return None
            for (index, _), outcome in zip(items, results, strict=True):
                outcomes[index] = (ref, outcome)
        self._answer(parsed, outcomes, infos, digest)
        return True

    def _move(self, mail: IncomingMail, parsed: ParsedMail, source: Source | None, k: int) -> bool | str:
        """Move a mail for shard ``k``'s games to its folder, unanswered (its judge answers it)."""
        folder = shards.FOLDER.format(k=k)
        move = getattr(source, "move_to", None)
        if move is None:
            self._once(f"shard-move:{mail.label}", f"{parsed.names()}: for shard {k}'s games; this source has no "
                       f"folder {folder} to move it to: left where it is, not answered")
            return False
        move(mail, folder)
        self.log(f"{parsed.names()}: for shard {k}'s games: moved to {folder}, not answered here")
        return "moved"

    def _parse(self, mail: IncomingMail, digest: str, *, head_only: bool = False) -> ParsedMail:
        parsed = parse_mail(mail.data, mail.label, head_only=head_only)
        parsed.received, parsed.digest = _received(self.clock()), digest
        return parsed

    def _queue_limited(self, ref: GameRef, out: Outgoing, parsed: ParsedMail, what: str,
                       limit: Limit = AUTOMATIC_ANSWER) -> bool:
        """Queue ``out``, an automatic answer to a mail that brought nothing new, within ``limit``
        (per game and address): True if it is (or was already) queued, False if held back (logged)."""
        if self._is_queued(ref, out.key):
            return True  # queued by a run that stopped before the mail was marked handled
        if not self._limits.allowed(limit, game=ref.tag, address=out.to):
            self._limits.take(limit, game=ref.tag, address=out.to, why=what)  # refused: logs it
            return False
        queued = self._queue(ref, out)
        if queued:  # counted once queued, never before: what is counted is what leaves
            self._limits.take(limit, game=ref.tag, address=out.to, why=what, mail=outbox.safe_key(out.key))
        return queued

    def _no_envelope(self, parsed: ParsedMail, digest: str, raw: bytes = b"") -> bool:
        """A mail without envelopes: see :func:`koryo_pbm.judge.answering.no_envelope`."""
        return answering.no_envelope(self, parsed, digest, raw)

    def _resolve_mail(self, ref: GameRef, envelopes: list[Envelope], parsed: ParsedMail) -> tuple[list[Outcome], GameInfo]:
        from koryo_pbm import match
        from koryo_pbm.crypto.receipt import make_receipt
        from koryo_pbm.store import gamefile
        from koryo_pbm.store.atomic import write_atomic
        from koryo_pbm.store.lock import game_lock

        now = self.clock()
        data = None
        if ref.folder not in self._busy:  # looked at by the rest of the pass (its stamps before the mail)
            self._busy[ref.folder] = (ref, GameIndex.stamps(ref))
        with game_lock(ref.folder):
            mv = self._load(ref, _stamp(ref.path))
            held = {v.get("digest"): p for p, v in mv.orders.items() if isinstance(v, dict)}
            counted = {d for e in mv.doc.log for d in e.get("accepted", [])}
            cands = [match.Candidate(source=parsed.names(), envelope=env) for env in envelopes]
            result = match.resolve(mv, cands, now=datetime.fromtimestamp(now, UTC))
            if result.written and result.doc is not None:
                data = gamefile.encode(result.doc, self.identity)
                write_atomic(ref.path, data)
                # what the judge just signed and wrote is what it reads next: kept, not re-read
                ref.game_id, ref.emails, ref.stamp = result.doc.game_id, dict(mv.emails), _stamp(ref.path)
                self._keep_written(ref, result.doc, len(data))
            doc = result.doc or mv.doc
        outcomes = []
        for c in cands:
            env = c.envelope
            status = c.status
            if status == "duplicate" and (env.digest in held or env.digest in counted):
                status = "duplicate"
            elif status in ("duplicate", "rejected", "set-aside", "skipped"):
                status = "refused"
            o = Outcome(status, c.reason, env.player, env.decision, env.digest,
                        replaces=c.replaces is not None, game=ref.tag, signed=answering.signed_by_seat(doc, env))
            if status in ("accepted", "held", "duplicate"):
                o.receipt = make_receipt(self.identity, game_id=doc.game_id, decision=env.decision,
                                         player=env.player, envelope=env.digest, submitted=env.submitted,
                                         replaces=c.replaces, received=_utc(now)).armor()
            outcomes.append(o)
            self.log(f"{parsed.names()}: {env.player}'s envelope for {env.decision} of {ref.tag}: {status}"
                     + (f" ({c.reason})" if c.reason else ""))
        info = self._info(ref, doc)
        if data is not None:
            self._owed(ref, (data, doc), info)
        return outcomes, info

    def _answer(self, parsed: ParsedMail, outcomes: list[tuple[GameRef | None, Outcome]],
                infos: dict[Path, GameInfo], digest: str) -> None:
        """Queue the answer(s): see :func:`koryo_pbm.judge.answering.answer`."""
        answering.answer(self, parsed, outcomes, infos, digest)

    # -- state mails and reports ----------------------------------------------------------------

    def _info(self, ref: GameRef, doc: Any = None) -> GameInfo:
        from koryo_pbm.engine.registry import find_game
        from koryo_pbm.store import gamefile

        if doc is None:
            doc = gamefile.read_game(ref.path)
        try:
            title = find_game(doc.game).title
        except KoryoPbmError:
            title = doc.game
        from koryo_pbm.match.views import progress

        rnd = progress(doc)[0]
        deadline = None
        if doc.decision and "deadline" in doc.decision:
            from koryo_pbm import deadlines

            deadline = deadlines.human(deadlines.parse_stamp(doc.decision["deadline"]))
        co_dealer = None
        if doc.deal == "blind":
            from koryo_pbm.blind import co_dealer_of

            co_dealer = co_dealer_of(doc)
        return GameInfo(tag=ref.tag, game_id=doc.game_id, title=title, version=doc.version,
                        decision=dict(doc.decision) if doc.decision else None,
                        round=rnd,
                        players=list(doc.players), log=list(doc.log), deadline=deadline, co_dealer=co_dealer)

    def _owed(self, ref: GameRef, written: tuple[bytes, Any] | None = None, info: GameInfo | None = None) -> None:
        """Queue the state mails and write the reports this game owes for its current version
        (``written``: the bytes and document the judge has just written, not read again;
        ``info``: what :meth:`_info` says of that document, when the caller has it)."""
        from koryo_pbm.store import gamefile
        from koryo_pbm.store.atomic import write_atomic

        if written is not None:
            data, doc = written
            stamp = ref.stamp
        else:
            # a file unchanged since its mails were queued owes nothing: not read again at
            # every pass (a judge serving many games would otherwise parse them all each time)
            stamp = _stamp(ref.path)
            if stamp == ref.owed:
                return
            self._refresh(ref)
            seen = self._seen_now(ref, stamp)
            if seen is not None and not self._owes(ref, seen):
                # nothing owed for this version (a judge started again, by cron, on games whose
                # mails went out before): the file is not read, parsed and verified again
                if not (seen.doc.decision and "deadline" in seen.doc.decision):
                    ref.no_deadline = stamp
                ref.owed = stamp
                return
            data = gamefile.read_game_bytes(ref.path)
            doc = gamefile.decode_remembered(data, expected_moderator=self.identity.public,
                                             source=f"game file {ref.path}")
            self._seen(ref, stamp, doc)
        if not (doc.decision and "deadline" in doc.decision):
            ref.no_deadline = stamp  # nothing for reminders.deadline_mails to read while the file is unchanged
        # A version that moved the game on (a resolve wrote it) is mailed; one that only holds an
        # order or changes an address is not, except to a player who has had nothing yet.
        moved = moved_on(doc)
        info = info if info is not None else self._info(ref, doc)
        mailed = self._mailed(ref)
        mode = notify.mode_of(doc)
        told = False  # a report written or a state mail queued for this version
        for player in doc.players:
            report_path = ref.folder / f"{REPORT_PREFIX}{player}.txt"
            last_report = self._reports.version(report_path)
            if owed_since(last_report, doc.version, moved):
                text = messages.report(info, player, last_report, route="folder")
                report = text.encode("utf-8")
                write_atomic(report_path, report)
                self._reports.wrote(report_path, report)
                told = True
            address = ref.emails.get(player)
            if address is None or self.from_header is None:
                continue
            last = mailed.get(player, 0)
            if not owed_since(last, doc.version, moved):
                continue
            if info.co_dealer is not None:
                # a blind game: the co-dealer is mailed only what it must answer; the players,
                # after the first mail, nothing while only the co-dealer is awaited (their next
                # mail tells what happened meanwhile)
                dealer_only = messages.waiting(info) == [info.co_dealer]
                if (player == info.co_dealer and not dealer_only) or (player != info.co_dealer and dealer_only
                                                                     and last > 0):
                    continue
            if not notify.wants_state_mail(mode, info, player, last):
                continue  # nothing for them to do: what happened goes into their next mail
            page = notify.page_due(self._limits, address)
            out = club.state_mail(info, doc, player, address, last, data, key=f"state-v{doc.version:07d}-{player}",
                                  page=page)
            if self._queue(ref, out, automatic="auto-generated"):
                if page:
                    notify.page_sent(self._limits, address)
                self.log(f"game {ref.tag} version {doc.version}: state mail queued for {player}")
                told = True
        if told and doc.decision is None:
            self.log(f"game {ref.tag} is over (version {doc.version}): the final state is mailed and reported")
        ref.owed = stamp

    def _owes(self, ref: GameRef, seen: Seen) -> bool:
        """Whether the version ``seen`` may owe a report or a state mail: the tests of
        :meth:`_owed` that need nothing but the version (it may still owe nothing, as a blind
        game's players while only the co-dealer is awaited; :meth:`_owed` then tells)."""
        doc = seen.doc
        mailed = self._mailed(ref) if self.from_header is not None else {}
        for player in doc.players:
            last_report = self._reports.version(ref.folder / f"{REPORT_PREFIX}{player}.txt")
            if owed_since(last_report, doc.version, seen.moved):
                return True
            if ref.emails.get(player) is None or self.from_header is None:
                continue
            if owed_since(mailed.get(player, 0), doc.version, seen.moved):
                return True
        return False

    def _queued(self, ref: GameRef) -> set[str]:
        """The names of every mail in the game's outbox (waiting, sent or failed): listed once per
        pass, then kept up to date by :meth:`_queue` (nothing else writes an outbox meanwhile: one
        judge serves a root at a time, and its flush only moves mails between these folders)."""
        names = self._names.get(ref.folder)
        if names is None:
            names = self._names[ref.folder] = set(outbox.queued_names(ref.folder))
        return names

    def _is_queued(self, ref: GameRef, key: str) -> bool:
        """Was a mail with this key queued before (waiting, sent or failed)?"""
        return outbox.safe_key(key) + outbox.SUFFIX in self._queued(ref)

    def _mailed(self, ref: GameRef) -> dict[str, int]:
        last: dict[str, int] = {}
        for name in self._queued(ref):
            if not name.startswith("state-v"):
                continue
            version, _, player = name[len("state-v"): -len(outbox.SUFFIX)].partition("-")
            if version.isdigit():
                last[player] = max(last.get(player, 0), int(version))
        return last

    def _queue(self, ref: GameRef, out: Outgoing, automatic: str = "auto-replied") -> bool:
        if self.from_header is None:
            self.log(f"game {ref.tag}: a mail to {out.to} is not queued: no --from address")
            return False
        self._index.dirty_file |= not ref.pending  # (unsent mail: sent by a judge started again)
        ref.pending = True
        self._index.pending.add(ref.folder)
        return outbox.queue(ref.folder, out, from_header=self.from_header, game_id=ref.game_id, tag=ref.tag,
                            now=self.clock(), automatic=automatic, known=self._queued(ref)) is not None

    # -- inbox and outbox -------------------------------------------------------------------------

    def _serve_inbox(self, ref: GameRef) -> None:
        """Resolve the game's inbox exactly as ``koryo-pbm resolve`` does (links are skipped and
        left in place: reported once)."""
        from koryo_pbm.match.run import run_resolve
        from koryo_pbm.store import inbox

        items = inbox.list_inbox(ref.folder)
        if not any(not getattr(i, "link", False) for i in items):
            for i in items:
                self._once(f"link:{i.path}", f"game {ref.tag}: {i.envelope}")
            if not self._bot_due(ref):
                return
        result = run_resolve(ref.folder, ref.path, self.identity, now=self._now())
        for c in result.candidates:
            who = f"{c.envelope.player}'s envelope for {c.envelope.decision}" if c.envelope else "an envelope"
            line = f"game {ref.tag}: {who} in the inbox ({c.source}): {c.status}" + (f" ({c.reason})" if c.reason else "")
            if c.status == "skipped":
                self._once(f"link:{c.source}", line)
            else:
                self.log(line)
        for d, _events in result.applied:
            self.log(f"game {ref.tag}: resolved {d.id}")
        if result.written:
            self._owed(ref)

    def _bot_due(self, ref: GameRef) -> bool:
        from koryo_pbm import match

        seen = self._seen_now(ref, _stamp(ref.path))  # its decision, deal, service and players: all it asks
        return match.bot_due(seen.doc if seen is not None else self._public(ref), self._now())

    def _flush(self, ref: GameRef, sender: Sender | None = None) -> None:
        sender = sender or self.sender
        assert sender is not None
        outbox.flush(ref.folder, sender, now=self.clock(), retry_base=self.retry_base, log=self.log,
                     failed=lambda key: self._failed.append((ref.tag, key)))
        ref.pending = outbox.has_pending(ref.folder)
        if not ref.pending:
            self._index.pending.discard(ref.folder)

    def _refund_failed(self) -> None:
        """Give back the rate-limit count of each answer the outbox gave up for good: it reached
        nobody, so the window counts only what was delivered."""
        done, self._failed[:] = list(self._failed), []
        for tag, key in done:
            if self._limits.refund(key):
                self.log(f"game {tag}: {key} reached nobody; it no longer counts against the rate limit")
        if done:
            self._limits.save()

    def _connections(self) -> list[Any]:
        assert self.sender is not None
        if not self._senders:
            fork = getattr(self.sender, "fork", None)
            self._senders = [self.sender, *(fork() for _ in range(SEND_CONNECTIONS - 1))] if fork else [self.sender]
        return self._senders

    def _flush_all(self, games: list[GameRef]) -> None:
        """Send every game's outbox; through several connections at once when the sender can open
        more (an SMTP server answers each mail only once it is safely queued: in parallel, those
        waits overlap). Each game's outbox is sent by one connection, in its order."""

        assert self.sender is not None
        self._connections()
        due: list[GameRef] = []
        for ref in games:
            ref.pending = outbox.has_pending(ref.folder)
            if ref.pending:
                due.append(ref)
            else:
                self._index.pending.discard(ref.folder)
        outbox.in_parallel(due, self._senders, lambda ref, sender: self._guard(
            f"the outbox of {ref.folder}", lambda r: self._flush(r, sender), ref))

    def close(self) -> None:
        """Close the extra connections opened for sending in parallel (not ``sender`` itself)."""
        self._index.close()
        extra, self._senders = self._senders[1:], []
        for sender in extra:
            with contextlib.suppress(Exception):
                sender.close()

