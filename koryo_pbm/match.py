"""A match on disk: where the rules engine meets the game file.

A *game folder* holds ``game.toml`` (one signed file with the public state, each player's
sealed part and the moderator's sealed secrets), ``inbox/`` where envelopes arrive, and
``archive/`` where processed envelopes are kept. This module knows no particular game and no
command line: it turns a :class:`~koryo_pbm.engine.contract.Game` state into a
:class:`~koryo_pbm.store.gamefile.GameDoc` and back, and it implements the moderator's resolve
and the player's view.

The moderator's sealed part holds::

    state   the game's whole state (game.dump_state), its seeded generator included; before
            a joined game is dealt, the join state (:mod:`koryo_pbm.fair`)
    seed    the moderator's secret seed (committed to in the file from the start)
    salt    the salt of that commitment
    setup   {first, options, position}: how the game was set up (each if given)
    orders  {player: {order, digest, submitted, envelope, text, inner}} — valid orders received
            for the pending decision, held until everyone it waits for has answered
    played  every accepted order so far: {decision, player, envelope, orders, inner}
    emails  {player: address} — the players' mail addresses, for the judge (absent: none)

The deal: a game created without a seed or a position begins with the join decision (see
:mod:`koryo_pbm.fair`); its deal is derived from the moderator's secret, every player's
contribution and the game id. At the end of the match the seed and salt are published in the
game file, with ``replay`` (setup and every accepted order, as the players signed them), so that
anyone can check the commitment and replay the match (``koryo-pbm verify``).
"""

from __future__ import annotations

import base64
import dataclasses
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from koryo_pbm import fair
from koryo_pbm.crypto import commit
from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.engine.contract import Decision, Event, Game, State
from koryo_pbm.engine.registry import find_game
from koryo_pbm.errors import (
    FormatError,
    KoryoPbmError,
    NotForYou,
    OrderError,
    SetupError,
    StaleError,
)
from koryo_pbm.store import gamefile
from koryo_pbm.store.gamefile import GameDoc

MODERATOR_PART = "moderator"
ORDERS_LIMIT = 64 * 1024  # bytes of an orders file
POSITION_LIMIT = 256 * 1024  # bytes of a position file
RESERVED_NAMES = frozenset({MODERATOR_PART})
# Envelopes of one player for one decision that one resolve reads: the latest ones by their
# signed submission time. More are set aside unread (archive/set-aside): resolve's cost stays
# linear in the inbox whatever a player puts there.
MAX_PER_DECISION = 16


# -- orders files --------------------------------------------------------------------------


def parse_orders(text: str, *, source: str = "orders") -> tuple[str, str, dict[str, Any]]:
    """``(game_id, decision_id, body)`` from the text of an orders file."""
    if len(text.encode("utf-8", "surrogatepass")) > ORDERS_LIMIT:
        raise FormatError(f"{source} is larger than {ORDERS_LIMIT} bytes")
    doc = loads_toml(text, source)
    game_id, decision = doc.pop("game", None), doc.pop("decision", None)
    if not isinstance(game_id, str) or not game_id:
        raise OrderError(f"{source} has no 'game' (the game id, as `koryo-pbm status` shows it)")
    if not isinstance(decision, str) or not decision:
        raise OrderError(f"{source} has no 'decision' (the pending decision, as `koryo-pbm status` shows it)")
    return game_id, decision, doc


def loads_toml(text: str, source: str) -> dict[str, Any]:
    """A TOML document a user wrote; ``FormatError`` naming ``source`` if it is not one."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:
        raise FormatError(f"{source} is nested too deeply") from None


def _read_text(path: Path, limit: int, what: str) -> str:
    """A user's text file (a pipe works too), never reading more than ``limit`` bytes."""
    from koryo_pbm.store.atomic import read_limited

    data = read_limited(path, limit, what, regular_only=False)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{what} {path} is not UTF-8 text") from None


def read_orders_file(path: Path) -> str:
    """The text of an orders file."""
    return _read_text(path, ORDERS_LIMIT, "orders file")


