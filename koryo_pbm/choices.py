"""The menu of a waiting player's legal choices, written into the player's sealed part.

The player page (``koryo-pbm player-page``) carries no rules: it renders what the moderator's
resolve wrote here, from the rules in ``games/`` (:meth:`~koryo_pbm.engine.contract.Game.menu`,
the same menus ``koryo-pbm play`` asks). A menu is a tree of questions; every path through it
ends in a finished order, given as the exact canonical text a submission signs
(:func:`koryo_pbm.match.canonical_orders`), so the page signs bytes the moderator's code wrote
and ``resolve`` checks them against the rules as it checks every order.

Layout (compact JSON, under the key ``menu`` of the player's part)::

    {"decision": "<decision id>",
     "root": {"n": 0} | {"t": 0},            # the first question, or a finished order at once
     "nodes": [{"q": "<question>", "d": <index of the suggested option; absent: none>,
                "o": [{"l": "<label>", "n": <node index>} | {"l": "<label>", "t": <order index>}]}],
     "orders": ["<canonical orders text>", ...],
     "fresh": "contribution",                 # only for the join: the page replaces the 64 zeros
                                              #   of this key with 32 fresh random bytes (hex)
     "complete": true | false,                # false: some rare long turns were left out (fit)
     "view": "<the table as the player sees it, as text (game.render)>"}

Sizes leak nothing: a waiting player's part is padded to its usual size (its shape) plus
:func:`room` bytes, which depend on the decision's public kind alone
(:meth:`~koryo_pbm.engine.contract.Game.menu_room`), whatever the menu holds. A menu that would not fit (a Koryo action turn
with many events and powers has tens of thousands of step orders) is cut: questions are
expanded breadth-first, the suggested path first, until the room is full; a question whose
answers were not expanded is left out, so every option left still leads to a legal order, and
``complete`` is false (the command line offers every turn).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import Game, State
from koryo_pbm.engine.menus import Menu, Option

MENU_KEY = "menu"  # the key of the menu in a waiting player's part
VIEW_ROOM = 2048  # bytes for the player's view of the table as text, added to the game's menu room
FRESH_KEY = "contribution"
FRESH_PLACEHOLDER = "0" * 64


def _cost(value: Any) -> int:
    from koryo_pbm.store.gamefile import compact_json

    return len(compact_json(value).encode("utf-8")) + 1


def room(game: Game, kind: str) -> int:
    """The bytes a waiting player's part grows by for the menu of a decision of ``kind``."""
    return game.menu_room(kind) + VIEW_ROOM


