"""The corrected rules through the command line, as players and the moderator meet them: a
position file starts the game, players submit signed orders, the moderator resolves, everybody
reads the result with ``show``. Each test names the spec section it plays (docs/rules/)."""

from __future__ import annotations

import tomllib

from test_cli_bymail import make_keys


def start(cli, text, folder="g"):
    """A game from the position ``text`` with real keys for its players; returns the game id."""
    doc = tomllib.loads(text)
    (cli.cwd / f"{folder}.toml").write_text(text)
    lines = make_keys(cli, doc["players"])
    args = ["new", folder, "--game", doc["game"], "--as", "mod", "--position", f"{folder}.toml"]
    for n in doc["players"]:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return cli.ok("status", folder, "--json").json["id"]


def submit(cli, folder, player, decision, body):
    path = cli.cwd / f"{decision}-{player}.toml"
    game_id = cli.ok("status", folder, "--json").json["id"]
    path.write_text(f'game = "{game_id}"\ndecision = "{decision}"\n{body}\n')
    return cli("submit", path, "--as", player, "--game", folder)


# -- Koryo ----------------------------------------------------------------------------------

KORYO_NO_TARGET = """
game = "koryo"
round = 3
phase = "actions"
players = ["alice", "bob", "carol"]
first = "carol"
[tables]
alice = ["senator"]
bob = ["guardian", "guardian"]
[facedown]
carol = ["barbarian"]
alice = ["barbarian"]
bob = ["barbarian"]
"""


def test_koryo_what_a_player_is_asked_an_event_with_no_legal_target_does_not_wait(cli):
    # carol is asked (her Barbarian can hit alice's senator). alice's Barbarian then has no legal
    # target (bob: Guardian protection, carol: no character): her turn runs by itself, and the
    # game waits for bob, whose Barbarian can hit alice.
    start(cli, KORYO_NO_TARGET)
    assert cli.ok("status", "g", "--json").json["waiting_for"] == ["carol"]
    assert submit(cli, "g", "carol", "r3-action-carol", 'steps = [{do = "reveal"}, {do = "barbarian"}]').code == 0
    out = cli.ok("resolve", "g", "--as", "mod").out
    assert "carol's barbarian has no effect (declined)" in out
    assert "alice reveals barbarian (the only legal move)\n  alice's barbarian has no effect (no legal target)" in out
    shown = cli.ok("show", "g", "--as", "bob", "--json").json
    assert shown["decision"] == "r3-action-bob" and shown["waiting_for"] == ["bob"]
    assert shown["tables"]["alice"] == {"senator": 1, "barbarian": 1}


KORYO_BETWEEN = """
game = "koryo"
round = 3
phase = "actions"
players = ["alice", "bob", "carol"]
first = "alice"
[tables]
alice = ["merchant", "senator"]
bob = ["banker"]
carol = ["priest"]
[facedown]
alice = ["lobbying", "lobbying"]
bob = ["barbarian"]
"""


def test_koryo_actions_a_power_between_two_event_effects(cli):
    # The spec's example: a Lobbying swaps a Banker in, the Banker power is used, a second
    # Lobbying swaps it away (bank 8 -> 7, alice 1 token).
    start(cli, KORYO_BETWEEN)
    # the Banker power before the first swap is refused at once, with the rule, and nothing is sent
    r = submit(cli, "g", "alice", "r3-action-alice",
               'steps = [{do = "reveal"}, {do = "banker"}, {do = "lobbying"}, {do = "lobbying"}]')
    assert r.code != 0 and "Banker power needed" in r.err and len(r.err.strip().splitlines()) == 1
    steps = ('steps = [{do = "reveal"}, {do = "lobbying", swap = [["alice", "merchant"], ["bob", "banker"]]}, '
             '{do = "banker"}, {do = "lobbying", swap = [["alice", "banker"], ["carol", "priest"]]}]')
    assert submit(cli, "g", "alice", "r3-action-alice", steps).code == 0
    out = cli.ok("resolve", "g", "--as", "mod").out
    assert ("  alice's lobbying swaps alice's merchant with bob's banker\n"
            "  alice takes a token from the bank (banker)\n"
            "  alice's lobbying swaps alice's banker with carol's priest\n") in out
    shown = cli.ok("show", "g", "--json").json
    assert shown["tables"] == {"alice": {"priest": 1, "senator": 1, "lobbying": 2}, "bob": {"merchant": 1},
                               "carol": {"banker": 1}}
    assert (shown["bank"], shown["tokens"]["alice"]) == (7, 1)
    assert shown["decision"] == "r3-action-bob"


def test_koryo_orders_template_explains_powers_between_effects(cli):
    start(cli, KORYO_BETWEEN)
    text = cli.ok("orders", "g", "--as", "alice").out
    assert "with powers before, between or after them" in text
    assert "an event with no legal target has no effect and needs no step" in text


