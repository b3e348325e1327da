"""Opening a game file: the moderator's view of everything (:class:`ModeratorView`) and a
player's own view (their seat, their sealed part, the public state), and the check of a
player's own orders against that view before they are sealed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.engine.contract import Game, State, blind_hook
from koryo_pbm.engine.registry import find_game
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, StaleError
from koryo_pbm.match.orders import parse_orders
from koryo_pbm.store import gamedoc, gamefile, gameparts
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.values import Value

# choices (the menus), creation (the moderator's secrets) and fair (a joined game's join step) are
# imported where they are used: verify opens no menu and no secret, a dealt game has no join.


class Secrets(Value):
    """What the moderator keeps sealed until the end: the seed and its salt, the set-up, and
    every order accepted so far (all published when the game is over)."""

    _fields = ("seed", "salt", "setup", "played")
    seed: str
    salt: str
    setup: dict[str, Any]
    played: list[dict[str, Any]]

    def __init__(self, seed: str, salt: str, setup: dict[str, Any] | None = None,
                 played: list[dict[str, Any]] | None = None) -> None:
        self.seed = seed
        self.salt = salt
        self.setup = {} if setup is None else setup
        self.played = [] if played is None else played


class ModeratorView(Value):
    """Everything the moderator holds: the document, the game, the full state, the secrets."""

    _fields = ("doc", "identity", "game", "state", "secrets", "orders", "emails", "former")
    doc: GameDoc
    identity: Identity
    game: Game
    state: State
    secrets: Secrets
    orders: dict[str, dict[str, Any]]
    emails: dict[str, str]
    former: dict[str, list[PublicIdentity]]  # seat -> its former keys

    def __init__(self, doc: GameDoc, identity: Identity, game: Game, state: State, secrets: Secrets,
                 orders: dict[str, dict[str, Any]], emails: dict[str, str] | None = None,
                 former: dict[str, list[PublicIdentity]] | None = None) -> None:
        self.doc = doc
        self.identity = identity
        self.game = game
        self.state = state
        self.secrets = secrets
        self.orders = orders
        self.emails = {} if emails is None else emails
        self.former = {} if former is None else former

    @property
    def seed(self) -> str:
        return self.secrets.seed


def load_doc(path: Path, *, expected_moderator: PublicIdentity | None = None) -> GameDoc:
    return gamefile.read_game(path, expected_moderator=expected_moderator)


def game_of(doc: GameDoc) -> Game:
    """The game of ``doc``; for a joined game, seen through its join step (:mod:`koryo_pbm.fair`)."""
    game = find_game(doc.game)
    if doc.deal == "blind":
        from koryo_pbm import blind

        return blind.Dealing(game)
    if doc.deal == "joined":
        from koryo_pbm import fair  # only a joined game's: every other resolve and show leaves it

        return fair.Joining(game)
    return game


def progress(doc: GameDoc) -> tuple[int | None, str | None]:
    """Where the game of ``doc`` is, as its game reads its public part
    (:meth:`~koryo_pbm.engine.contract.Game.progress`): the round and the phase, each ``None``
    when the game names none, the game is not installed here or cannot read the part."""
    try:
        rnd, phase = find_game(doc.game).progress(doc.public)
    except Exception:  # an unknown game, a plug-in's slip: the status is shown without
        return None, None
    return (rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
            phase if isinstance(phase, str) else None)


def require_moderator(doc: GameDoc, identity: Identity) -> None:
    if identity.public != doc.moderator:
        raise NotForYou(
            f"key {identity.name!r} ({identity.public.fingerprint()}) is not the moderator of game "
            f"{doc.game_id} (moderator key {doc.moderator.fingerprint()})"
        )


def open_moderator(doc: GameDoc, identity: Identity) -> ModeratorView:
    require_moderator(doc, identity)
    game = game_of(doc)
    secret = gameparts.open_part(doc, gamedoc.MODERATOR_PART, identity)
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
        emails = {name: address.rstrip(" ") for name, address in emails.items() if address.strip(" ")}  # padded
        if not isinstance(former, dict) or not all(
                isinstance(v, list) and all(isinstance(f, str) for f in v) for v in former.values()):
            raise TypeError
        former_keys = {name: [PublicIdentity.parse(line) for line in lines] for name, lines in former.items()}
    except (KeyError, TypeError, KoryoPbmError):
        raise FormatError(f"the moderator's part of game {doc.game_id} is malformed") from None
    if doc.deal == "blind":  # the blind table's record is the public part's, not repeated in the moderator's
        from koryo_pbm import blind

        raw_state = blind.with_public(raw_state, doc.public)
    state = game.load_state(raw_state)
    return ModeratorView(doc, identity, game, state, Secrets(seed, salt, setup, list(played)), dict(orders),
                         dict(emails), former_keys)


def load_for_resolve(path: Path, identity: Identity) -> ModeratorView:
    return open_moderator(load_doc(path), identity)


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


MENU_KEY = "menu"  # choices.MENU_KEY, named here too: opening a part imports no menus (zlib, bisect)


def open_private(doc: GameDoc, identity: Identity) -> tuple[str, dict[str, Any]]:
    """The player's seat and private part (without the menu of their choices, which only the
    player page reads: :func:`open_menu`)."""
    name = player_name(doc, identity)
    private = gameparts.open_part(doc, name, identity)
    private.pop(MENU_KEY, None)
    if doc.deal == "blind":  # the player's hidden cards, opened from both dealers' shares (each checked)
        from koryo_pbm import blind
        from koryo_pbm.engine.registry import find_game

        private["cards"], shares = blind.open_hand_shares(doc.public, private, doc.game_id, name, identity,
                                                          game_of(doc))
        blind.check_turned_up(doc.public, game_of(doc))  # the cards turned up for everybody, checked too
        rules = find_game(doc.game).blind_rules()
        if rules is not None and blind_hook(rules, "claims") is not None:  # an order that shows a card gives its share
            private["shares"] = shares
    return name, private


def open_menu(doc: GameDoc, identity: Identity) -> dict[str, Any] | None:
    """The menu of the player's legal choices that resolve sealed into their part (what the
    player page renders, :mod:`koryo_pbm.choices`), or ``None`` when it holds none."""
    from koryo_pbm import choices

    name = player_name(doc, identity)
    return choices.decode_menu(gameparts.open_part(doc, name, identity).get(choices.MENU_KEY))


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
