"""The deal cannot be chosen through seats or absentees (issue 29, item 6): a cheating moderator
with the code and its key, which reads every join as it comes in, counts the deals it can reach.

* The replace grind: alice and bob joined; the moderator gives carol's unjoined seat to a key
  of its own (mallory) and tries contributions for it. Before issue 29 each try was another deal
  (and ``verify`` said "no single party chose it"); now the join starts again when a seat
  changes hands, their old joins are refused (no deal from them), and ``verify`` calls a deal
  with a seat handed over during the join not fair-proof, naming carol: after the fresh joins
  mallory can still join last and try contributions (a seat the moderator holds is a player
  colluding with it; only a commit-then-reveal join would close that).
* The join drop: with ``--missed bot``, every subset of the joins it drops after the deadline
  was another deal (2^3 = 8 with three players); now a person's join is never the bot's: one
  deal. A file whose bot played a person's join (an earlier koryo-pbm, or the moderator's own
  program) verifies, not fair-proof, naming the seat.
"""

from __future__ import annotations

import itertools
import shutil
import tomllib

from test_cli_bymail import make_keys

PLAYERS = ["alice", "bob", "carol"]


def new(cli, lines, *extra, folder="g"):
    args = ["new", folder, "--as", "mod", *extra]
    for n in PLAYERS:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)


def join(cli, folder, seat, key=None, contribution=None):
    """``seat`` answers the join with ``key`` (``orders`` writes it; ``contribution`` replaces
    the fresh one, as a grinding moderator's program would)."""
    key = key or seat
    orders = cli.cwd / f"join-{folder}-{seat}-{key}.toml"
    cli.ok("orders", folder, "--as", key, "-o", orders)
    if contribution is not None:
        text = orders.read_text()
        start = text.index('contribution = "') + len('contribution = "')
        orders.write_text(text[:start] + contribution + text[start + 64:])
    cli.ok("submit", orders, "--as", key, "--game", folder)


def copy(cli, folder, name):
    """A copy of the game folder and of the keyring (its pins): one try of the moderator's."""
    shutil.copytree(cli.cwd / folder, cli.cwd / name)
    shutil.copytree(cli.home, cli.cwd.parent / f"home-{name}")
    return cli.cwd.parent / f"home-{name}"


def deal_of(cli, folder, keys, home):
    """The hands dealt in ``folder``, or None while it waits for its join."""
    if cli.ok("status", folder, "--json", home=home).json["decision"] == "join":
        return None
    return tuple(tuple(cli.ok("show", folder, "--as", keys[p], "--json", home=home).json["hand"]) for p in PLAYERS)


def play_to_end(cli, folder, keys):
    for _ in range(300):
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            return
        for p in status["missing"]:
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", folder, "--as", keys[p], "-o", orders)
            cli.ok("submit", orders, "--as", keys[p], "--game", folder)
        cli.ok("resolve", folder, "--as", "mod")
    raise AssertionError("the game did not end")


TRIES = 8


