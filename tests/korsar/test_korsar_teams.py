"""Teams: one side per team on a galleon, team loot, only the first teammate seizes, not both
beside one galleon in one round, passing and the end, team scores."""

from __future__ import annotations

import pytest

from koryo_pbm.errors import IllegalOrder


def pos(galleons: str = "", hands: dict | None = None, current: str = "alice", extra: str = "") -> str:
    all_hands = {p: ["galleon-2", "galleon-3"] for p in ("alice", "bob", "carol", "dave")} | (hands or {})
    lines = "\n".join(f"{p} = {cards!r}".replace("'", '"') for p, cards in all_hands.items())
    return f"""
game = "korsar"
players = ["alice", "bob", "carol", "dave"]
teams = [["alice", "bob"], ["carol", "dave"]]
current = "{current}"
{extra}
[hands]
{lines}
{galleons}
"""


G1 = """
[[galleons]]
id = "g1"
owner = "carol"
card = "galleon-6"
[galleons.beside]
"""


def test_the_first_teammate_is_the_one_just_before_the_partner(table):
    s = table.load(pos())
    assert s.teams == (("alice", "bob"), ("carol", "dave"))
    assert s.side("bob") == "alice+bob" and s.holder("alice+bob") == "alice"


def test_teammates_pirates_add_up_in_one_colour(table):
    table.load(pos(G1 + 'alice = ["red-2"]\nbob = ["red-3"]\ncarol = ["blue-4"]\n', current="dave"))
    table.draw("dave")
    # alice and bob together 5 against carol's 4: alice seizes for the team
    assert table.state.loot["alice"] == ["galleon-6"]
    assert "alice (for alice and bob) seizes g1 (carol's galleon-6), worth 6; the cards beside it (red-2, red-3, blue-4) leave the game" in table.texts


def test_a_teammate_plays_the_teams_colour(table):
    table.load(pos(G1 + 'alice = ["red-2"]\ncarol = ["blue-1"]\n', hands={"bob": ["galleon-2", "green-3", "red-1"]}, current="bob"))
    with pytest.raises(IllegalOrder, match="illegal order: your team's colour beside g1 is red: later pirates there must be red"):
        table.game.check(table.state, "bob", {"action": "play", "card": "green-3", "galleon": "g1"})
    table.play("bob", "red-1", "g1")  # red is the team's, not "used by another"
    assert table.galleon("g1").beside["bob"] == ["red-1"]


def test_a_captain_may_follow_the_partners_pirate(table):
    table.load(pos(G1 + 'alice = ["red-2"]\ncarol = ["blue-4"]\n', hands={"bob": ["galleon-2", "red-captain"]}, current="bob"))
    table.play("bob", "red-captain", "g1")
    assert table.galleon("g1").beside["bob"] == ["red-captain"]


def test_the_admiral_only_beside_your_own_galleon_not_your_partners(table):
    galleons = """
[[galleons]]
id = "g1"
owner = "alice"
card = "galleon-6"
[galleons.beside]
carol = ["blue-4"]
"""
    table.load(pos(galleons, hands={"bob": ["galleon-2", "admiral"]}, current="bob"))
    with pytest.raises(IllegalOrder, match="the admiral goes only beside a galleon you own, or beside the galleon "
                                           "alice has just put to sea: g1 is alice's"):
        table.game.check(table.state, "bob", {"action": "play", "card": "admiral", "galleon": "g1"})


def test_only_the_first_teammate_seizes(table):
    table.load(pos(G1 + 'alice = ["red-4"]\ncarol = ["blue-2"]\n', current="bob"))
    # bob's team controls g1 at the start of bob's turn, but bob does not seize
    assert table.galleon("g1") is not None and table.state.loot["bob"] == []
    table.draw("bob")
    table.draw("carol")
    table.draw("dave")
    assert table.state.loot["alice"] == ["galleon-6"]


def test_the_second_teammates_unattacked_galleon_goes_to_the_first(table):
    table.load(pos(current="bob"))
    table.play("bob", "galleon-3")
    table.draw("carol")
    table.draw("dave")
    assert table.state.loot == {"alice": ["galleon-3"], "bob": [], "carol": [], "dave": []}
    assert "alice (for alice and bob) seizes g1 (bob's galleon-3), worth 3" in table.texts


