"""``GopsGame``: the GOPS rules behind the engine's game contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from koryo_pbm.engine import plain
from koryo_pbm.engine.contract import BlindRules, Decision, Event, Game, Order, Outcome, asked
from koryo_pbm.engine.rng import Rng
from koryo_pbm.engine.scene import Card, Group, Panel, Row, Scene
from koryo_pbm.errors import FormatError, IllegalOrder, OrderError, SetupError

from .table import BIDS, PRIZES, ROUNDS, TIES, GopsState, last_round, play_round, points_text, scores, turn_up, value, winners


class GopsGame(Game):
    name: ClassVar[str] = "gops"
    title: ClassVar[str] = "GOPS"
    player_counts: ClassVar[tuple[int, ...]] = (2, 3, 4)
    decision_kinds: ClassVar[tuple[str, ...]] = ("bid",)
    options: ClassVar[Mapping[str, str]] = {"ties": 'a tied prize is "discard"ed (the default) or "carry"ed to the next round'}
    state_type: ClassVar[type] = GopsState
    secret_fields: ClassVar[tuple[str, ...]] = ("deck",)
    order_questions: ClassVar[Mapping[str, str]] = {"bid": "Which card do you bid?"}

    def setup(self, players: Sequence[str], seed: str, *, first: str | None = None,
              options: Mapping[str, Any] | None = None) -> GopsState:
        opts = dict(options or {})
        if len(players) not in self.player_counts:
            raise SetupError(f"GOPS is played by 2 to 4 players, not {len(players)}")
        if set(opts) - {"ties"} or opts.get("ties", "discard") not in TIES:
            raise SetupError('GOPS takes one option: ties = "discard" or "carry"')
        rng = Rng.from_seed(seed)
        deck = list(PRIZES)
        rng.shuffle(deck)
        return GopsState(list(players), opts.get("ties", "discard"), 1, {p: list(BIDS) for p in players},
                         deck[1:], deck[:1], {p: [] for p in players}, [], {}, rng)

    def pending(self, state: GopsState) -> Decision | None:
        if not any(state.hands.values()):
            return None
        return Decision(f"r{state.round}-bid", "bid", tuple(state.players))

    def legal_orders(self, state: GopsState, player: str) -> list[dict[str, str]]:
        decision = self.pending(state)
        return [{"bid": c} for c in state.hands[player]] if decision and player in decision.players else []

    def check(self, state: GopsState, player: str, order: Order) -> None:
        asked(self.pending(state), state.players, player)
        if not isinstance(order, Mapping) or set(order) != {"bid"} or not isinstance(order["bid"], str):
            raise OrderError('a GOPS order is one bid card: bid = "b1" ... "b13"')
        if order["bid"] not in state.hands[player]:
            raise IllegalOrder(f"illegal order: {player} has no {order['bid'][:20]} left "
                               f"(cards left: {', '.join(state.hands[player])})")

    def apply(self, state: GopsState, orders: Mapping[str, Order], *, log: bool = True
              ) -> tuple[GopsState, list[Event]]:
        decision = self.pending(state)
        if decision is None:
            raise IllegalOrder("illegal order: the game is over")
        decision.check_answers(orders)
        for p in decision.players:
            self.check(state, p, orders[p])
        s: GopsState = plain.copy(state)
        events: list[Event] = []
        play_round(s, {p: str(orders[p]["bid"]) for p in s.players}, events, "")
        if s.deck:
            turn_up(s, s.deck.pop(0), events)
        last_round(s, events)
        return s, events if log else []

    def outcome(self, state: GopsState) -> Outcome | None:
        return None if self.pending(state) else Outcome(scores(state.won), winners(state))

    def unseen(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> Mapping[str, Any]:
        seen = {*public["table"], *public["discarded"], *(c for cards in public["won"].values() for c in cards)}
        return {"deck": [c for c in PRIZES if c not in seen]}

    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        try:  # every value checked: a malformed part is one line
            self.check_invariants(self.from_view(public, {}, ""))
        except (AssertionError, ValueError) as exc:
            raise FormatError(f"malformed GOPS view: {exc}") from None
        sc = scores(public["won"])
        over = not any(public["hands"].values())
        return {**super().view(public, private), "scores": sc,
                "winners": [p for p in sc if over and sc[p] == max(sc.values())]}

    def render(self, view: Mapping[str, Any]) -> str:
        over = not any(view["hands"].values())
        lines = [f"GOPS, round {view['round']} of {ROUNDS}" + ("; game over" if over else
                 f": on the table {', '.join(view['table'])} ({points_text(sum(map(value, view['table'])))})")]
        if view["bids"]:
            lines.append("last bids: " + ", ".join(f"{p} {c}" for p, c in view["bids"].items()))
        lines += [f"{p}: {points_text(view['scores'][p])}; cards left {' '.join(h) or '-'}" for p, h in view["hands"].items()]
        return "\n".join(lines)

    def picture(self, view: Mapping[str, Any]) -> Scene:
        def tile(c: str) -> Card:
            return Card(c, "prize" if c[0] == "p" else "bid", str(value(c)), fill="#b7791f" if c[0] == "p" else "#2563eb")

        text = self.render(view).splitlines()
        table = Panel("the table", rows=(Row("prize", tuple(tile(c) for c in view["table"]), "table"),))
        players = tuple(Panel(p, key=p, facts=(points_text(view['scores'][p]),), rows=(
            Row("won", tuple(tile(c) for c in view["won"][p]), "won", p),
            Row("cards left", tuple(tile(c) for c in h), "hand", p)), tone="turn" if h else "")
            for p, h in view["hands"].items())
        return Scene(text[0], facts=tuple(text[1:2]), groups=(Group("", (table,)), Group("players", players)))

    def menu_room(self, kind: str) -> int:
        return 2048  # a bid's menu with the view and picture, compressed: 1,026 bytes at most in 9 random games

    def progress(self, public: Mapping[str, Any]) -> tuple[int | None, str | None]:
        return public.get("round"), None

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        if event is None:  # a round begins as its prize is turned up (round 1's at the deal)
            return "round 1" if decision == "r1-bid" else None
        return event.partition(":")[0] if event.endswith(" is turned up") else None

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        if any(view["hands"].values()):
            return None
        return [{"player": p, "what": f"prizes {', '.join(cards) or 'none'}", "points": sum(map(value, cards))}
                for p, cards in view["won"].items()]

    def blind_rules(self) -> BlindRules:
        from .blind import BlindGops

        return BlindGops(self)

    def check_invariants(self, state: GopsState) -> None:
        prizes = [*state.deck, *state.table, *state.discarded, *(c for cs in state.won.values() for c in cs)]
        assert sorted(prizes) == sorted(PRIZES), "the 13 prize cards, each once"
        assert state.ties in TIES and sorted(state.hands) == sorted(state.players) == sorted(state.won)
        assert len({len(h) for h in state.hands.values()}) == 1, "every player holds as many cards"
        for h in state.hands.values():
            assert set(h) <= set(BIDS) and len(set(h)) == len(h)
        left = len(next(iter(state.hands.values())))
        assert len(state.deck) == max(left - 1, 0) and state.round == ROUNDS - max(left, 1) + 1
        assert left == 0 or state.table, "a prize on the table while cards are left"
