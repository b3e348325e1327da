"""A new match, and how every version of it is written: the first document (:func:`create`),
the moderator's sealed secrets (:func:`_secret`, from :class:`~koryo_pbm.match.views.Secrets`) and the filling of a version
from a state (:func:`_fill`: the decision and its deadline, the public state, every sealed part,
the moderator's part padded so its size tells nothing)."""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from koryo_pbm import deadlines
from koryo_pbm.address import MAX_ADDRESS
from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.engine.contract import Game, State
from koryo_pbm.errors import SetupError
from koryo_pbm.store import gamedoc, gameparts
from koryo_pbm.store.gamedoc import GameDoc

if TYPE_CHECKING:
    from koryo_pbm.match.views import Secrets

MODERATOR_PART = "moderator"
RESERVED_NAMES = frozenset({MODERATOR_PART})


# Bytes the moderator's sealed part keeps for each player's held order, whether one is held or
# not: the part's size does not change as orders come in (a player who has not answered yet
# learns nothing from it). An order that does not fit (no legal order comes near) is rejected.
HELD_ROOM = 4096  # an order held with its envelope (about 2 KiB, as armoured)


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
    blind: tuple[str, str, PublicIdentity] | None = None,
) -> tuple[GameDoc, State]:
    """A new match's first game document (version 1) and its state. ``emails``: players' mail
    addresses, kept in the moderator's sealed part. ``policy``: the public deadline and bot
    policy; its bot seats are in ``players`` with the moderator's own key (the moderator plays
    them). ``now``: the time the first decision's deadline counts from.

    Without ``seed`` and ``position`` the game begins with the join (deal ``joined``); with
    ``seed`` the deal is the moderator's (deal ``seed``), unless ``join`` (the demo: its
    moderator's secret comes from the demo's seed, and its bots join).

    ``blind``: (the moderator's dealer name, the co-dealer's name, its key): a blind table
    (:mod:`koryo_pbm.blind`, deal ``blind``); the co-dealer takes the seat after the players'."""
    from koryo_pbm.crypto import commit  # only a new game makes a seed (resolve writes every version but the first)
    from koryo_pbm.engine import bots  # imported where it is used: most commands play no bot

    names = list(players)
    policy = policy or deadlines.Policy()
    for name in names:
        if name in RESERVED_NAMES:
            raise SetupError(f"{name!r} cannot be a player's name (it names the moderator's part)")
    if len(set(names)) != len(names):
        raise SetupError("a player is named twice")
    if blind is not None:  # first: a blind table's refusals are more specific than a bot level's
        _check_blind(game, moderator, players, blind, policy, seed, position, options)
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
    emails = check_emails(emails or {}, names + ([blind[1]] if blind is not None else []))
    game_id = game_id or new_game_id(game)
    if join is None:
        join = seed is None and position is None
    if join and position is not None:
        raise SetupError("a game from a position has no join: its deal is the position")
    if blind is not None:
        join = False
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
    elif blind is not None:
        from koryo_pbm import blind as blind_table

        deal = "blind"
        if first is not None:
            setup["first"] = first
        game = blind_table.Dealing(game)
        state = game.start(game_id, names, (blind[0], blind[1]), blind[2].line(), commit.deal_seed(seed, game_id),
                           first, options, bots=[n for n in names if n in policy.bots])
        names.append(blind[1])
        players = {**players, blind[1]: blind[2]}
    else:
        if first is not None:
            setup["first"] = first
        if options:
            setup["options"] = dict(options)
        state = game.setup(names, commit.deal_seed(seed, game_id), first=first, options=options)
        if deal == "joined":  # the set-up above checked the players, first and options; the deal waits
            from koryo_pbm import fair  # imported here: a resolve imports this module, not the join

            game = fair.Joining(game)
            state = fair.JoinState(game_id, tuple(names), seed, first, dict(options or {}),
                                   gamedoc.seed_commitment(seed, salt))
    doc = GameDoc(
        game_id=game_id,
        game=game.name,
        version=1,
        moderator=moderator.public,
        seed_commitment=gamedoc.seed_commitment(seed, salt),
        players=dict(players),
        decision=None,
        public={},
        log=[],
        sealed={},
        service=policy.to_table() or None,
        deal=deal,
    )
    from koryo_pbm.match.views import Secrets

    _fill(doc, game, state, _secret(Secrets(seed, salt, setup), {}, emails), now=now)
    return doc, state


