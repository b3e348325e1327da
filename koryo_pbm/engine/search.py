"""The bot level ``search`` of every game: information-set Monte Carlo search over the
player's own menu, built on the game contract alone.

What it is, honestly: the single-observer information-set MCTS of Cowling, Powley and
Whitehouse (2012; OpenSpiel's ``ismcts.py`` is the reference design) with its tree cut at the
searching player's own decision. Each *simulation*

1. draws a full state the player cannot tell from what they know
   (:meth:`~koryo_pbm.engine.contract.Game.determinize` of their
   :meth:`~koryo_pbm.engine.contract.Game.from_view` state: the unseen cards dealt anew, the
   match's generator replaced, from the bot's own generator);
2. descends the player's menu (:meth:`~koryo_pbm.engine.contract.Game.menu`: each question a
   node, each option an edge) by UCB1 to a finished order. The menu is a function of the
   player's view alone, so one tree serves every determinization; a huge set of orders (a
   Koryo action turn has up to 137,757) is searched one question at a time, never listed;
3. answers the other players asked at the same decision (a simultaneous one) from their own
   view in that state, by the playout policy: each seat decides from its own information, and
   none sees the order the searcher tries;
4. plays the match to its end with the playout policy and scores it for the player (a win,
   shared by the winners, and a little for the score lead, so that the close games count).

Below the player's decision there is no tree: the other players' later decisions have menus
that depend on cards the searcher has not seen, so a tree over them costs a menu per node per
determinization, and at the few hundred simulations a second of Python allows it would hold
almost nothing. The playout policy stands in for them.

The playout policy is the game's own strongest bot level (the last of
:meth:`~koryo_pbm.engine.contract.Game.bot_levels` but ``search``, e.g. ``heuristic``), each
player deciding from the :meth:`~koryo_pbm.engine.contract.Game.from_view` state of their own
view in the determinization, as a bot does; its order for the searcher is the menu's suggested
option, which starts with :data:`PRIOR` visits worth the node's mean, so the search leaves the
level it plays over only on evidence. A game with no level of its own plays out with
:meth:`~koryo_pbm.engine.contract.Game.random_playout` (many more, cheaper simulations).

A game with no menu (:meth:`~koryo_pbm.engine.contract.Game.menu` raises) is searched over
orders drawn by :meth:`~koryo_pbm.engine.contract.Game.random_order` (:data:`DRAWS` draws,
without repeats) and the policy's order: one question whose options are those orders.

Deterministic: every draw comes from the bot's generator (seeded from public values by
:mod:`~koryo_pbm.engine.bots`), the work is a count of simulations (:data:`SIMULATIONS`),
never a time, and ties go to the first option, so ``verify`` chooses the same order again.
The clock is read between simulations for the safety limit only (:class:`PastLimit`, which
:meth:`~koryo_pbm.engine.contract.Game.bot_order` turns into its
:class:`~koryo_pbm.engine.contract.TimeLimit`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koryo_pbm.engine.menus import Menu
from koryo_pbm.errors import GameError

# The contract's types, named here without importing it (it imports this module: its
# ``Game.bot_order`` plays ``search``): a game, a state, an order, an outcome, a generator.
Game = Any
State = Any
Order = Mapping[str, Any]
Outcome = Any
BotRandom = Any


class PastLimit(Exception):
    """The search passed its safety time limit (``Game.bot_order`` raises ``TimeLimit``)."""


LEVEL = "search"
#: The work per decision, a count: simulations with random playouts; with a game's level,
#: simulations until its decisions in the playouts number :data:`DECISIONS` (a decision of
#: Koryo's or Korsar's heuristic, its view rebuilt, takes 0.2 to 0.3 ms of one core: a long
#: match early on gets fewer simulations than its last rounds, in about the same time), at least
#: :data:`MIN_SIMULATIONS`, at most ``SIMULATIONS["level"]``.
SIMULATIONS = {"level": 400, "random": 400}
DECISIONS = 2400
MIN_SIMULATIONS = 16
#: The UCB1 exploration constant, for rewards in [0, 1].
UCT_C = 0.7
#: Visits the policy's own choice starts with at each question, worth the question's mean.
PRIOR = 4
#: Orders drawn for a game without menus.
DRAWS = 24
#: A menu with at most this many orders is searched as one question over all of them.
LEAVES = 64
#: Of a simulation's reward, the part the score lead gives (the rest: the win).
LEAD = 0.2


def policy_level(game: Game) -> str | None:
    """The game's own level the playouts play (its strongest but ``search``), or ``None``."""
    own = [lv for lv in game.bot_levels() if lv not in (LEVEL, "random")]
    return own[-1] if own else None


def reward(outcome: Outcome, player: str) -> float:
    """A finished simulation's worth to ``player``, in [0, 1]: ``1 - LEAD`` for a win (shared
    by the winners), plus ``LEAD`` times the score lead over the best other player, scaled
    into [0, 1]."""
    scores = outcome.scores
    mine = scores[player]
    best = max((v for p, v in scores.items() if p != player), default=mine)
    lead = (mine - best) / (abs(mine) + abs(best) + 1)
    win = 1.0 / len(outcome.winners) if player in outcome.winners else 0.0
    return (1 - LEAD) * win + LEAD * (0.5 + 0.5 * lead)


