"""Korsar at a blind table (spec, "Blind table"): the pure blind rules, from fixed deck orders with
hand-worked results, and against the ordinary rules on the same cards for random games."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from koryo_pbm_games.korsar import KorsarGame
from koryo_pbm_games.korsar import cards as C
from koryo_pbm_games.korsar import rules as R
from koryo_pbm_games.korsar.blind import DECK, BlindKorsar, parse_slot

from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError

BLIND = KorsarGame().blind_rules()
CATALOGUE = C.full_deck()


class Dealers:
    """What the two dealers and the audit stand for in these tests: the card at every slot
    (``order``: the deck's order, or the catalogue shuffled by ``rnd``)."""

    def __init__(self, order: list[str] | None = None, rnd: random.Random | None = None):
        if order is None:
            order = CATALOGUE[:]
            (rnd or random.Random(0)).shuffle(order)
        assert sorted(order) == sorted(CATALOGUE)
        self.deck = order
        self.answers: list = []

    def card(self, slot: str) -> str:
        return self.deck[parse_slot(slot)]

    def play(self, state, orders):
        self.answers.append((BLIND.pending(state), orders))
        return BLIND.apply(state, orders)

    def step(self, state):
        """The dealers' step now (deal, give, the hands shown); ``None`` if a player is asked."""
        d = BLIND.pending(state)
        if d.kind in ("deal", "give"):
            return self.play(state, {})
        if d.kind == "reveal":
            return self.play(state, {"": {"cards": [self.card(x) for x in BLIND.revealing(state)]}})
        return None

    def turn(self, state, player, action, card="", galleon=""):
        slot = next((x for x in state.k.hands[player] if ":" in x and self.card(x) == card), "")
        order = {"action": action, **({"card": card, "slot": slot} if card else {}),
                 **({"galleon": galleon} if galleon else {})}
        return self.play(state, {player: order})


def texts(events) -> list[str]:
    return [e.text for e in events]


def _deck(first: dict[int, str]) -> list[str]:
    """The catalogue with the cards ``first`` (position -> id) put at those positions."""
    rest = CATALOGUE[:]
    for c in first.values():
        rest.remove(c)
    return [first[i] if i in first else rest.pop(0) for i in range(len(CATALOGUE))]


def _hidden_ids(state) -> list[str]:
    """Card ids in the state's hands and pile: at a blind table there are none until the end."""
    data = BLIND.dump_state(state)
    return [x for cs in [*data["hands"].values(), data["pile"]] for x in cs if ":" not in x]


# -- Setup ---------------------------------------------------------------------------------


def test_setup_deals_six_slots_to_each_player_in_turn_and_the_rest_is_the_pile():
    s = BLIND.setup(["alice", "bob"], "alice")
    assert BLIND.pending(s).kind == "deal" and BLIND.deck_input(s) == (DECK, CATALOGUE)
    s, events = Dealers().step(s)
    assert events == []  # no galleon on the table: nothing to seize
    assert s.k.hands["alice"] == [f"deck:{i}" for i in (0, 2, 4, 6, 8, 10)]
    assert s.k.hands["bob"] == [f"deck:{i}" for i in (1, 3, 5, 7, 9, 11)]
    assert s.k.pile[0] == "deck:12" and len(s.k.pile) == 66
    assert BLIND.dealt(s)[DECK][:13] == ["alice", "bob"] * 6 + [""]
    assert BLIND.pending(s).id == "t1-alice" and _hidden_ids(s) == []
    assert BLIND.hidden(s, "alice") == s.k.hands["alice"]


# -- A turn: draw -----------------------------------------------------------------------------


def test_a_turn_draw_takes_the_top_slot_and_the_dealers_give_it_before_its_drawer_moves_again():
    d = Dealers()
    s, _ = d.step(BLIND.setup(["alice", "bob"], "alice"))
    s, events = d.turn(s, "alice", "draw")
    assert texts(events) == ["alice draws a card (65 cards left in the draw pile)"]
    assert s.k.hands["alice"][-1] == "deck:12" and BLIND.dealt(s)[DECK][12] == "alice"
    assert BLIND.pending(s).id == "t2-bob"  # bob does not see alice's card: no wait for the dealers
    s, _ = d.turn(s, "bob", "draw")
    give = BLIND.pending(s)
    assert (give.id, give.kind, give.players) == ("t3-give", "give", ())
    assert BLIND.giving(s) == ["deck:12", "deck:13"]  # both draws in one answer of the dealers
    s, events = d.step(s)
    assert events == [] and BLIND.pending(s).id == "t3-alice" and _hidden_ids(s) == []


# -- A turn: play ---------------------------------------------------------------------------


def test_a_turn_play_names_the_slot_and_the_card_and_is_checked_by_the_ordinary_rules():
    d = Dealers(_deck({0: "galleon-5", 2: "red-3", 1: "blue-2"}))
    s, _ = d.step(BLIND.setup(["alice", "bob"], "alice"))
    with pytest.raises(IllegalOrder, match="there is no galleon g1 on the table"):
        BLIND.check(s, "alice", {"action": "play", "slot": "deck:2", "card": "red-3", "galleon": "g1"})
    with pytest.raises(IllegalOrder, match="deck:1 is not a card of alice's hand"):
        BLIND.check(s, "alice", {"action": "play", "slot": "deck:1", "card": "galleon-5"})
    with pytest.raises(OrderError, match="names the card's slot"):
        BLIND.check(s, "alice", {"action": "play", "card": "galleon-5"})
    with pytest.raises(IllegalOrder, match="discarding is allowed only once the draw pile is empty"):
        BLIND.check(s, "alice", {"action": "discard", "slot": "deck:2", "card": "red-3"})
    s, events = d.turn(s, "alice", "play", "galleon-5")
    assert texts(events) == ["alice puts galleon-5 to sea as g1 (value 5)"]
    assert s.k.hands["alice"] == [f"deck:{i}" for i in (2, 4, 6, 8, 10)]
    s, events = d.turn(s, "bob", "play", "blue-2", "g1")
    assert texts(events) == ["bob attacks g1 (alice's galleon-5) with blue-2"]
    order = {"action": "play", "slot": "deck:2", "card": "red-3", "galleon": "g1"}
    assert BLIND.claims(s, "alice", {**order, "share": "x"}) == [("deck:2", "red-3", "x")]
    assert BLIND.claims(s, "alice", {"action": "draw"}) == []


# -- End of the game ----------------------------------------------------------------------


def _near_end() -> dict:
    """alice holds one slot, bob two, the pile is empty; bob owns g1 (galleon-4) with nothing beside."""
    s, _ = Dealers().step(BLIND.setup(["alice", "bob"], "alice"))
    data = BLIND.dump_state(s)
    data.update(hands={"alice": ["deck:0"], "bob": ["deck:1", "deck:3"]}, pile=[], turn=40,
                galleons=[{"id": "g1", "owner": "bob", "card": "galleon-4", "beside": {}}], next_galleon=2)
    return data


def test_end_of_the_game_the_hands_are_shown_then_galleons_taken_and_scores():
    d = Dealers(_deck({0: "red-1", 1: "galleon-3", 3: "blue-2"}))
    s = BLIND.load_state(_near_end())
    s, events = d.turn(s, "alice", "discard", "red-1")
    assert texts(events) == ["alice discards red-1"]
    assert BLIND.pending(s).id == "end-reveal" and BLIND.revealing(s) == ["deck:1", "deck:3"]
    assert BLIND.outcome(s) is None
    s, events = d.step(s)
    assert texts(events) == [
        "the draw pile is empty and alice has no cards left: the game ends",
        "at the end of the game, bob seizes g1 (bob's galleon-4), worth 4",
        "scores: alice 0, bob 1; bob wins",  # 4 in loot, minus galleon-3 left in hand
    ]
    assert BLIND.pending(s) is None and BLIND.outcome(s).scores == {"alice": 0, "bob": 1}


def test_end_of_the_game_cards_drawn_and_not_given_are_given_before_the_hands_are_shown():
    data = _near_end()
    data.update(pile=["deck:2"], hands={"alice": [], "bob": ["deck:1", "deck:3"]}, current=1)
    d = Dealers(_deck({1: "galleon-3", 2: "red-4", 3: "blue-2"}))
    s = BLIND.load_state(data)
    s, events = d.turn(s, "bob", "draw")  # the last card: alice's hand is empty, the game ends
    assert texts(events) == ["bob draws a card (0 cards left in the draw pile)", texts(events)[1]]
    assert [BLIND.pending(s).id, BLIND.giving(s)] == ["end-give", ["deck:2"]]
    s, _ = d.step(s)
    assert BLIND.revealing(s) == ["deck:1", "deck:3", "deck:2"]


# -- Teams ---------------------------------------------------------------------------------


def test_teams_a_partner_sees_the_cards_and_a_draw_is_given_before_the_partner_moves():
    d = Dealers()
    s, _ = d.step(BLIND.setup(["a", "b", "c", "e"], "a", {"teams": True}))
    assert BLIND.viewers(s, "a") == ("a", "b") and BLIND.viewers(s, "c") == ("c", "e")
    assert BLIND.hidden(s, "b") == [*s.k.hands["a"], *s.k.hands["b"]]
    s, _ = d.turn(s, "a", "draw")
    assert (BLIND.pending(s).id, BLIND.giving(s)) == ("t2-give", ["deck:24"])  # b sees it: given now
    s, _ = d.step(s)
    s, _ = d.turn(s, "b", "draw")
    assert BLIND.pending(s).id == "t3-c"  # c and e do not see b's card
    s, _ = d.turn(s, "c", "draw")
    assert BLIND.giving(s) == ["deck:25", "deck:26"]  # before e's turn: c's card, and b's with it


# -- Blind table ---------------------------------------------------------------------------


def test_blind_table_a_move_forced_by_the_hidden_hand_is_asked_and_one_forced_by_an_empty_hand_is_not():
    # bob holds no galleon and no galleon is on the table: the open rules draw for him (the only
    # legal move); at the blind table he is asked, and the audit compares texts without the note
    d = Dealers(_deck({0: "galleon-5", **{i: "red-2" for i in (1, 3, 5, 7)}, 9: "blue-2", 11: "blue-3"}))
    s, _ = d.step(BLIND.setup(["alice", "bob"], "alice"))
    s, _ = d.turn(s, "alice", "draw")
    assert BLIND.pending(s).id == "t2-bob"
    s, events = d.turn(s, "bob", "draw")
    assert texts(events) == ["bob draws a card (64 cards left in the draw pile)"]
    assert BLIND.event_text("x draws a card (3 cards left in the draw pile) (the only legal move)") == \
        "x draws a card (3 cards left in the draw pile)"
    data = _near_end()
    data.update(pile=["deck:2", "deck:4"], hands={"alice": [], "bob": ["deck:1"]}, current=1)
    s, events = d.turn(BLIND.load_state(data), "bob", "draw")
    # alice's hand is empty and the pile is not: she draws at once, as the open rules do
    assert texts(events)[:2] == ["bob draws a card (1 card left in the draw pile)",
                                 "alice draws a card (0 cards left in the draw pile) (the only legal move)"]


def test_blind_table_the_state_holds_no_hidden_card_and_slots_are_parsed_strictly():
    d = Dealers()
    s, _ = d.step(BLIND.setup(["alice", "bob", "carol"], "bob"))
    assert _hidden_ids(s) == [] and BLIND.load_state(json.loads(json.dumps(BLIND.dump_state(s)))).k == s.k
    assert parse_slot("deck:12") == 12
    for bad in ("deck", "deck:", "deck:x", "deck:012", "round-1:3", 7):
        with pytest.raises(FormatError):
            parse_slot(bad)
    with pytest.raises(OrderError, match="draw takes no slot"):
        BLIND.check(s, "bob", {"action": "draw", "slot": "deck:1"})
    with pytest.raises(IllegalOrder, match="alice is not asked now"):
        BLIND.check(s, "alice", {"action": "draw"})
    with pytest.raises(FormatError):
        BLIND.load_state({"players": ["a"]})
    assert isinstance(BLIND, BlindKorsar)


# -- the property: the blind resolution is the ordinary resolution on the same cards ---------


def _random_turn(d: Dealers, s, rnd: random.Random):
    p = BLIND.pending(s)
    name = p.players[0]
    probe = s.k.copy()
    probe.hands[name] = [d.card(x) for x in s.k.hands[name]]
    o = rnd.choice(R.legal_orders(probe, name))
    return d.turn(s, name, o["action"], o.get("card", ""), o.get("galleon", ""))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([2, 3, 4, 4]))
