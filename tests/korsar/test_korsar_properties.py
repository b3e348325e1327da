"""Property tests: random games at every legal table size."""

from __future__ import annotations

import json
import random
import tomllib
from collections import Counter

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st
from koryo_pbm_games.korsar import KorsarGame
from koryo_pbm_games.korsar import cards as C

from koryo_pbm.engine.simulate import play_random, seat_names
from koryo_pbm.errors import OrderError

GAME = KorsarGame()
TABLES = [(2, None), (3, None), (4, None), (4, {"teams": True}), (5, None), (6, {"teams": True}), (8, {"teams": True})]
IDS = [f"{n}{'-teams' if o else ''}" for n, o in TABLES]


def rt(data):
    return tomllib.loads(tomli_w.dumps(data))


def full_check(state, n_decision):
    GAME.check_invariants(state)
    assert not any(C.is_galleon(c) for c in state.removed), "a galleon left the game"
    # positions round-trip (every few decisions: they are the slowest part)
    if n_decision % 7 == 0:
        doc = rt(GAME.dump_position(state))
        again = GAME.load_position(doc, "any seed")
        assert rt(GAME.dump_position(again)) == doc
        assert GAME.pending(again) == GAME.pending(state)


def checked_game(n, options, seed):
    players = seat_names(n)
    bots = random.Random(f"prop:{seed}")
    state = GAME.setup(players, seed, options=options)
    full_check(state, 0)
    decisions = 0
    while (d := GAME.pending(state)) is not None:
        decisions += 1
        assert decisions < 400, "no end in sight"
        p = d.players[0]
        order = GAME.random_order(state, p, bots)
        GAME.check(state, p, order)
        pub, priv = rt(GAME.public(state)), rt(GAME.private(state, p))
        mine = GAME.from_view(pub, priv, p)
        GAME.check(mine, p, order)
        assert GAME.legal_orders(mine, p) == GAME.legal_orders(state, p)
        json.dumps(GAME.view(pub, priv))
        before = GAME.dump_state(state)
        new, events = GAME.apply(state, {p: rt(order)})
        assert GAME.dump_state(state) == before, "apply changed its input"
        assert events and all(e.text for e in events)
        state = GAME.load_state(rt(GAME.dump_state(new)))
        assert GAME.dump_state(state) == GAME.dump_state(new)
        full_check(state, decisions)
    out = GAME.outcome(state)
    assert state.pile == [] and out is not None
    assert sum(out.scores[s] for s in [side.split("+")[0] for side in state.sides()]) <= 100
    assert set(out.winners) == {p for p in players if out.scores[p] == max(out.scores.values())}
    if options:
        for a, b in state.teams:
            assert out.scores[a] == out.scores[b]
    return state, out


@pytest.mark.parametrize("n,options", TABLES, ids=IDS)
def test_random_games_keep_every_invariant_and_end(n, options):
    for i in range(5):
        checked_game(n, options, f"prop-{n}-{i}")


@pytest.mark.parametrize("n,options", TABLES, ids=IDS)
def test_same_seed_same_game(n, options):
    a = play_random(GAME, seat_names(n), "again", options=options)
    b = play_random(GAME, seat_names(n), "again", options=options)
    assert GAME.dump_state(a[0]) == GAME.dump_state(b[0]) and a[1] == b[1]


@pytest.mark.parametrize("n,options", TABLES, ids=IDS)
def test_many_fast_games_end(n, options):
    for i in range(25):
        state, _out = play_random(GAME, seat_names(n), f"fast-{i}", options=options, after=lambda s, e: None)
        assert state.over


@settings(max_examples=12)
@given(seed=st.text(max_size=12), table=st.sampled_from(TABLES))
def test_any_seed(seed, table):
    n, options = table
    state, out = play_random(GAME, seat_names(n), seed, options=options, after=lambda s, e: GAME.check_invariants(s))
    assert GAME.outcome(state) == out


def test_random_order_gives_every_legal_choice_a_chance():
    state = GAME.setup(seat_names(3), "spread")
    bots = random.Random(0)
    for _ in range(12):  # get some galleons on the table
        d = GAME.pending(state)
        state, _ = GAME.apply(state, {d.players[0]: GAME.random_order(state, d.players[0], bots)})
    p = GAME.pending(state).players[0]
    legal = GAME.legal_orders(state, p)
    seen = Counter(json.dumps(GAME.random_order(state, p, bots), sort_keys=True) for _ in range(60 * len(legal)))
    assert set(seen) == {json.dumps(o, sort_keys=True) for o in legal}


ORDER_PARTS = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(["draw", "play", "discard", "pass", 1]),
        "card": st.sampled_from([*list(C.CARD_IDS), "black-2", 7]),
        "galleon": st.sampled_from(["g1", "g2", "g3", "g4", "g5", "g6", "gx", 3]),
    },
)


@settings(max_examples=200)
@given(order=ORDER_PARTS, steps=st.integers(0, 40))
def test_check_accepts_exactly_the_legal_orders(order, steps):
    state = GAME.setup(seat_names(4), "fuzz", options={"teams": True})
    bots = random.Random(steps)
    for _ in range(steps):
        d = GAME.pending(state)
        if d is None:
            break
        state, _ = GAME.apply(state, {d.players[0]: GAME.random_order(state, d.players[0], bots)})
    d = GAME.pending(state)
    if d is None:
        return
    legal = GAME.legal_orders(state, d.players[0])
    try:
        GAME.check(state, d.players[0], order)
        accepted = True
    except OrderError:
        accepted = False
    assert accepted == (dict(order) in legal)


def test_teams_the_admiral_beside_a_partners_galleon_only_right_after_it_was_put_to_sea():
    """Spec, Teams: the one case where the admiral goes beside a galleon its player does not own
    is the second teammate defending the galleon the first has just put to sea. Random team
    games use it, and only then."""
    used = 0
    for i in range(40):
        n = (4, 6, 8)[i % 3]
        state = GAME.setup(seat_names(n), f"admiral-{i}", options={"teams": True})
        bots = random.Random(i)
        launched: tuple[str, str] | None = None  # (player, galleon id) of the previous turn's galleon
        while (d := GAME.pending(state)) is not None:
            p = d.players[0]
            order = GAME.random_order(state, p, bots)
            if order.get("card") == "admiral" and "galleon" in order and state.galleon(order["galleon"]).owner != p:
                assert state.is_second_teammate(p) and launched == (state.partner(p), order["galleon"]), order
                used += 1
            state, events = GAME.apply(state, {p: order})
            GAME.check_invariants(state)
            launched = None
            for e in events:  # the turn just played; later forced turns or a pass clear it
                launched = (e.data["player"], e.data["galleon"]) if e.kind == "galleon" else None
    assert used
