"""Junk in, named errors out: load_state, load_position and from_view never raise anything but
their own error class, whatever a field holds."""

from __future__ import annotations

import contextlib
import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from koryo_pbm_games.korsar import KorsarGame

from koryo_pbm.engine.simulate import seat_names
from koryo_pbm.errors import FormatError, PositionError

GAME = KorsarGame()


def _play(steps):
    s = GAME.setup(seat_names(4), "fuzz-mid", options={"teams": True})
    bots = random.Random(5)
    for _ in range(steps):
        d = GAME.pending(s)
        if d is None:
            break
        s, _ = GAME.apply(s, {d.players[0]: GAME.random_order(s, d.players[0], bots)})
    return s


STATE = _play(30)
OVER = _play(1000)
assert OVER.over
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 100) | st.sampled_from(["", "p1", "g1", "red-3", "galleon-5", "admiral", "x+y", "korsar"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["p1", "p2", "id", "owner", "card", "beside", "key"]), inner, max_size=3),
    max_leaves=6,
)


def paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from paths(v, (*prefix, i))


def replaced(data, path, value):
    data = copy.deepcopy(data)
    if not path:
        return value
    node = data
    for step in path[:-1]:
        node = node[step]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


def mutate(data, draw_index, value):
    all_paths = list(paths(data))
    return replaced(data, all_paths[draw_index % len(all_paths)], value)


@settings(max_examples=150)
@given(i=st.integers(0, 10_000), value=JUNK)
def test_load_state_raises_only_format_errors(i, value):
    data = mutate(GAME.dump_state(STATE), i, value)
    with contextlib.suppress(FormatError):
        GAME.load_state(data)


@settings(max_examples=150)
@given(i=st.integers(0, 10_000), value=JUNK)
def test_load_position_raises_only_position_errors(i, value):
    doc = mutate(GAME.dump_position(STATE), i, value)
    with contextlib.suppress(PositionError):
        GAME.load_position(doc, "fuzz")


@settings(max_examples=200)
@given(i=st.integers(0, 10_000), value=JUNK, which=st.booleans(), over=st.booleans())
def test_from_view_raises_only_format_errors(i, value, which, over):
    state = OVER if over else STATE
    p = "p1" if over else GAME.pending(STATE).players[0]
    pub, priv = GAME.public(state), GAME.private(state, p)
    if which:
        pub = mutate(pub, i, value)
    else:
        priv = mutate(priv, i, value)
    try:
        GAME.from_view(pub, priv, p)
        GAME.view(pub, priv)
    except FormatError:
        pass
