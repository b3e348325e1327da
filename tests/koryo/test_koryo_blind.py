"""Koryo at a blind table (spec, "Blind table"): the pure blind rules, from fixed deck orders with
hand-worked results, and against the ordinary rules on the same cards for random games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from koryo_pbm_games.koryo import orders as O
from koryo_pbm_games.koryo import rules
from koryo_pbm_games.koryo.blind import BlindKoryo, is_slot, parse_slot
from koryo_pbm_games.koryo.cards import CARD_IDS, INDEX, NCARDS, full_deck
from koryo_testkit import GAME

from koryo_pbm.errors import FormatError, IllegalOrder, OrderError

BLIND = GAME.blind_rules()
CATALOGUE = [CARD_IDS[c] for c in full_deck()]


class Dealers:
    """What the two dealers and the audit stand for in these tests: the card at every slot.
    ``orders`` fixes a deck's order by id; other decks are shuffled by ``rnd``."""

    def __init__(self, orders: dict[str, list[str]] | None = None, rnd: random.Random | None = None):
        self.orders = orders or {}
        self.rnd = rnd or random.Random(0)
        self.decks: dict[str, list[str]] = {}
        self.answers: list = []

    def card(self, slot: str) -> str:
        deck, pos = parse_slot(slot)
        return self.decks[deck][pos]

    def cards(self, slots) -> list[str]:
        return [self.card(x) for x in slots]

    def play(self, state, orders):
        decision = BLIND.pending(state)
        self.answers.append((decision, orders))
        return BLIND.apply(state, orders)

    def deal(self, state):
        deck_id, feed = BLIND.deck_input(state)
        ids = [self.card(x) if is_slot(x) else x for x in feed]
        order = self.orders.get(deck_id)
        if order is None:
            order = ids[:]
            self.rnd.shuffle(order)
        assert sorted(order) == sorted(ids), "a fixed deck must hold the cards the rules put in"
        self.decks[deck_id] = list(order)
        return self.play(state, {})

    def reveal(self, state):
        name = BLIND.pending(state).players[0]
        return self.play(state, {name: {"cards": self.cards(BLIND.revealing(state))}})


def texts(events) -> list[str]:
    return [e.text for e in events]


def _deck_with_top(top: list[str]) -> list[str]:
    """The catalogue in an order whose last cards (the top, dealt first) are ``top``."""
    rest = CATALOGUE[:]
    for c in top:
        rest.remove(c)
    return rest + top


# alice first: she is dealt the top 10 (positions 45..54), bob the next 10, carol the next
ALICE10 = ["merchant"] * 3 + ["broadcaster"] * 2 + ["guardian", "banker", "shipowner", "spy", "barbarian"]
BOB10 = ["merchant"] * 4 + ["guardian"] * 2 + ["priest", "senator", "lobbying", "barbarian"]
CAROL10 = ["banker"] * 3 + ["broadcaster"] * 3 + ["priest", "senator", "omniscient", "barbarian"]
ROUND1 = _deck_with_top(CAROL10 + BOB10 + ALICE10)


def _dealt_round1():
    d = Dealers({"round-1": ROUND1})
    s = BLIND.setup(["alice", "bob", "carol"], "alice")
    assert BLIND.pending(s).kind == "deal"
    assert BLIND.deck_input(s) == ("round-1", CATALOGUE)
    s, ev = d.deal(s)
    return d, s, ev


def _slots_of(d: Dealers, state, name: str, card: str, k: int) -> list[str]:
    hand = BLIND.hand(state, name)
    return [x for x in hand if d.card(x) == card][:k]


