"""The moderator's resolve: every envelope found is screened, opened, checked against the
state reached and held; each decision whose players are all in (or played by the bot) is
applied; at the end of the game the seed and every order are published.

:func:`resolve` reads as its steps: :func:`_screen` (what needs no opening),
:func:`_set_aside_excess`, :func:`_open`, then per decision :func:`_hold` and :func:`_apply`,
then :func:`_mark_unanswered` and :func:`_finish`. It is pure apart from sealing: the caller
(:mod:`koryo_pbm.match.run`) locks, writes and archives."""

from __future__ import annotations

import binascii
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from koryo_pbm import deadlines
from koryo_pbm.engine import bots
from koryo_pbm.engine.contract import Decision, Event, State
from koryo_pbm.errors import FormatError, KoryoPbmError, StaleError
from koryo_pbm.match.candidates import MAX_PER_DECISION, Candidate, Resolution
from koryo_pbm.match.creation import HELD_ROOM, _fill, _secret, next_version
from koryo_pbm.match.notes import REJOIN_NOTE
from koryo_pbm.match.orders import canonical_orders, parse_orders
from koryo_pbm.match.policy import _bot_note, _bot_players, _count_missed, _deadline
from koryo_pbm.match.views import ModeratorView
from koryo_pbm.store import gamelog, gameparts
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.values import Value


def resolve(mv: ModeratorView, candidates: Sequence[Candidate], *, now: datetime | None = None) -> Resolution:
    """Verify every candidate envelope and apply every decision that is complete.

    Pure apart from sealing: returns the resolution with the new document (``written`` says
    whether anything changed). The caller writes the document, then archives inbox files.

    ``now`` (the caller's clock, UTC) is when the run happens: deadlines are compared with it
    and new decisions get their deadline from it. Bots play here: a bot seat's or an abandoned
    seat's order is chosen once everyone else the decision waits for is in (the seat's view
    cannot change while the decision is pending, so the order is never held); with
    ``missed = "bot"``, a player still missing once the deadline and its grace period have
    passed (at ``now``) gets the bot's order, and the log says so.
    """
    run = _Run.start(mv, candidates, now)
    # First what does not depend on the decision. Every step is linear in the number of
    # candidates: a player who floods the inbox costs the moderator time in proportion.
    _set_aside_excess(_screen(run))
    opened = _open(run)
    by_decision = _by_decision(opened)
    # Then decision by decision, as long as decisions complete.
    while (decision := mv.game.pending(run.state)) is not None:
        _hold(run, decision, by_decision.get(decision.id, ()))
        if not _apply(run, decision):
            break
    pending = mv.game.pending(run.state)
    _mark_unanswered(run, opened, pending)
    return _finish(run, pending)


class _Run(Value):
    """One resolve run as it goes: the state reached, the orders held for the pending decision,
    the next version (its log grows as decisions are applied; written only if ``changed``)."""

    _fields = ("mv", "now", "policy", "state", "held", "seen", "answered", "new", "result", "record",
               "contributions", "by_digest", "signed", "changed")
    mv: ModeratorView
    now: datetime | None
    policy: deadlines.Policy
    state: State
    held: dict[str, dict[str, Any]]
    seen: set[str | None]  # digests counted already
    answered: set[str]  # what an envelope for the pending decision may answer
    new: GameDoc
    result: Resolution
    record: list[dict[str, Any]]  # every order counted so far (published at the end)
    contributions: dict[str, str] | None
    by_digest: dict[str, list[Candidate]]
    signed: dict[str, tuple[str, bytes, Any]]  # digest -> orders, inner signature, envelope (opened in this run)
    changed: bool

    def __init__(self, mv: ModeratorView, now: datetime | None, policy: deadlines.Policy, state: State,
                 held: dict[str, dict[str, Any]], seen: set[str | None], answered: set[str], new: GameDoc,
                 result: Resolution, record: list[dict[str, Any]]) -> None:
        self.mv = mv
        self.now = now
        self.policy = policy
        self.state = state
        self.held = held
        self.seen = seen
        self.answered = answered
        self.new = new
        self.result = result
        self.record = record
        self.contributions = None
        self.by_digest = {}
        self.signed = {}
        self.changed = False

    @classmethod
    def start(cls, mv: ModeratorView, candidates: Sequence[Candidate], now: datetime | None) -> _Run:
        doc = mv.doc
        held = {p: dict(v) for p, v in mv.orders.items()}
        return cls(mv=mv, now=now, policy=deadlines.policy_of(doc.service, list(doc.players)), state=mv.state,
                   held=held, seen=_seen_digests(doc) | {v.get("digest") for v in held.values()},
                   answered=answerable_heads(doc), new=next_version(doc),
                   result=Resolution(candidates=list(candidates)), record=list(mv.secrets.played))


