"""What happened (issue 10, item 1): ``show --as`` opens with the public events since the
version that player last saw, remembered per game, turns the engine played for them included;
``koryo-pbm log`` prints the whole public history by round; at the end, the score breakdown.

Driven through the real command line with real keys in temporary folders."""

from __future__ import annotations

import shutil
import tomllib

PLAYERS = ["alice", "bob", "carol"]


def setup_game(cli, names=PLAYERS, seed="what-happened", extra=()):
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *names]}
    args = ["new", "g", "--as", "mod", "--seed", seed, *extra]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return cli.ok("show", "g", "--json").json["id"]


def play_first_cards(cli):
    """Round 1: each player plays the first card of their hand (a character: hands are in card
    order, events last), so that every action turn has one outcome and is played by the engine."""
    played = {}
    for p in PLAYERS:
        view = cli.ok("show", "g", "--as", p, "--json").json
        card = view["hand"][0]
        assert card not in ("barbarian", "lobbying", "spy")
        played[p] = card
        text = f'game = "{view["id"]}"\ndecision = "r1-orders"\nplay = ["{card}"]\n'
        (cli.cwd / f"{p}.toml").write_text(text)
        cli.ok("submit", f"{p}.toml", "--as", p, "--game", "g")
    cli.ok("resolve", "g", "--as", "mod")
    return played


def test_show_as_opens_with_what_happened_since_last_seen(cli, tmp_path):
    game_id = setup_game(cli)
    first = cli.ok("show", "g", "--as", "alice").out
    assert first.startswith(f"game {game_id} (Koryo), version 1")  # nothing has happened yet
    played = play_first_cards(cli)
    out = cli.ok("show", "g", "--as", "alice").out.splitlines()
    assert out[:2] == ["what happened since version 1, which you last saw:", "round 1"]
    assert "  alice plays 1 card face down" in out
    assert "  alice discards 9 cards left in hand" in out
    # the turn the engine played for alice is said, and marked for her alone
    assert f"  alice reveals {played['alice']} (the only legal move)   <- played for you" in out
    assert f"  bob reveals {played['bob']} (the only legal move)" in out
    header = next(i for i, ln in enumerate(out) if ln.startswith("round 2: "))
    assert " is dealt " in out[header + 1]  # the deal of round 2
    state = next(i for i, ln in enumerate(out)
                 if ln.startswith(f"game {game_id} (Koryo), version 2, signed by moderator "))
    assert out[state - 1] == "" and out[state + 1] == "Koryo — round 2 of 8, phase orders"
    # remembered: the next look says there is nothing new
    again = cli.ok("show", "g", "--as", "alice").out.splitlines()
    assert again[0] == "nothing new since you last looked (version 2)"
    assert not any("reveals" in ln for ln in again)
    # per player: bob saw version 1 (he wrote his orders from it), so he gets the same story,
    # with his own engine-played turn marked
    bob = cli.ok("show", "g", "--as", "bob").out.splitlines()
    assert bob[:2] == ["what happened since version 1, which you last saw:", "round 1"]
    assert f"  bob reveals {played['bob']} (the only legal move)   <- played for you" in bob
    assert not any(ln.endswith("<- played for you") and "alice" in ln for ln in bob)
    memory = tomllib.loads((cli.home / "shown" / f"{game_id}.toml").read_text())
    assert memory == {"alice": 2, "bob": 2, "carol": 1}
    # on a machine where carol never looked, she is told everything so far
    other = tmp_path / "carols-laptop"
    (other / "keys").mkdir(parents=True)
    shutil.copy2(cli.home / "keys" / "carol.key", other / "keys" / "carol.key")
    carol = cli.ok("show", "g", "--as", "carol", home=other).out.splitlines()
    assert carol[:2] == ["what happened so far:", "round 1"]