class _Node:
    """One question of the player's menu: its options' visits and rewards, and what each
    leads to (the next question, a finished order), found once."""

    __slots__ = ("answers", "default", "fresh", "n", "options", "total", "w")

    def __init__(self, options: Sequence[Any], default: int | None) -> None:
        self.options = list(options)
        self.default = default
        k = len(self.options)
        self.n = [0] * k
        self.w = [0.0] * k
        self.total = 0
        self.answers: list[Menu | dict[str, Any]] | None = None
        self.fresh: list[int] | None = None

    def stats(self, i: int) -> tuple[float, float]:
        """Visits and mean of option ``i``, the policy's option with its prior visits."""
        n, w = self.n[i], self.w[i]
        if i == self.default:
            mean = (sum(self.w) / self.total) if self.total else 0.5
            return n + PRIOR, (w + PRIOR * mean) / (n + PRIOR)
        return n, (w / n if n else 0.0)

    def select(self, rng: BotRandom) -> int:
        """The policy's option first, then every option once (in an order drawn from ``rng``,
        as OpenSpiel expands), then UCB1."""
        if self.fresh is None:
            fresh = [i for i in range(len(self.options)) if i != self.default]
            rng.shuffle(fresh)
            self.fresh = fresh[::-1] + ([self.default] if self.default is not None else [])
        while self.fresh:
            i = self.fresh[-1]
            if not self.n[i]:
                return i
            self.fresh.pop()
        log_t = math.log(self.total + (PRIOR if self.default is not None else 0))
        best, best_v = 0, -math.inf
        for i in range(len(self.options)):
            n, mean = self.stats(i)
            v = mean + UCT_C * math.sqrt(log_t / n)
            if v > best_v:
                best, best_v = i, v
        return best

    def best(self) -> int:
        """The option visited most (its prior counted), ties to the first."""
        return max(range(len(self.options)), key=lambda i: (self.stats(i)[0], -i))


class _Tree:
    """The player's menu as a search tree, keyed by the options picked so far."""

    def __init__(self, answer: Callable[[list[Any], Menu], Sequence[Menu | dict[str, Any]]], root: Menu) -> None:
        self._answer = answer
        self.nodes: dict[tuple[int, ...], _Node] = {}
        self._menus: dict[tuple[int, ...], Menu] = {(): root}
        self._values: dict[tuple[int, ...], list[Any]] = {(): []}

    def _node(self, path: tuple[int, ...]) -> _Node:
        node = self.nodes.get(path)
        if node is None:
            menu = self._menus[path]
            node = self.nodes[path] = _Node([o.value for o in menu.options], menu.default)
        return node

    def _child(self, path: tuple[int, ...], node: _Node, i: int) -> Menu | dict[str, Any]:
        if node.answers is None:
            node.answers = list(self._answer(self._values[path], self._menus[path]))
        out = node.answers[i]
        if isinstance(out, Menu):
            child = (*path, i)
            if child not in self._menus:
                self._menus[child] = out
                self._values[child] = [*self._values[path], node.options[i]]
        return out

    def descend(self, rng: BotRandom) -> tuple[dict[str, Any], tuple[int, ...]]:
        """A finished order by UCB1 at every question, and the options' path to it."""
        path: tuple[int, ...] = ()
        while True:
            node = self._node(path)
            i = node.select(rng)
            out = self._child(path, node, i)
            path = (*path, i)
            if not isinstance(out, Menu):
                return out, path

    def update(self, path: tuple[int, ...], value: float) -> None:
        for depth in range(len(path)):
            node = self.nodes[path[:depth]]
            i = path[depth]
            node.n[i] += 1
            node.w[i] += value
            node.total += 1

    def best(self) -> dict[str, Any]:
        """The order found by following the most visited option of every question."""
        path: tuple[int, ...] = ()
        while True:
            node = self._node(path)
            i = node.best()
            out = self._child(path, node, i)
            path = (*path, i)
            if not isinstance(out, Menu):
                return out

    def only(self) -> dict[str, Any] | None:
        """The order, if the menu offers one and only one."""
        path: tuple[int, ...] = ()
        while True:
            node = self._node(path)
            if len(node.options) != 1:
                return None
            out = self._child(path, node, 0)
            path = (*path, 0)
            if not isinstance(out, Menu):
                return out


class _Policy:
    """How the simulated players decide: the game's level (from each one's own view), or random."""

    def __init__(self, game: Game, level: str | None, rng: BotRandom, limit: float,
                 clock: Callable[[], float]) -> None:
        self.game, self.level, self.rng, self.limit, self.clock = game, level, rng, limit, clock
        self.decisions = 0

    def order(self, state: State, player: str) -> dict[str, Any]:
        game = self.game
        if self.level is None:
            return game.random_order(state, player, self.rng)
        view = game.from_view(game.public(state), game.private(state, player), player)
        return dict(game.bot_order(view, player, self.level, self.rng, self.limit, self.clock))

    def playout(self, state: State) -> State:
        """The match played to its end from ``state`` (the level's decisions are counted in
        :attr:`decisions`)."""
        game = self.game
        if self.level is None:
            return game.random_playout(state, self.rng)
        while (decision := game.pending(state)) is not None:
            orders = {p: self.order(state, p) for p in decision.players}
            self.decisions += len(orders)
            state, _ = game.apply(state, orders, log=False)
        return state


