"""GOPS at a blind table (spec, "Blind table"): the prize deck is shuffled by both dealers, dealt
to nobody, and each prize turned up for everybody by both dealers' public shares. No card is
dealt to a player (every bid card is known to all), so the bids are the ordinary orders, checked
and played by the ordinary rules (:mod:`.game`) on a state whose face-down prizes are slots
(``deck:0`` ... ``deck:12``, top first). Decisions: ``deal`` (the dealers shuffle the 13
prizes), ``rN-turn-up`` (round N's prize turned up), ``rN-bid`` (as in the open game)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from koryo_pbm.engine import plain
from koryo_pbm.engine.contract import BlindRules, BotRandom, Decision, Event, Game, Order, Outcome, asked
from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import IllegalOrder, OrderError

from .table import BIDS, PRIZES, GopsState, last_round, play_round, scores, turn_up

DECK = "deck"  # the one deck of a blind GOPS game: the prizes
TURN_UP = "turn-up"  # the blind rules' kind of a decision that turns cards up for everybody


@dataclass
class BlindGopsState(GopsState):
    """``deck`` holds slots once ``dealt``; ``up``: the round's prize is turned up (else the
    dealers turn up ``deck[0]`` next). ``rng`` draws nothing (the dealers shuffled) and is not stored."""

    dealt: bool = False
    up: bool = False


_NO_RNG = Rng.from_seed("blind")


class BlindGops(BlindRules):
    def __init__(self, game: Game) -> None:
        self.game = game  # the open game (GopsGame), whose rules check and play the bids

    def setup(self, players: Sequence[str], first: str, options: Mapping[str, Any] | None = None) -> BlindGopsState:
        s: GopsState = self.game.setup(players, "", options=options)  # the players and options checked as ever
        return BlindGopsState(s.players, s.ties, 0, s.hands, [], [], s.won, [], {}, _NO_RNG)

    def pending(self, state: BlindGopsState) -> Decision | None:
        if not state.dealt:
            return Decision("deal", "deal", ())
        if not state.up:
            return Decision(f"r{state.round + 1}-turn-up", TURN_UP, ())
        return self.game.pending(state)

    def check(self, state: BlindGopsState, player: str, order: Order) -> None:
        asked(self.pending(state), state.players, player)
        self.game.check(state, player, order)

    def apply(self, state: BlindGopsState, orders: Mapping[str, Order]) -> tuple[BlindGopsState, list[Event]]:
        d = self.pending(state)
        s: BlindGopsState = plain.copy(state)
        events: list[Event] = []
        if d is None:
            raise IllegalOrder("illegal order: the game is over")
        if d.kind == "deal":
            s.deck, s.dealt = [f"{DECK}:{i}" for i in range(len(PRIZES))], True
        elif d.kind == TURN_UP:
            cards = orders.get("", {}).get("cards")
            if not isinstance(cards, list) or len(cards) != 1 or cards[0] not in PRIZES:
                raise OrderError("a turn-up's answer is the one prize card the dealers' shares proved")
            s.deck.pop(0)
            turn_up(s, cards[0], events)
            s.up = True
            last_round(s, events)
        else:
            d.check_answers(orders)
            for p in d.players:
                self.game.check(s, p, orders[p])
            play_round(s, {p: str(orders[p]["bid"]) for p in s.players}, events, "")
            s.up = not s.deck
        return s, events

    def outcome(self, state: BlindGopsState) -> Outcome | None:
        return None if self.pending(state) else self.game.outcome(state)

    def deck_input(self, state: BlindGopsState) -> tuple[str, list[str]]:
        return DECK, list(PRIZES)

    def dealt(self, state: BlindGopsState) -> Mapping[str, Sequence[str]]:
        return {DECK: [""] * len(PRIZES)} if state.dealt else {}  # dealt to nobody: turned up in public

    def revealing(self, state: BlindGopsState) -> list[str]:
        return state.deck[:1]

    def hidden(self, state: BlindGopsState, player: str | None = None) -> list[str]:
        return []  # no card is hidden in a hand

    def dump_state(self, state: BlindGopsState) -> dict[str, Any]:
        return {k: v for k, v in plain.dump(state).items() if k != "rng"}

    def load_state(self, data: Mapping[str, Any]) -> BlindGopsState:
        state: BlindGopsState = plain.load(BlindGopsState, {**data, "rng": _NO_RNG.state()}, "GOPS blind state")
        return state

    def replay_open(self, players: Sequence[str], first: str, decks: Mapping[str, Sequence[str]],
                    answers: Sequence[tuple[Decision, Mapping[str, Order]]],
                    options: Mapping[str, Any] | None = None) -> tuple[list[Event], Outcome | None]:
        """The ordinary rules on the audited prize deck; the first prize, which the open game
        shows at its setup, is turned up by the blind game's log."""
        deck = list(decks[DECK])
        s = GopsState(list(players), dict(options or {}).get("ties", "discard"), 1, {p: list(BIDS) for p in players},
                      deck[1:], deck[:1], {p: [] for p in players}, [], {}, _NO_RNG)
        events = [Event("turn-up", f"round 1: {deck[0]} is turned up", {"card": deck[0]})]
        for _decision, orders in answers:  # the bids (the dealers' steps are not passed)
            s, more = self.game.apply(s, orders)
            events += more
        return events, self.game.outcome(s)

    # -- optional hooks (contract.BlindHooks) ---------------------------------------------------

    def describe_choices(self, state: BlindGopsState, player: str,
                         cards: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
        return self.game.describe_choices(state, player)

    def random_order(self, state: BlindGopsState, player: str, rng: BotRandom, cards: Mapping[str, str]) -> dict[str, Any]:
        return dict(rng.choice(self.game.legal_orders(state, player)))

    def render(self, data: Mapping[str, Any], cards: Mapping[str, str], me: str | None) -> str:
        s = self.load_state(data)
        view = {"round": max(s.round, 1), "table": s.table, "bids": s.bids, "hands": s.hands, "scores": scores(s.won)}
        return self.game.render(view) + f"\nprize deck: {len(s.deck)} card{'s' if len(s.deck) != 1 else ''} face down"