def test_distribution_deals_slots_in_turn_order_top_first():
    d, s, ev = _dealt_round1()
    assert texts(ev) == ["round 1: alice is first player", "alice is dealt 10 cards",
                         "bob is dealt 10 cards", "carol is dealt 10 cards"]
    assert BLIND.hand(s, "alice") == [f"round-1:{i}" for i in range(45, 55)]
    assert sorted(d.cards(BLIND.hand(s, "alice"))) == sorted(ALICE10)
    assert sorted(d.cards(BLIND.hand(s, "carol"))) == sorted(CAROL10)
    rec = BLIND.dealt(s)["round-1"]
    assert rec[:25] == [""] * 25 and set(rec[25:35]) == {"carol"} and set(rec[35:45]) == {"bob"}
    assert BLIND.pending(s).id == "r1-orders" and BLIND.pending(s).players == ("alice", "bob", "carol")
    # no hidden card id anywhere in the state: the whole state is public
    dumped = repr(BLIND.dump_state(s))
    assert "merchant" not in dumped.replace(repr(CATALOGUE), "") and "round-1:54" in dumped


def test_orders_name_slots_of_the_hand_and_the_rest_is_discarded_unseen():
    d, s, _ = _dealt_round1()
    with pytest.raises(IllegalOrder, match="round-1:0 is not a card of your hand"):
        BLIND.check(s, "alice", {"facedown": ["round-1:0"]})
    with pytest.raises(IllegalOrder, match="not a card of your hand"):
        BLIND.check(s, "alice", {"facedown": ["round-1:44"]})  # bob's
    with pytest.raises(IllegalOrder, match="at least one card"):
        BLIND.check(s, "alice", {"facedown": []})
    with pytest.raises(IllegalOrder, match="twice"):
        BLIND.check(s, "alice", {"facedown": ["round-1:45", "round-1:45"]})
    with pytest.raises(OrderError, match="facedown"):
        BLIND.check(s, "alice", {"play": ["merchant"]})
    with pytest.raises(OrderError, match="unknown player"):
        BLIND.check(s, "dave", {"facedown": ["round-1:45"]})
    s, ev = d.play(s, {"alice": {"facedown": _slots_of(d, s, "alice", "merchant", 3)},
                       "bob": {"facedown": _slots_of(d, s, "bob", "merchant", 2)},
                       "carol": {"facedown": _slots_of(d, s, "carol", "banker", 3)}})
    assert texts(ev) == ["alice plays 3 cards face down", "alice discards 7 cards left in hand",
                         "bob plays 2 cards face down", "bob discards 8 cards left in hand",
                         "carol plays 3 cards face down", "carol discards 7 cards left in hand"]
    p = BLIND.pending(s)
    assert (p.id, p.kind, p.players) == ("r1-reveal-alice", "reveal", ("alice",))
    assert len(BLIND.revealing(s)) == 3
    # alice's reveal: three merchants; nobody has a power yet: her turn has one outcome
    s, ev = d.reveal(s)
    assert texts(ev) == ["alice reveals merchant ×3 (the only legal move)"]
    s, ev = d.reveal(s)
    assert texts(ev) == ["bob reveals merchant ×2 (the only legal move)"]
    s, ev = d.reveal(s)
    assert texts(ev)[0] == "carol reveals banker ×3 (the only legal move)"
    assert "carol takes a token from the bank (banker)" in texts(ev)


def test_blind_table_facedown_cards_breaking_the_orders_rule_are_discarded_without_effect():
    d, s, _ = _dealt_round1()
    # alice (modified software) places a merchant and a spy without the Ship Owner power
    mixed = _slots_of(d, s, "alice", "merchant", 1) + _slots_of(d, s, "alice", "spy", 1)
    s, _ = d.play(s, {"alice": {"facedown": mixed},
                      "bob": {"facedown": _slots_of(d, s, "bob", "merchant", 1)},
                      "carol": {"facedown": _slots_of(d, s, "carol", "barbarian", 1)}})
    s, ev = d.reveal(s)
    assert texts(ev) == [
        "alice's face-down cards (merchant, spy) break the orders rule (two different ids without the "
        "Ship Owner power at the order phase): all discarded without effect",
        "alice reveals nothing (the only legal move)"]
    assert ev[0].kind == "void" and ev[0].data == {"player": "alice", "cards": ["merchant", "spy"]}
    dump = BLIND.dump_state(s)
    assert dump["tables"][0] == [0] * NCARDS  # no card stays in front of alice
    assert dump["known_discard"][INDEX["merchant"]] == 1 and dump["known_discard"][INDEX["spy"]] == 1
    # nothing else changes: bob's merchant goes in front of him, carol's barbarian hits bob
    s, ev = d.reveal(s)
    assert texts(ev) == ["bob reveals merchant (the only legal move)"]
    s, ev = d.reveal(s)
    assert ev == []  # her barbarian has a target: the reveal is logged in her action turn
    assert BLIND.pending(s).id == "r1-action-carol"
    assert BLIND.dump_state(s)["revealed"][2][INDEX["barbarian"]] == 1
    s, ev = d.play(s, {"carol": {"steps": [{"do": "reveal"}, {"do": "barbarian", "player": "bob",
                                                               "card": "merchant"}]}})
    assert texts(ev)[:2] == ["carol reveals barbarian", "carol's barbarian destroys bob's merchant"]


