"""Verifying a finished game from its public file alone (``koryo-pbm verify``).

When a game ends the moderator publishes, in the signed game file, the seed and the salt of its
commitment, the set-up (first player, options, position), and every accepted order as its
player signed it (``replay``). :func:`verify_game` checks, in this order, stopping at the first
failure (what follows would not mean anything):

1. ``over``        the game is over (nothing is published before);
2. ``seed``        the seed and salt match the commitment of the file (reading the file checked
                   the moderator's signature and the log's hash chain already);
3. ``deal``        how the deal was made: from the moderator's secret and every player's
                   contribution (``joined``: the published contributions must be the players'
                   signed join orders), or chosen by the moderator (``seed``, ``position``):
                   reported, not fair-proof; a join it cannot prove fair (a person's join the
                   bot played, a seat that changed hands during the join:
                   :func:`_unproven_joins`) is named, not fair-proof;
4. ``orders``      every published order is in an envelope signed by its player (outer
                   signature), for this game, decision and player, and its text is the one the
                   player signed inside (inner signature): the moderator cannot alter one;
5. ``bots``        every order the moderator's bots played (bot seats, missed deadlines,
                   abandoned seats, and a bot seat's join contribution) chosen again, as the
                   decisions are replayed, from the seat's view, the level the public policy
                   names and the bot's generator seeded from public values (game id, decision,
                   seat): a bot order the bot would not have given fails, naming the decision.
                   A decision where the log says the bot hit its safety time limit is reported
                   as not re-derivable (its stand-in, a random legal order from public values,
                   is checked);
   ``replay``      the game replayed from the seed, the game id, the contributions and the
                   published orders with the game's own rules: each log entry must be the
                   decision the game waited for, count exactly the envelopes published for it
                   (in seat order), and record exactly the events the rules produce;
6. ``end``         the replayed game is over with the final scores, winners and public state
                   of the file;
7. ``submitted``   (for a player, from this machine's record of what it submitted,
                   :mod:`koryo_pbm.store.submissions`) every decision the player submitted for
                   counted the latest envelope submitted here.

It knows no game: the game's rules replay it; the join goes through :mod:`koryo_pbm.fair`.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from koryo_pbm import deadlines, fair
from koryo_pbm.crypto import commit
from koryo_pbm.crypto.envelope import check_inner, parse_one, signed_header
from koryo_pbm.errors import GameError, KoryoPbmError
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.values import HEX64, Value

if TYPE_CHECKING:  # receipts and submissions are checked only when a player brings them
    from koryo_pbm.crypto.receipt import Receipt
    from koryo_pbm.store.submissions import Submission



class Check(Value):
    _fields = ("name", "ok", "detail")
    name: str
    ok: bool
    detail: str

    def __init__(self, name: str, ok: bool, detail: str) -> None:
        self.name = name
        self.ok = ok
        self.detail = detail

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "detail": self.detail}


class Report(Value):
    _fields = ("checks", "fair_proof", "not_fair", "not_rederivable")
    checks: list[Check]
    fair_proof: bool  # no contribution to the deal is anyone's word alone (see word_alone)
    not_fair: str  # why not, for the verdict: "its deal was chosen by the moderator", ...
    #: decisions (``"r3-orders (carol)"``) where a bot hit its safety time limit: what it would
    #: have chosen cannot be chosen again
    not_rederivable: list[str]

    def __init__(self, checks: list[Check] | None = None, fair_proof: bool = False, not_fair: str = "",
                 not_rederivable: list[str] | None = None) -> None:
        self.checks = [] if checks is None else checks
        self.fair_proof = fair_proof
        self.not_fair = not_fair
        self.not_rederivable = [] if not_rederivable is None else not_rederivable

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


class _Fail(Exception):
    def __init__(self, name: str, detail: str) -> None:
        super().__init__(detail)
        self.name, self.detail = name, detail


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _scores(scores: Any) -> str:
    if not isinstance(scores, dict):
        return "none"
    return ", ".join(f"{p} {s}" for p, s in scores.items())


def verify_game(doc: GameDoc, *, player: str | None = None, submitted: Sequence[Submission] | None = None,
                receipts: Sequence[Receipt] = ()) -> Report:
    """Check the finished game ``doc`` (already read: signature and hash chain checked). With
    ``player``, also that every envelope in ``submitted`` (this machine's record) counted, and
    that no decision the player has a receipt (``receipts``, the moderator's, checked by the
    caller) or a record of a submission for was played by the bot in their place."""
    report = Report(checks=[Check("file", True, f"signed by moderator {doc.moderator.fingerprint()}; the log's hash "
                                                f"chain holds ({len(doc.log)} entries, version {doc.version})")])
    try:
        _verify(doc, report, player, submitted, receipts)
    except _Fail as fail:
        report.checks.append(Check(fail.name, False, fail.detail))
    return report


def _when(text: str) -> datetime | None:
    """A UTC time as koryo-pbm writes them (``2026-11-27T18:00:00Z``, fractions allowed)."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


class _Service(Value):
    """What the public policy let the moderator's bot do at each log entry, replayed from the
    log: which key holds each seat (a bot seat holds the moderator's), the seats abandoned, the
    missed decisions in a row, the deadlines the moderator moved. The policy's fixed part
    (deadlines, grace, missed, bot level, abandon-after) is the file's ``[service]``."""

    _fields = ("policy", "moderator", "keys", "abandoned", "in_row", "moved", "played")
    policy: Any
    moderator: str
    keys: dict[str, str]
    abandoned: set[str]
    in_row: dict[str, int]
    moved: dict[str, str]
    played: dict[tuple[str, str], tuple[str, str | None]]  # (decision, seat) -> why, resolved

    def __init__(self, policy: Any, moderator: str, keys: dict[str, str]) -> None:
        self.policy = policy
        self.moderator = moderator
        self.keys = keys
        self.abandoned = set()
        self.in_row = {}
        self.moved = {}
        self.played = {}

    @classmethod
    def of(cls, doc: GameDoc) -> _Service:
        from koryo_pbm import deadlines
        from koryo_pbm.match.notes import TAKEN_OVER_NOTE

        try:
            policy = deadlines.policy_of(doc.service, list(doc.players))
        except KoryoPbmError as exc:
            raise _Fail("bots", f"the game's policy cannot be read: {exc}") from None
        keys = {name: key.fingerprint() for name, key in doc.players.items()}
        first: dict[str, str] = {}
        for entry in doc.log:
            for text in entry["events"]:
                m = TAKEN_OVER_NOTE.fullmatch(str(text))
                if m and m["seat"] not in first:
                    first[m["seat"]] = m["old"]
        keys.update(first)  # the key each seat began with
        return cls(policy, doc.moderator.fingerprint(), keys)

    def service_entry(self, entry: dict[str, Any]) -> None:
        """A seat taken over (its abandoned flag and count cleared), a deadline moved."""
        from koryo_pbm.match.notes import MOVED_NOTE, TAKEN_OVER_NOTE

        for text in entry["events"]:
            m = TAKEN_OVER_NOTE.fullmatch(str(text))
            if m:
                self.keys[m["seat"]] = m["new"]
                self.abandoned.discard(m["seat"])
                self.in_row.pop(m["seat"], None)
            moved = MOVED_NOTE.fullmatch(str(text))
            if moved:
                self.moved[moved["decision"]] = moved["when"]

    def check(self, where: str, decision: Any, bots_here: set[str], notes: list[str]) -> None:
        """Each order the bot played in this entry was allowed by the policy then; then the
        count of missed decisions and the abandonments the entry notes."""
        from koryo_pbm import deadlines
        from koryo_pbm.match.notes import ABANDON_NOTE, ABANDONED_NOTE, BOT_SEAT_NOTE, MISSED_NOTE

        policy = self.policy
        level = policy.bot_level or "random"
        for note in notes:
            m = BOT_SEAT_NOTE.fullmatch(note)
            if m and m["seat"] in bots_here:
                seat = m["seat"]
                if self.keys.get(seat) != self.moderator:
                    raise _Fail("bots", f"{where} says the bot played {seat}'s seat, but {seat}'s seat is held by a "
                                        f"player's key ({self.keys.get(seat)}), not a bot seat: {seat}'s order may "
                                        "have been dropped")
                self.played[(decision.id, seat)] = ("seat", None)
                continue
            m = ABANDONED_NOTE.fullmatch(note)
            if m and m["seat"] in bots_here:
                seat = m["seat"]
                if seat not in self.abandoned:
                    raise _Fail("bots", f"{where} says {seat}'s seat is abandoned, but the log never abandoned it "
                                        f"(or a new player took it over since): {seat}'s order may have been dropped")
                self.played[(decision.id, seat)] = ("abandoned", None)
                continue
            m = MISSED_NOTE.fullmatch(note)
            if m and m["seat"] in bots_here:
                seat = m["seat"]
                said = f"{where} says {seat} missed the deadline and the bot played for them, but"
                after = f": {seat}'s order may have been dropped"
                if policy.missed != "bot":
                    raise _Fail("bots", f"{said} missed orders wait in this game (its policy is not --missed bot){after}")
                if policy.duration(decision.kind) is None:
                    raise _Fail("bots", f"{said} the game gives its {decision.kind} decisions no deadline{after}")
                if m["deadline"] is None:
                    raise _Fail("bots", f"{said} the log does not record the deadline and when the decision was "
                                        f"resolved{after}")
                deadline, resolved = _when(m["deadline"]), _when(m["resolved"])
                if deadline is None or resolved is None:
                    raise _Fail("bots", f"{said} its times are not UTC times{after}")
                grace = policy.grace_period()
                if resolved < deadline + grace:
                    raise _Fail("bots", f"{said} it was resolved at {m['resolved']}, before the deadline "
                                        f"{m['deadline']} and its grace ({policy.grace or 'none'}) had passed{after}")
                if decision.id in self.moved and self.moved[decision.id] != deadlines.human(deadline):
                    raise _Fail("bots", f"{said} its deadline {m['deadline']} is not the one the log last set for "
                                        f"{decision.id} ({self.moved[decision.id]}){after}")
                if m["level"] != level:
                    raise _Fail("bots", f"{said} the policy's bot is {level}, not {m['level']}{after}")
                self.played[(decision.id, seat)] = ("missed", m["resolved"])
                self.in_row[seat] = self.in_row.get(seat, 0) + 1
        for seat in decision.players:
            if seat not in bots_here:
                self.in_row.pop(seat, None)
        for note in notes:
            m = ABANDON_NOTE.fullmatch(note)
            if m:
                seat, count = m["player"], int(m["count"])
                if not policy.abandon_after or count != self.in_row.get(seat) or count < policy.abandon_after:
                    raise _Fail("bots", f"{where} abandons {seat}'s seat after {count} missed decisions, but the "
                                        f"policy and the log do not (abandon after {policy.abandon_after or 'never'}, "
                                        f"{self.in_row.get(seat, 0)} missed in a row)")
                self.abandoned.add(seat)
                self.in_row.pop(seat, None)


def word_alone(doc: GameDoc, decision: str, player: str, digest: str | None) -> bool:
    """Whether the published order of ``player`` for ``decision`` is somebody's word alone:
    ``digest`` is ``None`` for an order the moderator's bot played, which nobody but the
    moderator can check (a bot seat's contribution to the deal could be tried until the deal
    suits the moderator). A player's signed order is not: it is checked against their keys.

    The one place ``fair_proof`` asks: a bot order that anyone re-derives from public values
    (a generator seeded by the game id, the seat and the decision, replayed by ``verify``)
    is no longer anyone's word, and this is where that is said: every bot order is chosen
    again by :class:`BotReplay`, which fails the game on any difference. (What is left to the
    moderator, a time-out's stand-in at the join, and a deal of bots alone: :meth:`BotReplay.result`
    takes ``fair_proof`` back.)"""
    return False


def check_end(doc: GameDoc) -> None:
    """The proof that a blind game is over, which its co-dealer checks before it releases anything
    that opens a card at the end (its key share and seeds, a last reveal of the hands): the
    moderator has published its seed, salt and every signed order with the version that asks,
    and the game replayed from them as :func:`verify` replays it (every order's signature, every
    log entry, the moderator's every step from its seed) reaches exactly that version's decision
    and public state. What it leaves to the audit: the cards themselves (the dealers' secrets are
    not out yet) and the bots' choices, chosen again from those cards. ``GameError`` in one line."""
    report = Report()
    try:
        _verify(doc, report, None, None, (), upto_end=True)
    except _Fail as fail:
        raise GameError(f"the end of game {doc.game_id} is not proven ({fail.name}): {fail.detail}") from None
    except KoryoPbmError as exc:
        raise GameError(f"the end of game {doc.game_id} is not proven: {exc}") from None


def _unproven_joins(doc: GameDoc, joins: dict[str, tuple[str | None, dict, str]]) -> list[tuple[str, str]]:
    """The seats of a joined game whose join ``verify`` cannot prove fair, each with why: a
    person's seat whose join the moderator's bot played (a missed deadline, an abandoned seat:
    the moderator reads every join as it comes in, so it could choose which ones to count,
    and with them the deal), and a seat that changed hands while the join was pending (its new
    key is the moderator's choice, made while the join was open: it could be the moderator's
    own, join last and choose its contribution knowing every other; worse if another counted
    join was signed before the hand-over, which koryo-pbm's own resolve refuses). A key at the
    table from the start is the players' agreed table, not proven either way (a moderator who
    also plays is a collusion no file shows). A bot seat's contribution is fixed by public
    values before anyone joins: one deal, not a choice (:class:`BotReplay` re-derives it)."""
    from koryo_pbm.match.notes import ABANDONED_NOTE, MISSED_NOTE, SERVICE_ONLY, TAKEN_OVER_NOTE

    answers: dict[str, str] = {}
    for item in doc.replay["orders"] if doc.replay else ():
        if item.get("decision") == fair.JOIN and "bot" not in item:
            head = item.get("answers")
            if head is None and "envelope" in item:  # format v2: the whole envelope
                head = parse_one(item["envelope"], f"the join of {item['player']}").header.get("answers")
            answers[str(item["player"])] = str(head).removeprefix("sha256:")  # as the log's hashes, bare
    out: list[tuple[str, str]] = []
    taken: list[tuple[str, int]] = []  # (seat, index of the log entry that handed it over)
    for i, entry in enumerate(doc.log):
        if entry.get("decision") != fair.JOIN:
            break
        events = [str(e) for e in entry.get("events", ())]
        if events and not entry.get("accepted") and all(any(p.fullmatch(e) for p in SERVICE_ONLY) for e in events):
            taken += [(m["seat"], i) for m in map(TAKEN_OVER_NOTE.fullmatch, events) if m]
            continue
        for e in events:  # the join's own entry: who the bot played for
            m = MISSED_NOTE.fullmatch(e) or ABANDONED_NOTE.fullmatch(e)
            if m and m["seat"] in joins and joins[m["seat"]][0] is None:
                out.append((m["seat"], f"{m['seat']}'s join was played by the moderator's bot ({m['seat']} is a "
                                       "person's seat): the moderator, who reads every join, could choose which "
                                       "joins to count"))
        for seat in dict.fromkeys(seat for seat, _ in taken):  # each seat once, at its last hand-over
            at = max(k for s_, k in taken if s_ == seat)
            since = {str(doc.log[k]["hash"]).removeprefix("sha256:") for k in range(at, i)}
            early = [p for p in joins if p != seat and joins[p][0] is not None and answers.get(p) not in since]
            if early:
                out.append((seat, f"{seat}'s seat changed hands during the join after {', '.join(early)} signed "
                                  f"{'their joins' if len(early) > 1 else 'a join'}: the new key could choose its "
                                  "contribution knowing them"))
            else:
                out.append((seat, f"{seat}'s seat changed hands during the join: its new key, the moderator's "
                                  "choice, could join last and choose its contribution knowing every other"))
        break
    return out


def _verify(doc: GameDoc, report: Report, player: str | None, submitted: Sequence[Submission] | None,
            receipts: Sequence[Receipt], upto_end: bool = False) -> None:
    from koryo_pbm import match

    add = report.checks.append
    if upto_end:
        if doc.deal != "blind" or doc.decision is None or doc.seed is None or doc.salt is None or doc.replay is None:
            raise _Fail("over", "the moderator has not published its seed, salt and every signed order with the "
                                "version that says the game is over")
    elif doc.decision is not None or doc.seed is None or doc.salt is None or doc.replay is None:
        raise _Fail("over", "the game is not over (or its end publishes no seed and orders): "
                            "verify checks a finished game")
    add(Check("over", True, f"game {doc.game_id} is over; its seed and {len(doc.replay['orders'])} orders are published"))
    if not commit.check_commitment(doc.seed_commitment, doc.seed, doc.salt):  # decode checked it; say it
        raise _Fail("seed", "the published seed does not match the seed commitment made at the start")
    add(Check("seed", True, "the published seed and salt match the commitment made at the start"))

    replay = doc.replay
    game = match.game_of(doc)
    orders = _check_orders(doc, replay["orders"])
    if doc.deal == "joined":
        if "position" in replay:
            raise _Fail("deal", "the file says the players joined, but a position is published: the deal was a "
                                "position the moderator chose")
        joins = orders.get(fair.JOIN, {})
        if doc.contributions is None or list(joins) != list(doc.players):
            raise _Fail("deal", "the file says the players joined, but not every player's signed join order is "
                                "published with the contributions")
        for name, (_, body, _) in joins.items():
            if body.get("contribution") != doc.contributions[name]:
                raise _Fail("deal", f"the contribution published for {name} is not the one {name} signed")
            if body.get("commitment") != doc.seed_commitment:
                raise _Fail("deal", f"{name} joined under another seed commitment than the file's: the moderator's "
                                    "secret was changed after the players joined")
        alone = [name for name, (digest, _, _) in joins.items() if word_alone(doc, fair.JOIN, name, digest)]
        unproven = _unproven_joins(doc, joins)
        if unproven:
            seats = ", ".join(seat for seat, _ in unproven)
            report.not_fair = f"the join of {seats} cannot be proven fair"
            add(Check("deal", True, "dealt from the moderator's committed secret and the contributions, but "
                                    + "; ".join(why for _, why in unproven) + ": not fair-proof"))
        elif alone:
            who = ", ".join(alone)
            report.not_fair = f"the contribution of {who} to its deal is the moderator's word"
            add(Check("deal", True, f"dealt from the moderator's committed secret and the contributions, but the "
                                    f"moderator's bot made {who}'s: the moderator could try contributions until the "
                                    "deal suited it; not fair-proof"))
        else:
            report.fair_proof = True
            add(Check("deal", True, "dealt from the moderator's committed secret and every player's signed "
                                    "contribution: no single party chose it"))
        state: Any = fair.JoinState(doc.game_id, tuple(doc.players), doc.seed, replay.get("first"),
                                    dict(replay.get("options", {})), doc.seed_commitment)
    elif doc.deal == "blind":
        from koryo_pbm import blind

        record = doc.public.get(blind.PUBLIC_KEY) if isinstance(doc.public, dict) else None
        dealers = record.get("dealers") if isinstance(record, dict) else None
        if not isinstance(record, dict) or not isinstance(dealers, list) or len(dealers) != 2 \
                or dealers[1] not in doc.players \
                or list(doc.players)[-1] != dealers[1] or record.get("signer") != doc.players[dealers[1]].line():
            raise _Fail("deal", "the blind table's dealers are not the game file's co-dealer seat")
        try:
            state = blind.start_replay(game, doc.public, list(doc.players)[:-1],
                                       commit.deal_seed(doc.seed, doc.game_id), replay.get("first"))
        except KoryoPbmError as exc:
            raise _Fail("deal", f"the published set-up cannot be dealt: {exc}") from None
        bot_seats = _blind_bot_seats(doc, record)
        report.fair_proof = True
        seen = (f"no single party chose the deal; the moderator saw the cards of bot seat{'s' if len(bot_seats) > 1 else ''} "
                f"{', '.join(bot_seats)} (its bot's), and no other hidden card" if bot_seats
                else "no single party chose the deal or saw a hidden card")
        add(Check("deal", True, f"dealt at a blind table by {dealers[0]} and {dealers[1]}: the moderator's shuffles "
                                f"and shares derive from its committed seed, the co-dealer's are signed answers; {seen}"))
    else:
        seed = commit.deal_seed(doc.seed, doc.game_id)
        try:
            if doc.deal == "position":
                if "position" not in replay:
                    raise _Fail("deal", "the game began from a position, but the position is not published")
                state = game.load_position(replay["position"], seed)
            else:
                state = game.setup(list(doc.players), seed, first=replay.get("first"),
                                   options=dict(replay.get("options", {})))
        except KoryoPbmError as exc:
            raise _Fail("deal", f"the published set-up cannot be dealt: {exc}") from None
        how = "a position" if doc.deal == "position" else "a seed given at `new`"
        report.not_fair = "its deal was chosen by the moderator"
        add(Check("deal", True, f"the deal was chosen by the moderator ({how}): not fair-proof"))
    bot_orders = sum(1 for by in orders.values() for digest, _, _ in by.values() if digest is None)
    signed_orders = sum(len(by) for by in orders.values()) - bot_orders
    bot_part = (f"; {bot_orders} order{'s' if bot_orders != 1 else ''} the moderator's bot played (for a bot seat, "
                "an abandoned seat or a missed deadline), which no player signed" if bot_orders else "")
    add(Check("orders", True, f"every order a player made is signed by that player ({signed_orders} "
                              f"envelope{'s' if signed_orders != 1 else ''}){bot_part}"))

    bot_replay = BotReplay.of(doc, game)
    audited: list[Any] = []  # a blind game: the audit of its decks, made once (for its bots and its check)
    if doc.deal == "blind" and not upto_end:  # before the audit, the bots' cards are not known
        bot_replay.hands = _blind_hands(doc, game, audited)
    used: set[tuple[str, str]] = set()
    service = _Service.of(doc)
    answers: list[tuple[Any, dict]] = []  # the decisions and orders, for a blind game's audit
    opens = 0  # a blind game's hands opened to the moderator for the bot (--missed bot)
    happened: list[Any] = []
    for i, entry in enumerate(doc.log, 1):
        where = f"log entry {i} ({entry['decision']})"
        decision = game.pending(state)
        if decision is None:
            raise _Fail("replay", f"{where} comes after the end of the replayed game")
        if decision.id != entry["decision"]:
            raise _Fail("replay", f"{where}: the replayed game waits for {decision.id} there")
        if doc.deal == "blind" and _is_open_request(entry):  # --missed bot: an absent hand opened for the bot
            state = _blind_open(doc, game, state, decision, entry, service, where)
            opens += len(entry["events"])
            continue
        if match.is_service_entry(entry):  # a deadline moved, a seat taken over: nothing resolved
            service.service_entry(entry)
            continue
        published = orders.get(decision.id, {})
        for p in decision.players:
            if p not in published:
                raise _Fail("replay", f"{where} counted an order of {p} that is not published: an order was "
                                      "dropped or the log was rewritten")
        extra = [p for p in published if p not in decision.players]
        if extra:
            raise _Fail("replay", f"an order of {extra[0]} is published for {decision.id}, which did not wait for them")
        if not upto_end:
            bot_replay.check(game, state, decision.id, entry, {p: published[p][1] for p in decision.players
                                                               if published[p][0] is None}, where)
        signers = [p for p in decision.players if published[p][0] is not None]
        digests = [published[p][0] for p in signers]
        if digests != list(entry["accepted"]):
            who = next((p for p, d in zip(signers, digests, strict=False) if d not in entry["accepted"]),
                       decision.players[0])
            raise _Fail("replay", f"{where} counted another envelope of {who} than the one published: an order was "
                                  "dropped, replaced or the log was rewritten")
        try:
            state, events = game.apply(state, {p: published[p][1] for p in decision.players})
        except KoryoPbmError as exc:
            raise _Fail("replay", f"{where}: the published orders cannot be applied to the replayed game ({exc}): "
                                  "the deal or an earlier decision is not what the log says") from None
        answers.append((decision, {p: published[p][1] for p in decision.players}))
        happened += events
        texts = [e.text for e in events]
        logged = list(entry["events"])
        if doc.deal == "blind":  # a file written before "shuffled the deck" (a game of one deck) says "shuffled deck deck"
            from koryo_pbm.blind import in_todays_words

            logged = [in_todays_words(str(e)) for e in logged]
        notes, logged = logged[:len(logged) - len(texts)], logged[len(logged) - len(texts):]
        bots_here = {p for p in decision.players if published[p][0] is None}
        noted = set()
        for note in notes:
            m = next((m for m in (p.fullmatch(str(note)) for p in match.BOT_NOTES) if m), None)
            if m is None:
                raise _Fail("replay", f"{where} records {note!r}, which the rules replayed do not give: the log was "
                                      "rewritten or the deal is not the committed one")
            if "seat" in m.groupdict():
                noted.add(m["seat"])
        if bots_here - noted:
            raise _Fail("replay", f"{where}: an order of {sorted(bots_here - noted)[0]} is published as the bot's, "
                                  "but the log does not say the bot played for them")
        service.check(where, decision, bots_here, [str(n) for n in notes])
        if texts != logged:
            diff = next((k for k, (a, b) in enumerate(zip(texts, logged, strict=False)) if a != b),
                        min(len(texts), len(logged)))
            said = logged[diff] if diff < len(logged) else "(nothing)"
            rules = texts[diff] if diff < len(texts) else "(nothing)"
            raise _Fail("replay", f"{where} records {said!r} where the rules replayed give {rules!r}: the log "
                                  "was rewritten or the deal is not the committed one")
        used.update((decision.id, p) for p in decision.players)
    unused = [(d, p) for d, by in orders.items() for p in by if (d, p) not in used]
    if unused:
        raise _Fail("replay", f"an order of {unused[0][1]} for {unused[0][0]} is published but no log entry counted it")
    kinds = [why for why, _ in service.played.values()]
    allowed = (f"; each of the bot's {len(kinds)} orders was allowed by the game's public policy then ("
               f"{kinds.count('seat')} for bot seats, {kinds.count('abandoned')} for abandoned seats, "
               f"{kinds.count('missed')} after a missed deadline and its grace)") if kinds else ""
    bots_check = None if upto_end else bot_replay.result(report)
    if bots_check is not None:  # a game without the moderator's bots has nothing to say here
        add(bots_check)
    add(Check("replay", True, f"the rules replay every one of the {len(doc.log)} logged decisions from the published "
                              f"orders, event for event{allowed}"))

    still = game.pending(state)
    if upto_end:
        if still is None or doc.decision is None or still.id != doc.decision["id"]:
            raise _Fail("end", f"the replayed game waits for {still.id if still else 'nobody'}, not for "
                               f"{doc.decision['id'] if doc.decision else 'nobody'}")
        if _canonical(game.public(state)) != _canonical(doc.public):
            raise _Fail("end", "the public state in the file is not the replayed game's")
        return
    if still is not None:
        raise _Fail("end", f"the replayed game is not over: it waits for {still.id}")
    outcome = game.outcome(state)
    view = game.view(doc.public, None)
    if outcome is not None and isinstance(view, dict) and "scores" in view:
        if _canonical(dict(outcome.scores)) != _canonical(view["scores"]):
            raise _Fail("end", f"the final scores in the file ({_scores(view['scores'])}) are not those of the "
                               f"replayed game ({_scores(dict(outcome.scores))})")
        if _canonical(sorted(outcome.winners)) != _canonical(sorted(view.get("winners", []))):
            raise _Fail("end", f"the winners in the file ({', '.join(view.get('winners', []))}) are not those of "
                               f"the replayed game ({', '.join(outcome.winners)})")
    if _canonical(game.public(state)) != _canonical(doc.public):
        raise _Fail("end", "the final public state in the file is not the replayed game's")
    result = f"; winners {', '.join(outcome.winners)} ({_scores(dict(outcome.scores))})" if outcome else ""
    add(Check("end", True, f"the final scores, winners and public state are the replayed game's{result}"))
    if doc.deal == "blind":
        from koryo_pbm import blind

        try:
            detail = blind.audit_game(game, doc.public, [(d, o) for d, o in answers if d.kind != blind.DEAL],
                                      happened, audited[0] if audited else None)
        except KoryoPbmError as exc:
            raise _Fail("blind", str(exc)) from None
        if opens:
            detail += (f"; {opens} absent player's hand{'s' if opens != 1 else ''} opened to the moderator for the "
                       "bot, each after its deadline and grace under the public --missed bot policy")
        add(Check("blind", True, detail))

    if player is not None:
        add(_check_submitted(doc, orders, player, submitted or (), service.played, receipts))


def _is_open_request(entry: dict[str, Any]) -> bool:
    from koryo_pbm import blind

    events = entry.get("events") or []
    return not entry.get("accepted") and bool(events) and all(blind.OPEN_NOTE.fullmatch(str(e)) for e in events)


def _blind_open(doc: GameDoc, game: Any, state: Any, decision: Any, entry: dict[str, Any], service: _Service,
                where: str) -> Any:
    """A request to open absent players' hands to the moderator (a blind table's ``--missed bot``),
    checked against the public policy as the co-dealer checked it, and applied to the replay."""
    from koryo_pbm import blind

    found = [blind.OPEN_NOTE.fullmatch(str(e)) for e in entry["events"]]
    notes = [m for m in found if m is not None]
    first = notes[0]
    for m in notes:
        if m["decision"] != decision.id or (m["deadline"], m["grace"], m["resolved"]) != (
                first["deadline"], first["grace"], first["resolved"]):
            raise _Fail("blind", f"{where} opens hands for another decision than {decision.id}, or at other times")
        deadline, resolved = _when(m["deadline"]), _when(m["resolved"])
        if decision.id in service.moved and deadline is not None and \
                service.moved[decision.id] != deadlines.human(deadline):
            raise _Fail("blind", f"{where} opens {m['seat']}'s hand at the deadline {m['deadline']}, not the one the "
                                 f"log last set for {decision.id} ({service.moved[decision.id]})")
        if (m["grace"] != (service.policy.grace or "0m")):
            raise _Fail("blind", f"{where} opens {m['seat']}'s hand with a grace of {m['grace']}, not the policy's")
        try:
            blind.check_open_claim(game, state, service.policy, decision.id, m["seat"], deadline, resolved,
                                   doc.moderator, doc.players.get(m["seat"]))
        except KoryoPbmError as exc:
            raise _Fail("blind", f"{where}: {exc}: the moderator opened a hand it may not see") from None
    try:
        state, lines = blind.request_open(game, state, decision.id, [m["seat"] for m in notes], first["deadline"],
                                          first["grace"], first["resolved"])
    except KoryoPbmError as exc:
        raise _Fail("blind", f"{where}: {exc}") from None
    if lines != [str(e) for e in entry["events"]]:
        raise _Fail("blind", f"{where} does not record the request to open the hands as the replay makes it")
    return state


def _blind_bot_seats(doc: GameDoc, record: dict[str, Any]) -> list[str]:
    """The bot seats of a blind table: those its public record names (the co-dealer sealed
    their shares to the moderator) must be the public policy's, and every seat holding the
    moderator's key one of them."""
    bots = record.get("bots", [])
    try:
        policy = deadlines.policy_of(doc.service, list(doc.players))
    except KoryoPbmError as exc:
        raise _Fail("deal", f"the game's policy cannot be read: {exc}") from None
    if not isinstance(bots, list) or sorted(map(str, bots)) != sorted(policy.bots):
        raise _Fail("deal", "the blind table's bot seats (whose cards the moderator sees) are not the bot seats of "
                            "the game's public policy")
    for seat, key in list(doc.players.items())[:-1]:
        if key == doc.moderator and seat not in bots:
            raise _Fail("deal", f"{seat}'s seat holds the moderator's key but is no bot seat of the blind table")
    return [str(b) for b in bots]


def _blind_hands(doc: GameDoc, game: Any, audited: list[Any]) -> Any:
    """For a blind game's bots: (state, seat) -> the seat's hidden cards in ``state``, read
    from the audit of the decks (made on first use, kept in ``audited``)."""
    from koryo_pbm import blind

    def hands(state: Any, seat: str) -> tuple[dict[str, str], dict[str, str]]:
        if not audited:
            try:
                audited.append(blind.audit_decks(game, doc.public))
            except KoryoPbmError as exc:
                raise _Fail("blind", str(exc)) from None
        cards = blind.audited_cards(audited[0])
        # the co-dealer's share of each card later revealed (an order that shows a card gives its share, checked by the audit)
        revealed = blind.revealed_shares(doc.public)
        slots = [s for s in blind.hidden_slots(game, state, seat) if s in cards]
        return {s: cards[s] for s in slots}, {s: revealed[s] for s in slots if s in revealed}

    return hands


def _check_orders(doc: GameDoc, items: list[dict[str, str]]) -> dict[str, dict[str, tuple[str | None, dict, str]]]:
    """``{decision: {player: (digest, order body, submitted)}}`` from the published orders, each
    checked against its player's signatures (an order the moderator's bot played has no digest:
    it is the moderator's word, checked by the replay and the log's note)."""
    from koryo_pbm.crypto.keys import PublicIdentity
    from koryo_pbm.match import SERVICE_ONLY, parse_orders

    former = set()  # (seat, fingerprint of a key that held it before a substitute)
    for entry in doc.log:
        for text in entry["events"]:
            m = SERVICE_ONLY[1].fullmatch(str(text))
            if m:
                former.add((m["seat"], m["old"]))
    out: dict[str, dict[str, tuple[str | None, dict, str]]] = {}
    for n, item in enumerate(items, 1):
        who = f"the published order {n} ({item['player']} for {item['decision']})"
        digest: str | None = None
        submitted = ""
        try:
            if doc.deal == "blind" and isinstance(item.get("orders"), str):  # its decks, kept once, put back
                from koryo_pbm import blind

                item = {**item, "orders": blind.expand_decks(item["orders"], doc.public)}
            if "bot" not in item:
                key = doc.players[item["player"]]
                if "key" in item:
                    key = PublicIdentity.parse(item["key"])
                    if (item["player"], key.fingerprint()) not in former:
                        raise _Fail("orders", f"{who} is signed by a key that the log never names as "
                                              f"{item['player']}'s former key")
                inner = binascii.a2b_base64(item["inner"], strict_mode=True)
                if "envelope" in item:  # format v2: the whole envelope
                    env = parse_one(item["envelope"], who)
                    if (env.game_id, env.decision, env.player) != (doc.game_id, item["decision"], item["player"]):
                        raise _Fail("orders", f"{who} is in an envelope for {env.player}, {env.decision} of game "
                                              f"{env.game_id}")
                    env.verify(key)
                    check_inner(env.header, item["orders"], inner, key)
                    digest, submitted = env.digest, env.submitted
                else:  # format v3: the header the player signed with the orders, and the envelope's digest
                    header = signed_header(game_id=doc.game_id, decision=item["decision"], answers=item["answers"],
                                           player=item["player"], submitted=item["submitted"], nonce=item["nonce"],
                                           moderator=doc.moderator.fingerprint(), sender=key.fingerprint())
                    check_inner(header, item["orders"], inner, key)
                    if not HEX64.fits(item["digest"]):
                        raise _Fail("orders", f"{who} has no envelope digest")
                    digest, submitted = item["digest"], item["submitted"]
            game_id, decision_id, body = parse_orders(item["orders"], source=who)
        except (KoryoPbmError, binascii.Error, ValueError) as exc:
            raise _Fail("orders", f"{who} is not what {item['player']} signed: {exc}") from None
        if (game_id, decision_id) != (doc.game_id, item["decision"]):
            raise _Fail("orders", f"{who} holds orders for another game or decision")
        if item["player"] in out.setdefault(item["decision"], {}):
            raise _Fail("orders", f"two orders of {item['player']} are published for {item['decision']}")
        out[item["decision"]][item["player"]] = (digest, body, submitted)
    return out


def _replaced_by_bot(player: str, orders: dict[str, dict[str, tuple[str | None, dict, str]]],
                     submitted: Sequence[Submission], played: dict[tuple[str, str], tuple[str, str | None]],
                     receipts: Sequence[Receipt]) -> None:
    """Fail when the bot played ``player``'s order for a decision this machine holds the
    moderator's receipt for (proof the order was in), or submitted for before the decision was
    resolved (only the player knows that: the moderator may never have receipted it)."""
    for decision, by in orders.items():
        counted = by.get(player)
        if counted is None or counted[0] is not None:
            continue
        why, resolved = played.get((decision, player), ("", None))
        at = _when(resolved) if resolved else None
        said = (f"{player}'s order for {decision} was replaced by the bot's"
                + (f" (the log says {player} missed the deadline; resolved at {resolved})" if why == "missed" else ""))
        for r in receipts:
            h = r.header
            received = _when(h["received"])
            if (h["decision"], h["player"]) == (decision, player) and (at is None or (received and received <= at)):
                raise _Fail("submitted", f"{said}, but the moderator's receipt for envelope {h['envelope'][:16]} "
                                         f"(received {h['received']}) proves it was in on time")
        for sub in submitted:
            when = _when(sub.submitted)
            if (sub.decision, sub.player) == (decision, player) and (at is None or (when and when <= at)):
                raise _Fail("submitted", f"{said}, but this machine submitted it at {sub.submitted}; no receipt of it "
                                         "is given here (verify --receipt FILE), so only you know it was sent in time")


def _check_submitted(doc: GameDoc, orders: dict[str, dict[str, tuple[str | None, dict, str]]], player: str,
                     submitted: Sequence[Submission], played: dict[tuple[str, str], tuple[str, str | None]],
                     receipts: Sequence[Receipt]) -> Check:
    _replaced_by_bot(player, orders, submitted, played, receipts)
    from koryo_pbm.store.submissions import latest

    mine = latest(submitted, player)
    if not mine:
        return Check("submitted", True, f"this machine recorded no envelope of {player} for this game: nothing to "
                                        "compare")
    known = {s.digest for s in submitted if s.player == player}
    checked = 0
    for decision, last in mine.items():
        counted = orders.get(decision, {}).get(player)
        if counted is None or counted[0] is None:
            continue  # never resolved with this player's order (a decision that moved on, or late)
        checked += 1
        if counted[0] == last.digest and counted[2] != last.submitted:
            # v3 publishes the digest beside what the player signed: both must be of the envelope submitted here
            raise _Fail("submitted", f"the orders published for {player} for {decision} were signed at {counted[2]}, "
                                     f"not with the envelope the log counted ({last.submitted})")
        if counted[0] != last.digest:
            if counted[0] in known:
                raise _Fail("submitted", f"the log counted an older envelope of {player} for {decision} than the last "
                                         f"one this machine submitted ({last.submitted}): the later orders were "
                                         "withdrawn")
            raise _Fail("submitted", f"the log counted an envelope of {player} for {decision} that this machine did "
                                     f"not submit (the last one submitted here: {last.submitted})")
    return Check("submitted", True, f"every envelope of {player} this machine submitted last ({checked} decisions) "
                                    "is the one the log counted")


# -- the moderator's bots, chosen again -----------------------------------------------------------

_TIMED_OUT = "hit its safety time limit"


def _order_text(order: Any) -> str:
    text = _canonical(order)
    return text if len(text) <= 240 else text[:237] + "..."


class BotReplay(Value):
    """Every order the moderator's bots played, chosen again during the replay (see the module
    docstring, check ``bots``). A bot order is the moderator's word alone (nobody signed it), so
    it stands only if the bot gives it again: from the seat's view of the replayed state (the
    replay knows every hand: the seed is published), the level the public policy names, and the
    generator of :func:`~koryo_pbm.engine.bots.seat_seed` (game id, decision, seat), with no
    time limit (the bot's work is a count)."""

    _fields = ("game_id", "policy", "levels", "seats", "orders", "timed_out", "join_timed_out", "join_bots", "hands")
    game_id: str
    policy: deadlines.Policy
    levels: dict[tuple[str, str], str]  # (decision, seat) -> the level published with the order
    seats: int  # how many seats the game has
    orders: int
    timed_out: list[str]
    join_timed_out: bool
    join_bots: int  # join contributions that were bots' (known before anyone joined)
    hands: Any  # a blind game: (state, seat) -> the seat's hidden cards from the audit, and their revealed shares

    def __init__(self, game_id: str, policy: deadlines.Policy, levels: dict[tuple[str, str], str],
                 seats: int = 0) -> None:
        self.game_id = game_id
        self.policy = policy
        self.levels = levels
        self.seats = seats
        self.orders = 0
        self.timed_out = []
        self.join_timed_out = False
        self.join_bots = 0
        self.hands = None

    @classmethod
    def of(cls, doc: GameDoc, game: Any) -> BotReplay:
        try:
            policy = deadlines.policy_of(doc.service, list(doc.players))
        except KoryoPbmError as exc:
            raise _Fail("bots", f"the file's public policy cannot be read: {exc}") from None
        levels = {(str(item["decision"]), str(item["player"])): str(item["bot"])
                  for item in doc.replay["orders"] if "bot" in item} if doc.replay else {}
        return cls(doc.game_id, policy, levels, len(doc.players))

    def check(self, game: Any, state: Any, decision: str, entry: Any, played: dict[str, dict], where: str) -> None:
        """Choose again every bot order of the log entry ``entry`` (``played``: seat -> the
        order published as the bot's) in the replayed ``state``, before it is applied."""
        if not played:
            return
        from koryo_pbm import match
        from koryo_pbm.engine import bots  # only where a bot played

        notes: dict[str, tuple[int, str, str]] = {}  # seat -> (which note, level, the whole line)
        for text in entry["events"]:
            for kind, pattern in enumerate(match.BOT_NOTES):
                m = pattern.fullmatch(str(text))
                if m is not None and "seat" in m.groupdict():
                    notes.setdefault(m["seat"], (kind, m["level"], str(text)))
        for seat, body in played.items():
            if seat not in notes:
                continue  # the replay says that the log does not say the bot played
            kind, level, line = notes[seat]
            said = self.levels.get((decision, seat))
            if said != level:
                raise _Fail("bots", f"{where}: the log says the {level} bot played for {seat}, but the order "
                                    f"published for {seat} is the {said} bot's")
            expected = (self.policy.bots.get(seat) if kind == 2 else (self.policy.bot_level or bots.RANDOM)
                        if self.policy.missed == "bot" else None)  # no bot for missed orders: the policy check says so
            if expected is not None and level != expected:
                what = f"{seat}'s bot seat" if kind == 2 else "missed orders and abandoned seats"
                raise _Fail("bots", f"{where}: the log says the {level} bot played for {seat}, but the game's public "
                                    f"policy names the {expected} bot for {what}")
            if level not in bots.levels(game):
                raise _Fail("bots", f"{where}: the log names a bot level {level!r} that {game.title} does not have")
            seed = bots.seat_seed(self.game_id, decision, seat)
            self.orders += 1
            self.join_bots += decision == fair.JOIN
            if self.hands is not None:  # a blind table: the bot's view holds the seat's audited cards
                from koryo_pbm import blind

                cards, shares = self.hands(state, seat)
                view = game.from_view(game.public(state), {**game.private(state, seat), "cards": cards,
                                                            **({"shares": shares} if shares else {})}, seat)
                stand_in = dict(game.random_order(view, seat, bots.fallback_rng(seed)))
                again = blind.choose_bot(game, state, seat, level, cards, seed=seed, shares=shares)
            else:
                stand_in = bots.fallback_order(game, state, seat, seed) if _TIMED_OUT in line else {}
                again = None
            if _TIMED_OUT in line:
                if _canonical(stand_in) != _canonical(body):
                    raise _Fail("bots", f"{where}: the log says the {level} bot hit its safety time limit for {seat}, "
                                        f"but the order published, {_order_text(body)}, is not the random legal order "
                                        f"that stands in for it ({_order_text(stand_in)}): the moderator chose it")
                self.timed_out.append(f"{decision} ({seat})")
                if decision == fair.JOIN:
                    self.join_timed_out = True
                continue
            again = again or bots.rederive(game, state, seat, level, seed)
            if _canonical(again.order) != _canonical(body):
                raise _Fail("bots", f"{where}: the {level} bot, replayed from {seat}'s view with its public seed, "
                                    f"plays {_order_text(again.order)}, but the file says it played "
                                    f"{_order_text(body)}: the moderator did not play the bot's order (or the game "
                                    "was played by a koryo-pbm before 0.3, whose bots cannot be replayed)")

    def result(self, report: Report) -> Check | None:
        """The ``bots`` check once every decision is replayed (and ``report``'s lists); none
        when the moderator's bots played no order."""
        if not self.orders:
            return None
        report.not_rederivable = list(self.timed_out)
        if self.join_timed_out or (self.seats and self.join_bots == self.seats):
            # the moderator could pick the bot's or the stand-in's contribution; or every
            # contribution was known before the moderator chose its secret
            report.fair_proof = False
            seats = ", ".join(t[len(fair.JOIN) + 2:-1] for t in self.timed_out if t.startswith(f"{fair.JOIN} ("))
            report.not_fair = (f"the join of {seats} (a bot seat) is not re-derivable (its bot hit its time limit)"
                               if self.join_timed_out else "every contribution to its deal was a bot's, known "
                               "before the moderator chose its secret")
        detail = (f"every one of the {self.orders} orders the moderator's bots played is the one the bot chooses "
                  "again from the seat's view and its public seed")
        if self.timed_out:
            n = len(self.timed_out)
            detail = (f"{self.orders - n} of the {self.orders} orders the moderator's bots played are the ones the bot "
                      f"chooses again; {n} not re-derivable: the log says the bot hit its safety time limit at "
                      f"{', '.join(self.timed_out[:5])}{', ...' if n > 5 else ''} (the random legal order that stood "
                      "in is the public one)")
            if self.join_timed_out:
                detail += "; a bot seat's join contribution is among them: the deal is not fair-proof"
        if self.seats and self.join_bots == self.seats:
            detail += ("; every contribution to the deal was a bot's, known before the moderator chose its "
                       "secret: the deal is not fair-proof")
        return Check("bots", True, detail)