def _screen(run: _Run) -> dict[tuple[str, str], list[tuple[Candidate, str]]]:
    """Settle every candidate that can be settled without opening it (links, unreadable
    envelopes, other games, strangers, duplicates, bad outer signatures, former keys); return
    the others by ``(player, decision)``, each with its digest."""
    doc, mv = run.mv.doc, run.mv
    found: set[str] = set()
    signed: dict[tuple[str, str], list[tuple[Candidate, str]]] = {}  # (player, decision) -> (c, digest)
    for c in run.result.candidates:
        env = c.envelope
        if c.link:
            c.status, c.reason = "skipped", "a symbolic link: not followed, left in place"
            continue
        if env is None:
            c.status, c.reason = "rejected", str(c.error) if c.error else "unreadable envelope"
            continue
        digest = env.digest
        run.by_digest.setdefault(digest, []).append(c)
        if env.game_id != doc.game_id:
            c.status, c.reason = "rejected", f"for game {env.game_id}, not {doc.game_id}"
            continue
        player_key = doc.players.get(env.player)
        if player_key is None:
            c.status, c.reason = "rejected", f"{env.player!r} is not a player of this game"
            continue
        if digest in run.seen:
            c.status, c.reason = "duplicate", "already counted"
            continue
        if digest in found:  # the same envelope twice in this run (inbox and mail, say)
            c.status, c.reason = "duplicate", "the same envelope was found twice"
            continue
        found.add(digest)
        former = next((k for k in mv.former.get(env.player, ()) if k.fingerprint() == env.sender), None)
        try:
            env.verify(former or player_key)  # the outer signature: cheap, and nobody else can make one
        except KoryoPbmError as exc:
            c.status, c.reason = "rejected", str(exc)
            continue
        if former is not None:
            c.status, c.reason = "rejected", (
                f"signed by {env.player}'s former key ({env.sender}): the seat was taken over by a new player"
            )
            continue
        signed.setdefault((env.player, env.decision), []).append((c, digest))
    return signed


def _set_aside_excess(signed: Mapping[tuple[str, str], list[tuple[Candidate, str]]]) -> None:
    """At most ``MAX_PER_DECISION`` envelopes of one player for one decision are opened: the
    latest ones (by their signed submission time); the others are set aside, unread."""
    for (player, decision_id), group in signed.items():
        group.sort(key=lambda cd: (cd[0].envelope.submitted, cd[1]), reverse=True)
        for c, _ in group[MAX_PER_DECISION:]:
            c.status, c.reason = "set-aside", (
                f"more than {MAX_PER_DECISION} envelopes of {player} for {decision_id}: only the "
                f"{MAX_PER_DECISION} latest were read"
            )


def _open(run: _Run) -> list[tuple[Candidate, str]]:
    """Open every candidate still pending: ``(candidate, orders text)`` in the candidates'
    order; one that does not open is rejected."""
    mv = run.mv
    opened: list[tuple[Candidate, str]] = []
    for c in run.result.candidates:
        if c.status != "pending" or c.envelope is None:
            continue
        env = c.envelope
        try:
            text, inner = env.open_signed(mv.identity, mv.doc.players[env.player])
        except KoryoPbmError as exc:
            c.status, c.reason = "rejected", str(exc)
            continue
        run.signed[env.digest] = (text, inner, env)  # kept for the record: each envelope is read and opened once
        _OPENED.keep(env, mv.doc.players[env.player], mv.identity, text, inner)
        opened.append((c, text))
    return opened