def read_position(path: Path) -> dict[str, Any]:
    """A position file, parsed (the game checks what it says)."""
    return loads_toml(_read_text(path, POSITION_LIMIT, "position file"), f"position file {path}")


# -- creating ------------------------------------------------------------------------------


def new_game_id(game: Game) -> str:
    return f"{game.name}-{os.urandom(5).hex()}"


def create(
    game: Game,
    moderator: Identity,
    players: Mapping[str, PublicIdentity],
    *,
    seed: str | None = None,
    first: str | None = None,
    options: Mapping[str, Any] | None = None,
    position: Mapping[str, Any] | None = None,
    game_id: str | None = None,
    emails: Mapping[str, str] | None = None,
    join: bool | None = None,
) -> tuple[GameDoc, State]:
    """A new match's first game document (version 1) and its state. ``emails``: players' mail
    addresses, kept in the moderator's sealed part.

    Without ``seed`` and ``position`` the game begins with the join (deal ``joined``); with
    ``seed`` the deal is the moderator's (deal ``seed``), unless ``join`` (the demo: its
    moderator's secret comes from the demo's seed, and its bots join)."""
    names = list(players)
    for name in names:
        if name in RESERVED_NAMES:
            raise SetupError(f"{name!r} cannot be a player's name (it names the moderator's part)")
    if len(set(names)) != len(names):
        raise SetupError("a player is named twice")
    owners: dict[PublicIdentity, str] = {}
    for name, key in players.items():
        if key in owners:
            raise SetupError(
                f"{owners[key]} and {name} have the same public key ({key.fingerprint()}): each player needs a key "
                "of their own (koryo-pbm keygen NAME)"
            )
        owners[key] = name
    if moderator.public in owners:
        raise SetupError(f"{owners[moderator.public]}'s public key is the moderator's own key: the moderator "
                         "sees everything, so a player needs a key of their own")
    emails = check_emails(emails or {}, names)
    game_id = game_id or new_game_id(game)
    if join is None:
        join = seed is None and position is None
    if join and position is not None:
        raise SetupError("a game from a position has no join: its deal is the position")
    deal = "position" if position is not None else "joined" if join else "seed"
    seed = seed if seed is not None else commit.new_secret()
    salt = commit.new_salt()
    setup: dict[str, Any] = {}
    if position is not None:
        seats = position.get("players")
        if seats != names:
            raise SetupError(
                f"the position seats {seats!r}, but --player gives {names!r}: name the same players in the same order"
            )
        if first is not None:
            raise SetupError("--first cannot be used with --position (the position names the first player)")
        setup["position"] = dict(position)
        state = game.load_position(position, commit.deal_seed(seed, game_id))
    else:
        if first is not None:
            setup["first"] = first
        if options:
            setup["options"] = dict(options)
        state = game.setup(names, commit.deal_seed(seed, game_id), first=first, options=options)
        if deal == "joined":  # the set-up above checked the players, first and options; the deal waits
            game = fair.Joining(game)
            state = fair.JoinState(game_id, tuple(names), seed, first, dict(options or {}),
                                   gamefile.seed_commitment(seed, salt))
    doc = GameDoc(
        game_id=game_id,
        game=game.name,
        version=1,
        moderator=moderator.public,
        seed_commitment=gamefile.seed_commitment(seed, salt),
        players=dict(players),
        decision=None,
        public={},
        log=[],
        sealed={},
        deal=deal,
    )
    _fill(doc, game, state, _secret(Secrets(seed, salt, setup), {}, emails))
    return doc, state


def check_emails(emails: Mapping[str, str], players: Iterable[str]) -> dict[str, str]:
    """``emails`` checked: each a player of the game, each a plain mail address."""
    from koryo_pbm.transport.address import check_address

    seats = list(players)
    for name, address in emails.items():
        if name not in seats:
            raise SetupError(f"{name!r} has an address but is not a player (the players are {', '.join(seats)})")
        check_address(address, who=f"{name}'s address")
    return dict(emails)


