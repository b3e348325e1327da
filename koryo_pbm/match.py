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
    orders  {player: {order, digest, submitted, envelope}} — valid orders received for the
            pending decision, held until everyone it waits for has answered; the part is padded
            as if each player had one of ``HELD_ROOM`` bytes, so its size does not tell how
            many are held, nor what they say
    played  every order counted so far, in a form whose size says nothing secret:
            {decision, player, envelope} for a player's (the envelope's sealed orders are padded),
            {decision, player, bot, orders} for one the moderator's bot played (its level)
    emails  {player: address} — the players' mail addresses, for the judge (absent: none)
    former  {player: [public key line, ...]} — keys that held a seat before a substitute took
            it over (``replace``): their envelopes are refused by name (absent: none)

The public ``[service]`` table (:mod:`koryo_pbm.deadlines`) holds the deadline policy, the
bot seats and the abandoned ones; the pending decision's deadline is set here, when a version
that opens a new decision is written, from the ``now`` the caller passes (never a clock of
this module's own, never one in the rules). Bots play here too (:func:`resolve`): bot seats and
abandoned seats as soon as everyone else is in, missed orders once the deadline and its grace
period have passed, each from that player's view only.
Envelopes name the head of the history they answer (``gamefile.head``); resolve counts only
answers to this game's history at the pending decision.

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
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from koryo_pbm import deadlines, fair
from koryo_pbm.crypto import commit
from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.engine import bots
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
# Bytes the moderator's sealed part keeps for each player's held order, whether one is held or
# not: the part's size does not change as orders come in (a player who has not answered yet
# learns nothing from it). An order that does not fit (no legal order comes near) is rejected.
HELD_ROOM = 4096  # an order held with its envelope (about 2 KiB, as armoured)


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


def _inline(value: Any) -> str:
    """``value`` as an inline TOML value (lists and tables on one line)."""
    import tomli_w

    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).removeprefix("v = ").removesuffix("\n")


def _key(key: str) -> str:
    import tomli_w

    return tomli_w.dumps({key: 0}).removesuffix(" = 0\n")


def canonical_orders(game_id: str, decision: str, body: Mapping[str, Any]) -> str:
    """The orders as ``submit`` seals them: ``game``, ``decision`` and the order, one line per
    key, lists and tables inline, no comments, no spacing of the player's: every legal order of
    a decision fits in the envelope's first padding block, so all seal to one size."""
    import tomli_w

    table = {"game": game_id, "decision": decision, **body}
    try:
        text = "".join(f"{_key(k)} = {_inline(v)}\n" for k, v in table.items())
        if tomllib.loads(text) == table:
            return text
    except (TypeError, ValueError, tomllib.TOMLDecodeError, RecursionError):
        pass
    try:  # what an inline table cannot say (none of the games' orders): the plain writer
        return tomli_w.dumps(table)
    except (TypeError, ValueError, RecursionError) as exc:
        raise FormatError(f"the orders cannot be written: {exc}") from None


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
    policy: deadlines.Policy | None = None,
    now: datetime | None = None,
    join: bool | None = None,
) -> tuple[GameDoc, State]:
    """A new match's first game document (version 1) and its state. ``emails``: players' mail
    addresses, kept in the moderator's sealed part. ``policy``: the public deadline and bot
    policy; its bot seats are in ``players`` with the moderator's own key (the moderator plays
    them). ``now``: the time the first decision's deadline counts from.

    Without ``seed`` and ``position`` the game begins with the join (deal ``joined``); with
    ``seed`` the deal is the moderator's (deal ``seed``), unless ``join`` (the demo: its
    moderator's secret comes from the demo's seed, and its bots join)."""
    names = list(players)
    policy = policy or deadlines.Policy()
    for name in names:
        if name in RESERVED_NAMES:
            raise SetupError(f"{name!r} cannot be a player's name (it names the moderator's part)")
    if len(set(names)) != len(names):
        raise SetupError("a player is named twice")
    for name, level in policy.bots.items():
        if name not in players or players[name] != moderator.public:
            raise SetupError(f"the bot seat {name!r} must be a seat with the moderator's key")
        bots.check_level(game, level)
    if policy.missed == "bot" or policy.abandon_after:
        bots.check_level(game, policy.bot_level or bots.RANDOM)
    owners: dict[PublicIdentity, str] = {}
    for name, key in players.items():
        if name in policy.bots:
            continue
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
        service=policy.to_table() or None,
        deal=deal,
    )
    _fill(doc, game, state, _secret(Secrets(seed, salt, setup), {}, emails), now=now)
    return doc, state