def _flat(orders: list[dict[str, Any]], default: int | None) -> _Tree:
    """One question whose options are ``orders`` (``default``: the policy's)."""
    from koryo_pbm.engine.menus import Option

    menu = Menu("order", tuple(Option(str(i), i) for i in range(len(orders))), default)
    return _Tree(lambda _picked, m: [orders[o.value] for o in m.options], menu)


def _leaves(answer: Callable[[list[Any], Menu], Sequence[Menu | dict[str, Any]]], root: Menu
            ) -> tuple[list[dict[str, Any]], int | None] | None:
    """Every order of the menu tree from ``root`` and the index of the one its suggestions lead
    to, or ``None`` if there are more than :data:`LEAVES` (the tree is not walked further)."""
    orders: list[dict[str, Any]] = []
    default: int | None = None
    todo: list[tuple[list[Any], Menu, bool]] = [([], root, True)]
    while todo:
        picked, menu, hinted = todo.pop(0)
        for i, out in enumerate(answer(picked, menu)):
            on_hint = hinted and menu.default == i
            if isinstance(out, Menu):
                todo.append(([*picked, menu.options[i].value], out, on_hint))
            else:
                if on_hint:
                    default = len(orders)
                orders.append(out)
            if len(orders) + len(todo) > LEAVES:
                return None
    return orders, default


def _tree(game: Game, view: State, player: str, hint: Order | None, rng: BotRandom) -> _Tree:
    """The player's choices as a search tree: one question over every order when the menu
    holds at most :data:`LEAVES` (a tree of questions would average a good order with its
    poor siblings: Korsar's "draw, or play a card?" would weigh every card at once), else the
    menu's questions themselves (Koryo's longest action turns); for a game without menus, one
    question over orders drawn at random and ``hint``."""
    try:
        root = game.menu(view, player, [], hint)
    except GameError:
        root = None
    if isinstance(root, Menu):
        def answer(picked: list[Any], menu: Menu) -> Sequence[Menu | dict[str, Any]]:
            found = game.menu_answers(view, player, picked, menu, hint)
            if found is None:
                found = [game.menu(view, player, [*picked, o.value], hint) for o in menu.options]
            return found

        listed = _leaves(answer, root)
        if listed is not None:
            return _flat(*listed)
        return _Tree(answer, root)
    orders: list[dict[str, Any]] = [dict(root)] if isinstance(root, dict) else []
    if hint is not None and dict(hint) not in orders:
        orders.append(dict(hint))
    for _ in range(DRAWS):
        o = dict(game.random_order(view, player, rng))
        if o not in orders:
            orders.append(o)
    return _flat(orders, 0 if hint is not None else None)


def search(game: Game, view: State, player: str, rng: BotRandom, limit: float = math.inf,
           clock: Callable[[], float] = lambda: 0.0, *, simulations: int | None = None,
           level: str | bool | None = True) -> dict[str, Any]:
    """The order of ``player`` at the pending decision of ``view`` (their
    :meth:`~koryo_pbm.engine.contract.Game.from_view` state), found in ``simulations``
    simulations (default: :data:`SIMULATIONS` for the playout policy). ``level``: the game's
    level the playouts play (``True``: :func:`policy_level`; ``None``: random play).
    Raises :class:`PastLimit` once ``clock`` passes ``limit``."""
    decision = game.pending(view)
    if decision is None or player not in decision.players:
        raise GameError(f"{game.title}: {player} has no decision to take now")
    start = clock()
    lv = policy_level(game) if level is True else (level or None)
    policy = _Policy(game, lv, rng, limit, clock)
    hint = policy.order(view, player) if lv is not None else None
    tree = _tree(game, view, player, hint, rng)
    only = tree.only()
    if only is not None:
        return only
    count = simulations if simulations is not None else SIMULATIONS["random" if lv is None else "level"]
    others = [p for p in decision.players if p != player]
    for done in range(count):
        if lv is not None and done >= MIN_SIMULATIONS and policy.decisions >= DECISIONS:
            break
        if clock() - start > limit:
            raise PastLimit(f"the search passed its safety limit of {limit:g} s after {done} of {count} simulations")
        world = game.determinize(view, player, rng)
        order, path = tree.descend(rng)
        orders = {p: order if p == player else policy.order(world, p) for p in (player, *others)}
        state, _ = game.apply(world, {p: orders[p] for p in decision.players}, log=False)
        end = policy.playout(state)
        outcome = game.outcome(end)
        if outcome is None:  # pragma: no cover - a playout ends the match
            raise GameError(f"{game.name}: a playout ended without an outcome")
        tree.update(path, reward(outcome, player))
    return tree.best()

