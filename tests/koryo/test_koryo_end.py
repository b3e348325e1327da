"""Spec sections "A round", 4. End, and "Final scoring"."""

from __future__ import annotations

import pytest
from koryo_pbm_games.koryo import rules
from koryo_testkit import GAME, apply1, load, pending_id, table, texts

from koryo_pbm.errors import IllegalOrder


def end(tables, turn="alice", **kw):
    """Round 3 (limit 5, 7 with the senator majority), end phase, alice's discard next."""
    return load(phase="end", turn=turn, tables=tables, **kw)


def test_fewest_discards():
    s = end({"alice": ["merchant"] * 3 + ["spy", "spy", "guardian", "guardian"]})
    assert pending_id(s) == "r3-discard-alice"
    k, opts = rules.discard_options(s, 0)
    assert k == 2 and len(opts) == 6  # {m,m},{m,s},{m,g},{s,s},{s,g},{g,g}
    with pytest.raises(IllegalOrder, match="exactly 2 character"):
        GAME.check(s, "alice", {"discard": ["merchant", "merchant", "spy"]})
    with pytest.raises(IllegalOrder, match="exactly 2 character"):
        GAME.check(s, "alice", {"discard": ["merchant"]})
    s2, ev = apply1(s, "alice", {"discard": ["spy", "merchant"]})
    assert table(s2, "alice") == {"merchant": 2, "guardian": 2, "spy": 1}
    assert "alice discards merchant, spy (end of round 3)" in texts(ev)


def test_senator_bonus_judged_on_the_table_left():
    # alice 2 senators vs bob 1: 8 cards, limit 7 with the bonus: one discard, not a senator
    s = end({"alice": ["senator", "senator"] + ["merchant"] * 4 + ["spy", "spy"], "bob": ["senator"]})
    k, opts = rules.discard_options(s, 0)
    assert k == 1 and sorted(opts) == sorted([(1, 0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 1, 0)])
    with pytest.raises(IllegalOrder, match="Senator"):
        GAME.check(s, "alice", {"discard": ["senator"]})
    GAME.check(s, "alice", {"discard": ["spy"]})


def test_discarding_senators_can_cost_the_bonus():
    # 2 senators vs 1, 10 cards: keeping the bonus means 3 discards; 5 without it.
    # bob discards first and has a choice, so alice's discard is still to come
    s = end({"alice": ["senator", "senator"] + ["merchant"] * 8, "bob": ["senator"] + ["spy", "guardian", "priest"] * 2},
            first="bob", turn="bob")
    assert pending_id(s) == "r3-discard-bob"
    assert rules.discard_need(s, 0) == 3
    _k, opts = rules.discard_options(s, 0)
    assert opts == [(3, 0, 0, 0, 0, 0, 0, 0, 0)]  # only merchants: unique, so automatic
    s = load(phase="end", turn="alice", tables={"alice": ["senator", "senator"] + ["merchant"] * 8,
                                                "bob": ["senator"]}, facedown={})
    # loading applied the one-outcome discard by itself (and the rest of the round)
    assert GAME.public(s)["round"] == 4
    assert table(s, "alice") == {"senator": 2, "merchant": 5}


def test_omniscient_keeps_a_tied_senator_bonus():
    s = end({"alice": ["senator", "omniscient"] + ["merchant"] * 5 + ["spy"], "bob": ["senator"]})
    # 8 cards, bonus by the omniscient tie-break: discard 1, neither the senator nor the omniscient
    k, opts = rules.discard_options(s, 0)
    assert k == 1
    assert sorted(opts) == sorted([(1, 0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 1, 0)])


def test_events_are_never_discarded():
    s = end({"alice": ["barbarian", "barbarian", "merchant", "merchant", "spy", "guardian", "priest"]})
    with pytest.raises(IllegalOrder, match="events can never be discarded"):
        GAME.check(s, "alice", {"discard": ["barbarian", "barbarian"]})
    GAME.check(s, "alice", {"discard": ["merchant", "spy"]})


