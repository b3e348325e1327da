"""The contract's defaults for a game that only writes its rules: a toy game of hidden hands
(``private_fields``) dealt from a secret deck (``secret_fields``), whose every other hook comes
from ``legal_orders`` and ``state_type``, passes the test kit; and what the defaults refuse."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from koryo_pbm import testing
from koryo_pbm.engine.contract import Decision, Event, Game, Outcome, contract_problem
from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import FormatError, IllegalOrder, PositionError

CARDS = [f"c{v}" for v in range(1, 10)]


@dataclass
class HighState:
    players: list[str]
    round: int
    hands: dict[str, list[str]]
    deck: list[str]
    played: list[dict[str, str]]
    points: dict[str, int]
    rng: Rng


class HighCard(Game):
    """Three cards each from nine; three rounds of one card each at once; the highest scores."""

    name = "highcard"
    title = "High card"
    player_counts = (2, 3)
    state_type = HighState
    secret_fields = ("deck",)
    private_fields = ("hands",)

    def setup(self, players, seed, *, first=None, options=None):
        rng = Rng.from_seed(seed)
        deck = list(CARDS)
        rng.shuffle(deck)
        hands = {p: sorted(deck[3 * i:3 * i + 3], key=lambda c: int(c[1:])) for i, p in enumerate(players)}
        return HighState(list(players), 1, hands, deck[3 * len(players):], [], dict.fromkeys(players, 0), rng)

    def pending(self, state):
        return Decision(f"r{state.round}", "play", tuple(state.players)) if state.round <= 3 else None

    def legal_orders(self, state, player):
        return [{"card": c} for c in state.hands[player]] if state.round <= 3 else []

    def apply(self, state, orders, *, log=True):
        decision = self.pending(state)
        if decision is None:
            raise IllegalOrder("illegal order: the game is over")
        decision.check_answers(orders)
        for p in decision.players:
            self.check(state, p, orders[p])
        new = HighState(list(state.players), state.round + 1, {p: [c for c in h if c != orders[p]["card"]]
                                                                for p, h in state.hands.items()},
                        list(state.deck), [*state.played, {p: orders[p]["card"] for p in state.players}],
                        dict(state.points), state.rng.copy())
        best = max(state.players, key=lambda p: int(orders[p]["card"][1:]))
        new.points[best] += 1
        return new, [Event("play", f"{best} plays the highest card")] if log else []

    def outcome(self, state):
        if state.round <= 3:
            return None
        top = max(state.points.values())
        return Outcome(dict(state.points), tuple(p for p in state.players if state.points[p] == top))

    def view(self, public, private):
        over = public["round"] > 3
        return {**super().view(public, private), "scores": dict(public["points"]),
                "winners": [p for p, v in public["points"].items() if over and v == max(public["points"].values())]}

    def unseen(self, public, private, player):
        seen = {*private.get("hands", []), *(c for r in public["played"] for c in r.values())}
        pool = [c for c in CARDS if c not in seen]
        hands = {}
        for p, n in public["hands_sizes"].items():
            if p != player:
                hands[p], pool = pool[:n], pool[n:]
        return {"hands": hands, "deck": pool}


def test_a_game_of_hidden_hands_on_the_defaults_passes_the_kit():
    game = HighCard()
    assert contract_problem(HighCard) is None
    for n in (2, 3):
        for i in range(3):
            testing.checked_play(game, testing.seat_names(n), f"high-{i}")
        testing.check_replay(game, n)
        testing.check_bots(game, n)
        testing.check_menus(game, n)
        testing.check_sizes(game, n, seeds=3)


def test_the_defaults_parts_and_view():
    game = HighCard()
    s = game.setup(["alice", "bob"], "x")
    public, private = game.public(s), game.private(s, "alice")
    assert "deck" not in public and "hands" not in public and "rng" not in public
    assert public["hands_sizes"] == {"alice": 3, "bob": 3}
    assert private == {"player": "alice", "hands": s.hands["alice"]}
    mine = game.from_view(public, private, "alice")
    assert mine.hands["alice"] == s.hands["alice"] and len(mine.hands["bob"]) == 3 and len(mine.deck) == 3
    assert set(mine.hands["bob"]) | set(mine.deck) == set(s.hands["bob"]) | set(s.deck)  # drawn from the unseen
    assert game.public(mine) == public
    example, lines = game.describe_choices(s, "alice")
    assert example == {"card": s.hands["alice"][0]} and lines[1:] == [f'  card = "{c}"' for c in s.hands["alice"]]
    with pytest.raises(IllegalOrder, match=r'^illegal order: card = "c99" is not a legal order of alice now'):
        game.check(s, "alice", {"card": "c99"})
    assert game.render(game.view(public, private)).splitlines()[0] == "High card"


def test_the_default_storage_checks_every_value_and_positions_round_trip():
    game = HighCard()
    s = game.setup(["alice", "bob"], "x")
    data = game.dump_state(s)
    assert game.dump_state(game.load_state(data)) == data
    for broken, why in (({**data, "round": "1"}, "round: not a whole number"),
                        ({**data, "hands": {"alice": [1]}}, r"hands.alice\[0\]: not a text"),
                        ({k: v for k, v in data.items() if k != "deck"}, "missing deck"),
                        ({**data, "extra": 1}, "unknown extra")):
        with pytest.raises(FormatError, match=why):
            game.load_state(broken)
    doc = game.dump_position(s)
    assert doc["game"] == "highcard" and "rng" not in doc
    again = game.load_position(doc, "another seed")
    assert game.public(again) == game.public(s)
    with pytest.raises(PositionError, match="^this position is for 'gops', not 'highcard'$"):
        game.load_position({**doc, "game": "gops"}, "x")
    with pytest.raises(PositionError, match="^bad High card position: position.round: not a whole number$"):
        game.load_position({**doc, "round": True}, "x")


def test_what_the_defaults_cannot_give_is_refused_by_name():
    class NoUnseen(HighCard):
        unseen = Game.unseen

    class NoState(HighCard):
        state_type = None

    class NoOrders(HighCard):
        legal_orders = Game.legal_orders

    assert contract_problem(NoUnseen) == "hook unseen is missing (it hides fields: from_view needs it)"
    assert contract_problem(NoState) == "hook dump_state is missing (or a state_type, which gives it)"
    assert contract_problem(NoOrders) == "hook check is missing (or legal_orders, which gives it)"
