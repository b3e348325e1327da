"""``KorsarGame``: the Korsar rules behind the engine's game contract."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from koryo_pbm.engine.contract import BlindRules, BotRandom, Decision, Event, Game, Order, Outcome
from koryo_pbm.engine.menus import tree_menu
from koryo_pbm.errors import FormatError, IllegalOrder, OrderError

from . import cards as C
from . import rules as R
from . import storage, views
from .state import KorsarState

if TYPE_CHECKING:
    from koryo_pbm.engine.menus import Menu
    from koryo_pbm.engine.scene import Scene

_TURN = re.compile(r"t(\d+)-")  # decision ids: t12-bob


def _state(state: object) -> KorsarState:
    if not isinstance(state, KorsarState):
        raise FormatError(f"not a Korsar state: {type(state).__name__}")
    return state


class KorsarGame(Game):
    name: ClassVar[str] = "korsar"
    title: ClassVar[str] = "Korsar"
    player_counts: ClassVar[tuple[int, ...]] = R.PLAYER_COUNTS
    decision_kinds: ClassVar[tuple[str, ...]] = ("turn",)
    options: ClassVar[Mapping[str, str]] = {
        "teams": (
            "teams of two: true pairs consecutive seats (1+2, 3+4, ...), or a list of pairs of "
            "neighbours; required with 6 or 8 players, optional with 4, refused otherwise"
        )
    }

    # -- a match -------------------------------------------------------------------------

    def setup(
        self,
        players: Sequence[str],
        seed: str,
        *,
        first: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> KorsarState:
        s = R.new_match(players, seed, first, options)
        events: list[Event] = []
        R.begin_turn(s, events)
        R.settle(s, events)
        return s

    def pending(self, state: KorsarState) -> Decision | None:
        s = _state(state)
        if s.over:
            return None
        p = s.current_player
        return Decision(id=f"t{s.turn}-{p}", kind="turn", players=(p,))

    def check(self, state: KorsarState, player: str, order: Order) -> None:
        R.check_order(_state(state), player, order)

    def apply(self, state: KorsarState, orders: Mapping[str, Order], *, log: bool = True
              ) -> tuple[KorsarState, list[Event]]:
        s = _state(state)
        decision = self.pending(s)
        if decision is None:
            raise IllegalOrder("illegal order: the game is over")
        if not isinstance(orders, Mapping) or set(orders) != set(decision.players):
            names = sorted(map(str, orders)) if isinstance(orders, Mapping) else orders
            raise OrderError(f"decision {decision.id} needs exactly one order from {decision.players[0]}, got {names!r}")
        player = decision.players[0]
        action, card, gid = R.check_order(s, player, orders[player])
        new = s.copy()
        events: list[Event] = []
        R.do_action(new, player, action, card, gid, events)
        R.end_turn(new, events)
        R.settle(new, events)
        return new, events

    def outcome(self, state: KorsarState) -> Outcome | None:
        s = _state(state)
        if not s.over:
            return None
        sc = R.scores(s)
        best = max(sc.values())
        return Outcome(scores=sc, winners=tuple(p for p in s.players if sc[p] == best))

    # -- players -------------------------------------------------------------------------

    def legal_orders(self, state: KorsarState, player: str) -> list[dict[str, str]]:
        """Every distinct legal order of ``player`` now (empty unless it is their turn)."""
        return R.legal_orders(_state(state), player)

    def random_order(self, state: KorsarState, player: str, rng: BotRandom) -> dict[str, Any]:
        s = _state(state)
        orders = R.legal_orders(s, player)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        return dict(rng.choice(orders))

    def random_playout(self, state: KorsarState, rng: BotRandom, max_decisions: int = 100_000) -> KorsarState:
        # What apply does with random_order's orders, on one copy of the state changed in place:
        # an order drawn from legal_orders is not read back nor checked again
        s = _state(state).copy()
        events: list[Event] = []  # told, and forgotten
        for _ in range(max_decisions):
            if s.over:
                return s
            player = s.current_player
            orders = R.legal_orders(s, player)
            if not orders:
                raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
            order = rng.choice(orders)
            R.do_action(s, player, order["action"], order.get("card", ""), order.get("galleon", ""), events)
            R.end_turn(s, events)
            R.settle(s, events)
            events.clear()
        raise RuntimeError(f"korsar: no end after {max_decisions} decisions")

    def bot_levels(self) -> tuple[str, ...]:
        return ("heuristic",)

    def bot_order(self, state: KorsarState, player: str, level: str, rng: BotRandom, limit: float,
                  clock: Callable[[], float]) -> dict[str, Any]:
        from . import bots

        if level not in bots.LEVELS:
            return super().bot_order(state, player, level, rng, limit, clock)
        s = _state(state)
        orders = R.legal_orders(s, player)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        return bots.heuristic(s, player, orders)

    def determinize(self, state: KorsarState, player: str, rng: BotRandom) -> KorsarState:
        return views.determinize(_state(state), player, rng)

    def describe_choices(self, state: KorsarState, player: str) -> tuple[dict[str, Any], list[str]]:
        s = _state(state)
        orders = R.legal_orders(s, player)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        lines = [f"turn {s.turn}: {player}, draw or play exactly one card ({len(s.pile)} cards in the draw pile)"]
        if s.pile:
            lines.append('draw the top card of the pile: action = "draw"')
        plays: dict[str, list[str]] = {}
        discards = []
        for o in orders:
            if o["action"] == "play":
                plays.setdefault(o["card"], []).append(o.get("galleon", ""))
            elif o["action"] == "discard":
                discards.append(o["card"])
        if plays:
            lines.append('play a card: action = "play", card = "<card>", and galleon = "<id>" for a pirate, captain or admiral')
            for card, where in plays.items():
                if C.is_galleon(card):
                    lines.append(f"  {card}: put to sea in front of you (value {C.value(card)})")
                else:
                    targets = ", ".join(f"{gid} ({g.owner}'s {g.card})" for gid in where if (g := s.galleon(gid)))
                    lines.append(f"  {card} beside {targets}")
        unplayable = [c for c in C.sorted_cards(list(set(s.hands[player]))) if c not in plays]
        if unplayable:
            lines.append(f"cards you cannot play now: {', '.join(unplayable)}")
        if discards:
            lines.append(f'discard instead of playing (the pile is empty): action = "discard", card = one of {", ".join(discards)}')
        if s.teams and s.is_second_teammate(player) and s.last_beside:
            lines.append(f"{s.partner(player)} put a card beside {s.last_beside} this round: you may not put one there too")
        if s.teams and s.is_second_teammate(player) and s.last_launched:
            lines.append(f"{s.partner(player)} has just put {s.last_launched} to sea: you may defend it at once, "
                         "with a pirate or with the admiral")
        example = next((o for o in orders if o["action"] == "play"), orders[0])
        return dict(example), lines

    # -- storage and views ---------------------------------------------------------------

    def menu(self, state: KorsarState, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Menu | dict[str, Any]:
        orders, keys, label = self._tree(state, player)
        return tree_menu(orders, picked, keys, label, hint)

    def menu_answers(self, state: KorsarState, player: str, picked: Sequence[Any], menu: Menu,
                     hint: Mapping[str, Any] | None = None) -> Sequence[Menu | dict[str, Any]] | None:
        orders, keys, label = self._tree(state, player)  # the legal orders listed once for every option
        return [tree_menu(orders, [*picked, o.value], keys, label, hint) for o in menu.options]

    def _tree(self, state: KorsarState, player: str) -> tuple[
            list[dict[str, Any]], tuple[tuple[str, str], ...], Callable[[str, Any], str]]:
        """What :meth:`menu` asks of :func:`.engine.menus.tree_menu`: the legal orders, the keys
        and their questions, the labels."""
        s = _state(state)
        orders = R.legal_orders(s, player)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")

        def label(key: str, value: str) -> str:
            if key == "action":
                return {"draw": f"draw the top card of the pile ({len(s.pile)} left)",
                        "play": "play a card from your hand",
                        "discard": "discard a card (the pile is empty)"}[value]
            if key == "galleon":
                g = s.galleon(value)
                return R.describe_galleon(s, g) if g is not None else value
            return f"{value} (a galleon: put it to sea in front of you)" if C.is_galleon(value) else value

        return orders, (
            ("action", f"Turn {s.turn}: draw, or play a card?"),
            ("card", "Which card?"),
            ("galleon", "Beside which galleon?"),
        ), label

    def dump_state(self, state: KorsarState) -> dict[str, Any]:
        return storage.dump_state(_state(state))

    def load_state(self, data: Mapping[str, Any]) -> KorsarState:
        return storage.load_state(data)

    def public(self, state: KorsarState) -> dict[str, Any]:
        return views.public(_state(state))

    def private(self, state: KorsarState, player: str) -> dict[str, Any]:
        return views.private(_state(state), player)

    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        return views.view(public, private)

    def render(self, view: Mapping[str, Any]) -> str:
        return views.render(view)

    def picture(self, view: Mapping[str, Any]) -> Scene:
        from . import picture

        try:
            return picture.picture(view)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed Korsar view: {exc}") from None

    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> KorsarState:
        return views.from_view(public, private, player)

    # -- positions -----------------------------------------------------------------------

    def load_position(self, doc: Mapping[str, Any], seed: str) -> KorsarState:
        return storage.load_position(doc, seed)

    def dump_position(self, state: KorsarState) -> dict[str, Any]:
        return storage.dump_position(_state(state))

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        m = _TURN.match(decision) if event is None else None
        if m is None or not players:
            return None
        n, turn = len(players), int(m.group(1))
        first = (turn - 1) // n * n + 1
        return f"round {(turn - 1) // n + 1} (turns {first}–{first + n - 1})"

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        return views.score_breakdown(view)

    def blind_rules(self) -> BlindRules:
        from .blind import BlindKorsar

        return BlindKorsar(self)

    def check_invariants(self, state: KorsarState) -> None:
        R.invariants(_state(state))