@dataclass
class Secrets:
    """What the moderator keeps sealed until the end: the seed and its salt, the set-up, and
    every order accepted so far (all published when the game is over)."""

    seed: str
    salt: str
    setup: dict[str, Any] = field(default_factory=dict)
    played: list[dict[str, str]] = field(default_factory=list)


def _secret(secrets: Secrets, orders: Mapping[str, Any], emails: Mapping[str, str]) -> dict[str, Any]:
    """The moderator's secret part (without the state, which _fill adds)."""
    secret: dict[str, Any] = {"seed": secrets.seed, "salt": secrets.salt, "setup": secrets.setup,
                              "played": secrets.played, "orders": dict(orders)}
    if emails:
        secret["emails"] = dict(emails)
    return secret


def _fill(doc: GameDoc, game: Game, state: State, secret: dict[str, Any]) -> None:
    """Write ``state`` (and the moderator's ``secret``) into ``doc`` at its current version."""
    decision = game.pending(state)
    held = secret.get("orders", {})
    doc.decision = (
        None
        if decision is None
        else {
            "id": decision.id,
            "kind": decision.kind,
            "waiting_for": list(decision.players),
            "received": [p for p in decision.players if p in held],
        }
    )
    doc.public = game.public(state)
    doc.sealed = {
        name: gamefile.seal_part(doc, name, key, game.private(state, name)) for name, key in doc.players.items()
    }
    doc.sealed[MODERATOR_PART] = gamefile.seal_part(
        doc, MODERATOR_PART, doc.moderator, {**secret, "state": game.dump_state(state)}
    )


# -- loading -------------------------------------------------------------------------------


@dataclass
class ModeratorView:
    """Everything the moderator holds: the document, the game, the full state, the secrets."""

    doc: GameDoc
    identity: Identity
    game: Game
    state: State
    secrets: Secrets
    orders: dict[str, dict[str, Any]]
    emails: dict[str, str] = field(default_factory=dict)

    @property
    def seed(self) -> str:
        return self.secrets.seed


def load_doc(path: Path, *, expected_moderator: PublicIdentity | None = None) -> GameDoc:
    return gamefile.read_game(path, expected_moderator=expected_moderator)


def game_of(doc: GameDoc) -> Game:
    """The game of ``doc``; for a joined game, seen through its join step (:mod:`koryo_pbm.fair`)."""
    game = find_game(doc.game)
    return fair.Joining(game) if doc.deal == "joined" else game


def require_moderator(doc: GameDoc, identity: Identity) -> None:
    if identity.public != doc.moderator:
        raise NotForYou(
            f"key {identity.name!r} ({identity.public.fingerprint()}) is not the moderator of game "
            f"{doc.game_id} (moderator key {doc.moderator.fingerprint()})"
        )


def open_moderator(doc: GameDoc, identity: Identity) -> ModeratorView:
    require_moderator(doc, identity)
    game = game_of(doc)
    secret = gamefile.open_part(doc, MODERATOR_PART, identity)
    try:
        seed, salt, setup, played = secret["seed"], secret["salt"], secret["setup"], secret["played"]
        orders = secret.get("orders", {})
        raw_state = secret["state"]
        emails = secret.get("emails", {})
        if not isinstance(seed, str) or not isinstance(orders, dict) or not isinstance(raw_state, dict):
            raise TypeError
        if not isinstance(salt, str) or not isinstance(setup, dict) or not isinstance(played, list):
            raise TypeError
        if not isinstance(emails, dict) or not all(isinstance(v, str) for v in emails.values()):
            raise TypeError
    except (KeyError, TypeError):
        raise FormatError(f"the moderator's part of game {doc.game_id} is malformed") from None
    state = game.load_state(raw_state)
    return ModeratorView(doc, identity, game, state, Secrets(seed, salt, setup, list(played)), dict(orders),
                         dict(emails))