class _Opened:
    """The envelopes opened in this process's last resolves (their orders text and the inner
    signature), by the envelope's digest (SHA-256 of its canonical bytes), the key of the seat
    that signed it and the moderator's key. A judge holds an order in one resolve and counts it
    in a later one, when the decision completes, where the record needs its text and inner
    signature (:func:`_signed_record`): the held envelope is then not opened a second time.
    Verifying and opening are deterministic: the same bytes and keys give the same result.
    Bounded by count and by the bytes kept."""

    COUNT = 4096
    BYTES = 8 * 1024 * 1024

    def __init__(self) -> None:
        self.opened: dict[tuple[str, str, str], tuple[str, bytes, Any]] = {}
        self.size = 0

    @staticmethod
    def _cost(env: Any, text: str) -> int:
        return len(env.ciphertext) + 2 * len(text) + 512

    def keep(self, env: Any, player_key: Any, moderator: Any, text: str, inner: bytes) -> None:
        key = (env.digest, player_key.line(), moderator.public.line())
        old = self.opened.pop(key, None)
        if old is not None:
            self.size -= self._cost(old[2], old[0])
        self.opened[key] = (text, inner, env)
        self.size += self._cost(env, text)
        while len(self.opened) > self.COUNT or (self.size > self.BYTES and len(self.opened) > 1):
            text_, _, env_ = self.opened.pop(next(iter(self.opened)))
            self.size -= self._cost(env_, text_)

    def get(self, digest: str, player_key: Any, moderator: Any, armored: str) -> tuple[str, bytes, Any] | None:
        """What :meth:`keep` kept of the envelope ``armored`` (as the moderator's part holds it:
        its digest and its armour), opened with these keys, or ``None``."""
        found = self.opened.get((digest, player_key.line(), moderator.public.line()))
        if found is None or found[2].armor() != armored:  # the very envelope, armoured as it was held
            return None
        return found


_OPENED = _Opened()


def _by_decision(opened: Sequence[tuple[Candidate, str]]) -> dict[str, list[tuple[Candidate, str]]]:
    """The opened envelopes by the decision they name, in the order found."""
    out: dict[str, list[tuple[Candidate, str]]] = {}
    for c, text in opened:
        out.setdefault(c.envelope.decision, []).append((c, text))
    return out


def _hold(run: _Run, decision: Decision, opened: Sequence[tuple[Candidate, str]]) -> None:
    """Check each opened order for ``decision`` and hold the latest valid one of each player."""
    for c, text in opened:
        if c.status != "pending":
            continue
        entry = _checked_entry(run, decision, c, text)
        if entry is not None:
            _keep_latest(run, c, entry)


def _checked_entry(run: _Run, decision: Decision, c: Candidate, text: str) -> dict[str, Any] | None:
    """What the moderator's part holds of ``c``'s orders if they are valid for ``decision`` at
    the state reached; otherwise ``c`` is rejected and ``None`` returned."""
    doc, env = run.mv.doc, c.envelope
    if env.player not in decision.players:
        c.status, c.reason = "rejected", f"decision {decision.id} does not wait for {env.player}"
        return None
    if env.answers not in run.answered and _rejoined(doc):
        c.status, c.reason = "rejected", (
            f"a join signed before a seat changed hands: the join of game {doc.game_id} started again, so "
            f"{env.player} joins anew (koryo-pbm orders or play writes a fresh contribution)")
        return None
    if env.answers not in run.answered:
        c.status, c.reason = "rejected", (
            f"it answers a game file whose history ends with {env.answers[7:23]}, but the history of game "
            f"{doc.game_id} at {decision.id} ends with {gamelog.head(doc)[7:23]}: the player was shown "
            "another file")
        return None
    try:
        game_id, decision_id, body = parse_orders(text, source=f"orders of {env.player}")
        if game_id != doc.game_id or decision_id != env.decision:
            raise StaleError("the orders inside do not match the envelope's game and decision")
        run.mv.game.check(run.state, env.player, body)
    except KoryoPbmError as exc:
        c.status, c.reason = "rejected", str(exc)
        return None
    entry = {"order": body, "digest": env.digest, "submitted": env.submitted, "envelope": env.armor()}
    try:
        size = held_size(env.player, entry)
    except KoryoPbmError as exc:
        c.status, c.reason = "rejected", str(exc)
        return None
    if size > HELD_ROOM and len(decision.players) > 1:  # one party's answer is applied at once, never held
        c.status, c.reason = "rejected", (
            f"the orders take {size} bytes to hold, more than the {HELD_ROOM} kept for each player")
        return None
    return entry