def check_emails(emails: Mapping[str, str], players: Iterable[str]) -> dict[str, str]:
    """``emails`` checked: each a player of the game, each a plain mail address."""
    from koryo_pbm.address import check_address

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


def _secret(secrets: Secrets, orders: Mapping[str, Any], emails: Mapping[str, str],
            former: Mapping[str, Sequence[PublicIdentity]] | None = None) -> dict[str, Any]:
    """The moderator's secret part (without the state, which _fill adds)."""
    secret: dict[str, Any] = {"seed": secrets.seed, "salt": secrets.salt, "setup": secrets.setup,
                              "played": secrets.played, "orders": dict(orders)}
    if emails:
        secret["emails"] = dict(emails)
    if former:
        secret["former"] = {name: [key.line() for key in keys] for name, keys in former.items()}
    return secret


def _fill(doc: GameDoc, game: Game, state: State, secret: dict[str, Any], *, now: datetime | None = None) -> None:
    """Write ``state`` (and the moderator's ``secret``) into ``doc`` at its current version.

    The decision keeps its deadline while it stays pending; a new decision gets one from the
    policy (counted from ``now``) when the policy gives its kind a time to answer."""
    decision = game.pending(state)
    held = secret.get("orders", {})
    before = doc.decision
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
    if decision is not None and doc.decision is not None:
        if before is not None and before.get("id") == decision.id and "deadline" in before:
            doc.decision["deadline"] = before["deadline"]
        else:
            duration = deadlines.policy_of(doc.service).duration(decision.kind)
            if duration is not None:
                if now is None:
                    raise ValueError("a decision with a deadline opens: the caller must pass now")
                doc.decision["deadline"] = deadlines.stamp(now + duration)
    doc.public = game.public(state)
    doc.sealed = {
        name: gamefile.seal_part(doc, name, key, game.private(state, name)) for name, key in doc.players.items()
    }
    whole = {**secret, "state": game.dump_state(state)}
    size = gamefile.padded_size({**whole, "orders": {}}) + HELD_ROOM * len(doc.players)
    doc.sealed[MODERATOR_PART] = gamefile.seal_part(doc, MODERATOR_PART, doc.moderator, whole, size=size)