def with_emails(mv: ModeratorView, changes: Mapping[str, str | None]) -> GameDoc:
    """The next version of the game with players' addresses set (``None``: removed); nothing
    else changes. The caller writes it."""
    emails = dict(mv.emails)
    for name, address in changes.items():
        if address is None:
            if name not in mv.doc.players:
                raise SetupError(f"{name!r} is not a player (the players are {', '.join(mv.doc.players)})")
            emails.pop(name, None)
        else:
            emails[name] = address
    emails = check_emails(emails, mv.doc.players)
    new = next_version(mv.doc)
    _fill(new, mv.game, mv.state, _secret(mv.secrets, mv.orders, emails))
    return new


def player_name(doc: GameDoc, identity: Identity) -> str:
    """The seat of ``identity`` in this game (by key, not by name)."""
    for name, key in doc.players.items():
        if key == identity.public:
            return name
    which = f"key {identity.name!r} ({identity.public.fingerprint()})"
    seat = doc.players.get(identity.name)
    if seat is not None:
        raise NotForYou(
            f"{which} is not the key game {doc.game_id} has for {identity.name} ({seat.fingerprint()}): "
            f"use the key whose public line you gave the moderator (--key FILE)"
        )
    raise NotForYou(f"{which} is not the key of any player of game {doc.game_id} (the players are "
                    f"{', '.join(doc.players)})")


def open_private(doc: GameDoc, identity: Identity) -> tuple[str, dict[str, Any]]:
    name = player_name(doc, identity)
    return name, gamefile.open_part(doc, name, identity)


def engine_view(doc: GameDoc) -> dict[str, Any]:
    """The keys the engine adds to every view: ``id, game, decision, waiting_for``."""
    decision = doc.decision
    return {
        "id": doc.game_id,
        "game": doc.game,
        "version": doc.version,
        "decision": decision["id"] if decision else None,
        "waiting_for": list(decision["waiting_for"]) if decision else [],
        "received": list(decision.get("received", [])) if decision else [],
    }


def full_view(doc: GameDoc, game: Game, private: Mapping[str, Any] | None) -> dict[str, Any]:
    view = game.view(doc.public, private)
    return {**view, **engine_view(doc)}


def player_state(doc: GameDoc, game: Game, name: str, private: Mapping[str, Any]) -> State:
    return game.from_view(doc.public, private, name)


# -- checking an order on the player's side ----------------------------------------------------


def check_own_order(doc: GameDoc, game: Game, name: str, private: Mapping[str, Any], text: str,
                    *, source: str = "orders") -> dict[str, Any]:
    """Check an orders file against the player's own view; return its body."""
    game_id, decision_id, body = parse_orders(text, source=source)
    if game_id != doc.game_id:
        raise StaleError(f"{source} is for game {game_id}, not {doc.game_id}")
    if doc.decision is None:
        raise StaleError(f"game {doc.game_id} is over; no orders are taken")
    if decision_id != doc.decision["id"]:
        raise StaleError(f"{source} is for decision {decision_id}, but the game waits for {doc.decision['id']}")
    if name not in doc.decision["waiting_for"]:
        raise StaleError(
            f"decision {decision_id} does not wait for {name} (it waits for {', '.join(doc.decision['waiting_for'])})"
        )
    game.check(player_state(doc, game, name, private), name, body)
    return body


# -- resolving -----------------------------------------------------------------------------


@dataclass
class Candidate:
    """One envelope found by resolve, and what became of it."""

    source: str  # a path in the inbox or a mail location, for messages
    envelope: Any  # Envelope | None (None when it could not be parsed)
    error: KoryoPbmError | None = None
    path: Path | None = None  # set for inbox files: they are archived
    sha256: str | None = None  # of the inbox file's bytes as read (archived only if unchanged)
    status: str = "pending"  # accepted | held | rejected | duplicate | superseded | late | skipped | set-aside
    reason: str = ""
    conflict: bool = False
    link: bool = False  # an inbox entry that is a symbolic link: skipped, never read nor moved
    replaces: str | None = None  # digest of the same player's earlier orders this one replaced