def test_show_json_carries_what_happened(cli):
    setup_game(cli)
    cli.ok("show", "g", "--as", "alice")
    play_first_cards(cli)
    view = cli.ok("show", "g", "--as", "alice", "--json").json
    assert view["last_seen"] == 1
    titles = [s["title"] for s in view["happened"]]
    assert titles == ["round 1", "round 2"]
    events = [e for s in view["happened"] for e in s["events"]]
    assert all(e["version"] == 2 for e in events)
    assert events[0] == {"version": 2, "decision": "r1-orders", "text": "alice plays 1 card face down"}
    assert view["breakdown"] is None  # not over
    assert cli.ok("show", "g", "--as", "alice", "--json").json["happened"] == []


def test_remembered_per_game(cli):
    setup_game(cli)
    cli.ok("show", "g", "--as", "alice")
    play_first_cards(cli)
    # a second game on the same machine has a memory of its own
    lines = {n: (cli.home / "keys" / f"{n}.pub").read_text().strip() for n in PLAYERS}
    cli.ok("new", "h", "--as", "mod", "--seed", "other", *[f"--player={n}={lines[n]}" for n in PLAYERS])
    assert cli.ok("show", "h", "--as", "alice").out.startswith("game ")
    assert cli.ok("show", "g", "--as", "alice").out.startswith("what happened since version 1, which you last saw:")


def test_log_prints_the_whole_public_history_by_round(cli):
    game_id = setup_game(cli)
    played = play_first_cards(cli)
    out = cli.ok("log", "g").out.splitlines()
    assert out[0] == f"game {game_id} (Koryo), version 2: the whole public history"
    assert out[1] == "round 1"
    assert f"  carol reveals {played['carol']} (the only legal move)" in out
    assert any(ln.startswith("round 2: ") and ln.endswith(" is first player") for ln in out)
    assert out[-1] == "now: decision r2-orders, waiting for alice, bob, carol"
    # --since: only what came after; nothing after the latest version
    assert cli.ok("log", "g", "--since", "2").out.splitlines()[1:] == [
        "  nothing after version 2", "now: decision r2-orders, waiting for alice, bob, carol"]
    assert cli.ok("log", "g", "--since", "1").out.splitlines()[1:] == out[1:]
    data = cli.ok("log", "g", "--json").json
    assert data["id"] == game_id and data["version"] == 2 and data["since"] == 0 and not data["over"]
    assert [s["title"] for s in data["sections"]] == ["round 1", "round 2"]
    assert data["breakdown"] is None
    r = cli.fails("log", "g", "--since", "-1", code=2)
    assert r.err.startswith("koryo-pbm: error: invalid value for '--since'")


END_POSITION = """\
game = "koryo"
round = 8
phase = "end"
players = ["alice", "bob"]
first = "alice"
turn = "alice"

[tokens]
alice = 2
bob = 1

[tables]
alice = ["merchant", "merchant", "merchant", "broadcaster", "broadcaster", "guardian", "guardian",
         "banker", "banker", "priest", "priest", "barbarian"]
bob = ["guardian", "guardian", "spy", "lobbying"]
"""