def test_not_both_beside_one_galleon_in_the_same_round(table):
    table.load(
        pos(
            G1 + 'carol = ["blue-2"]\nalice = ["red-1"]\n',
            hands={"alice": ["galleon-2", "red-1"], "bob": ["galleon-2", "red-3", "yellow-1"]},
        )
    )
    table.play("alice", "red-1", "g1")  # red 2 against blue 2
    with pytest.raises(
        IllegalOrder,
        match="illegal order: teammates may not both put cards beside one galleon in the same round: alice put a card beside g1 this round",
    ):
        table.game.check(table.state, "bob", {"action": "play", "card": "red-3", "galleon": "g1"})
    assert all(o.get("galleon") != "g1" for o in table.legal("bob"))
    table.draw("bob")
    table.draw("carol")
    table.draw("dave")
    table.draw("alice")  # a new round, and alice puts nothing beside g1: bob may, in the team's red
    table.play("bob", "red-3", "g1")
    assert table.galleon("g1").beside["bob"] == ["red-3"]


def test_the_first_teammate_may_follow_the_second_next_round(table):
    table.load(pos(G1 + 'carol = ["blue-4"]\nalice = ["red-1"]\n', hands={"bob": ["galleon-2", "red-3"], "alice": ["galleon-2", "red-1"]}, current="bob"))
    table.play("bob", "red-3", "g1")  # red 4 against blue 4
    table.draw("carol")
    table.draw("dave")
    table.play("alice", "red-1", "g1")  # bob's card was in the previous round
    assert table.galleon("g1").beside == {"carol": ["blue-4"], "alice": ["red-1", "red-1"], "bob": ["red-3"]}


def test_a_galleon_put_to_sea_may_be_defended_by_the_partner_at_once(table):
    table.load(pos(hands={"alice": ["galleon-2", "galleon-5"], "bob": ["galleon-2", "yellow-2"]}))
    table.play("alice", "galleon-5")
    table.play("bob", "yellow-2", "g1")
    assert table.galleon("g1").beside == {"bob": ["yellow-2"]}


def test_teams_the_second_teammate_may_defend_the_galleon_just_put_to_sea_with_the_admiral(table):
    # Spec, Teams: "when the first teammate has just put a galleon to sea, the second teammate
    # may defend it at once, in the same round, with a pirate or with the admiral".
    table.load(pos(hands={"alice": ["galleon-2", "galleon-5"], "bob": ["galleon-2", "admiral"],
                          "carol": ["galleon-2", "blue-4"]}))
    table.play("alice", "galleon-5")
    assert {"action": "play", "card": "admiral", "galleon": "g1"} in table.legal("bob")
    table.play("bob", "admiral", "g1")
    assert table.texts == ["bob defends g1 (alice's galleon-5) with admiral"]
    assert table.galleon("g1").beside == {"bob": ["admiral"]}
    # the admiral wins g1 for alice and bob against carol's 4; alice seizes it for the team
    table.play("carol", "blue-4", "g1")
    table.draw("dave")
    assert table.state.loot["alice"] == ["galleon-5"]
    assert "alice (for alice and bob) seizes g1 (alice's galleon-5), worth 5; the cards beside it (admiral, blue-4) leave the game" in table.texts


def test_teams_the_admiral_defence_is_only_for_the_galleon_just_put_to_sea(table):
    table.load(pos(hands={"alice": ["galleon-2", "galleon-5"], "bob": ["galleon-2", "admiral"],
                          "carol": ["galleon-2", "blue-2"]}))
    table.play("alice", "galleon-5")
    table.draw("bob")  # bob lets the moment pass
    table.play("carol", "blue-2", "g1")
    table.draw("dave")
    table.draw("alice")  # g1 is carol's side's now (blue 2 against nothing): it stays for carol
    with pytest.raises(IllegalOrder, match="the admiral goes only beside a galleon you own, or beside the galleon "
                                           "alice has just put to sea: g1 is alice's"):
        table.game.check(table.state, "bob", {"action": "play", "card": "admiral", "galleon": "g1"})
    assert all(o.get("card") != "admiral" for o in table.legal("bob"))