def test_the_replace_grind_reaches_no_deal_from_the_joins_it_read(cli):
    lines = make_keys(cli, [*PLAYERS, "mallory"])
    new(cli, lines)
    join(cli, "g", "alice")
    join(cli, "g", "bob")
    cli.ok("resolve", "g", "--as", "mod")  # held: the moderator has read both contributions
    r = cli.ok("replace", "g", "--as", "mod", f"carol={lines['mallory']}")
    read = sorted((cli.cwd / "g" / "archive").rglob("join--*.envelope"))
    assert len(read) == 2
    # the grind: one try per contribution for mallory's seat, with alice's and bob's joins back
    deals = set()
    keys = {"alice": "alice", "bob": "bob", "carol": "mallory"}
    for k in range(TRIES):
        home = copy(cli, "g", f"try{k}")
        join(cli, f"try{k}", "carol", "mallory", contribution=f"{k:064x}")
        for env in read:
            shutil.copy(env, cli.cwd / f"try{k}" / "inbox" / env.name)
        out = cli("resolve", f"try{k}", "--as", "mod", "--json", home=home).json
        dealt = deal_of(cli, f"try{k}", keys, home)
        if dealt is not None:
            deals.add(dealt)
        else:
            reasons = [c["reason"] for c in out["envelopes"] if c["status"] == "rejected"]
            assert len(reasons) == 2 and all("a join signed before a seat changed hands: the join of game" in x
                                             and "joins anew" in x for x in reasons), reasons
    print(f"replace grind: {len(deals)} distinct deals reached in {TRIES} tries")
    assert len(deals) == 0  # before issue 29: 8 of 8
    assert ("the join starts again: alice, bob joined before the seat changed hands and join anew (no "
            "contribution made before a key came to the table counts)") in r.out
    status = cli.ok("status", "g", "--json").json
    assert status["decision"] == "join" and status["received"] == []
    # the game goes on: everybody joins anew (orders writes alice a fresh join over her old file), one deal
    old = (cli.cwd / "join-g-alice-alice.toml").read_text()
    join(cli, "g", "alice")
    assert (cli.cwd / "join-g-alice-alice.toml").read_text() != old
    join(cli, "g", "bob")
    join(cli, "g", "carol", "mallory")
    cli.ok("resolve", "g", "--as", "mod")
    assert cli.ok("status", "g", "--json").json["decision"] != "join"
    # mallory could still have joined last and tried contributions against the fresh joins (a
    # key the moderator seats is a player colluding with it): replace said so, and verify does
    assert ("the deal will not be fair-proof (verify names carol: a key that comes to the table during the join "
            "could join last and choose its contribution)") in r.out
    play_to_end(cli, "g", keys)
    out = cli.ok("verify", "g").out
    assert ("carol's seat changed hands during the join: its new key, the moderator's choice, could join last and "
            "choose its contribution knowing every other: not fair-proof") in out, out
    assert out.splitlines()[-1] == ("verdict: the game verifies (but the join of carol cannot be proven fair: "
                                    "not fair-proof)")


def test_a_seat_handed_over_after_a_join_was_signed_is_not_fair_proof(cli, monkeypatch):
    """The moderator's own program keeps the joins it read (no restart) and grinds mallory's
    contribution: the game plays out and verifies, but not fair-proof, naming carol."""
    from koryo_pbm.match import seats

    lines = make_keys(cli, [*PLAYERS, "mallory"])
    new(cli, lines)
    join(cli, "g", "alice")
    join(cli, "g", "bob")
    cli.ok("resolve", "g", "--as", "mod")
    monkeypatch.setattr(seats, "JOIN_KIND", "no join starts again", raising=False)  # its own program
    cli.ok("replace", "g", "--as", "mod", f"carol={lines['mallory']}")
    join(cli, "g", "carol", "mallory", contribution="ab" * 32)
    cli.ok("resolve", "g", "--as", "mod")
    monkeypatch.undo()
    play_to_end(cli, "g", {"alice": "alice", "bob": "bob", "carol": "mallory"})
    r = cli.ok("verify", "g")
    assert ("carol's seat changed hands during the join after alice, bob signed their joins: the new key could "
            "choose its contribution knowing them: not fair-proof") in r.out, r.out
    assert r.out.splitlines()[-1] == ("verdict: the game verifies (but the join of carol cannot be proven fair: "
                                      "not fair-proof)"), r.out
    assert "no single party chose it" not in r.out