def _keep_latest(run: _Run, c: Candidate, entry: dict[str, Any]) -> None:
    """Hold ``entry`` for its player unless a later submission of theirs is held already (then
    ``c`` is superseded); an earlier one it replaces is superseded."""
    env = c.envelope
    before = run.held.get(env.player)
    if before is not None and (before["submitted"], before["digest"]) > (env.submitted, env.digest):
        c.status, c.reason = "superseded", "a later submission of the same player was already received"
        return
    if before is not None:
        c.replaces = before["digest"]
        for other in run.by_digest.get(before["digest"], ()):
            other.status, other.reason = "superseded", "replaced by a later submission"
    run.held[env.player] = entry
    c.status = "held"
    run.changed = True


def _apply(run: _Run, decision: Decision) -> bool:
    """Apply ``decision`` if every player it waits for is held or played by the bot; False
    (nothing done) while somebody is still awaited."""
    doc = run.mv.doc
    deadline = _deadline(doc, decision.id) if len(run.new.log) == len(doc.log) else None  # a new decision's is in the future
    opened: dict[str, str] = {}
    if doc.deal == "blind" and decision.kind == "deal":
        deadline = None  # no bot answers for a dealer: a late co-dealer is reminded, and awaited
    if doc.deal == "blind":  # a hand opened for the bot (--missed bot): the bot plays it now
        from koryo_pbm import blind

        opened = {p: d for p, d in blind.opened_for(run.state, decision.id).items() if p not in run.held}
    played = _bot_players(run.policy, decision, {**run.held, **opened}, deadline, run.now)
    if played is None:
        return False
    played.update({p: (run.policy.bot_level or bots.RANDOM, "missed") for p in opened})
    if doc.deal == "blind" and _open_hands(run, decision, played, deadline):
        return True
    orders, notes = _orders_with_bots(run, decision, played, opened)
    notes += _count_missed(run.policy, decision, played)
    run.state, events = run.mv.game.apply(run.state, orders)
    accepted = _record(run, decision, orders, played)
    events = [Event("service", note) for note in notes] + list(events)
    gamelog.append_log(run.new, decision.id, [e.text for e in events], accepted)
    run.answered = {run.new.log[-1]["hash"]}
    run.result.applied.append((decision, events))
    # the co-dealer's answer opening absent hands comes between a decision and its bot's orders:
    # the orders held for that decision stay held
    run.held = {p: e for p, e in run.held.items() if p not in decision.players} if (
        doc.deal == "blind" and decision.kind == "deal" and decision.id.endswith("-open")) else {}
    run.changed = True
    return True


def _open_hands(run: _Run, decision: Decision, played: Mapping[str, tuple[str, str]],
                deadline: datetime | None) -> bool:
    """At a blind table, the bot cannot play a missed order from a hand nobody opened to the
    moderator: the dealers are asked to open it first, with a public log line that anyone (the
    co-dealer before it answers, verify after) checks against the public policy. True when the
    request was made (the decision waits for the co-dealer's answer)."""
    from koryo_pbm import blind

    closed = [p for p, (_, why) in played.items() if why == "missed" and blind.needs_opening(run.mv.game, run.state, p)]
    if not closed or deadline is None or run.now is None:
        return False
    run.state, notes = blind.request_open(run.mv.game, run.state, decision.id, closed, deadlines.stamp(deadline),
                                          run.policy.grace or "0m", deadlines.stamp(run.now))
    events = [Event("service", note) for note in notes]
    gamelog.append_log(run.new, decision.id, notes, [])
    run.answered = {run.new.log[-1]["hash"]}
    run.result.applied.append((decision, events))
    run.changed = True
    return True


