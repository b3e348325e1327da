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

What a game must write and what it may leave to the defaults: :data:`REQUIRED` names the hooks
every game writes; :meth:`Game.legal_orders` ("what may this player do now?") gives
:meth:`Game.check`, :meth:`Game.random_order`, :meth:`Game.describe_choices`, :meth:`Game.menu`
and :meth:`Game.menu_answers` by default; a state made of plain values (``state_type``, see
:mod:`koryo_pbm.engine.plain`) gives storage, the public and private parts, views, text,
positions and :meth:`Game.from_view` (with :meth:`Game.unseen`); a game that lists its legal
orders gets the engine's bot level ``search`` (:mod:`koryo_pbm.engine.search`, in the worlds
:meth:`Game.determinize` draws). :func:`contract_problem` says what a game class lacks; the
registry refuses such a game in one line.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, TypeVar

from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError, PositionError
from koryo_pbm.values import Frozen

if TYPE_CHECKING:
    from koryo_pbm.engine.menus import Menu
    from koryo_pbm.engine.scene import Mark, Scene

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

#: Keys of a game's public part that the engine writes itself and a game must never use: the
#: join in front of every game (:mod:`koryo_pbm.fair`), the blind table's record and its public
#: rules state (:mod:`koryo_pbm.blind`).
RESERVED_PUBLIC_KEYS: tuple[str, ...] = ("not_dealt", "blind", "rules")


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

    #: The id used on the command line and in files (``"mygame"``); its entry point's name.
    name: ClassVar[str]
    #: A title for people (``"My Game"``).
    title: ClassVar[str]
    #: The legal numbers of players.
    player_counts: ClassVar[tuple[int, ...]]
    #: The kinds of decisions the game asks for (``Decision.kind``), for deadlines per kind
    #: (``new --deadline orders=3d``); empty: not told, any kind is accepted.
    decision_kinds: ClassVar[tuple[str, ...]] = ()
    #: Options ``setup`` accepts, name -> one-line help (e.g. ``{"teams": "..."}``).
    options: ClassVar[Mapping[str, str]] = {}
    #: The marks a card tile of this game's pictures may carry (``Card.marks``, one word each),
    #: each with what it means, drawn ``plain`` (``{"shiny": "a shiny card"}``), or a
    #: :class:`~koryo_pbm.engine.scene.Mark` with a style of the engine's
    #: (:data:`~koryo_pbm.engine.scene.MARK_STYLES`): ``Mark("the highest bid left", "star")``,
    #: ``Mark("a prize won", "band", "won")``. :func:`drawn_scene` carries them in the scene.
    marks: ClassVar[Mapping[str, str | Mark]] = {}
    #: For the defaults of a state made of plain values: the state's dataclass (see
    #: :mod:`koryo_pbm.engine.plain`); ``None``: the game writes its own storage, parts and views.
    state_type: ClassVar[type | None] = None
    #: Fields of a plain state nobody sees (the deck's order); generators are never shown.
    secret_fields: ClassVar[tuple[str, ...]] = ()
    #: Fields of a plain state that are tables by player, each entry seen by its player alone
    #: (a hand); the public part shows the size of each (``<field>_sizes``).
    private_fields: ClassVar[tuple[str, ...]] = ()
    #: For the default menus: the question asked for each key of an order, in order
    #: (``{"bid": "Which card do you bid?"}``); keys not named are asked as ``"<key>?"``.
    order_questions: ClassVar[Mapping[str, str]] = {}

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

    def check(self, state: State, player: str, order: Order) -> None:
        """Raise :class:`~koryo_pbm.errors.OrderError` (malformed) or
        :class:`~koryo_pbm.errors.IllegalOrder` (against a rule; the message names the rule)
        unless ``order`` is a legal answer of ``player`` to the pending decision. Works on a
        full state and on a :meth:`from_view` state alike.

        The default looks ``order`` up in :meth:`legal_orders`; a game says better which rule
        an order breaks by writing its own."""
        decision = self.pending(state)
        if decision is None:
            raise IllegalOrder("illegal order: the game is over")
        if player not in decision.players:
            raise IllegalOrder(f"illegal order: {player} is not asked now (the game waits for "
                               f"{', '.join(decision.players) or 'the dealers'}: {decision.id})")
        if not isinstance(order, Mapping):
            raise OrderError("an order must be a table of keys and values")
        if dict(order) not in [dict(o) for o in self.legal_orders(state, player)]:
            raise IllegalOrder(f"illegal order: {_inline(order)} is not a legal order of {player} now "
                               "(koryo-pbm orders lists them)")

    def legal_orders(self, state: State, player: str) -> Sequence[Mapping[str, Any]]:
        """Every legal order of ``player`` for the pending decision, each once (empty when the
        player is not asked). The one question from which :meth:`check`, :meth:`random_order`,
        :meth:`describe_choices`, :meth:`menu` and :meth:`menu_answers` follow by default. A game
        whose orders are too many to list (a sequence of choices) writes those five instead.
        Works on a :meth:`from_view` state."""
        raise GameError(f"{self.title} does not list its legal orders")

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

    def random_order(self, state: State, player: str, rng: BotRandom) -> dict[str, Any]:
        """A uniformly chosen (or at least every-choice-possible) legal order for ``player``.
        ``rng`` belongs to the bot, never to the match. Works on a :meth:`from_view` state.
        The default: one of :meth:`legal_orders`, by ``rng.choice``."""
        return dict(rng.choice(self._legal(state, player)))

    def _legal(self, state: State, player: str) -> list[Mapping[str, Any]]:
        orders = list(self.legal_orders(state, player))
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        return orders

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

    def describe_choices(self, state: State, player: str) -> tuple[dict[str, Any], list[str]]:
        """For an orders file: an example legal order, and comment lines explaining the legal
        choices (no ``#``; the writer adds it). Works on a :meth:`from_view` state. The
        default: the first of :meth:`legal_orders`, and every one of them (40 at most)."""
        orders = self._legal(state, player)
        decision = self.pending(state)
        lines = [f"{decision.id if decision else ''}: {player}, one of these {len(orders)} legal orders:"]
        lines += [f"  {_inline(o)}" for o in orders[:40]]
        if len(orders) > 40:
            lines.append(f"  ... and {len(orders) - 40} more")
        return dict(orders[0]), lines

    def menu(self, state: State, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Menu | dict[str, Any]:
        """``koryo-pbm play``: the next question of ``player``'s answer to the pending decision,
        given the option values ``picked`` so far, or the finished order once they make one.

        Every option must lead to a legal order (the player never meets a dead end); the
        option leading to ``hint`` (a suggested order), if any, is the menu's default. Raises
        ``ValueError`` for picks that are not options. Pure; works on a :meth:`from_view`
        state. The default asks for the keys of :meth:`legal_orders` one at a time
        (:func:`~koryo_pbm.engine.menus.tree_menu`, questions from ``order_questions``, options
        labelled by :meth:`order_label`); a game that lists no legal orders and writes no menu
        leaves its players to orders files."""
        from koryo_pbm.engine.menus import tree_menu

        if not self._lists_orders():
            raise GameError(f"{self.title} has no menus: write an orders file (koryo-pbm orders)")
        orders, keys = self._order_tree(state, player)
        return tree_menu(orders, picked, keys, lambda k, v: self.order_label(state, k, v), hint)

    def order_label(self, state: State, key: str, value: Any) -> str:
        """What a player reads for ``value`` of the order's ``key`` in the default menus (the
        default: the value itself)."""
        return str(value)

    def _lists_orders(self) -> bool:
        return type(self).legal_orders is not Game.legal_orders

    def _order_tree(self, state: State, player: str) -> tuple[list[Mapping[str, Any]], list[tuple[str, str]]]:
        orders = self._legal(state, player)
        keys: list[str] = [*self.order_questions]
        for o in orders:
            keys += [k for k in o if k not in keys]
        return orders, [(k, self.order_questions.get(k, f"{k}?")) for k in keys]

    def menu_answers(self, state: State, player: str, picked: Sequence[Any], menu: Menu,
                     hint: Mapping[str, Any] | None = None) -> Sequence[Menu | dict[str, Any]] | None:
        """Optional, for speed: what each option of ``menu`` leads to, in the order of its options,
        ``menu`` being what :meth:`menu` gave for ``picked``: exactly
        ``[self.menu(state, player, [*picked, o.value], hint) for o in menu.options]``, found at
        once (the player page's menus ask every option of every question: a game can go on from
        where ``picked`` led rather than from the start for each option). ``None`` (this default):
        the caller asks :meth:`menu` for each option; a game that lists its legal orders lists
        them once for every option."""
        if not self._lists_orders() or type(self).menu is not Game.menu:
            return None
        from koryo_pbm.engine.menus import tree_menu

        orders, keys = self._order_tree(state, player)
        return [tree_menu(orders, [*picked, o.value], keys, lambda k, v: self.order_label(state, k, v), hint)
                for o in menu.options]

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
        """A state ``player`` cannot tell from ``state`` (a :meth:`from_view` state): what they
        cannot see dealt anew among itself, and chance to come drawn anew, from ``rng``: the
        worlds the generic ``search`` plays in. The default, for a plain state: the values of
        ``secret_fields`` and of the other players' entries of ``private_fields`` (lists)
        shuffled together and dealt back in the same sizes, and the generators re-seeded; for
        another state, ``state`` itself (the search then plays in that one world)."""
        if self.state_type is None:
            return state
        from koryo_pbm.engine import plain
        from koryo_pbm.engine.rng import Rng

        world = plain.copy(state)
        places: list[tuple[Any, Any, int]] = []  # (a table, its key, how many values)
        for f in self.secret_fields:
            if isinstance(getattr(world, f), list):
                places.append((world.__dict__, f, len(getattr(world, f))))
        for f in self.private_fields:
            table = getattr(world, f)
            places += [(table, p, len(v)) for p, v in table.items() if p != player and isinstance(v, list)]
        pool = [x for table, key, _ in places for x in table[key]]
        rng.shuffle(pool)
        for table, key, n in places:
            table[key], pool = pool[:n], pool[n:]
        for f in plain.rng_fields(type(world)):
            setattr(world, f, Rng.derived("determinize", str(rng.getrandbits(64))))
        return world

    # -- storage and views ---------------------------------------------------------------

    def dump_state(self, state: State) -> dict[str, Any]:
        """The whole state as TOML-safe data (the generator included). Default: a plain state's
        fields (``state_type``)."""
        from koryo_pbm.engine import plain

        self._plain("dump_state")
        data: dict[str, Any] = plain.dump(state)
        return data

    def load_state(self, data: Mapping[str, Any]) -> State:
        """Inverse of :meth:`dump_state`; raises :class:`~koryo_pbm.errors.FormatError` on
        malformed data. Default: a plain state, every value checked against its field's type."""
        from koryo_pbm.engine import plain

        return plain.load(self._plain("load_state"), data, f"{self.title} state")

    def _plain(self, hook: str) -> type:
        if self.state_type is None:
            raise GameError(f"{self.title} has no state_type: it must write {hook}")
        return self.state_type

    def public(self, state: State) -> dict[str, Any]:
        """What every player may see, TOML-safe. Default: a plain state's fields but its
        generators, ``secret_fields`` and ``private_fields`` (of which the sizes, by player,
        as ``<field>_sizes`` for lists)."""
        from koryo_pbm.engine import plain

        data = self.dump_state(state)
        hidden = {*plain.rng_fields(self._plain("public")), *self.secret_fields, *self.private_fields}
        out = {k: v for k, v in data.items() if k not in hidden}
        for f in self.private_fields:
            out[f"{f}_sizes"] = {p: len(v) for p, v in data[f].items() if isinstance(v, list)}
        return out

    def private(self, state: State, player: str) -> dict[str, Any]:
        """What ``player`` alone (or with a teammate) may see beyond :meth:`public`, TOML-safe.
        Default: ``player`` and their entry of each of ``private_fields``."""
        data = self.dump_state(state)
        return {"player": player, **{f: data[f][player] for f in self.private_fields if player in data[f]}}

    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        """The JSON view (``show --json``, without the engine's ``id``/``game``/``decision``/
        ``waiting_for`` keys, which the engine adds) from a public part and optionally one
        player's private part. Default: the two merged (a view for a player names them as
        ``player``).

        Once the match is over, the view of the public part alone holds ``scores`` (player ->
        points) and ``winners`` (a list): ``demo`` prints them, ``verify`` checks them against
        the replayed :meth:`outcome`."""
        return {**public, **(private or {})}

    def render(self, view: Mapping[str, Any]) -> str:
        """The human text of :meth:`view` (several lines, no trailing newline). Default: the
        title, then a line per key of the view."""
        lines = [self.title]
        for k, v in view.items():
            if isinstance(v, Mapping):
                lines += [f"{k}:"] + [f"  {q}: {_plain_text(x)}" for q, x in v.items()]
            else:
                lines.append(f"{k}: {_plain_text(v)}")
        return "\n".join(lines)

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

    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> State:
        """A state built from what ``player`` knows, for :meth:`check`, :meth:`random_order`
        and :meth:`describe_choices` on the player's side. Default, for a plain state: the
        public fields, ``player``'s private entries, what :meth:`unseen` fills in for the rest,
        and generators derived from the player's name (public: a bot draws from its own)."""
        from koryo_pbm.engine import plain
        from koryo_pbm.engine.rng import Rng

        cls = self._plain("from_view")
        fields = plain.hints(cls)
        data: dict[str, Any] = {k: v for k, v in public.items() if k in fields}
        for f in self.private_fields:
            if f in private:
                data[f] = {player: private[f]}
        try:
            unseen = dict(self.unseen(public, private, player))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed {self.title} view: {type(exc).__name__}: {exc}") from None
        for f, v in unseen.items():
            data[f] = {**v, **data[f]} if f in self.private_fields and f in data else v
        for f in plain.rng_fields(cls):
            data[f] = Rng.derived("from_view", self.name, player).state()
        return plain.load(cls, data, f"{self.title} view")

    def unseen(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> Mapping[str, Any]:
        """For the default :meth:`from_view`: values, consistent with what ``player`` knows, for
        the ``secret_fields`` and for the other players' entries of ``private_fields`` (as
        tables by player), e.g. the cards not seen, in a fixed order. Any arrangement of the
        unseen cards will do: a bot's choice must not depend on it. Default: nothing hidden."""
        if self.secret_fields or self.private_fields:
            raise GameError(f"{self.title} hides {', '.join((*self.secret_fields, *self.private_fields))}: "
                            "it must write unseen or from_view")
        return {}

    # -- what happened (the history and the end) -----------------------------------------

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        """For the history (``koryo-pbm log``, ``show``): the part of the match, such as
        ``"round 3"``, that the decision ``decision`` belongs to (``event`` is ``None``), or that
        one of the event texts logged for it begins (``None``: it begins none). The history
        calls it for each decision, then for each of its events. The default: one part."""
        return None

    def progress(self, public: Mapping[str, Any]) -> tuple[int | None, str | None]:
        """Where the match is, from its public part, for mail subjects and ``status``: the round
        (``None``: the game counts none) and the phase (``None``: none named). The default:
        neither."""
        return None, None

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """Once the match is over, how each score is made up, from the public :meth:`view`:
        rows ``{"player", "what", "points"}``, a player's points adding up to their score
        (``player`` ``""`` for a note that scores nobody, such as a tie). ``None`` while the
        match goes on, or when the game has nothing to break down (the default)."""
        return None

    # -- positions -----------------------------------------------------------------------

    def load_position(self, doc: Mapping[str, Any], seed: str) -> State:
        """A state from a position document (parsed TOML), hidden remainder shuffled from
        ``seed``. Raises :class:`~koryo_pbm.errors.PositionError` naming the problem. Default,
        for a plain state: every field but the generators (seeded from ``seed``), and
        ``game``; the state is then checked by :meth:`check_invariants`."""
        from koryo_pbm.engine import plain
        from koryo_pbm.engine.rng import Rng

        cls = self._plain("load_position")
        if doc.get("game", self.name) != self.name:
            raise PositionError(f"this position is for {doc.get('game')!r}, not {self.name!r}")
        data = {k: v for k, v in doc.items() if k != "game"}
        for f in plain.rng_fields(cls):
            data[f] = Rng.from_seed(seed).state()
        try:
            state = plain.load(cls, data, "position")
            self.check_invariants(state)
        except (FormatError, AssertionError) as exc:
            raise PositionError(f"bad {self.title} position: {exc}") from None
        return state

    def dump_position(self, state: State) -> dict[str, Any]:
        """A position document for ``state`` (round-trips through :meth:`load_position`).
        Default: ``game`` and a plain state's fields but its generators."""
        from koryo_pbm.engine import plain

        rng = plain.rng_fields(self._plain("dump_position"))
        return {"game": self.name, **{k: v for k, v in self.dump_state(state).items() if k not in rng}}

    # -- the blind table -----------------------------------------------------------------

    def blind_rules(self) -> BlindRules | None:
        """The game's rules at a blind table (``new --blind``, see ``docs/blind-table.md``), or
        ``None`` (the default): the game cannot be played blind, and ``new --blind`` refuses it."""
        return None

    # -- invariants (for the generic property tests) -------------------------------------

    def check_invariants(self, state: State) -> None:
        """Raise ``AssertionError`` if ``state`` breaks an invariant of the game (cards
        conserved, counters in range...). The generic random-play test calls it after every
        decision, and the default :meth:`load_position` on the position it reads. The default
        checks nothing."""


class BlindHooks(Protocol):
    """The optional hooks of :class:`BlindRules`, with their parameters: a game's blind rules
    define those they need; the blind table does without the others (:func:`blind_hook`)."""

    def viewers(self, state: State, player: str) -> Sequence[str]:
        """Who sees ``player``'s cards (the player, and a team partner)."""
        ...

    def claims(self, state: State, player: str, order: Order) -> Sequence[tuple[str, str, Any]]:
        """The cards ``order`` shows: (slot, card id, the co-dealer's share given for it)."""
        ...

    def hidden(self, state: State, player: str | None = None) -> Sequence[str]:
        """The slots held hidden in hands (those ``player`` sees; all when ``None``)."""
        ...

    def event_text(self, text: str) -> str:
        """An event's text as the audit compares it with the open game's."""
        ...

    def random_order(self, state: State, player: str, rng: BotRandom, cards: Mapping[str, str]) -> dict[str, Any]:
        """A random legal order from the player's own cards (slot -> card id)."""
        ...

    def describe_choices(self, state: State, player: str, cards: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
        """For an orders file: an example legal order and the choices explained."""
        ...

    def render(self, data: Mapping[str, Any], cards: Mapping[str, str], me: str | None) -> str:
        """The table as text from the public state ``data`` and the cards ``me`` sees."""
        ...

    def bot_order(self, state: State, player: str, level: str, rng: BotRandom, limit: float,
                  clock: Callable[[], float], cards: Mapping[str, str]) -> dict[str, Any]:
        """A bot of one of the game's levels on the player's own cards."""
        ...

    def placing(self, state: State, player: str) -> str:
        """The decision whose order placed ``player``'s face-down slots, pending a reveal of them:
        the co-dealer reveals them only with that order, signed by the player."""
        ...

    def placed_alone(self, dealt: Mapping[str, Sequence[str]], player: str, slots: Sequence[str]) -> bool:
        """Whether the rules placed ``player``'s face-down ``slots`` without an order (then there
        is no signed order to show), judged only from ``dealt``: deck id -> whom each position
        was dealt to, by the co-dealer's own signed record (not the moderator's state or log)."""
        ...


def blind_hook(rules: BlindRules, name: str) -> Callable[..., Any] | None:
    """The optional hook ``name`` (one of :class:`BlindHooks`) of a game's blind rules, or
    ``None`` when they do without it."""
    if name not in BLIND_HOOKS:
        raise ValueError(f"{name} is no optional hook of BlindRules")
    hook: Callable[..., Any] | None = getattr(rules, name, None)
    return hook


#: The names of :class:`BlindHooks`.
BLIND_HOOKS: tuple[str, ...] = ("viewers", "claims", "hidden", "event_text", "random_order", "describe_choices",
                                "render", "bot_order", "placing", "placed_alone")

#: The hooks every game writes itself.
REQUIRED: tuple[str, ...] = ("setup", "pending", "apply", "outcome")
#: What :meth:`Game.legal_orders` gives by default, which a game that does not list its orders writes.
FROM_LEGAL_ORDERS: tuple[str, ...] = ("check", "random_order", "describe_choices")
#: What a plain state (``state_type``) gives by default, which a game without one writes.
FROM_PLAIN_STATE: tuple[str, ...] = ("dump_state", "load_state", "public", "private", "from_view",
                                     "load_position", "dump_position")


def drawn_scene(game: Game, view: Mapping[str, Any]) -> Scene:
    """What the engine draws of ``view`` (``show --html``/``--svg``, the player page):
    ``game.picture(view)`` with the marks ``game`` declares (:attr:`Game.marks`) in
    :attr:`~koryo_pbm.engine.scene.Scene.marks`, so that the scene alone says how each is drawn."""
    from koryo_pbm.engine.scene import declared

    return game.picture(view).replace(marks=declared(game.marks))


def hooks() -> tuple[str, ...]:
    """Every method of the game contract (:class:`Game`'s public methods)."""
    return tuple(k for k, v in vars(Game).items() if callable(v) and not k.startswith("_"))


def contract_problem(cls: type) -> str | None:
    """What breaks the contract in the game class ``cls`` (a hook missing or with the wrong
    parameters, a class attribute of the wrong kind), in a few words naming it, or ``None``."""
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        return "it is not a subclass of koryo_pbm.engine.contract.Game"
    for attr, kind in (("name", str), ("title", str), ("player_counts", tuple)):
        value = getattr(cls, attr, None)
        if not isinstance(value, kind) or not value:
            return f"class attribute {attr} is missing or not a non-empty {kind.__name__}"
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in cls.player_counts):
        return "player_counts must be whole numbers of players"
    for attr in ("options", "order_questions"):
        value = getattr(cls, attr)
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            return f"class attribute {attr} must map texts to texts"
    if not isinstance(cls.marks, Mapping):
        return "class attribute marks must map each mark to its words or a Mark"
    from koryo_pbm.engine.scene import mark_problem

    for name, mark in cls.marks.items():
        problem = mark_problem(name, mark)
        if problem:
            return f"class attribute marks: {problem}"
    missing = sorted(getattr(cls, "__abstractmethods__", ()))
    if missing:
        return f"hook {missing[0]} is missing"

    def own(hook: str) -> bool:
        return getattr(cls, hook) is not getattr(Game, hook)

    if not own("legal_orders"):
        lacking = [h for h in FROM_LEGAL_ORDERS if not own(h)]
        if lacking:
            return f"hook {lacking[0]} is missing (or legal_orders, which gives it)"
    if cls.state_type is None:
        lacking = [h for h in FROM_PLAIN_STATE if not own(h)]
        if lacking:
            return f"hook {lacking[0]} is missing (or a state_type, which gives it)"
    else:
        import dataclasses

        if not dataclasses.is_dataclass(cls.state_type):
            return "state_type must be a dataclass"
        fields = {f.name for f in dataclasses.fields(cls.state_type)}
        unknown = [f for f in (*cls.secret_fields, *cls.private_fields) if f not in fields]
        if unknown:
            return f"{unknown[0]} (in secret_fields or private_fields) is no field of its state_type"
        if (cls.secret_fields or cls.private_fields) and not own("from_view") and not own("unseen"):
            return "hook unseen is missing (it hides fields: from_view needs it)"
    for hook in hooks():
        raw = next(vars(c)[hook] for c in cls.__mro__ if hook in vars(c))
        problem = None if isinstance(raw, staticmethod | classmethod) else _signature_problem(getattr(Game, hook), raw)
        if problem:
            return f"hook {hook} {problem}"
    return None


def _signature_problem(base: Any, mine: Any) -> str | None:
    """Why ``mine`` cannot be called as ``base`` is (read from the code objects: cheaper than
    :mod:`inspect`), or ``None``."""
    if mine is base:
        return None
    func = getattr(mine, "__func__", mine)
    code = getattr(func, "__code__", None)
    if code is None:
        return "is not a method" if not callable(mine) else None
    want = base.__code__
    n_pos, n_kw = want.co_argcount, want.co_kwonlyargcount
    kw_names = want.co_varnames[n_pos:n_pos + n_kw]
    has_args, has_kwargs = bool(code.co_flags & 0x04), bool(code.co_flags & 0x08)
    defaults = len(func.__defaults__ or ())
    if code.co_argcount < n_pos and not has_args:
        return f"takes {code.co_argcount - 1} arguments, not {n_pos - 1}"
    if code.co_argcount - defaults > n_pos:
        return f"needs {code.co_argcount - defaults - 1} arguments, the engine gives {n_pos - 1}"
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    missing = [k for k in kw_names if k not in names and not has_kwargs]
    if missing:
        return f"takes no keyword argument {missing[0]}"
    return None


def _plain_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "-"
    return str(value)


def _inline(order: Mapping[str, Any]) -> str:
    """An order as one line of TOML (``bid = "b7"``)."""
    import json

    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in order.items())


class BlindRules(abc.ABC):
    """A game's rules at a blind table: pure, with no cryptography and no hidden card.

    A hidden card is a *slot*, ``"deck:position"`` (``"round-3:12"``): where it lies in a
    shuffled deck. The state holds slots and the ids of cards revealed, never a hidden id, so
    the whole state is public. Besides the players' decisions (as in :class:`Game`), the rules
    ask the dealers these kinds of decision, whose ``players`` are ``()`` for a deal and a
    turn-up and the revealing player for a reveal:

    * ``deal``: a new deck ``deck_input(state)`` is shuffled by the dealers; the answer is
      ``{}``; the rules then deal its positions (``dealt(state)`` says to whom).
    * ``reveal``: the cards at ``revealing(state)``'s slots are shown; the answer is
      ``{player: {"cards": [card id per slot]}}`` (the ids the dealers' shares proved).
    * ``turn-up`` (``players`` ``()``): the cards at ``revealing(state)``'s slots, of a deck
      ``dealt`` to nobody (``""``), are turned up for everybody (a prize, a card of the table); the
      answer is ``{"": {"cards": [card id per slot]}}``. The co-dealer gives its shares only when
      these rules, replayed from their setup with every player's signed order and the cards shown
      so far, ask this turn-up now: the rules must get there from those alone.
    """

    # Optional hooks: :class:`BlindHooks` gives them with their parameters; a game's rules
    # define those they need, and the blind table does without the others (:func:`blind_hook`).

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