def test_the_join_drop_reaches_one_deal(cli, monkeypatch):
    from datetime import datetime, timedelta

    start = datetime(2026, 11, 24, 18, 0)
    monkeypatch.setenv("KORYO_PBM_NOW", start.strftime("%Y-%m-%dT%H:%MZ"))
    lines = make_keys(cli, PLAYERS)
    new(cli, lines, "--deadline", "1d", "--missed", "bot")
    for p in PLAYERS:
        join(cli, "g", p)  # in the inbox: the moderator opens each before it resolves
    envelopes = {p: next((cli.cwd / "g" / "inbox").glob(f"join--{p}*.envelope")).name for p in PLAYERS}
    monkeypatch.setenv("KORYO_PBM_NOW", (start + timedelta(days=2)).strftime("%Y-%m-%dT%H:%MZ"))
    deals = set()
    keys = {p: p for p in PLAYERS}
    for n in range(len(PLAYERS) + 1):
        for dropped in itertools.combinations(PLAYERS, n):
            name = "drop-" + ("-".join(dropped) or "none")
            home = copy(cli, "g", name)
            for p in dropped:
                (cli.cwd / name / "inbox" / envelopes[p]).unlink()
            cli.ok("resolve", name, "--as", "mod", home=home)
            dealt = deal_of(cli, name, keys, home)
            if dealt is None:  # the join waits for the dropped players: they are reminded, nobody is the bot
                assert cli.ok("status", name, "--json", home=home).json["missing"] == list(dropped)
            else:
                deals.add(dealt)
    print(f"join drop: {len(deals)} distinct deals reached by the 8 subsets of joins dropped")
    assert len(deals) == 1  # before issue 29: 8


def test_a_persons_join_played_by_the_bot_is_not_fair_proof(cli, monkeypatch):
    """A file in which the bot played a person's join (an earlier koryo-pbm, or the moderator's
    own program) verifies, but not fair-proof, naming the seat."""
    from datetime import datetime, timedelta

    from koryo_pbm.match import policy

    start = datetime(2026, 11, 24, 18, 0)
    monkeypatch.setenv("KORYO_PBM_NOW", start.strftime("%Y-%m-%dT%H:%MZ"))
    lines = make_keys(cli, PLAYERS)
    new(cli, lines, "--deadline", "1d", "--missed", "bot")
    join(cli, "g", "alice")
    join(cli, "g", "carol")
    monkeypatch.setenv("KORYO_PBM_NOW", (start + timedelta(days=2)).strftime("%Y-%m-%dT%H:%MZ"))
    with monkeypatch.context() as m:
        m.setattr(policy, "bot_may_play", lambda kind, why: True, raising=False)  # its own program
        assert "bob missed the deadline: the heuristic bot played for them" in cli.ok("resolve", "g", "--as", "mod").out
    play_to_end(cli, "g", {p: p for p in PLAYERS})
    r = cli.ok("verify", "g")
    assert ("bob's join was played by the moderator's bot (bob is a person's seat): the moderator, who reads every "
            "join, could choose which joins to count: not fair-proof") in r.out, r.out
    assert r.out.splitlines()[-1] == ("verdict: the game verifies (but the join of bob cannot be proven fair: "
                                      "not fair-proof)"), r.out
    top = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())
    assert any(o.get("bot") and o["player"] == "bob" and o["decision"] == "join" for o in top["replay"]["orders"])


def test_the_policy_knows_the_join_by_its_kind():
    from koryo_pbm import fair
    from koryo_pbm.match import policy

    assert policy.JOIN_KIND == fair.JOIN
    assert not policy.bot_may_play(fair.JOIN, "missed") and not policy.bot_may_play(fair.JOIN, "abandoned")
    assert policy.bot_may_play(fair.JOIN, "seat") and policy.bot_may_play("r1-orders", "missed")


def test_a_bot_seats_join_claimed_timed_out_is_not_fair_proof_naming_the_seat(cli, monkeypatch):
    """The moderator's own program says bob's bot seat hit its time limit at the join (a choice
    between two contributions): verify names bob."""
    from test_cli_bots_verified import cheat, joined, play_out

    from koryo_pbm.engine import bots

    joined(cli, monkeypatch)
    with monkeypatch.context() as m:
        cheat(m, lambda choice, game, state, seat, seed: (
            bots.BotChoice(bots.fallback_order(game, state, seat, seed), choice.level,
                           "the heuristic bot hit its safety time limit", 0.0, timed_out=True)
            if seat == "bob" and seed[1] == "join" else None))
        play_out(cli, m)
    r = cli.ok("verify", "g")
    assert r.out.splitlines()[-1].startswith(
        "verdict: the game verifies (but the join of bob (a bot seat) is not re-derivable (its bot hit its time "
        "limit): not fair-proof)"), r.out