def _orders_with_bots(run: _Run, decision: Decision, played: Mapping[str, tuple[str, str]],
                      opened: Mapping[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Every order of ``decision`` (in its players' order): those held, and the bot's for each
    seat in ``played``, with the public notes that say the bot played."""
    game, held, doc = run.mv.game, run.held, run.mv.doc
    notes: list[str] = []
    orders = {p: held[p]["order"] for p in decision.players if p in held}
    for p, (level, why) in played.items():
        # seeded from public values only (game id, decision, seat): verify chooses the same order again
        seed = bots.seat_seed(doc.game_id, decision.id, p)
        if doc.deal == "blind":  # the bot plays from the cards the moderator's key opens (a bot seat's)
            from koryo_pbm import blind

            cards, shares = blind.bot_cards(game, run.state, p, run.mv.identity)
            choice = blind.choose_bot(game, run.state, p, level, cards, seed=seed, limit=bots.DEFAULT_LIMIT,
                                      shares=shares)
        else:
            choice = bots.choose(game, run.state, p, level, seed=seed)
        orders[p] = choice.order
        deadline = (deadlines.parse_stamp(opened[p]) if opened and p in opened  # the deadline the hand was opened at
                    else _deadline(doc, decision.id))
        notes.append(_bot_note(p, level, why, run.policy, choice, deadline, run.now))
    return {p: orders[p] for p in decision.players}, notes


def _record(run: _Run, decision: Decision, orders: Mapping[str, Any],
            played: Mapping[str, tuple[str, str]]) -> list[str]:
    """Count the orders of the applied ``decision``: in the record (published at the end), the
    join's contributions, the held envelopes accepted. Returns the accepted digests."""
    doc, held = run.mv.doc, run.held
    accepted = [held[p]["digest"] for p in decision.players if p in held]
    run.record += [_signed_record(run.mv, decision.id, p, held[p]["envelope"], _opened(run, p, held[p]))
                   if p in held
                   else _bot_record(decision.id, p, played[p][0],
                                    canonical_orders(doc.game_id, decision.id, orders[p]))
                   for p in decision.players]
    if doc.deal == "joined" and doc.contributions is None and decision.kind == _join_kind():
        run.contributions = {p: str(orders[p]["contribution"]) for p in doc.players}
    for digest in accepted:
        for c in run.by_digest.get(digest, ()):
            if c.status == "held":
                c.status = "accepted"
    return accepted


def _join_kind() -> str:
    """The join decision's kind (:data:`koryo_pbm.fair.JOIN`), asked only of a joined game: a
    dealt game's resolve does not import :mod:`koryo_pbm.fair`."""
    from koryo_pbm.fair import JOIN

    return JOIN


def _opened(run: _Run, player: str, entry: Mapping[str, Any]) -> tuple[str, bytes, Any] | None:
    """The held ``entry``'s envelope as opened (orders text, inner signature, envelope) with the
    seat's key of today: in this run, or in an earlier one of this process (:class:`_Opened`);
    ``None`` when neither opened it (then :func:`_published` reads and opens it)."""
    digest, armored = entry.get("digest"), entry.get("envelope")
    found = run.signed.get(digest) if isinstance(digest, str) else None
    if found is None and isinstance(digest, str) and isinstance(armored, str):
        found = _OPENED.get(digest, run.mv.doc.players[player], run.mv.identity, armored)
    return found


def _mark_unanswered(run: _Run, opened: Sequence[tuple[Candidate, str]], pending: Decision | None) -> None:
    """Opened envelopes no decision took: late (their decision was resolved) or rejected."""
    doc, new = run.mv.doc, run.new
    # (a log entry may name the decision that was pending, unresolved: a deadline moved)
    open_id = doc.decision["id"] if doc.decision else None
    resolved = ({entry.get("decision") for entry in doc.log if entry.get("decision") != open_id}
                | {entry["decision"] for entry in new.log[len(doc.log):]})
    for c, _ in opened:
        if c.status == "pending":
            env = c.envelope
            if env.decision in resolved:  # late: not an error of the player's, nor of the run
                c.status, c.reason = "late", (
                    f"decision {env.decision} was resolved already; "
                    + (f"game {doc.game_id} is over" if pending is None else f"the game waits for {pending.id} now")
                )
            elif pending is None:
                c.status, c.reason = "rejected", f"game {doc.game_id} is over"
            else:
                c.status, c.reason = "rejected", (
                    f"for decision {env.decision}, but the game waits for {pending.id}"
                )


def _finish(run: _Run, pending: Decision | None) -> Resolution:
    """The resolution with the next version filled in if anything changed (at the end of the
    game, the seed, the salt and every order published), else with the document as it was."""
    mv, new, result = run.mv, run.new, run.result
    if not run.changed:
        result.doc = mv.doc
        return result
    new.service = run.policy.to_table() or None
    secrets = mv.secrets.replace(played=run.record)
    if run.contributions is not None:
        new.contributions = run.contributions
    blind_table = mv.doc.deal == "blind"
    if blind_table:
        from koryo_pbm import blind

    if (pending is None or (blind_table and blind.proves_end(mv.game, run.state))) and len(new.log) > len(mv.doc.log):
        # published with the end (a blind table: first, with the version that asks its co-dealer to
        # open the cards, as the proof that the game is over): anyone can check the commitment and
        # replay the game
        new.seed, new.salt = secrets.seed, secrets.salt
        before = list(mv.doc.replay["orders"]) if mv.doc.replay else []
        new.replay = {**secrets.setup, "orders": before + publish_orders(mv, run.record)}
        secrets = secrets.replace(played=[])  # published: no second, sealed copy
    if blind_table and pending is not None:  # a reveal shows the player's own signed order naming the slots
        wanted = blind.claim_wanted(mv.game, run.state)
        item = next((i for i in run.record if wanted and (i.get("decision"), i.get("player")) == wanted), None)
        if item is not None and "bot" not in item:
            run.state = blind.with_claim(mv.game, run.state, _published(mv, item))
        if blind.turn_up_wanted(mv.game, run.state):  # a turn-up shows every player's signed order so far
            seats = set(run.state.seats)
            run.state = blind.with_signed(run.state, [_published(mv, i) for i in run.record
                                                      if "bot" not in i and i.get("player") in seats])
    _fill(new, mv.game, run.state, _secret(secrets, run.held, mv.emails, mv.former), now=run.now)
    result.doc, result.written = new, True
    return result


def _seen_digests(doc: GameDoc) -> set[str]:
    seen: set[str] = set()
    for entry in doc.log:
        seen.update(entry.get("accepted", []))
    return seen


def answerable_heads(doc: GameDoc) -> set[str]:
    """The heads of ``doc``'s history that an envelope for its pending decision may answer: the
    head when the decision opened and every head since. Entries logged while a decision is
    pending (a deadline moved, a seat taken over) name that decision and resolve nothing, so a
    player who answered before them answered the same decision of the same history."""
    heads = {gamelog.head(doc)}
    open_id = doc.decision["id"] if doc.decision else None
    log = doc.log
    i = len(log)
    while i > 0 and log[i - 1].get("decision") == open_id:
        if any(REJOIN_NOTE.fullmatch(str(e)) for e in log[i - 1].get("events", ())):
            break  # a seat changed hands during the join: joins signed before it are not counted
        i -= 1
        heads.add(str(log[i - 1]["hash"]) if i > 0 else gamelog.head(doc.replace(log=[])))
    return heads


def _rejoined(doc: GameDoc) -> bool:
    """Whether the pending decision is a join that started again (a seat changed hands while it
    was pending): an envelope answering an earlier head answers the join before that."""
    open_id = doc.decision["id"] if doc.decision else None
    for entry in reversed(doc.log):
        if entry.get("decision") != open_id:
            return False
        if any(REJOIN_NOTE.fullmatch(str(e)) for e in entry.get("events", ())):
            return True
    return False


def held_size(player: str, entry: Mapping[str, Any]) -> int:
    """The bytes a held order takes in the moderator's part (at most ``HELD_ROOM``)."""
    try:
        return len(gameparts.compact_json({player: entry}).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        raise FormatError("the orders hold a value that cannot be kept (not a number, or nested too deeply)") from None


RECORD_QUANTUM = 1024  # an order kept for the replay takes a multiple of this in the moderator's part


def _signed_record(mv: ModeratorView, decision: str, player: str, envelope: str,
                   opened: tuple[str, bytes, Any] | None = None) -> dict[str, Any]:
    """A player's accepted order as kept in the moderator's part until the end: what
    :func:`publish_orders` publishes (not the whole envelope: its padded ciphertext is most of
    its size and checks nothing more), its orders text padded with spaces to a multiple of
    :data:`RECORD_QUANTUM` bytes as compact JSON (``length``: its own length), so that the part's
    size says no more of the orders than the envelope's did (its orders padded to 1 KiB), and
    ``key``, the public key that signed it. ``opened``: the envelope's orders, inner signature
    and the envelope itself when this run opened it (then it is not read or opened again)."""
    from koryo_pbm.store.gameparts import compact_json

    published = _published(mv, {"decision": decision, "player": player, "envelope": envelope}, opened)
    text = published["orders"]
    if mv.doc.deal == "blind":  # a deck the co-dealer shuffled is kept once, in the public record
        from koryo_pbm import blind

        text = published["orders"] = blind.refer_decks(text)
    size = len(compact_json(text).encode("utf-8")) - 2
    # the signer's key always (a substitute may take the seat before the end: published then)
    return {**published, "key": published.get("key", mv.doc.players[player].line()),
            "orders": text + " " * (-size % RECORD_QUANTUM), "length": len(text)}


def _bot_record(decision: str, player: str, level: str, text: str) -> dict[str, Any]:
    """An order the moderator's bot played, as kept in the moderator's part until the end: its
    text padded as :func:`_signed_record` pads a player's, so that the part's size says nothing
    of what the bot chose."""
    from koryo_pbm.store.gameparts import compact_json

    size = len(compact_json(text).encode("utf-8")) - 2
    return {"decision": decision, "player": player, "bot": level,
            "orders": text + " " * (-size % RECORD_QUANTUM), "length": len(text)}


def _published_bot(mv: ModeratorView, item: Mapping[str, Any]) -> dict[str, str]:
    """A bot's order as published: as played (kept padded, with its ``length``, since issue 16's
    slim record; unpadded by an earlier koryo-pbm)."""
    if "length" not in item:
        return dict(item)
    length, text = item["length"], item.get("orders")
    if not isinstance(length, int) or not isinstance(text, str) or text[length:].strip(" "):
        raise FormatError(f"the moderator's part of game {mv.doc.game_id} holds a malformed bot order "
                          f"of {item.get('player')}")
    return {k: (text[:length] if k == "orders" else v) for k, v in item.items() if k != "length"}


def _published(mv: ModeratorView, item: Mapping[str, Any],
               opened: tuple[str, bytes, Any] | None = None) -> dict[str, str]:
    """One player's order of the record as published: from its envelope (read, and opened with
    the moderator's key, unless ``opened`` gives what this run read and opened of it: its orders,
    inner signature and the envelope, by the seat's key of today), or as :func:`_signed_record`
    kept it."""
    from koryo_pbm.crypto.envelope import parse_one

    player = item["player"]
    if "envelope" not in item:
        length = item.get("length")
        text = item.get("orders")
        if not isinstance(length, int) or not isinstance(text, str) or text[length:].strip(" "):
            raise FormatError(f"the moderator's part of game {mv.doc.game_id} holds a malformed order of {player}")
        out = {k: (text[:length] if k == "orders" else v) for k, v in item.items() if k != "length"}
        if out.get("key") == mv.doc.players[player].line():
            del out["key"]  # signed with the seat's key of today
        return out
    env = opened[2] if opened is not None else parse_one(item["envelope"], f"the envelope of {player} for "
                                                                             f"{item['decision']}")
    current = mv.doc.players[player]
    for key in [current, *reversed(mv.former.get(player, []))]:
        if opened is not None and key == current:
            text, inner = opened[:2]  # opened and checked with this key in this run
        else:
            try:
                env.verify(key)
            except KoryoPbmError:
                continue
            text, inner = env.open_signed(mv.identity, key)
        published = {"decision": item["decision"], "player": player, "answers": env.header["answers"],
                     "submitted": env.submitted, "nonce": env.nonce, "digest": env.digest, "orders": text,
                     "inner": binascii.b2a_base64(inner, newline=False).decode("ascii")}
        if key != current:
            published["key"] = key.line()
        return published
    raise FormatError(f"the moderator's part of game {mv.doc.game_id} holds an envelope of {player} that no "
                      "key of the seat signed")


def publish_orders(mv: ModeratorView, record: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The orders counted in the game, as published at its end (``replay.orders``): for each
    player's order, what the player signed (its orders text, the header fields the file does not
    already say, the inner signature) and the envelope's digest as the log counts it, so that
    anyone can check that the player signed exactly these orders (not the whole sealed envelope:
    its padded ciphertext is most of its size and checks nothing more, issue 19); an order of the
    moderator's bot as it was played. An order signed by a seat's former key (a substitute took
    the seat over) carries that ``key``. The record holds each player's order as
    :func:`_signed_record` keeps it, or (a game resolved by an earlier koryo-pbm) its envelope."""
    return [_published_bot(mv, item) if "bot" in item else _published(mv, item) for item in record]