def test_end_of_the_game_shows_the_score_breakdown(cli):
    (cli.cwd / "end.toml").write_text(END_POSITION)
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob"]}
    cli.ok("new", "g", "--as", "mod", "--position", "end.toml", "--player", f"alice={lines['alice']}",
           "--player", f"bob={lines['bob']}")
    # alice keeps 10 of her 12 cards: she drops a merchant and a priest
    view = cli.ok("show", "g", "--as", "alice", "--json").json
    (cli.cwd / "d.toml").write_text(f'game = "{view["id"]}"\ndecision = "r8-discard-alice"\n'
                                    'discard = ["merchant", "priest"]\n')
    cli.ok("submit", "d.toml", "--as", "alice", "--game", "g")
    cli.ok("resolve", "g", "--as", "mod")
    out = cli.ok("show", "g", "--as", "alice").out.splitlines()
    assert out[:3] == ["what happened since version 1, which you last saw:", "round 8",
                       "  alice discards merchant, priest (end of round 8)"]
    # alice: merchant 2 (+9), broadcaster 2 (+8), banker 2 (+6), priest 1 (+4), guardian 2 ties
    # bob's 2, barbarian (-1), 2 tokens: 28. bob: spy (+2), lobbying (-1), 1 token: 2.
    assert "  game over: alice wins (alice 28, bob 2)" in out
    assert out[out.index("score breakdown:"):] == [
        "score breakdown:",
        "  alice: 28",
        "     +9  merchant majority with 2 (nobody else)",
        "     +8  broadcaster majority with 2 (nobody else)",
        "     +6  banker majority with 2 (nobody else)",
        "     +4  priest majority with 1 (nobody else)",
        "     -1  events on the table: barbarian",
        "     +2  2 tokens",
        "  bob: 2",
        "     +2  spy majority with 1 (nobody else)",
        "     -1  events on the table: lobbying",
        "     +1  1 token",
        "  (guardian: alice and bob tie with 2 each, nobody scores its 7)",
    ]
    # the end picture has it too (one panel a player, a line a part)
    cli.ok("show", "g", "--html", "end.html", "--svg", "end.svg")
    page = (cli.cwd / "end.html").read_text()
    part = page.split('data-part="breakdown"')[1]
    assert "<h2>alice: 28</h2>" in part and "<li>+9  merchant majority with 2 (nobody else)</li>" in part
    assert "<h2>bob: 2</h2>" in part and "<li>-1  events on the table: lobbying</li>" in part
    assert "guardian: alice and bob tie with 2 each, nobody scores its 7" in part
    assert "alice: 28" in (cli.cwd / "end.svg").read_text()
    log = cli.ok("log", "g").out.splitlines()
    assert log[-13] == "score breakdown:" and log[-14] == "  game over: alice wins (alice 28, bob 2)"
    data = cli.ok("log", "g", "--json").json
    assert data["over"] and data["scores"] == {"alice": 28, "bob": 2}
    assert sum(r["points"] for r in data["breakdown"] if r["player"] == "alice") == 28


def test_korsar_history_by_rounds_and_breakdown_of_loot_and_hands(cli):
    from pathlib import Path

    position = Path(__file__).resolve().parents[2] / "examples" / "positions" / "korsar-4-teams-endgame.toml"
    names = ["alice", "bob", "carol", "dave"]
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *names]}
    cli.ok("new", "g", "--game", "korsar", "--as", "mod", "--position", str(position),
           *[f"--player={n}={lines[n]}" for n in names])
    for _ in range(40):
        status = cli.ok("status", "g", "--json").json
        if status["decision"] is None:
            break
        for p in status["missing"]:
            cli.ok("orders", "g", "--as", p, "-o", f"{p}.toml")
            cli.ok("submit", f"{p}.toml", "--as", p, "--game", "g")
        cli.ok("resolve", "g", "--as", "mod")
    out = cli.ok("log", "g").out.splitlines()
    assert out[1].startswith("round 15 (turns 57–60)")  # turn 57 of four players
    data = cli.ok("log", "g", "--json").json
    assert data["over"]
    for p in names:
        assert sum(r["points"] for r in data["breakdown"] if r["player"] == p) == data["scores"][p]
    assert any(r["what"].startswith("loot: ") for r in data["breakdown"])
    assert "score breakdown:" in cli.ok("show", "g", "--as", "carol").out


def test_a_long_story_is_cut_to_its_end_with_the_command_for_the_rest(cli):
    cli.ok("demo", "--seed", "long", "--dir", "d")  # a whole game, its keys kept in d/keys
    out = cli.ok("show", "d", "--key", "d/keys/alice.key").out.splitlines()
    story = out[: out.index("")]
    total = sum(len(sec["events"]) for sec in cli.ok("log", "d", "--json").json["sections"])
    assert story[0] == "what happened so far:"
    assert story[1] == f"  ({total - 40} earlier events: koryo-pbm log d)"
    assert story[2].startswith("round ") and story[2].endswith(" (continued)")
    # the rest is the end of the whole history, word for word (alice's own engine-played turns marked)
    tail = [ln.removesuffix("   <- played for you") for ln in story[3:]]
    log = cli.ok("log", "d").out.splitlines()
    body = log[1: log.index("score breakdown:")]
    assert body[-len(tail):] == tail
    assert any(ln.endswith("   <- played for you") for ln in story)
    assert out[out.index("score breakdown:"):] == log[log.index("score breakdown:"):]