@dataclass
class Resolution:
    """What one resolve run did."""

    applied: list[tuple[Decision, list[Event]]] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    written: bool = False
    doc: GameDoc | None = None

    @property
    def rejected(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "rejected"]

    @property
    def skipped(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "skipped"]

    @property
    def set_aside(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "set-aside"]


def _seen_digests(doc: GameDoc) -> set[str]:
    seen: set[str] = set()
    for entry in doc.log:
        seen.update(entry.get("accepted", []))
    return seen


def resolve(mv: ModeratorView, candidates: Sequence[Candidate]) -> Resolution:
    """Verify every candidate envelope and apply every decision that is complete.

    Pure apart from sealing: returns the resolution with the new document (``written`` says
    whether anything changed). The caller writes the document, then archives inbox files.
    """
    doc, game = mv.doc, mv.game
    state, held = mv.state, {p: dict(v) for p, v in mv.orders.items()}
    seen = _seen_digests(doc) | {v.get("digest") for v in held.values()}
    result = Resolution(candidates=list(candidates))
    changed = False
    new_log: list[dict[str, Any]] = []

    # First pass: what does not depend on the decision. Every step is linear in the number
    # of candidates: a player who floods the inbox costs the moderator time in proportion.
    live: list[tuple[Candidate, str]] = []  # (candidate, orders text)
    inners: dict[int, bytes] = {}  # id(candidate) -> the player's inner signature of the orders
    played = list(mv.secrets.played)
    contributions: dict[str, str] | None = None
    found: set[str] = set()
    signed: dict[tuple[str, str], list[tuple[Candidate, str]]] = {}  # (player, decision) -> (c, digest)
    by_digest: dict[str, list[Candidate]] = {}
    for c in result.candidates:
        env = c.envelope
        if c.link:
            c.status, c.reason = "skipped", "a symbolic link: not followed, left in place"
            continue
        if env is None:
            c.status, c.reason = "rejected", str(c.error) if c.error else "unreadable envelope"
            continue
        digest = env.digest
        by_digest.setdefault(digest, []).append(c)
        if env.game_id != doc.game_id:
            c.status, c.reason = "rejected", f"for game {env.game_id}, not {doc.game_id}"
            continue
        player_key = doc.players.get(env.player)
        if player_key is None:
            c.status, c.reason = "rejected", f"{env.player!r} is not a player of this game"
            continue
        if digest in seen:
            c.status, c.reason = "duplicate", "already counted"
            continue
        if digest in found:  # the same envelope twice in this run (inbox and mail, say)
            c.status, c.reason = "duplicate", "the same envelope was found twice"
            continue
        found.add(digest)
        try:
            env.verify(player_key)  # the outer signature: cheap, and nobody else can make one
        except KoryoPbmError as exc:
            c.status, c.reason = "rejected", str(exc)
            continue
        signed.setdefault((env.player, env.decision), []).append((c, digest))
    # At most MAX_PER_DECISION envelopes of one player for one decision are opened: the latest
    # ones (by their signed submission time); the others are set aside, unread.
    for (player, decision_id), group in signed.items():
        group.sort(key=lambda cd: (cd[0].envelope.submitted, cd[1]), reverse=True)
        for c, _ in group[MAX_PER_DECISION:]:
            c.status, c.reason = "set-aside", (
                f"more than {MAX_PER_DECISION} envelopes of {player} for {decision_id}: only the "
                f"{MAX_PER_DECISION} latest were read"
            )
    for c in result.candidates:
        if c.status != "pending" or c.envelope is None:
            continue
        env = c.envelope
        try:
            text, inner = env.open_signed(mv.identity, doc.players[env.player])
        except KoryoPbmError as exc:
            c.status, c.reason = "rejected", str(exc)
            continue
        inners[id(c)] = inner
        live.append((c, text))
    by_decision: dict[str, list[tuple[Candidate, str]]] = {}
    for c, text in live:
        by_decision.setdefault(c.envelope.decision, []).append((c, text))

    # Then decision by decision, as long as decisions complete.
    while True:
        decision = game.pending(state)
        if decision is None:
            break
        for c, text in by_decision.get(decision.id, ()):
            env = c.envelope
            if c.status != "pending":
                continue
            if env.player not in decision.players:
                c.status, c.reason = "rejected", f"decision {decision.id} does not wait for {env.player}"
                continue
            try:
                game_id, decision_id, body = parse_orders(text, source=f"orders of {env.player}")
                if game_id != doc.game_id or decision_id != env.decision:
                    raise StaleError("the orders inside do not match the envelope's game and decision")
                game.check(state, env.player, body)
            except KoryoPbmError as exc:
                c.status, c.reason = "rejected", str(exc)
                continue
            before = held.get(env.player)
            if before is not None and (before["submitted"], before["digest"]) > (env.submitted, env.digest):
                c.status, c.reason = "superseded", "a later submission of the same player was already received"
                continue
            if before is not None:
                c.replaces = before["digest"]
                for other in by_digest.get(before["digest"], ()):
                    other.status, other.reason = "superseded", "replaced by a later submission"
            held[env.player] = {"order": body, "digest": env.digest, "submitted": env.submitted,
                                "envelope": env.armor(), "text": text,
                                "inner": base64.b64encode(inners[id(c)]).decode("ascii")}
            c.status = "held"
            changed = True
        if not all(p in held for p in decision.players):
            break
        orders = {p: held[p]["order"] for p in decision.players}
        state, events = game.apply(state, orders)
        accepted = [held[p]["digest"] for p in decision.players]
        played += [{"decision": decision.id, "player": p, "envelope": held[p]["envelope"], "orders": held[p]["text"],
                    "inner": held[p]["inner"]} for p in decision.players]
        if decision.kind == fair.JOIN and doc.deal == "joined" and doc.contributions is None:
            contributions = {p: str(orders[p]["contribution"]) for p in doc.players}
        for digest in accepted:
            for c in by_digest.get(digest, ()):
                if c.status == "held":
                    c.status = "accepted"
        new_log.append({"decision": decision.id, "events": [e.text for e in events], "accepted": accepted})
        result.applied.append((decision, events))
        held = {}
        changed = True

    pending = game.pending(state)
    resolved = {entry.get("decision") for entry in doc.log} | {entry["decision"] for entry in new_log}
    for c, _ in live:
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

    if changed:
        new = next_version(doc)
        secrets = dataclasses.replace(mv.secrets, played=played)
        if contributions is not None:
            new.contributions = contributions
        for entry in new_log:
            if entry is new_log[-1] and pending is None:
                # published with the end: anyone can check the commitment and replay the game
                new.seed, new.salt = secrets.seed, secrets.salt
                new.replay = {**secrets.setup, "orders": played}
                secrets = dataclasses.replace(secrets, played=[])  # published: no second, sealed copy
            gamefile.append_log(new, entry["decision"], entry["events"], entry["accepted"])
        _fill(new, game, state, _secret(secrets, held, mv.emails))
        result.doc, result.written = new, True
    else:
        result.doc = doc
    return result


def load_for_resolve(path: Path, identity: Identity) -> ModeratorView:
    return open_moderator(load_doc(path), identity)


def next_version(doc: GameDoc) -> GameDoc:
    """A copy of ``doc`` one version on (log copied, parts to be sealed anew)."""
    return dataclasses.replace(doc, version=doc.version + 1, log=list(doc.log), sealed={})


def describe_candidates(cands: Iterable[Candidate]) -> list[str]:
    """One line per candidate; what a player chose (file names, reasons) escaped for a terminal."""
    from koryo_pbm.printable import printable

    lines = []
    for c in cands:
        who = f"{c.envelope.player} for {c.envelope.decision}" if c.envelope is not None else "?"
        extra = f" ({c.reason})" if c.reason else ""
        lines.append(printable(f"{c.status:<10} {who}: {c.source}{extra}"))
    return lines