def test_blind_table_two_ids_are_legal_with_the_ship_owner_power_held_at_the_order_phase():
    d, s, _ = _dealt_round1()
    data = BLIND.dump_state(s)
    data["tables"][0][INDEX["shipowner"]] = 1  # alice holds the Ship Owner power at the order phase
    s = BLIND.load_state(data)
    two = _slots_of(d, s, "alice", "merchant", 1) + _slots_of(d, s, "alice", "spy", 1)
    s, _ = d.play(s, {"alice": {"facedown": two},
                      "bob": {"facedown": _slots_of(d, s, "bob", "merchant", 1)},
                      "carol": {"facedown": _slots_of(d, s, "carol", "banker", 1)}})
    s, ev = d.reveal(s)
    assert texts(ev)[0].startswith("alice reveals merchant, spy")
    # three different ids are never legal, Ship Owner or not
    d, s, _ = _dealt_round1()
    s = BLIND.load_state(data)
    three = (_slots_of(d, s, "alice", "merchant", 1) + _slots_of(d, s, "alice", "spy", 1)
             + _slots_of(d, s, "alice", "banker", 1))
    s, _ = d.play(s, {"alice": {"facedown": three},
                      "bob": {"facedown": _slots_of(d, s, "bob", "merchant", 1)},
                      "carol": {"facedown": _slots_of(d, s, "carol", "banker", 1)}})
    s, ev = d.reveal(s)
    assert ev[0].kind == "void" and "(cards of different ids)" in ev[0].text


def test_reveal_answers_are_checked_for_shape():
    d, s, _ = _dealt_round1()
    s, _ = d.play(s, {"alice": {"facedown": _slots_of(d, s, "alice", "merchant", 2)},
                      "bob": {"facedown": _slots_of(d, s, "bob", "merchant", 1)},
                      "carol": {"facedown": _slots_of(d, s, "carol", "banker", 1)}})
    with pytest.raises(OrderError, match="one per face-down slot"):
        BLIND.apply(s, {"alice": {"cards": ["merchant"]}})
    with pytest.raises(OrderError, match="unknown card id"):
        BLIND.apply(s, {"alice": {"cards": ["merchant", "joker"]}})
    with pytest.raises(OrderError, match="not asked"):
        BLIND.apply(s, {"bob": {"cards": ["merchant"]}})


def test_reshuffle_puts_back_the_deck_slots_the_hand_discards_and_the_known_cards():
    d = Dealers(rnd=random.Random(7))
    s = BLIND.setup(["alice", "bob"], "bob")
    s, _ = d.deal(s)
    rnd = random.Random(3)
    while BLIND.pending(s).kind != "deal":
        s, _ = _random_step(d, s, rnd)
    deck_id, feed = BLIND.deck_input(s)
    assert deck_id == "round-2"
    assert len(feed) == 55 - sum(sum(t) for t in BLIND.dump_state(s)["tables"])
    slots = [x for x in feed if is_slot(x)]
    known = [x for x in feed if not is_slot(x)]
    assert slots[:35] == [f"round-1:{i}" for i in range(35)]  # the deck's remaining 35 first
    assert all(x in CARD_IDS for x in known)
    s, ev = d.deal(s)
    assert texts(ev)[:3] == ["round 2: alice is first player", "alice is dealt 9 cards", "bob is dealt 9 cards"] \
        or "broadcaster" in " ".join(texts(ev)[:3])