def test_table_with_only_events_complies():
    s = end({"alice": ["barbarian"] * 6 + ["lobbying"] * 2, "bob": ["merchant"] * 6 + ["spy"]}, turn="alice")
    assert pending_id(s) == "r3-discard-bob"  # alice complies whatever her size; bob chooses
    assert rules.discard_need(s, 0) == 0


def test_discarding_every_character_when_that_is_fewest():
    # 6 barbarians + 1 merchant = 7 > 5: dropping the merchant leaves only events: 1 discard
    s = end({"alice": ["barbarian"] * 6 + ["merchant"], "bob": ["merchant"] * 6 + ["spy"]})
    assert pending_id(s) == "r3-discard-bob"
    assert table(s, "alice") == {"barbarian": 6}


def test_not_over_the_limit_is_not_asked():
    s = end({"alice": ["merchant"] * 5, "bob": ["merchant"] * 4 + ["spy", "guardian"]})
    assert pending_id(s) == "r3-discard-bob"
    with pytest.raises(IllegalOrder, match="not asked"):
        GAME.check(s, "alice", {"discard": []})


def test_same_table_every_way_is_automatic():
    s = end({"alice": ["merchant"] * 7, "bob": ["spy", "guardian", "merchant"] * 2})
    assert table(s, "alice") == {"merchant": 5}
    assert pending_id(s) == "r3-discard-bob"


def test_discards_in_turn_order_change_later_senator_bonus():
    tables = {"carol": ["barbarian"] * 6 + ["senator", "merchant"],
              "bob": ["senator", "spy", "spy", "priest", "priest", "banker", "banker"]}
    # bob first: senators tied 1-1, no bonus: 7 > 5, he must discard 2 (a choice)
    s = end(tables, turn="bob", first="bob")
    assert pending_id(s) == "r3-discard-bob"
    # carol first: her fewest discard is both characters (only events left), automatic;
    # then bob holds the senator majority: 7 <= 7, nothing to discard
    s = end(tables, turn="carol", first="carol")
    assert GAME.public(s)["round"] == 4
    assert table(s, "carol") == {"barbarian": 6}
    assert table(s, "bob") == {"senator": 1, "spy": 2, "priest": 2, "banker": 2}


# -- Final scoring ---------------------------------------------------------------------------


def over(tables, **kw):
    return load(round=8, phase="over", tables=tables, **kw)


def test_final_scoring_formula():
    s = over({"alice": ["merchant", "merchant", "omniscient", "barbarian"],
              "bob": ["merchant", "merchant", "spy", "lobbying", "lobbying"],
              "carol": ["guardian"]},
             tokens={"alice": 3, "bob": 1}, bank=4)
    out = GAME.outcome(s)
    # merchant tied: nobody scores it, the omniscient does not break the tie
    assert dict(out.scores) == {"alice": 1 - 1 + 3, "bob": 2 - 2 + 1, "carol": 7}
    assert out.winners == ("carol",)
    assert GAME.pending(s) is None
    v = GAME.view(GAME.public(s), None)
    assert v["winners"] == ["carol"] and v["scores"] == dict(out.scores)


def test_shared_win():
    s = over({"alice": ["merchant"], "bob": ["broadcaster", "omniscient"], "carol": []})
    out = GAME.outcome(s)
    assert dict(out.scores) == {"alice": 9, "bob": 9, "carol": 0}
    assert out.winners == ("alice", "bob")


def test_game_ends_after_round_8():
    s = load(round=8, phase="end", turn="alice",
             tables={"alice": ["merchant"] * 9 + ["spy", "spy"], "bob": ["broadcaster"] * 8 + ["guardian"] * 3})
    # alice must discard 1 of 2 ids
    s2, ev = apply1(s, "alice", {"discard": ["spy"]})
    # bob 11 cards -> discard 1 of 2 ids: asked too
    s3, ev = apply1(s2, "bob", {"discard": ["guardian"]})
    assert GAME.pending(s3) is None
    assert GAME.public(s3)["phase"] == "over"
    assert ev[-1].kind == "over" and "game over" in ev[-1].text
    assert dict(GAME.outcome(s3).scores) == {"alice": 9 + 2, "bob": 8 + 7, "carol": 0}
    assert GAME.outcome(s3).winners == ("bob",)