def publish_orders(mv: ModeratorView, record: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """The orders counted in the game, as published at its end (``replay.orders``): each
    player's envelope with its orders text and the player's inner signature (opened here with
    the moderator's key), so that anyone can check that the player signed exactly these orders;
    an order of the moderator's bot as it was played. An envelope signed by a seat's former key
    (a substitute took the seat over) carries that ``key``."""
    from koryo_pbm.crypto.envelope import parse_one

    out: list[dict[str, str]] = []
    for item in record:
        if "bot" in item:
            out.append(dict(item))
            continue
        player = item["player"]
        env = parse_one(item["envelope"], f"the envelope of {player} for {item['decision']}")
        current = mv.doc.players[player]
        for key in [current, *reversed(mv.former.get(player, []))]:
            try:
                env.verify(key)
            except KoryoPbmError:
                continue
            text, inner = env.open_signed(mv.identity, key)
            published = {"decision": item["decision"], "player": player, "envelope": item["envelope"],
                         "orders": text, "inner": base64.b64encode(inner).decode("ascii")}
            if key != current:
                published["key"] = key.line()
            out.append(published)
            break
        else:
            raise FormatError(f"the moderator's part of game {mv.doc.game_id} holds an envelope of {player} that no "
                              "key of the seat signed")
    return out


def held_size(player: str, entry: Mapping[str, Any]) -> int:
    """The bytes a held order takes in the moderator's part (at most ``HELD_ROOM``)."""
    try:
        return len(gamefile.compact_json({player: entry}).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        raise FormatError("the orders hold a value that cannot be kept (not a number, or nested too deeply)") from None


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
    former: dict[str, list[PublicIdentity]] = field(default_factory=dict)  # seat -> its former keys

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
        former = secret.get("former", {})
        if not isinstance(seed, str) or not isinstance(orders, dict) or not isinstance(raw_state, dict):
            raise TypeError
        if not isinstance(salt, str) or not isinstance(setup, dict) or not isinstance(played, list):
            raise TypeError
        if not isinstance(emails, dict) or not all(isinstance(v, str) for v in emails.values()):
            raise TypeError
        if not isinstance(former, dict) or not all(
                isinstance(v, list) and all(isinstance(f, str) for f in v) for v in former.values()):
            raise TypeError
        former_keys = {name: [PublicIdentity.parse(line) for line in lines] for name, lines in former.items()}
    except (KeyError, TypeError, KoryoPbmError):
        raise FormatError(f"the moderator's part of game {doc.game_id} is malformed") from None
    state = game.load_state(raw_state)
    return ModeratorView(doc, identity, game, state, Secrets(seed, salt, setup, list(played)), dict(orders),
                         dict(emails), former_keys)


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
    _fill(new, mv.game, mv.state, _secret(mv.secrets, mv.orders, emails, mv.former))
    return new


@dataclass
class Replacement:
    """What :func:`replace_seat` did: the next ``doc``, the seat, the former and new keys'
    fingerprints, the decision whose held order of the former key was dropped (or ``None``),
    and the seat's mail address now (``None``: shared folder only)."""

    doc: GameDoc
    seat: str
    former: str
    new: str
    dropped: str | None
    email: str | None


def replace_seat(mv: ModeratorView, seat: str, key: PublicIdentity, *, email: str | None = None) -> Replacement:
    """The next version of the game with ``seat`` held by ``key`` (a substitute): the seat's
    part sealed to the new key from this version on, a public log line saying so, the former
    key remembered (its envelopes are refused by name at resolve), an order it had in for the
    pending decision dropped (the substitute answers anew). The seat's mail address becomes
    ``email``, or none (the former player's address is not the substitute's). The caller
    writes the document."""
    doc = mv.doc
    if seat not in doc.players:
        raise SetupError(f"{seat!r} is not a player of game {doc.game_id} (the players are {', '.join(doc.players)})")
    pending = mv.game.pending(mv.state)
    if pending is None:
        raise StaleError(f"game {doc.game_id} is over: there is no seat to take over")
    fingerprint = key.fingerprint()
    if key == doc.moderator:
        raise SetupError(f"key {fingerprint} is the moderator's own key: the moderator sees everything, so a "
                         "player needs a key of their own")
    for name, held in doc.players.items():
        if held == key:
            raise SetupError(f"key {fingerprint} is already at the table: it is {name}'s key (each player needs "
                             "a key of their own: koryo-pbm keygen NAME)")
    for name, keys in mv.former.items():
        if key in keys:
            raise SetupError(f"key {fingerprint} held {name}'s seat before: a substitute needs a key that was "
                             "never at the table")
    old = doc.players[seat]
    emails = dict(mv.emails)
    emails.pop(seat, None)
    if email is not None:
        emails[seat] = email
    emails = check_emails(emails, doc.players)
    former = {name: list(keys) for name, keys in mv.former.items()}
    if old != doc.moderator:  # a bot seat held the moderator's key: nobody's to refuse
        former.setdefault(seat, []).append(old)
    orders = dict(mv.orders)
    dropped = pending.id if orders.pop(seat, None) is not None else None
    new = next_version(doc)
    unabandon(new, seat)  # an abandoned seat or a bot seat: the substitute plays it from now on
    new.players = {name: (key if name == seat else held) for name, held in doc.players.items()}
    gamefile.append_log(new, pending.id, [f"{seat}'s seat is taken over by a new player (key fingerprint {fingerprint}; "
                                          f"the former key was {old.fingerprint()})"], [])
    _fill(new, mv.game, mv.state, _secret(mv.secrets, orders, emails, former))
    return Replacement(new, seat, old.fingerprint(), fingerprint, dropped, emails.get(seat))


def player_name(doc: GameDoc, identity: Identity) -> str:
    """The seat of ``identity`` in this game (by key, not by name). A bot seat (it has the
    moderator's key) is nobody's: the moderator's bot plays it."""
    for name, key in doc.players.items():
        if key == identity.public and key != doc.moderator:
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
    no_envelope: list[str] = field(default_factory=list)  # mails read (resolve --mail) that held none

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
    doc, game = mv.doc, mv.game
    policy = deadlines.policy_of(doc.service, list(doc.players))
    state, held = mv.state, {p: dict(v) for p, v in mv.orders.items()}
    seen = _seen_digests(doc) | {v.get("digest") for v in held.values()}
    result = Resolution(candidates=list(candidates))
    changed = False
    new = next_version(doc)  # its log grows as decisions are applied; written only if changed
    answered = answerable_heads(doc)  # what an envelope for the pending decision may answer

    # First pass: what does not depend on the decision. Every step is linear in the number
    # of candidates: a player who floods the inbox costs the moderator time in proportion.
    live: list[tuple[Candidate, str]] = []  # (candidate, orders text)
    record = list(mv.secrets.played)  # every order counted so far (published at the end)
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
            text = env.open(mv.identity, doc.players[env.player])
        except KoryoPbmError as exc:
            c.status, c.reason = "rejected", str(exc)
            continue
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
            if env.answers not in answered:
                c.status, c.reason = "rejected", (
                    f"it answers a game file whose history ends with {env.answers[7:23]}, but the history of game "
                    f"{doc.game_id} at {decision.id} ends with {gamefile.head(doc)[7:23]}: the player was shown "
                    "another file")
                continue
            try:
                game_id, decision_id, body = parse_orders(text, source=f"orders of {env.player}")
                if game_id != doc.game_id or decision_id != env.decision:
                    raise StaleError("the orders inside do not match the envelope's game and decision")
                game.check(state, env.player, body)
            except KoryoPbmError as exc:
                c.status, c.reason = "rejected", str(exc)
                continue
            entry = {"order": body, "digest": env.digest, "submitted": env.submitted, "envelope": env.armor()}
            try:
                size = held_size(env.player, entry)
            except KoryoPbmError as exc:
                c.status, c.reason = "rejected", str(exc)
                continue
            if size > HELD_ROOM:
                c.status, c.reason = "rejected", (
                    f"the orders take {size} bytes to hold, more than the {HELD_ROOM} kept for each player")
                continue
            before = held.get(env.player)
            if before is not None and (before["submitted"], before["digest"]) > (env.submitted, env.digest):
                c.status, c.reason = "superseded", "a later submission of the same player was already received"
                continue
            if before is not None:
                c.replaces = before["digest"]
                for other in by_digest.get(before["digest"], ()):
                    other.status, other.reason = "superseded", "replaced by a later submission"
            held[env.player] = entry
            c.status = "held"
            changed = True
        deadline = _deadline(doc, decision.id) if len(new.log) == len(doc.log) else None  # a new decision's is in the future
        played = _bot_players(policy, decision, held, deadline, now)
        if played is None:
            break
        notes: list[str] = []
        orders = {p: held[p]["order"] for p in decision.players if p in held}
        for p, (level, why) in played.items():
            choice = bots.choose(game, state, p, level, seed=f"{doc.game_id}:{decision.id}:{p}")
            orders[p] = choice.order
            notes.append(_bot_note(p, level, why, policy, bool(choice.fallback)))
        orders = {p: orders[p] for p in decision.players}
        notes += _count_missed(policy, decision, played)
        state, events = game.apply(state, orders)
        accepted = [held[p]["digest"] for p in decision.players if p in held]
        record += [{"decision": decision.id, "player": p, "envelope": held[p]["envelope"]} if p in held
                   else {"decision": decision.id, "player": p, "bot": played[p][0],
                         "orders": canonical_orders(doc.game_id, decision.id, orders[p])}
                   for p in decision.players]
        if decision.kind == fair.JOIN and doc.deal == "joined" and doc.contributions is None:
            contributions = {p: str(orders[p]["contribution"]) for p in doc.players}
        for digest in accepted:
            for c in by_digest.get(digest, ()):
                if c.status == "held":
                    c.status = "accepted"
        events = [Event("service", note) for note in notes] + list(events)
        gamefile.append_log(new, decision.id, [e.text for e in events], accepted)
        answered = {new.log[-1]["hash"]}
        result.applied.append((decision, events))
        held = {}
        changed = True

    pending = game.pending(state)
    # (a log entry may name the decision that was pending, unresolved: a deadline moved)
    open_id = doc.decision["id"] if doc.decision else None
    resolved = ({entry.get("decision") for entry in doc.log if entry.get("decision") != open_id}
                | {entry["decision"] for entry in new.log[len(doc.log):]})
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
        new.service = policy.to_table() or None
        secrets = dataclasses.replace(mv.secrets, played=record)
        if contributions is not None:
            new.contributions = contributions
        if pending is None and len(new.log) > len(doc.log):
            # published with the end: anyone can check the commitment and replay the game
            new.seed, new.salt = secrets.seed, secrets.salt
            new.replay = {**secrets.setup, "orders": publish_orders(mv, record)}
            secrets = dataclasses.replace(secrets, played=[])  # published: no second, sealed copy
        _fill(new, game, state, _secret(secrets, held, mv.emails, mv.former), now=now)
        result.doc, result.written = new, True
    else:
        result.doc = doc
    return result


# The public lines the match layer itself logs (the games log the rest): a log entry made only
# of SERVICE_ONLY lines resolves nothing (a deadline moved, a seat taken over); BOT_NOTES open
# the entry of a decision in which the moderator's bot played for somebody.
SERVICE_ONLY = (
    re.compile(r"the moderator (set|extended|moved) the deadline of \S+ to .+"),
    re.compile(r"(?P<seat>\S+)'s seat is taken over by a new player \(key fingerprint (?P<new>[0-9a-f]{16}); "
               r"the former key was (?P<old>[0-9a-f]{16})\)"),
)
BOT_NOTES = (
    re.compile(r"(?P<seat>\S+) missed the deadline: the (?P<level>\S+) bot played for them( \(.*\))?"),
    re.compile(r"(?P<seat>\S+)'s seat is abandoned: the (?P<level>\S+) bot played for them( \(.*\))?"),
    re.compile(r"the (?P<level>\S+) bot played (?P<seat>\S+)'s seat( \(.*\))?"),
    re.compile(r"\S+ missed \d+ decisions? in a row: the seat is abandoned; .+"),
)


def is_service_entry(entry: Mapping[str, Any]) -> bool:
    """True for a log entry that resolves nothing (only the match layer's service lines)."""
    events = entry.get("events") or []
    return (not entry.get("accepted") and bool(events)
            and all(any(p.fullmatch(str(e)) for p in SERVICE_ONLY) for e in events))


def answerable_heads(doc: GameDoc) -> set[str]:
    """The heads of ``doc``'s history that an envelope for its pending decision may answer: the
    head when the decision opened and every head since. Entries logged while a decision is
    pending (a deadline moved, a seat taken over) name that decision and resolve nothing, so a
    player who answered before them answered the same decision of the same history."""
    heads = {gamefile.head(doc)}
    open_id = doc.decision["id"] if doc.decision else None
    log = doc.log
    i = len(log)
    while i > 0 and log[i - 1].get("decision") == open_id:
        i -= 1
        heads.add(str(log[i - 1]["hash"]) if i > 0 else gamefile.head(dataclasses.replace(doc, log=[])))
    return heads


def _deadline(doc: GameDoc, decision_id: str) -> datetime | None:
    """The deadline of ``doc``'s pending decision if it is ``decision_id`` and has one."""
    d = doc.decision
    if d is None or d.get("id") != decision_id or "deadline" not in d:
        return None
    return deadlines.parse_stamp(d["deadline"])


def deadline_of(doc: GameDoc) -> datetime | None:
    """The pending decision's deadline, if it has one."""
    return _deadline(doc, doc.decision["id"]) if doc.decision else None


def bot_due(doc: GameDoc, now: datetime) -> bool:
    """True when a resolve at ``now`` would have the bot play even with no new envelope: the
    deadline and grace of a ``missed = "bot"`` game have passed with players missing, or only
    bot seats and abandoned seats are missing (the judge resolves then)."""
    d = doc.decision
    if d is None:
        return False
    policy = deadlines.policy_of(doc.service, list(doc.players))
    missing = [p for p in d["waiting_for"] if p not in d.get("received", [])]
    if missing and all(policy.bot_plays(p) for p in missing):
        return True
    deadline = deadline_of(doc)
    return (bool(missing) and deadline is not None and policy.missed == "bot"
            and now >= deadline + policy.grace_period())


def _bot_players(policy: deadlines.Policy, decision: Decision, held: Mapping[str, Any],
                 deadline: datetime | None, now: datetime | None) -> dict[str, tuple[str, str]] | None:
    """``{player: (level, why)}`` for every player of ``decision`` the bot answers for now,
    or ``None`` when a player the game still waits for is missing (nothing is played then)."""
    played: dict[str, tuple[str, str]] = {}
    passed = (deadline is not None and now is not None and policy.missed == "bot"
              and now >= deadline + policy.grace_period())
    for p in decision.players:
        if p in held:
            continue
        if p in policy.bots:
            played[p] = (policy.bots[p], "seat")
        elif p in policy.abandoned:
            played[p] = (policy.bot_level or bots.RANDOM, "abandoned")
        elif passed:
            played[p] = (policy.bot_level or bots.RANDOM, "missed")
        else:
            return None
    return played


def _bot_note(player: str, level: str, why: str, policy: deadlines.Policy, fallback: bool) -> str:
    """The public log line that says the bot played for ``player``."""
    if why == "missed":
        text = f"{player} missed the deadline: the {level} bot played for them"
    elif why == "abandoned":
        text = f"{player}'s seat is abandoned: the {level} bot played for them"
    else:
        text = f"the {level} bot played {player}'s seat"
    if fallback:  # what failed stays private: its message might show the seat's hidden cards
        text += f" (the {level} bot failed; a random legal order stood in)"
    return text


def _count_missed(policy: deadlines.Policy, decision: Decision, played: Mapping[str, tuple[str, str]]) -> list[str]:
    """Count the decisions each player missed in a row (their own order resets the count);
    abandon a seat at ``policy.abandon_after``. Returns the public notes."""
    notes = []
    for p in decision.players:
        why = played.get(p, ("", "own"))[1]
        if why == "own":
            policy.missed_in_row.pop(p, None)
        elif why == "missed":
            count = policy.missed_in_row.get(p, 0) + 1
            if policy.abandon_after and count >= policy.abandon_after:
                policy.missed_in_row.pop(p, None)
                policy.abandoned.append(p)
                notes.append(f"{p} missed {count} decision{'s' if count != 1 else ''} in a row: the seat is "
                             "abandoned; the "
                             f"{policy.bot_level or bots.RANDOM} bot plays it until a substitute takes it over")
            else:
                policy.missed_in_row[p] = count
    return notes


def set_deadline(mv: ModeratorView, when: datetime) -> GameDoc:
    """The next version with the pending decision's deadline set to ``when`` (checked by the
    caller: in the future), logged publicly. The caller writes it."""
    doc = mv.doc
    if doc.decision is None:
        raise StaleError(f"game {doc.game_id} is over: it has no deadline")
    before = deadline_of(doc)
    new = next_version(doc)
    new.decision = {**doc.decision, "deadline": deadlines.stamp(when)}
    verb = "set" if before is None else ("extended" if when > before else "moved")
    gamefile.append_log(new, doc.decision["id"],
                        [f"the moderator {verb} the deadline of {doc.decision['id']} to {deadlines.human(when)}"], [])
    _fill(new, mv.game, mv.state, _secret(mv.secrets, mv.orders, mv.emails, mv.former))
    return new


def unabandon(doc: GameDoc, seat: str) -> bool:
    """Clear ``seat``'s abandoned flag (and its count of missed decisions), or its bot seat, in
    ``doc``'s ``[service]`` table, in place: for a substitute taking the seat over (``doc`` is
    the next version its caller writes). True if the bot played the seat."""
    policy = deadlines.policy_of(doc.service, list(doc.players))
    was = seat in policy.abandoned or seat in policy.bots
    policy.abandoned = [p for p in policy.abandoned if p != seat]
    policy.bots.pop(seat, None)
    policy.missed_in_row.pop(seat, None)
    doc.service = policy.to_table() or None
    return was


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