def test_blind_resolution_gives_the_ordinary_rules_events_and_scores_on_the_same_cards(seed, n):
    rnd = random.Random(seed)
    names = ["alice", "bob", "carol", "dave"][:n]
    options = {"teams": True} if n == 4 and rnd.random() < 0.5 else {}
    first = rnd.choice(names)
    d = Dealers(rnd=random.Random(seed + 1))
    s = BLIND.setup(names, first, options)
    blind_events = []
    while BLIND.pending(s) is not None:
        s, ev = d.step(s) or _random_turn(d, s, rnd)
        blind_events += ev
        assert not [x for x in _hidden_ids(s) if not s.k.over]
    open_events, outcome = BLIND.replay_open(names, first, {DECK: d.deck}, d.answers, options)
    assert [BLIND.event_text(e.text) for e in blind_events] == [BLIND.event_text(e.text) for e in open_events]
    assert [e.data for e in blind_events] == [e.data for e in open_events]
    assert BLIND.outcome(s) == outcome is not None
    assert outcome.scores == R.scores(s.k)


# -- Bots (the moderator's, for a bot seat) ------------------------------------------------------


def test_a_bot_seat_sees_its_side_s_cards_only_and_its_bot_names_the_slot_of_the_card_it_plays():
    """``open_view``: the public table, the seat's own and its partner's cards from those opened,
    stand-ins for the rest (the same whatever the other side holds); ``bot_order``: the ordinary
    heuristic bot on that view, its card played from the first slot holding it, legal here."""
    d = Dealers()
    s, _ = d.step(BLIND.setup(["a", "b", "c", "x"], "a", {"teams": True}))
    mine = {x: d.card(x) for x in BLIND.hidden(s, "a")}
    view = BLIND.open_view(s, "a", mine)
    assert view.hands["a"] == [d.card(x) for x in s.k.hands["a"]]
    assert view.hands["b"] == [d.card(x) for x in s.k.hands["b"]]  # the partner's, seen by a
    # the other side's cards and the pile are stand-ins: c's and x's hands swapped give the same view
    swapped = Dealers([d.deck[i] if i % 4 in (0, 1) or i >= 24 else d.deck[i + 1 if i % 4 == 2 else i - 1]
                       for i in range(len(d.deck))])
    assert sorted(swapped.deck) == sorted(d.deck) and any(swapped.card(x) != d.card(x) for x in s.k.hands["c"])
    again = BLIND.open_view(s, "a", {x: swapped.card(x) for x in BLIND.hidden(s, "a")})
    assert again.hands == view.hands and again.pile == view.pile
    assert sorted(R.legal_orders(view, "a"), key=str) == sorted(
        R.legal_orders(_open_state(s, d), "a"), key=str)
    order = BLIND.bot_order(s, "a", "heuristic", random.Random(0), 10.0, lambda: 0.0, mine)
    plain = KorsarGame().bot_order(view, "a", "heuristic", random.Random(0), 10.0, lambda: 0.0)
    assert {k: v for k, v in order.items() if k != "slot"} == plain
    if plain["action"] != "draw":
        assert order["slot"] == next(x for x in s.k.hands["a"] if d.card(x) == plain["card"])
    BLIND.check(s, "a", order)
    with pytest.raises(GameError, match="not opened"):  # a hand the moderator's key did not open
        BLIND.open_view(s, "a", {})


def _open_state(s, d: Dealers):
    """The ordinary state of the blind state ``s`` with the real cards (``d``) in hands and pile."""
    k = s.k.copy()
    for p in k.players:
        k.hands[p] = [d.card(x) if ":" in x else x for x in k.hands[p]]
    k.pile = [d.card(x) for x in k.pile]
    return k
