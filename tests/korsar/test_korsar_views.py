"""Secrets and views: public and private parts, the JSON view and its text, from_view."""

from __future__ import annotations

import json
import random
import tomllib

import pytest
import tomli_w

from koryo_pbm.errors import FormatError


def rt(data):
    return tomllib.loads(tomli_w.dumps(data))


@pytest.fixture
def t(table):
    table.example("korsar-4-teams-endgame.toml")
    return table


def test_public_shows_the_table_and_sizes_but_no_hand_pile_or_loot(t):
    pub = rt(t.game.public(t.state))
    assert pub["hand_sizes"] == {"alice": 2, "bob": 1, "carol": 2, "dave": 1}
    assert pub["loot_sizes"] == {"alice": 2, "bob": 0, "carol": 2, "dave": 0}
    assert pub["pile"] == 0 and pub["current"] == "alice" and pub["turn"] == 57
    assert pub["teams"] == [["alice", "bob"], ["carol", "dave"]]
    assert pub["galleons"][0] == {"id": "g7", "owner": "carol", "card": "galleon-8", "beside": {"alice": ["red-2", "red-2"], "carol": ["blue-4"]}}
    text = json.dumps({k: v for k, v in pub.items() if k != "removed"})  # removed: out of the game, public
    for secret in ("galleon-3", "galleon-6", "blue-captain", "green-4"):
        assert secret not in text  # in hands or loot only
    assert "scores" not in pub and "hands" not in pub


def test_private_is_the_hand_and_loot_and_the_partners(t):
    assert rt(t.game.private(t.state, "alice")) == {
        "player": "alice",
        "hand": ["galleon-3", "red-1"],
        "loot": ["galleon-4", "galleon-5"],
        "partner": "bob",
        "partner_hand": ["green-4"],
        "partner_loot": [],
    }
    assert t.game.private(t.state, "carol")["partner_hand"] == ["galleon-2"]


def test_private_without_teams_has_no_partner(table):
    table.example("korsar-source-example.toml")
    assert set(table.game.private(table.state, "A")) == {"player", "hand", "loot"}


def test_view_with_a_private_part(t):
    v = t.game.view(rt(t.game.public(t.state)), rt(t.game.private(t.state, "bob")))
    json.dumps(v)
    for key in ("players", "turn", "current", "pile", "hand_sizes", "galleons", "teams", "scores", "winners", "hand", "partner_hand"):
        assert key in v
    assert v["hand"] == ["green-4"] and v["partner_hand"] == ["galleon-3", "red-1"]
    assert v["winners"] == []
    assert v["scores"] == {"bob": 9 - 3, "alice": 6}  # what bob knows: his team's loot minus galleons in hand
    g7 = v["galleons"][0]
    assert g7["colours"] == {"alice": "red", "carol": "blue"} and g7["controller"] == ""
    assert g7["strengths"] == {"alice+bob": 4, "carol+dave": 4}


def test_view_without_private_part_knows_no_score(t):
    v = t.game.view(rt(t.game.public(t.state)), None)
    assert v["scores"] == {} and "hand" not in v


def test_render(t):
    text = t.game.render(t.game.view(t.game.public(t.state), t.game.private(t.state, "alice")))
    assert text.splitlines()[0] == "Korsar — turn 57, alice to play; draw pile: 0 cards"
    assert "Teams: alice + bob, carol + dave" in text
    assert "  g7: carol's galleon-8 (value 8)" in text
    assert "      alice (red): red-2 red-2" in text
    assert "alice's hand: galleon-3 red-1" in text
    assert "partner bob's hand: green-4" in text
    assert not text.endswith("\n")


def test_the_end_is_shown_to_everybody(t):
    t.play("alice", "galleon-3")
    while t.game.pending(t.state):
        d = t.game.pending(t.state)
        t.order(d.players[0], t.legal()[-1])
    pub = rt(t.game.public(t.state))
    out = t.game.outcome(t.state)
    assert pub["scores"] == dict(out.scores) and pub["winners"] == list(out.winners)
    v = t.game.view(pub, None)
    assert v["scores"] == dict(out.scores) and v["winners"] == list(out.winners) and v["current"] == ""
    assert "Winners: " in t.game.render(v)


def test_from_view_is_enough_to_check_and_choose(t):
    for player in ("alice",):
        pub, priv = rt(t.game.public(t.state)), rt(t.game.private(t.state, player))
        mine = t.game.from_view(pub, priv, player)
        t.game.check_invariants(mine)
        assert t.game.legal_orders(mine, player) == t.game.legal_orders(t.state, player)
        assert t.game.describe_choices(mine, player) == t.game.describe_choices(t.state, player)
        t.game.check(mine, player, t.game.random_order(mine, player, random.Random(1)))


def test_from_view_does_not_depend_on_what_the_player_cannot_see(game):
    # two deals that look the same to p1 after it rebuilds them
    s = game.setup(["p1", "p2", "p3"], "fv", first="p1")
    pub, priv = game.public(s), game.private(s, "p1")
    a = game.from_view(pub, priv, "p1")
    other = s.copy()
    other.hands["p2"], other.pile[: len(other.hands["p2"])] = other.pile[: len(other.hands["p2"])], other.hands["p2"]
    b = game.from_view(game.public(other), game.private(other, "p1"), "p1")
    assert game.dump_state(a) == game.dump_state(b)


@pytest.mark.parametrize(
    "breakage,message",
    [
        (lambda pub, priv: pub.pop("turn"), "has no turn"),
        (lambda pub, priv: pub.update(turn="x"), "turn must be an integer"),
        (lambda pub, priv: pub.update(pile=99), "the pile should hold 99"),
        (lambda pub, priv: priv.update(hand=["nonsense"]), "unknown card"),
        (lambda pub, priv: priv.pop("partner_hand"), "has no partner_hand"),
        (lambda pub, priv: pub["galleons"][0].update(owner="zed"), "'zed', who does not play"),
    ],
)
def test_from_view_refuses_malformed_parts(t, breakage, message):
    pub, priv = rt(t.game.public(t.state)), rt(t.game.private(t.state, "alice"))
    breakage(pub, priv)
    with pytest.raises(FormatError, match=message):
        t.game.from_view(pub, priv, "alice")


def test_the_galleon_just_put_to_sea_is_public_so_the_partner_can_defend_it_from_the_view(game):
    doc = {"game": "korsar", "players": ["alice", "bob", "carol", "dave"], "teams": True, "current": "alice",
           "hands": {"alice": ["galleon-5", "red-1"], "bob": ["admiral", "red-2"]}}
    s, _ = game.apply(game.load_position(doc, "v"), {"alice": {"action": "play", "card": "galleon-5"}})
    pub = rt(game.public(s))
    assert pub["last_launched"] == "g1"
    mine = game.from_view(pub, rt(game.private(s, "bob")), "bob")
    assert {"action": "play", "card": "admiral", "galleon": "g1"} in game.legal_orders(mine, "bob")
    # after bob's turn nothing is just put to sea, and the key is left out (older public parts read alike)
    s, _ = game.apply(s, {"bob": {"action": "draw"}})
    pub = rt(game.public(s))
    assert "last_launched" not in pub
    assert game.from_view(pub, rt(game.private(s, "carol")), "carol").last_launched == ""