def check_blind_table(game: Game, seats: Sequence[str], *, seed: str | None = None, from_position: bool = False,
                      bots: Collection[str] = (), missed: str = "wait", abandon_after: int | None = None,
                      options: Mapping[str, Any] | None = None) -> None:
    """The refusals of a blind table that its game, its deal and its bots make, the most specific
    first, each in one line: :func:`create` makes them of every blind game (``new``, or any
    caller of the library), and ``new`` calls this first, before its policy's own checks.
    ``seats``: the players' names in seat order, bot seats included; ``bots``: the bot seats;
    ``missed``: the policy's missed orders (``"wait"`` or ``"bot"``)."""
    rules = game.blind_rules()
    if rules is None:
        raise SetupError(f"{game.title} has no blind rules: it cannot be played at a blind table (--blind)")
    if from_position:
        raise SetupError("a blind game cannot start from --position (a position shows the hands)")
    if seed is not None:
        raise SetupError("a blind game takes no --seed (the deck's order is the two dealers', not a seed's)")
    if bots or missed == "bot":
        from koryo_pbm.blind import Dealing

        if not Dealing(game, rules).bot_levels():
            raise SetupError(f"{game.title} has no bots at a blind table: no --bot seat, no --missed bot")
        if missed == "bot" and getattr(rules, "claims", None) is not None:
            # a play shows the co-dealer's share of its card: an absent hand opened to the moderator has none
            raise SetupError(f"{game.title} has no --missed bot at a blind table yet (its bot seats, --bot, can play)")
    if abandon_after:
        raise SetupError("a blind game has no abandoned seats yet (--abandon-after): with --missed bot the dealers "
                         "open an absent player's hand to the moderator at each missed deadline")
    viewers = getattr(rules, "viewers", None)
    if bots and viewers is not None and seats:
        # the moderator sees a bot seat's cards, and so every card its bot sees: a Korsar partner's
        # too. A player's seat is never a bot's partner there: both partners are bots, or neither.
        state = rules.setup(list(seats), seats[0], *([dict(options)] if options else []))
        for bot in bots:
            humans = [p for p in viewers(state, bot) if p != bot and p not in bots]
            if humans:
                raise SetupError(f"{humans[0]} is the partner of bot seat {bot}: at a blind table the moderator, who "
                                 f"runs the bot, would see {humans[0]}'s cards (seat both partners as bots, or neither)")


def _check_blind(game: Game, moderator: Identity, players: Mapping[str, PublicIdentity],
                 blind: tuple[str, str, PublicIdentity], policy: deadlines.Policy, seed: str | None,
                 position: Mapping[str, Any] | None, options: Mapping[str, Any] | None) -> None:
    """The refusals of a blind game, each in one line: :func:`check_blind_table`'s, then the
    dealers' (the co-dealer a name and a key of its own)."""
    check_blind_table(game, list(players), seed=seed, from_position=position is not None, bots=list(policy.bots),
                      missed=policy.missed, abandon_after=policy.abandon_after, options=options)
    mod_name, carl, key = blind
    if carl in players or carl in RESERVED_NAMES or carl == mod_name:
        raise SetupError(f"the co-dealer's name {carl!r} is a player's or the moderator's: give it a name of its own")
    if key == moderator.public:
        raise SetupError("the co-dealer's key is the moderator's own key: the two dealers must be different "
                         "people, or one of them sees every card")
    for name, k in players.items():
        if k == key:
            raise SetupError(f"the co-dealer's key is {name}'s key: a player who deals sees the cards with the "
                             "moderator's help; give the co-dealer a key of its own")


def check_emails(emails: Mapping[str, str], players: Iterable[str]) -> dict[str, str]:
    """``emails`` checked: each a player of the game, each a plain mail address."""
    from koryo_pbm.address import check_address

    seats = list(players)
    for name, address in emails.items():
        if name not in seats:
            raise SetupError(f"{name!r} has an address but is not a player (the players are {', '.join(seats)})")
        check_address(address, who=f"{name}'s address")
    return dict(emails)


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
    privates = {name: game.private(state, name) for name in doc.players}

    # every part as the game gives it: no menu (the player page runs the rules itself,
    # koryo_pbm/pagecore.py; play and orders compute theirs)
    doc.sealed = {name: gameparts.seal_part(doc, name, key, privates[name]) for name, key in doc.players.items()}
    # every seat's mail address padded to the room RFC 5321 allows, "" for none: the part's size
    # tells neither who has an address nor how long it is
    emails = secret.get("emails", {})
    whole = {**secret, "emails": {p: emails.get(p, "").ljust(MAX_ADDRESS) for p in doc.players},
             "state": game.dump_state(state)}
    # room for an order held from each player while a decision is pending; none once it is over
    # (nothing is ever held again, and everything the room hides is published)
    room = HELD_ROOM * len(doc.players) if decision is not None else 0
    # the size leaves the orders held out: the part's compact JSON with them and without them,
    # each value's written once
    pieces = _json_pieces(whole)
    if pieces is None:
        size = gameparts.kept_padded_size({**whole, "orders": {}}) + room
        text = None
    else:
        size = gameparts.kept_padded_size({**whole, "orders": {}}, _joined({**pieces, "orders": "{}"})) + room
        text = _joined(pieces)
    doc.sealed[MODERATOR_PART] = gameparts.seal_part(doc, MODERATOR_PART, doc.moderator, whole, size=size, text=text)
    if doc.deal != "blind" and text is not None:  # (a blind table's state takes its record from the public part)
        _FILLED.keep(doc, state, secret, len(text))