def test_teams_the_first_teammate_never_has_the_admiral_defence(table):
    # the exception is the second teammate's: bob's galleon is defended by alice only a round
    # later, and not with the admiral, which goes beside a galleon she owns
    table.load(pos(hands={"bob": ["galleon-2", "galleon-5"], "alice": ["galleon-2", "admiral"],
                          "carol": ["galleon-2", "blue-2"]}, current="bob"))
    table.play("bob", "galleon-5")
    table.play("carol", "blue-2", "g1")
    table.draw("dave")
    with pytest.raises(IllegalOrder, match="the admiral goes only beside a galleon you own: g1 is bob's"):
        table.game.check(table.state, "alice", {"action": "play", "card": "admiral", "galleon": "g1"})


def test_playing_alone_the_admiral_never_goes_beside_a_galleon_just_put_to_sea_by_another(table):
    text = """
game = "korsar"
players = ["alice", "bob", "carol", "dave"]
current = "alice"
[hands]
alice = ["galleon-2", "galleon-5"]
bob = ["galleon-2", "admiral"]
"""
    table.load(text)
    table.play("alice", "galleon-5")
    with pytest.raises(IllegalOrder, match="the admiral goes only beside a galleon you own: g1 is alice's"):
        table.game.check(table.state, "bob", {"action": "play", "card": "admiral", "galleon": "g1"})


def test_the_endgame_example_a_teammate_passes_and_the_first_empty_team_ends_it(table):
    table.example("korsar-4-teams-endgame.toml")
    assert table.current == "alice"
    table.play("alice", "red-1", "g7")  # red 5 against blue 4
    assert {"action": "discard", "card": "green-4"} in table.legal("bob")
    assert all(o.get("galleon") != "g7" for o in table.legal("bob"))
    table.play("bob", "green-4", "g9")  # bob's last card; alice still has one: play goes on
    assert not table.state.over and table.current == "carol"
    table.play("carol", "blue-captain", "g7")
    # dave may not go beside g7 (carol just did) and has only galleon-2: the engine plays it,
    # then alice seizes g9 (green 7 against yellow 3) and must play her galleon-3, her team's
    # last card: the game ends
    assert "dave puts galleon-2 to sea as g10 (value 2) (the only legal move)" in table.texts
    assert "alice (for alice and bob) seizes g9 (bob's galleon-5), worth 5; the cards beside it (yellow-3, green-2, green-1, green-4) leave the game" in table.texts
    assert "alice puts galleon-3 to sea as g11 (value 3) (the only legal move)" in table.texts
    assert "the draw pile is empty and alice and bob have no cards left: the game ends" in table.texts
    assert table.state.over
    out = table.game.outcome(table.state)
    # alice+bob: 5 + 4 + 5 (g9) + 3 (g11, theirs); carol+dave: 6 + 3 + 8 (g7, captain) + 2 (g10)
    assert dict(out.scores) == {"alice": 17, "bob": 17, "carol": 19, "dave": 19}
    assert out.winners == ("carol", "dave")


def test_a_teammate_with_no_cards_passes(table):
    table.load(
        pos(
            hands={"alice": ["red-1", "red-2"], "bob": [], "carol": ["blue-1", "blue-2"], "dave": ["green-1", "green-2"]},
            extra="pile = []",
        )
    )
    table.discard("alice", "red-1")
    assert "bob has no cards and passes" in table.texts
    assert table.current == "carol" and table.state.turn == 3


def test_team_score_counts_galleons_in_both_hands(table):
    table.load(
        pos(
            hands={"alice": ["red-1", "red-2"], "bob": ["galleon-4"], "carol": ["blue-1"], "dave": ["galleon-2", "green-1"]},
            extra='pile = []\n[loot]\nalice = ["galleon-8"]\nbob = ["galleon-7"]\ncarol = ["galleon-6"]',
        )
    )
    table.discard("alice", "red-1")
    assert "bob puts galleon-4 to sea as g1 (value 4) (the only legal move)" in table.texts
    table.discard("carol", "blue-1")  # carol's last card but dave still has cards
    assert not table.state.over
    table.discard("dave", "green-1")
    # alice seizes g1 (bob's galleon-4) for the team, then can only discard red-2: her team is out
    assert "alice discards red-2 (the only legal move)" in table.texts
    assert table.state.over
    out = table.game.outcome(table.state)
    assert dict(out.scores) == {"alice": 8 + 7 + 4, "bob": 19, "carol": 6 - 2, "dave": 4}