def build_menu(game: Game, view: State, player: str, *, game_id: str, decision_id: str, kind: str,
               hint: Mapping[str, Any] | None, room: int) -> dict[str, Any] | None:
    """The menu of ``player``'s legal choices (see the module docstring) from ``view``, their
    own view of the game, or ``None`` when the game has no menus. Fits ``room`` bytes as the
    value of the key ``"menu"`` in compact JSON (with its key and a comma)."""
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.fair import JOIN
    from koryo_pbm.match import canonical_orders

    fresh = kind == JOIN
    if fresh:
        hint = {FRESH_KEY: FRESH_PLACEHOLDER}
    try:
        first = game.menu(view, player, [], hint)
    except (KoryoPbmError, ValueError):
        return None
    budget = room - len(',"menu":') - 200  # the fixed keys, the root, the flags
    orders: list[str] = []
    order_at: dict[str, int] = {}
    nodes: list[dict[str, Any]] = []
    picks: list[list[Any]] = []  # the values picked to reach each node

    def leaf(order: Mapping[str, Any]) -> int:
        nonlocal budget
        text = canonical_orders(game_id, decision_id, dict(order))
        if text not in order_at:
            order_at[text] = len(orders)
            orders.append(text)
            budget -= _cost(text)
        return order_at[text]

    def node(menu: Menu, picked: list[Any]) -> int:
        nonlocal budget
        nodes.append({"q": menu.question, "d": menu.default, "o": [], "_menu": menu})
        picks.append(picked)
        budget -= _cost(menu.question) + 16
        return len(nodes) - 1

    if not isinstance(first, Menu):
        label = ("join the game: your contribution to the deal is fresh random bytes from this browser"
                 if fresh else "the only legal order")
        first = Menu("Your answer" if fresh else "Your only legal choice", (Option(label, _Finished(first)),), 0)
    node(first, [])
    queue: deque[int] = deque([0])
    expanded: set[int] = set()
    while queue and budget > 0:
        at = queue.popleft()
        menu: Menu = nodes[at]["_menu"]
        options: list[dict[str, Any]] = []
        spent = 0
        new: list[int] = []
        for i, option in enumerate(menu.options):
            if isinstance(option.value, _Finished):
                child: Any = option.value.order
            else:
                child = game.menu(view, player, [*picks[at], option.value], hint)
            if isinstance(child, Menu):
                ref = node(child, [*picks[at], option.value])
                new.append(ref)
                entry = {"l": option.label, "n": ref}
                if i == menu.default:
                    queue.appendleft(ref)  # the suggested path first
                else:
                    queue.append(ref)
            else:
                entry = {"l": option.label, "t": leaf(child)}
            options.append(entry)
            spent += _cost(option.label) + 8
        budget -= spent
        nodes[at]["o"] = options
        expanded.add(at)
    # Cut what was not expanded: options leading to an unexpanded question, then questions
    # left without options, until every option leads somewhere.
    alive = set(expanded)
    changed = True
    while changed:
        changed = False
        for at in list(alive):
            kept = [o for o in nodes[at]["o"] if "t" in o or o["n"] in alive]
            if not kept:
                alive.discard(at)
                changed = True
    complete = len(alive) == len(nodes)
    if 0 not in alive:
        return None
    order = sorted(alive)
    index = {old: new for new, old in enumerate(order)}
    used_orders: dict[int, int] = {}
    out_orders: list[str] = []
    out_nodes = []
    for old in order:
        n = nodes[old]
        options = []
        default = None
        for i, o in enumerate(n["o"]):
            if "n" in o:
                if o["n"] not in alive:
                    continue
                entry = {"l": o["l"], "n": index[o["n"]]}
            else:
                if o["t"] not in used_orders:
                    used_orders[o["t"]] = len(out_orders)
                    out_orders.append(orders[o["t"]])
                entry = {"l": o["l"], "t": used_orders[o["t"]]}
            if i == n["d"]:
                default = len(options)
            options.append(entry)
        out_nodes.append({"q": n["q"], "o": options} if default is None else
                         {"q": n["q"], "d": default, "o": options})
    menu_out: dict[str, Any] = {"decision": decision_id, "root": {"n": 0}, "nodes": out_nodes,
                                "orders": out_orders, "complete": complete}
    if fresh:
        menu_out["fresh"] = FRESH_KEY
    if _cost(menu_out) + len(',"menu":') > room:  # pragma: no cover - the estimate above keeps a margin
        if room <= 4096:
            return None
        return build_menu(game, view, player, game_id=game_id, decision_id=decision_id, kind=kind,
                          hint=hint, room=room - 4096)
    return menu_out


class _Finished:
    """The value of the one option of a decision whose menu is a finished order at once (the join)."""

    def __init__(self, order: Mapping[str, Any]) -> None:
        self.order = order


def menus_for(game: Game, state: State, *, game_id: str, game_public: Mapping[str, Any],
              privates: Mapping[str, Mapping[str, Any]], views: Mapping[str, str] | None = None,
              suggest: bool = True, only: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The menu of every player the pending decision of ``state`` waits for, each built from
    that player's own view (public part and their private part only), with the heuristic
    bot's choice from that view suggested (as ``koryo-pbm play`` suggests it). ``views``: each
    player's table as text, put into their menu (cut to :data:`VIEW_ROOM`). ``only``: these
    players alone (default: all the decision waits for)."""
    from koryo_pbm.engine import bots
    from koryo_pbm.fair import JOIN

    decision = game.pending(state)
    if decision is None:
        return {}
    out = {}
    for name in decision.players:
        if only is not None and name not in only:
            continue
        private = privates[name]
        view = game.from_view(game_public, private, name)
        hint = None
        if suggest and decision.kind != JOIN and "heuristic" in bots.levels(game):
            try:
                hint = bots.choose_from_view(game, game_public, private, name, "heuristic",
                                             seed=f"{game_id}/{decision.id}/{name}").order
            except Exception:  # a suggestion is a courtesy: a bot's failure leaves none
                hint = None
        menu = build_menu(game, view, name, game_id=game_id, decision_id=decision.id, kind=decision.kind,
                          hint=hint, room=game.menu_room(decision.kind))
        if menu is not None:
            text = (views or {}).get(name, "")
            while _cost(text) > VIEW_ROOM - len(',"view":'):
                text = text[:len(text) * 3 // 4]
            menu["view"] = text
            out[name] = menu
    return out