def test_slots_are_parsed_strictly():
    assert parse_slot("round-3:12") == ("round-3", 12)
    for bad in ("round-3", ":4", "round-3:", "round-3:x", "round-3:012", "round-3:-1"):
        with pytest.raises(FormatError):
            parse_slot(bad)


def test_games_with_blind_rules_give_them():
    from koryo_pbm_games.korsar.blind import BlindKorsar

    from koryo_pbm.engine.contract import Game
    from koryo_pbm.engine.registry import find_game

    assert isinstance(BLIND, BlindKoryo)
    assert isinstance(find_game("korsar").blind_rules(), BlindKorsar)
    assert Game.blind_rules(find_game("korsar")) is None  # the contract's default: no blind rules


# -- the property: the blind resolution is the ordinary resolution on the same cards ---------


def _random_step(d: Dealers, s, rnd: random.Random):
    p = BLIND.pending(s)
    if p.kind == "deal":
        return d.deal(s)
    if p.kind == "reveal":
        return d.reveal(s)
    k = s.k
    if p.kind == "orders":
        orders = {}
        for name in p.players:
            seat = k.players.index(name)
            hand = BLIND.hand(s, name)
            view = k.copy()
            counts = [0] * NCARDS
            for x in hand:
                counts[INDEX[d.card(x)]] += 1
            view.hands[seat] = counts
            play = O.random_play(view, seat, rnd)["play"]
            slots, left = [], hand[:]
            for c in play:
                x = next(x for x in left if d.card(x) == c)
                left.remove(x)
                slots.append(x)
            orders[name] = {"facedown": slots}
        return d.play(s, orders)
    seat = k.players.index(p.players[0])
    order = O.random_action(k, seat, rnd) if p.kind == "action" else O.random_discard(k, seat, rnd)
    return d.play(s, {p.players[0]: order})


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([2, 3, 4]))
def test_blind_resolution_gives_the_ordinary_rules_events_and_scores_on_the_same_cards(seed, n):
    rnd = random.Random(seed)
    names = ["alice", "bob", "carol", "dave"][:n]
    first = rnd.choice(names)
    d = Dealers(rnd=random.Random(seed + 1))
    s = BLIND.setup(names, first)
    blind_events = []
    while BLIND.pending(s) is not None:
        s, ev = _random_step(d, s, rnd)
        blind_events += ev
    open_events, outcome = BLIND.replay_open(names, first, d.decks, d.answers)
    assert [e.to_dict() for e in blind_events] == [e.to_dict() for e in open_events]
    assert BLIND.outcome(s) == outcome is not None
    assert outcome.scores == dict(zip(names, rules.scores(s.k), strict=True))
    # a round begins with the dealers' deal: 8 decks, and never a hidden id in the state
    assert sorted(d.decks) == [f"round-{r}" for r in range(1, 9)]
    assert BLIND.load_state(BLIND.dump_state(s)).k.key() == s.k.key()


def test_blind_table_a_hand_of_one_is_judged_from_the_signed_record_of_the_deal():
    """The co-dealer reveals a face-down card without a signed order only when its own signed
    record of the deal shows a hand of one: the card is the only position of its deck dealt to
    the player (hands are empty between rounds, so the orders phase holds what the round dealt)."""
    dealt = {"round-8": ["", "alice", "bob", "bob", ""], "round-7": ["alice", "alice"]}
    assert BLIND.placed_alone(dealt, "alice", ["round-8:1"])
    assert not BLIND.placed_alone(dealt, "bob", ["round-8:2"])  # bob held two: his order names them
    assert not BLIND.placed_alone(dealt, "alice", ["round-8:0"])  # not alice's
    assert not BLIND.placed_alone(dealt, "alice", ["round-7:0"])  # alice held two of round-7
    assert not BLIND.placed_alone(dealt, "alice", ["round-8:1", "round-8:1"])
    assert not BLIND.placed_alone(dealt, "alice", ["round-9:1"])  # a deck never dealt
    assert not BLIND.placed_alone(dealt, "alice", ["nonsense"])