def test_koryo_decisions_a_position_in_phase_end_or_over_complies_with_the_limit(cli):
    # round 3, limit 5: carol's discard is next, so bob (before her) has discarded already
    end = ('game = "koryo"\nround = 3\nphase = "end"\nplayers = ["alice", "bob", "carol"]\nfirst = "alice"\n'
           'turn = "carol"\n[tables]\nbob = ["merchant", "guardian", "banker", "priest", "spy", "spy", "omniscient"]\n')
    (cli.cwd / "end.toml").write_text(end)
    r = cli.fails("position", "end.toml")
    assert "bob's table has 7 cards, over the limit 5" in r.err and "their end-phase turn is past" in r.err
    assert len(r.err.strip().splitlines()) == 1
    (cli.cwd / "end2.toml").write_text(end.replace('turn = "carol"', 'turn = "bob"'))
    assert cli.ok("position", "end2.toml", "--json").json["decision"] == "r3-discard-bob"
    over = ('game = "koryo"\nround = 8\nphase = "over"\nplayers = ["alice", "bob"]\nfirst = "alice"\n'
            '[tables]\nalice = ["merchant", "merchant", "merchant", "merchant", "merchant", "merchant", "merchant", '
            '"merchant", "merchant", "spy", "spy"]\n')
    (cli.cwd / "over.toml").write_text(over)
    r = cli.fails("position", "over.toml")
    assert "alice's table has 11 cards, over the limit 10" in r.err


# -- Korsar ---------------------------------------------------------------------------------

KORSAR_TEAMS = """
game = "korsar"
players = ["alice", "bob", "carol", "dave"]
teams = [["alice", "bob"], ["carol", "dave"]]
current = "alice"
[hands]
alice = ["galleon-5", "red-1"]
bob = ["admiral", "red-2"]
carol = ["blue-4", "galleon-2"]
dave = ["green-1", "galleon-3"]
"""


def test_korsar_teams_the_partner_defends_the_galleon_just_put_to_sea_with_the_admiral(cli):
    start(cli, KORSAR_TEAMS, folder="k")
    assert submit(cli, "k", "alice", "t1-alice", 'action = "play"\ncard = "galleon-5"').code == 0
    cli.ok("resolve", "k", "--as", "mod")
    text = cli.ok("orders", "k", "--as", "bob").out
    assert "alice has just put g1 to sea: you may defend it at once, with a pirate or with the admiral" in text
    assert submit(cli, "k", "bob", "t2-bob", 'action = "play"\ncard = "admiral"\ngalleon = "g1"').code == 0
    out = cli.ok("resolve", "k", "--as", "mod").out
    assert "bob defends g1 (alice's galleon-5) with admiral" in out
    shown = cli.ok("show", "k", "--json").json
    (g1,) = shown["galleons"]
    assert g1["beside"] == {"bob": ["admiral"]} and g1["controller"] == "alice+bob"


def test_korsar_teams_the_admiral_defence_passes_with_the_turn(cli):
    # bob draws instead: a round later his admiral may not go beside alice's galleon
    start(cli, KORSAR_TEAMS.replace('carol = ["blue-4", "galleon-2"]', 'carol = ["blue-4", "galleon-2", "blue-1"]'),
          folder="k")
    submit(cli, "k", "alice", "t1-alice", 'action = "play"\ncard = "galleon-5"')
    cli.ok("resolve", "k", "--as", "mod")
    submit(cli, "k", "bob", "t2-bob", 'action = "draw"')
    cli.ok("resolve", "k", "--as", "mod")
    submit(cli, "k", "carol", "t3-carol", 'action = "play"\ncard = "blue-4"\ngalleon = "g1"')
    cli.ok("resolve", "k", "--as", "mod")
    submit(cli, "k", "dave", "t4-dave", 'action = "draw"')
    cli.ok("resolve", "k", "--as", "mod")
    submit(cli, "k", "alice", "t5-alice", 'action = "draw"')
    cli.ok("resolve", "k", "--as", "mod")
    r = submit(cli, "k", "bob", "t6-bob", 'action = "play"\ncard = "admiral"\ngalleon = "g1"')
    assert r.code != 0
    assert ("illegal order: the admiral goes only beside a galleon you own, or beside the galleon alice has just "
            "put to sea: g1 is alice's") in r.err


def test_korsar_decisions_a_captain_listed_before_its_pirate_is_an_impossible_position(cli):
    pos = ('game = "korsar"\nplayers = ["alice", "bob", "carol"]\ncurrent = "alice"\n'
           '[hands]\nalice = ["galleon-2", "red-1"]\n'
           '[[galleons]]\nid = "g1"\nowner = "bob"\ncard = "galleon-5"\n'
           '[galleons.beside]\ncarol = ["green-captain", "green-1"]\n')
    (cli.cwd / "captain.toml").write_text(pos)
    r = cli.fails("position", "captain.toml")
    assert "g1: carol's green-captain is listed before any green pirate of carol" in r.err
    assert len(r.err.strip().splitlines()) == 1
    (cli.cwd / "captain2.toml").write_text(pos.replace('["green-captain", "green-1"]', '["green-1", "green-captain"]'))
    assert cli.ok("position", "captain2.toml", "--json").json["valid"]