class _Filled:
    """What :func:`_fill` sealed last into the moderator's part of each game, as it had it: the
    state and the secrets, with the sealed part's base64 text, the version and the
    moderator's key. A judge resolves the version it wrote last, and would otherwise open that
    part again (parse its JSON, rebuild the state). :meth:`take` gives it back, once, for the
    very part: the same base64 text of the same game, version and recipient (the same
    ciphertext with the same HPKE ``info`` opens to nothing else). At most ``COUNT`` games, whose
    parts' JSON is at most ``BYTES`` (in memory a few times that)."""

    COUNT = 256
    BYTES = 4 * 1024 * 1024

    def __init__(self) -> None:
        self.filled: dict[str, tuple[str, int, PublicIdentity, State, dict[str, Any], int]] = {}
        self.size = 0

    def keep(self, doc: GameDoc, state: State, secret: Mapping[str, Any], size: int) -> None:
        """Keep ``state`` and ``secret``, sealed into ``doc``'s moderator's part as ``size`` bytes of JSON."""
        old = self.filled.pop(doc.game_id, None)
        if old is not None:
            self.size -= old[5]
        if size > self.BYTES:
            return
        while self.filled and (len(self.filled) >= self.COUNT or self.size + size > self.BYTES):
            self.size -= self.filled.pop(next(iter(self.filled)))[5]
        part = doc.sealed[MODERATOR_PART]
        self.filled[doc.game_id] = (part["data"], doc.version, doc.moderator, state, dict(secret), size)
        self.size += size

    def take(self, doc: GameDoc, identity: Identity) -> Any:
        """The moderator's view of ``doc`` (:func:`match.views.open_moderator`'s) from what was
        kept of its moderator's part, or ``None``. Taken once: the state is not shared with a
        later resolve of the same version."""
        kept = self.filled.get(doc.game_id)
        part = doc.sealed.get(MODERATOR_PART)
        if (kept is None or not isinstance(part, dict) or part.get("data") != kept[0] or doc.version != kept[1]
                or identity.public != kept[2] or doc.moderator != kept[2] or doc.deal == "blind"):
            return None
        del self.filled[doc.game_id]
        self.size -= kept[5]
        from koryo_pbm.match.views import ModeratorView, Secrets, game_of

        _, _, _, state, secret, _ = kept
        # the small tables as the part's JSON gives them (fresh, and lists where tuples were)
        small = json.loads(gameparts.compact_json({k: secret.get(k, {}) for k in ("setup", "orders", "former")}))
        padded = secret.get("emails", {})
        # as opened: every seat's address padded then stripped, those with none left out
        emails = {p: a for p in doc.players if (a := padded.get(p, "").ljust(MAX_ADDRESS).rstrip(" "))}
        former = {name: [PublicIdentity.parse(line) for line in lines] for name, lines in small["former"].items()}
        secrets = Secrets(secret["seed"], secret["salt"], small["setup"], list(secret["played"]))
        return ModeratorView(doc, identity, game_of(doc), state, secrets, small["orders"], emails, former)


_FILLED = _Filled()


def reopen_moderator(doc: GameDoc, identity: Identity) -> Any:
    """The moderator's view of ``doc`` as :func:`match.views.open_moderator` gives it, without
    opening the moderator's part when this process sealed that very part (:class:`_Filled`);
    else opened as ever."""
    kept = _FILLED.take(doc, identity)
    if kept is not None:
        return kept
    from koryo_pbm.match.views import open_moderator

    return open_moderator(doc, identity)


def _json_pieces(data: Mapping[str, Any]) -> dict[str, str] | None:
    """The compact JSON of each value of ``data`` (its keys texts), or ``None`` if one is not
    JSON: :func:`_joined` of them is ``gameparts.compact_json(data)``."""
    if not all(type(k) is str for k in data):
        return None
    try:
        return {k: gameparts.compact_json(v) for k, v in data.items()}
    except (TypeError, ValueError, RecursionError):
        return None


def _joined(pieces: Mapping[str, str]) -> str:
    """The compact JSON of a table whose values' compact JSON are ``pieces``: what the JSON
    encoder writes of the table itself (separators ``,`` and ``:``, keys as it writes texts)."""
    return "{" + ",".join(f"{gameparts.compact_json(k)}:{v}" for k, v in pieces.items()) + "}"


def next_version(doc: GameDoc) -> GameDoc:
    """A copy of ``doc`` one version on (log copied, parts to be sealed anew)."""
    return doc.replace(version=doc.version + 1, log=list(doc.log), sealed={})
