"""Positions ("the FEN of Koryo"), whole states, views."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import random
import tomllib

import pytest
import tomli_w
from koryo_testkit import GAME, load

from koryo_pbm.errors import FormatError, PositionError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "positions", "koryo-*.toml")))


def base(**kw):
    doc = {"game": "koryo", "round": 3, "phase": "orders", "players": ["alice", "bob", "carol"],
           "first": "alice", "hands": {"alice": ["merchant", "spy"]}}
    doc.update(kw)
    return doc


def test_there_are_example_positions():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_positions_load_to_a_real_decision(path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    s = GAME.load_position(doc, "seed")
    GAME.check_invariants(s)
    d = GAME.pending(s)
    assert d is not None
    for p in d.players:
        order, lines = GAME.describe_choices(s, p)
        GAME.check(s, p, order)
        assert lines


def test_barbarian_guardian_example_answer():
    with open(os.path.join(ROOT, "examples", "positions", "koryo-barbarian-guardian.toml"), "rb") as f:
        s = GAME.load_position(tomllib.load(f), "seed")
    from koryo_pbm.errors import IllegalOrder
    with pytest.raises(IllegalOrder, match="carol, who has Guardian protection"):
        GAME.check(s, "alice", {"steps": [{"do": "reveal"}, {"do": "barbarian", "player": "carol", "card": "spy"},
                                          {"do": "barbarian"}]})
    GAME.check(s, "alice", {"steps": [{"do": "reveal"}, {"do": "barbarian", "player": "bob", "card": "guardian"},
                                      {"do": "barbarian", "player": "bob", "card": "guardian"}]})


def test_unplaced_cards_form_the_deck_and_deck_top_is_kept():
    s = load(hands={"alice": ["merchant", "spy"]}, deck=["omniscient", "senator"])
    pub = GAME.public(s)
    assert pub["deck"] == 55 - 2
    assert GAME.dump_position(s)["deck"][:2] == ["omniscient", "senator"]
    a = GAME.dump_position(load(hands={"alice": ["merchant", "spy"]}, seed="x"))["deck"]
    b = GAME.dump_position(load(hands={"alice": ["merchant", "spy"]}, seed="y"))["deck"]
    assert sorted(a) == sorted(b) and a != b


@pytest.mark.parametrize("change, words", [
    ({"tables": {"alice": ["omniscient"], "bob": ["omniscient"]}}, "2 omniscient placed, but only 1 exist"),
    ({"tokens": {"alice": 3}, "bank": 6}, r"tokens held \(3\) plus bank \(6\) must be 8"),
    ({"tables": {"alice": ["dragon"]}}, "unknown card id 'dragon'"),
    ({"tables": {"zed": []}}, "unknown player 'zed'"),
    ({"tokens": {"zed": 1}}, "unknown player 'zed'"),
    ({"players": ["alice"], "first": "alice"}, "2 to 4 players"),
    ({"players": ["a", "b", "c", "d", "e"], "first": "a", "hands": {}}, "2 to 4 players"),
    ({"round": 9}, "round must be between 1 and 8"),
    ({"round": 0}, "round must be between 1 and 8"),
    ({"round": "3"}, "round must be an integer"),
    ({"phase": "dawn"}, "phase must be one of"),
    ({"hands": None}, "hands"),
    ({"phase": "actions"}, "needs \\[facedown\\]"),
    ({"first": "zed"}, "first: unknown player"),
    ({"game": "chess"}, "game must be"),
    ({"colour": "red"}, "unknown key"),
    ({"hands": {"alice": ["merchant"] * 9}}, "more than the 8 dealt"),
    ({"phase": "over"}, "round 8"),
    ({"phase": "actions", "facedown": {"alice": ["merchant", "spy"]}}, "not a legal play"),
    ({"tables": {"alice": ["merchant"] * 7}}, "over the limit 4"),
])
def test_impossible_positions_are_refused(change, words):
    doc = base(**change)
    if doc.get("hands") is None:
        del doc["hands"]
    if doc["phase"] != "orders":
        doc.pop("hands", None)
    with pytest.raises(PositionError, match=words):
        GAME.load_position(doc, "s")


def test_position_refuses_a_non_table():
    with pytest.raises(PositionError):
        GAME.load_position(["koryo"], "s")


def _states_from_random_play(n_games=6):
    rnd = random.Random(5)
    out = []
    for i in range(n_games):
        players = ["a", "b", "c", "d"][: 2 + i % 3]
        s = GAME.setup(players, f"pos{i}")
        while GAME.pending(s) is not None:
            out.append(s)
            d = GAME.pending(s)
            s, _ = GAME.apply(s, {p: GAME.random_order(s, p, rnd) for p in d.players})
        out.append(s)
    return out


STATES = _states_from_random_play()


def test_positions_round_trip_from_random_play():
    assert len(STATES) > 50
    for s in STATES:
        doc = GAME.dump_position(s)
        doc2 = tomllib.loads(tomli_w.dumps(doc))
        t = GAME.load_position(doc2, "other seed")
        assert t.key() == s.key()
        assert GAME.dump_position(t) == doc


def test_whole_state_round_trips_through_toml():
    for s in STATES[::3]:
        data = GAME.dump_state(s)
        back = GAME.load_state(tomllib.loads(tomli_w.dumps(data)))
        assert back == s
        GAME.check_invariants(back)


def test_load_state_rejects_malformed_data():
    good = GAME.dump_state(STATES[10])
    rnd = random.Random(1)
    bad_values = [None, "x", -1, 99, [], {}, ["dragon"], True, {"a": 1}]
    for key in list(good):
        for v in bad_values:
            data = dict(good)
            data[key] = v
            with contextlib.suppress(FormatError):
                GAME.load_state(data)
    for key in list(good):
        data = dict(good)
        del data[key]
        if key in ("bank", "tokens", "tables", "hands", "facedown", "discard", "turn", "deck"):
            continue  # optional in the position part; the card census catches a missing pile
        with pytest.raises(FormatError):
            GAME.load_state(data)
    data = dict(good)
    data["deck"] = data["deck"][1:]
    with pytest.raises(FormatError, match="nowhere"):
        GAME.load_state(data)
    with pytest.raises(FormatError):
        GAME.load_state({"rng": {"key": "zz", "counter": 0}, **{k: v for k, v in good.items() if k != "rng"}})
    with pytest.raises(FormatError):
        GAME.load_state("not a table")
    _ = rnd


def test_public_is_toml_safe_and_view_has_the_keys():
    keys = {"round", "phase", "players", "first", "bank", "tokens", "tables", "facedown_sizes",
            "hand_sizes", "deck", "powers", "scores", "winners"}
    for s in STATES[::5]:
        pub = GAME.public(s)
        assert tomllib.loads(tomli_w.dumps(pub)) == pub
        for p in s.players:
            priv = GAME.private(s, p)
            assert tomllib.loads(tomli_w.dumps(priv)) == priv
            v = GAME.view(pub, priv)
            assert keys <= set(v) and "hand" in v and "facedown" in v
            json.dumps(v)
            text = GAME.render(v)
            assert "round" in text and not text.endswith("\n")
        v = GAME.view(pub, None)
        assert "hand" not in v
        assert set(v["tokens"]) == set(s.players)
        assert v["phase"] in ("orders", "actions", "end", "over")
        assert v["winners"] == ([] if v["phase"] != "over" else list(GAME.outcome(s).winners))
        from koryo_pbm_games.koryo import rules
        assert list(v["scores"].values()) == rules.scores(s)


def test_from_view_serves_check_random_order_and_describe():
    rnd = random.Random(2)
    for s in STATES:
        d = GAME.pending(s)
        if d is None:
            continue
        for p in d.players:
            v = GAME.from_view(GAME.public(s), GAME.private(s, p), p)
            assert GAME.pending(v) == d
            order = GAME.random_order(v, p, rnd)
            GAME.check(v, p, order)
            GAME.check(s, p, order)
            example, lines = GAME.describe_choices(v, p)
            GAME.check(s, p, example)
            assert all("\n" not in line and not line.startswith("#") for line in lines)


def test_from_view_refuses_malformed():
    s = STATES[3]
    pub = GAME.public(s)
    with pytest.raises(FormatError):
        GAME.from_view({**pub, "players": "x"}, {}, "a")
    with pytest.raises(FormatError):
        GAME.from_view(pub, {"hand": ["dragon"]}, "a")
    with pytest.raises(FormatError):
        GAME.from_view(pub, {}, "zed")


# -- Decisions: "A position file describes a state the rules can reach" -----------------------


def _end(turn, tables):
    # round 3: limit 5 (+2 with the senator majority); turn order alice, bob, carol
    doc = base(phase="end", turn=turn, tables=tables)
    del doc["hands"]
    return doc


def test_decisions_position_in_phase_end_past_players_comply_with_the_limit():
    seven = ["merchant", "guardian", "banker", "priest", "spy", "spy", "omniscient"]
    # carol's turn: alice and bob have discarded, so a 7-card bob without the senator is impossible
    doc = _end("carol", {"bob": seven, "carol": ["merchant"] * 7})
    with pytest.raises(PositionError, match="bob's table has 7 cards, over the limit 5 .* of round 3, "
                                             "but their end-phase turn is past"):
        GAME.load_position(doc, "s")
    # the same table on bob's own turn is his discard to make (he must discard 2 of 6 kinds)
    doc = _end("bob", {"bob": seven})
    s = GAME.load_position(doc, "s")
    assert GAME.pending(s).id == "r3-discard-bob"
    # with the senator majority, 7 cards comply (5 + 2): carol's turn is a legal position
    doc = _end("carol", {"bob": ["senator", *seven[1:]], "carol": ["merchant"] * 4 + ["broadcaster"] * 3})
    assert GAME.pending(GAME.load_position(doc, "s")).id == "r3-discard-carol"
    # a table of events only complies whatever its size
    doc = _end("carol", {"bob": ["barbarian"] * 6 + ["lobbying"], "carol": ["merchant"] * 4 + ["broadcaster"] * 3})
    assert GAME.pending(GAME.load_position(doc, "s")).id == "r3-discard-carol"


def test_decisions_position_in_phase_over_every_table_complies():
    def over(tables):
        doc = base(round=8, phase="over", tables=tables)
        del doc["hands"]
        return doc

    eleven = ["merchant"] * 9 + ["spy", "spy"]
    with pytest.raises(PositionError, match="alice's table has 11 cards, over the limit 10 .* the end of round 8 leaves"):
        GAME.load_position(over({"alice": eleven}), "s")
    s = GAME.load_position(over({"alice": [*eleven, "senator"]}), "s")  # 12 <= 10 + 2 with the senator majority
    assert GAME.pending(s) is None
    assert GAME.outcome(s).scores["alice"] == 9 + 2 + 3
    events = ["barbarian"] * 6 + ["lobbying"] * 4
    s = GAME.load_position(over({"alice": ["merchant"] * 9 + ["spy"], "bob": events}), "s")
    assert GAME.outcome(s).scores == {"alice": 11, "bob": -10, "carol": 0}
    # 11 cards with one character: the end phase would have discarded the spy
    with pytest.raises(PositionError, match="bob's table has 11 cards, over the limit 10"):
        GAME.load_position(over({"bob": [*events, "spy"]}), "s")
