"""The game contract: what the engine needs from a game, and nothing about any one game.

A game is a stateless object (one instance serves every match) whose methods are pure
functions of a *state*. The state is the game's own value: the engine never looks inside it, it
only hands it back to the game. Everything the engine stores or shows goes through the
game's methods that turn a state into TOML-safe data:

* :meth:`Game.dump_state` / :meth:`Game.load_state` — the whole state, including the seeded
  generator. The by-mail layer seals it to the moderator alone.
* :meth:`Game.public` — what everybody may see, written in plain TOML in the game file.
* :meth:`Game.private` — what one player may see beyond the public part (their hand, their
  face-down cards; in a team game, their partner's hand too). Sealed to that player alone.
* :meth:`Game.view` — the JSON view (``show --json``) built from a public part and, for a
  player, their private part: the only information a player really has.
* :meth:`Game.from_view` — a state rebuilt from a player's information (hidden cards unknown),
  good enough to check that player's orders and to let a bot choose one.

TOML-safe data means: dicts with string keys, lists, str, int, float, bool. No ``None``
(TOML has no null; leave the key out or use ``""``).

The flow of a match::

    state = game.setup(players, seed)
    while (decision := game.pending(state)) is not None:
        orders = {p: <an order from p> for p in decision.players}   # each checked by game.check
        state, events = game.apply(state, orders)
    game.outcome(state)

``apply`` takes every decision that has only one possible outcome by itself before returning,
so ``pending`` always names a decision somebody really has to take.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, TypeVar

from koryo_pbm.errors import GameError, IllegalOrder, OrderError
from koryo_pbm.values import Frozen

if TYPE_CHECKING:
    from koryo_pbm.engine.menus import Menu
    from koryo_pbm.engine.scene import Scene

T = TypeVar("T")


class BotRandom(Protocol):
    """A bot's generator: what :meth:`Game.random_order` and :meth:`Game.bot_order` may draw.
    The engine hands them a :class:`~koryo_pbm.engine.rng.Rng` seeded from public values (the
    game id, the decision and the seat), so anyone replaying the game draws the same; tests may
    hand a ``random.Random``."""

    def random(self) -> float: ...

    def getrandbits(self, k: int, /) -> int: ...

    def choice(self, items: Sequence[T], /) -> T: ...

    def shuffle(self, items: MutableSequence[Any], /) -> None: ...

    def sample(self, items: Sequence[T], k: int, /) -> list[T]: ...


class TimeLimit(Exception):
    """Raised by a bot that passed its safety time limit (see :meth:`Game.bot_order`): what it
    would have chosen cannot be known, and the public log says so."""


# An order is the body of an orders file without its ``game`` and ``decision`` keys, e.g.
# ``{"play": ["merchant", "merchant"]}``. It is TOML-safe data.
Order = Mapping[str, Any]
State = Any


class Decision(Frozen):
    """The decision a game waits for.

    ``id`` is unique within one match (e.g. ``"r3-orders"``, ``"r3-action-bob"``): an order
    written for one decision can never be applied to another. ``kind`` is the game's word for
    it (``"orders"``, ``"action"``, ``"discard"``, ``"turn"``). ``players`` are those who must
    answer, in seat order: all at once for a simultaneous phase, one for a turn.
    """

    _fields = ("id", "kind", "players")
    id: str
    kind: str
    players: tuple[str, ...]

    def __init__(self, id: str, kind: str, players: tuple[str, ...]) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "players", players)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "players": list(self.players)}

    def check_answers(self, orders: object, *, also: tuple[str, ...] = ()) -> None:
        """What every game's ``apply`` checks first: ``orders`` is a table with an order from each
        player this decision asks, and from nobody else (``also``: other keys the game takes).
        :class:`~koryo_pbm.errors.OrderError` says which names are extra or missing."""
        if not isinstance(orders, Mapping):
            raise OrderError("orders must be a table of player = order")
        extra = [str(x) for x in orders if x not in self.players and x not in also]
        if extra:
            raise OrderError(f"orders from players not asked by {self.id}: {', '.join(extra)}")
        missing = [x for x in self.players if x not in orders]
        if missing:
            raise OrderError(f"{self.id} waits for orders from: {', '.join(missing)}")


def asked(decision: Decision | None, players: Sequence[str], player: str) -> Decision:
    """``decision`` (a game's pending one, ``None`` when the game is over) if it asks ``player``
    of ``players``; otherwise the one-line reason every game gives: the game is over, or it
    waits for others (:class:`~koryo_pbm.errors.IllegalOrder`), or the name is no player's
    (:class:`~koryo_pbm.errors.OrderError`)."""
    if decision is None:
        raise IllegalOrder("illegal order: the game is over")
    if player not in players:
        raise OrderError(f"unknown player {player!r} (players: {', '.join(players)})")
    if player not in decision.players:
        raise IllegalOrder(f"illegal order: {player} is not asked now (the game waits for "
                           f"{', '.join(decision.players) or 'the dealers'}: {decision.id})")
    return decision


class Event(NamedTuple):
    """One public thing that happened, for the log: ``kind`` and TOML-safe ``data``, plus a
    sentence for people (``"alice destroys bob's guardian (barbarian)"``).

    A named tuple rather than a dataclass: games build hundreds per match, and a tuple is the
    cheapest immutable value Python has."""

    kind: str
    text: str
    data: Mapping[str, Any] = MappingProxyType({})

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, **({"data": dict(self.data)} if self.data else {})}


class Outcome(Frozen):
    """The result of a finished match. Ties for the highest score share the win."""

    _fields = ("scores", "winners")
    scores: Mapping[str, int]
    winners: tuple[str, ...]

    def __init__(self, scores: Mapping[str, int], winners: tuple[str, ...]) -> None:
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "winners", winners)

    def to_dict(self) -> dict[str, Any]:
        return {"scores": dict(self.scores), "winners": list(self.winners)}


class Game(abc.ABC):
    """The contract every game implements. Subclasses set the class attributes."""

    #: The id used on the command line and in files (``"koryo"``).
    name: ClassVar[str]
    #: A title for people (``"Koryo"``).
    title: ClassVar[str]
    #: The legal numbers of players.
    player_counts: ClassVar[tuple[int, ...]]
    #: The kinds of decisions the game asks for (``Decision.kind``), for deadlines per kind
    #: (``new --deadline orders=3d``); empty: not told, any kind is accepted.
    decision_kinds: ClassVar[tuple[str, ...]] = ()
    #: Options ``setup`` accepts, name -> one-line help (e.g. ``{"teams": "..."}``).
    options: ClassVar[Mapping[str, str]] = {}

    # -- a match -------------------------------------------------------------------------

    @abc.abstractmethod
    def setup(
        self,
        players: Sequence[str],
        seed: str,
        *,
        first: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> State:
        """A new match: ``players`` in clockwise seat order, every chance drawn from ``seed``.

        ``first`` is the first player (chosen by the seeded generator when ``None``). Raises
        :class:`~koryo_pbm.errors.SetupError` naming the problem for an impossible set-up.
        Returns a state whose pending decision needs a real choice (one-outcome decisions
        already taken).
        """

    @abc.abstractmethod
    def pending(self, state: State) -> Decision | None:
        """The decision the match waits for, or ``None`` when it is over."""

    @abc.abstractmethod
    def check(self, state: State, player: str, order: Order) -> None:
        """Raise :class:`~koryo_pbm.errors.OrderError` (malformed) or
        :class:`~koryo_pbm.errors.IllegalOrder` (against a rule; the message names the rule)
        unless ``order`` is a legal answer of ``player`` to the pending decision. Works on a
        full state and on a :meth:`from_view` state alike."""

    @abc.abstractmethod
    def apply(
        self, state: State, orders: Mapping[str, Order], *, log: bool = True
    ) -> tuple[State, list[Event]]:
        """Apply one order per player of the pending decision; return the new state and the
        public events, after taking every following one-outcome decision. Pure: ``state`` is
        not modified. Checks each order first (raises like :meth:`check`).

        The events of the decision that ends the match announce its result (the log has no
        other record of it). With ``log=False`` nobody will read the events (simulation): the
        game may skip building them and return an empty list. The new state must be the same
        either way."""

    @abc.abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """Scores and winners once the match is over, else ``None``."""

    # -- players -------------------------------------------------------------------------

    @abc.abstractmethod
    def random_order(self, state: State, player: str, rng: BotRandom) -> dict[str, Any]:
        """A uniformly chosen (or at least every-choice-possible) legal order for ``player``.
        ``rng`` belongs to the bot, never to the match. Works on a :meth:`from_view` state."""

    def random_playout(self, state: State, rng: BotRandom, max_decisions: int = 100_000) -> State:
        """The state at the end of the match, every decision answered by :meth:`random_order`
        (one order per player asked, in the decision's order, each drawn from ``rng`` before
        any is applied) and applied with ``log=False``: what the engine's simulation plays. A
        game may do it faster (without writing each order out and reading it back, on its
        own copy of ``state``), but the draws and the final state must be exactly these."""
        for _ in range(max_decisions):
            decision = self.pending(state)
            if decision is None:
                return state
            orders = {p: self.random_order(state, p, rng) for p in decision.players}
            state, _ = self.apply(state, orders, log=False)
        raise RuntimeError(f"{self.name}: no end after {max_decisions} decisions")

    @abc.abstractmethod
    def describe_choices(self, state: State, player: str) -> tuple[dict[str, Any], list[str]]:
        """For an orders file: an example legal order, and comment lines explaining the legal
        choices (no ``#``; the writer adds it). Works on a :meth:`from_view` state."""

    def menu(self, state: State, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Menu | dict[str, Any]:
        """``koryo-pbm play``: the next question of ``player``'s answer to the pending decision,
        given the option values ``picked`` so far, or the finished order once they make one.

        Every option must lead to a legal order (the player never meets a dead end); the
        option leading to ``hint`` (a suggested order), if any, is the menu's default. Raises
        ``ValueError`` for picks that are not options. Pure; works on a :meth:`from_view`
        state. A game without menus leaves its players to orders files."""
        raise GameError(f"{self.title} has no menus: write an orders file (koryo-pbm orders)")

    def menu_answers(self, state: State, player: str, picked: Sequence[Any], menu: Menu,
                     hint: Mapping[str, Any] | None = None) -> Sequence[Menu | dict[str, Any]] | None:
        """Optional, for speed: what each option of ``menu`` leads to, in the order of its options,
        ``menu`` being what :meth:`menu` gave for ``picked``: exactly
        ``[self.menu(state, player, [*picked, o.value], hint) for o in menu.options]``, found at
        once (the player page's menus ask every option of every question: a game can go on from
        where ``picked`` led rather than from the start for each option). ``None`` (this default):
        the caller asks :meth:`menu` for each option."""
        return None

    def menu_room(self, kind: str) -> int:
        """The bytes the menu of a decision of ``kind`` takes in a waiting player's sealed part
        (the player page's menu, :mod:`koryo_pbm.choices`), whatever it holds: a function of the
        public kind alone, so that the size of a part says nothing of the choices inside. A
        menu that would be larger is cut (the command line still offers every choice)."""
        return 24 * 1024

    # -- bots ----------------------------------------------------------------------------

    def bot_levels(self) -> tuple[str, ...]:
        """The bot levels this game plays beyond ``random`` (which every game has, through
        :meth:`random_order`) and ``search`` (the engine's, unless listed here: the game's
        own), weakest first, e.g. ``("heuristic", "search")``."""
        return ()

    def bot_order(self, state: State, player: str, level: str, rng: BotRandom,
                  limit: float, clock: Callable[[], float]) -> dict[str, Any]:
        """The order a bot of ``level`` (one of :meth:`bot_levels`) chooses for ``player``.

        ``state`` is always a :meth:`from_view` state of ``player`` (the engine's
        :mod:`~koryo_pbm.engine.bots` sees to it): the bot cannot see what its player may not.
        Pure and deterministic given ``rng`` (the bot's own generator): its work is bounded by
        a count (playouts, positions weighed), never by the clock, so the same view gives the
        same order on any machine and ``verify`` chooses it again. ``limit`` seconds by
        ``clock`` is a safety limit only: a bot that thinks for a while reads ``clock``
        between steps and raises :class:`TimeLimit` once past it. It leaves ``state`` as it was:
        a player's menu is built from the state its suggestion was chosen on.

        The default plays the level ``search`` every game has, the engine's
        (:mod:`~koryo_pbm.engine.search`), unless the game lists its own in :meth:`bot_levels`;
        a game's own ``bot_order`` hands the levels it does not know to this one."""
        if level == "search":
            from koryo_pbm.engine.search import PastLimit, search

            try:
                return search(self, state, player, rng, limit, clock)
            except PastLimit as exc:
                raise TimeLimit(str(exc)) from None
        raise GameError(f"{self.title} has no bot level {level!r}")

    def determinize(self, state: State, player: str, rng: BotRandom) -> State:
        """A full state drawn at random among those ``player`` cannot tell from ``state`` (a
        :meth:`from_view` state of theirs): the cards they have not seen dealt anew from
        ``rng`` in the sizes they know, the match's generator replaced by one seeded from
        ``rng``; one :meth:`apply` and :meth:`random_playout` take. The engine's ``search``
        level (:mod:`~koryo_pbm.engine.search`) simulates on it. The default returns ``state``
        itself: right when :meth:`from_view` gives a full state with nothing hidden; a game
        that hides cards overrides it (else the search plays as if the unseen cards lay where
        :meth:`from_view` put them)."""
        return state

    # -- storage and views ---------------------------------------------------------------

    @abc.abstractmethod
    def dump_state(self, state: State) -> dict[str, Any]:
        """The whole state as TOML-safe data (the generator included)."""

    @abc.abstractmethod
    def load_state(self, data: Mapping[str, Any]) -> State:
        """Inverse of :meth:`dump_state`; raises :class:`~koryo_pbm.errors.FormatError` on
        malformed data."""

    @abc.abstractmethod
    def public(self, state: State) -> dict[str, Any]:
        """What every player may see, TOML-safe."""

    @abc.abstractmethod
    def private(self, state: State, player: str) -> dict[str, Any]:
        """What ``player`` alone (or with a teammate) may see beyond :meth:`public`, TOML-safe."""

    @abc.abstractmethod
    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        """The JSON view (``show --json``, without the engine's ``id``/``game``/``decision``/
        ``waiting_for`` keys, which the engine adds) from a public part and optionally one
        player's private part."""

    @abc.abstractmethod
    def render(self, view: Mapping[str, Any]) -> str:
        """The human text of :meth:`view` (several lines, no trailing newline)."""

    def picture(self, view: Mapping[str, Any]) -> Scene:
        """The picture of :meth:`view` (``show --html``/``--svg``): panels of card tiles, see
        :mod:`koryo_pbm.picture`. Only what ``view`` holds may be drawn; hidden cards of the
        player the view is for go in ``Scene.private``. The default draws the text of
        :meth:`render` in one panel; games draw their table."""
        from koryo_pbm.engine.scene import Group, Panel, Scene

        mine = bool(view.get("player"))
        text = tuple(self.render(view).splitlines())
        return Scene(headline=text[0] if text else self.title,
                     groups=(Group("", (Panel(title=self.title, facts=text[1:], tone="secret" if mine else ""),)),))

    @abc.abstractmethod
    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> State:
        """A state built from what ``player`` knows, for :meth:`check`, :meth:`random_order`
        and :meth:`describe_choices` on the player's side."""

    # -- what happened (the history and the end) -----------------------------------------

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        """For the history (``koryo-pbm log``, ``show``): the part of the match, such as
        ``"round 3"``, that the decision ``decision`` belongs to (``event`` is ``None``), or that
        one of the event texts logged for it begins (``None``: it begins none). The history
        calls it for each decision, then for each of its events. The default: one part."""
        return None

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """Once the match is over, how each score is made up, from the public :meth:`view`:
        rows ``{"player", "what", "points"}``, a player's points adding up to their score
        (``player`` ``""`` for a note that scores nobody, such as a tie). ``None`` while the
        match goes on, or when the game has nothing to break down (the default)."""
        return None

    # -- positions -----------------------------------------------------------------------

    @abc.abstractmethod
    def load_position(self, doc: Mapping[str, Any], seed: str) -> State:
        """A state from a position document (parsed TOML), hidden remainder shuffled from
        ``seed``. Raises :class:`~koryo_pbm.errors.PositionError` naming the problem."""

    @abc.abstractmethod
    def dump_position(self, state: State) -> dict[str, Any]:
        """A position document for ``state`` (round-trips through :meth:`load_position`)."""

    # -- the blind table -----------------------------------------------------------------

    def blind_rules(self) -> BlindRules | None:
        """The game's rules at a blind table (``new --blind``, see ``docs/blind-table.md``), or
        ``None`` (the default): the game cannot be played blind, and ``new --blind`` refuses it."""
        return None

    # -- invariants (for the generic property tests) -------------------------------------

    def check_invariants(self, state: State) -> None:
        """Raise ``AssertionError`` if ``state`` breaks an invariant of the game (cards
        conserved, counters in range...). The generic random-play test calls it after every
        decision. The default checks nothing."""


class BlindRules(abc.ABC):
    """A game's rules at a blind table: pure, with no cryptography and no hidden card.

    A hidden card is a *slot*, ``"deck:position"`` (``"round-3:12"``): where it lies in a
    shuffled deck. The state holds slots and the ids of cards revealed, never a hidden id, so
    the whole state is public. Besides the players' decisions (as in :class:`Game`), the rules
    ask the dealers two kinds of decision, whose ``players`` are ``()`` for a deal and the
    revealing player for a reveal:

    * ``deal``: a new deck ``deck_input(state)`` is shuffled by the dealers; the answer is
      ``{}``; the rules then deal its positions (``dealt(state)`` says to whom).
    * ``reveal``: the cards at ``revealing(state)``'s slots are shown; the answer is
      ``{player: {"cards": [card id per slot]}}`` (the ids the dealers' shares proved).
    """

    @abc.abstractmethod
    def setup(self, players: Sequence[str], first: str,
              options: Mapping[str, Any] | None = None) -> State:
        """A new match; its first decision is the dealers' first ``deal``."""

    @abc.abstractmethod
    def pending(self, state: State) -> Decision | None: ...

    @abc.abstractmethod
    def check(self, state: State, player: str, order: Order) -> None:
        """As :meth:`Game.check`, for what public information can check."""

    @abc.abstractmethod
    def apply(self, state: State, orders: Mapping[str, Order]) -> tuple[State, list[Event]]: ...

    @abc.abstractmethod
    def outcome(self, state: State) -> Outcome | None: ...

    @abc.abstractmethod
    def deck_input(self, state: State) -> tuple[str, list[str]]:
        """For a pending ``deal``: the new deck's id and what goes into it, in order: slots of
        earlier decks (their cards stay hidden) and card ids (cards known to all)."""

    @abc.abstractmethod
    def dealt(self, state: State) -> Mapping[str, Sequence[str]]:
        """Deck id -> the recipient of each position (``""``: not dealt)."""

    @abc.abstractmethod
    def revealing(self, state: State) -> list[str]:
        """For a pending ``reveal``: the slots to show, in order."""

    @abc.abstractmethod
    def dump_state(self, state: State) -> dict[str, Any]: ...

    @abc.abstractmethod
    def load_state(self, data: Mapping[str, Any]) -> State: ...

    @abc.abstractmethod
    def replay_open(self, players: Sequence[str], first: str, decks: Mapping[str, Sequence[str]],
                    answers: Sequence[tuple[Decision, Mapping[str, Order]]]) -> tuple[list[Event], Outcome | None]:
        """The ordinary full-information rules (:class:`Game`) on the real cards: ``decks``
        gives every deck's cards by position (from the audit), ``answers`` every decision of
        the blind game with its answer. Returns the events and outcome; a blind resolution is
        right when it gave the same."""
