"""Bots the moderator cannot steer (issue 17, item 2), through the real CLI with real keys.

Every order the moderator's bots play (a bot seat's join contribution too) comes from a
generator seeded by public values and from work bounded by a count, so ``verify`` chooses it
again. The tests play a dishonest moderator the only way one can cheat here: by running other
code than koryo-pbm's for its bots while the game is played (the log and the replay then agree
with each other; only choosing the bot's orders again tells).

The games are quick: alice (a person) joins, then misses a decision and her seat is abandoned,
so the moderator's bots play the rest of the game in one resolve.
"""

from __future__ import annotations

import shutil
import tomllib
from datetime import datetime, timedelta

from test_cli_bymail import make_keys

from koryo_pbm.crypto import commit
from koryo_pbm.engine import bots
from koryo_pbm.engine.registry import find_game

START = datetime(2026, 11, 24, 18, 0)


def at(monkeypatch, when: datetime) -> None:
    monkeypatch.setenv("KORYO_PBM_NOW", when.strftime("%Y-%m-%dT%H:%MZ"))


def joined(cli, monkeypatch, seats=("bob=heuristic", "carol=random")) -> None:
    """Game ``g``: alice and bot seats; alice's join order is in the inbox, not resolved."""
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice"])
    args = ["new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--deadline", "1d",
            "--missed", "bot", "--abandon-after", "1"]
    for seat in seats:
        args += ["--bot", seat]
    cli.ok(*args)
    assert cli.join("g", resolve=False) == ["alice"]


def play_out(cli, monkeypatch, folder="g", home=None) -> None:
    """The join, then alice misses the next decision: her seat is abandoned and the bots play
    the whole game."""
    at(monkeypatch, START)
    applied = cli.ok("resolve", folder, "--as", "mod", "--json", home=home).json["applied"]
    assert applied[0]["decision"] == "join"
    at(monkeypatch, START + timedelta(days=3))
    cli.ok("resolve", folder, "--as", "mod", home=home)
    assert cli.ok("status", folder, "--json", home=home).json["decision"] is None


def cheat(monkeypatch, decide) -> None:
    """The moderator's own bot code: ``decide(choice, game, state, seat, seed)`` returns the
    choice it plays instead (or ``None``: the real bot's)."""
    real = bots.choose

    def choose(game, state, seat, level, *, seed, **kw):
        choice = real(game, state, seat, level, seed=seed, **kw)
        return decide(choice, game, state, seat, tuple(seed)) or choice

    monkeypatch.setattr(bots, "choose", choose)


def another_legal_order(game, state, seat, order):
    """A legal order of ``seat`` other than ``order`` (the moderator picks it)."""
    for k in range(200):
        other = bots.choose(game, state, seat, "random", seed=f"moderator's pick {k}").order
        if other != order:
            return other
    raise AssertionError("only one legal order")


def verdict(cli, folder="g", home=None):
    return cli(("verify"), folder, "--json", home=home)


def test_an_honest_game_with_bot_seats_verifies_every_bot_order_chosen_again(cli, monkeypatch):
    joined(cli, monkeypatch, seats=("bob=heuristic", "carol=search"))
    play_out(cli, monkeypatch)
    r = cli.ok("verify", "g")
    lines = r.out.splitlines()
    bots_line = next(ln for ln in lines if ln.split()[1] == "bots")
    assert bots_line.startswith("ok ")
    assert "is the one the bot chooses again from the seat's view and its public seed" in bots_line
    # This exact verdict says all that `verify --json` would (ok, fair-proof, no bot order that is
    # not re-derivable): a verdict with a note is tested below, the JSON keys there and in
    # test_cli_verify; replaying the search bot once is enough.
    assert lines[-1] == "verdict: the game verifies", r.out
    top = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())
    levels = {(o["player"], o["bot"]) for o in top["replay"]["orders"] if "bot" in o}
    assert {("bob", "heuristic"), ("carol", "search"), ("alice", "heuristic")} <= levels


def test_a_grinding_moderator_has_exactly_one_deal_to_choose(cli, monkeypatch, tmp_path):
    """The moderator sees alice's contribution, then tries bot contributions for bob until the
    deal suits it. Each one deals differently, but only the bot's own contribution (from the
    game id, the decision and the seat: fixed before alice joined) verifies."""
    joined(cli, monkeypatch)
    candidates = [None, "00" * 32, "ab" * 32, commit.new_contribution()]
    deals, verifies = [], []
    for k, forged in enumerate(candidates):
        folder, home = cli.cwd / f"g{k}", tmp_path / f"home{k}"
        shutil.copytree(cli.cwd / "g", folder)
        shutil.copytree(cli.home, home)  # its own pins: each copy is another history of one game
        with monkeypatch.context() as m:
            if forged is not None:
                cheat(m, lambda choice, game, state, seat, seed, forged=forged: (
                    bots.BotChoice({**choice.order, "contribution": forged}, choice.level, "", 0.0)
                    if seed[1] == "join" and seat == "bob" else None))
            play_out(cli, m, folder, home)
        top = tomllib.loads((folder / "game.toml").read_text())
        contributions = [(p, top["contributions"][p]) for p in ("alice", "bob", "carol")]
        deals.append(commit.deal_seed(top["seed"], top["game_id"], contributions))
        r = verdict(cli, folder, home)
        verifies.append(r.code == 0)
        if forged is not None:
            assert r.code != 0
            assert ("does not verify: log entry 1 (join): the heuristic bot, replayed from bob's view with its "
                    "public seed, plays") in r.err, r.err
            assert f'"contribution":"{forged}"' in r.err
    assert len(set(deals)) == len(candidates)  # every candidate would have dealt another deal
    assert verifies == [True, False, False, False]
    assert len({d for d, ok in zip(deals, verifies, strict=True) if ok}) == 1


def _first_orders_of_bob(choice, game, state, seat, seed):
    return seat == "bob" and seed[1] == "r1-orders"


def test_a_bot_order_replaced_by_another_legal_order_is_caught_naming_the_decision(cli, monkeypatch):
    joined(cli, monkeypatch)
    with monkeypatch.context() as m:
        cheat(m, lambda choice, game, state, seat, seed: (
            bots.BotChoice(another_legal_order(game, state, seat, choice.order), choice.level, "", 0.0)
            if _first_orders_of_bob(choice, game, state, seat, seed) else None))
        play_out(cli, m)
    r = cli.fails("verify", "g")
    assert "FAIL  bots" in r.out
    err = r.err.strip()
    assert err.startswith("koryo-pbm: error: game ")
    assert "(r1-orders): the heuristic bot, replayed from bob's view with its public seed, plays" in err
    assert "the moderator did not play the bot's order" in err


def test_a_bot_that_hits_its_safety_time_limit_says_so_and_verify_reports_it_not_rederivable(cli, monkeypatch):
    from koryo_pbm.engine.contract import TimeLimit

    koryo = type(find_game("koryo"))
    real = koryo.bot_order

    def slow(self, state, player, level, rng, limit, clock):
        if player == "bob" and state.round == 1 and state.phase == "orders":
            raise TimeLimit("a machine far too slow")
        return real(self, state, player, level, rng, limit, clock)

    joined(cli, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(koryo, "bot_order", slow)
        play_out(cli, m)
    log = cli.ok("log", "g").out
    assert ("the heuristic bot played bob's seat (the heuristic bot hit its safety time limit; a random legal "
            "order stood in)") in log
    r = cli.ok("verify", "g")
    assert "1 not re-derivable: the log says the bot hit its safety time limit at r1-orders (bob)" in r.out
    assert r.out.splitlines()[-1] == ("verdict: the game verifies; 1 bot order is not re-derivable (the bot hit its "
                                      "safety time limit: r1-orders (bob))")
    j = cli.ok("verify", "g", "--json").json
    assert j["ok"] and j["fair_proof"] and j["not_rederivable"] == ["r1-orders (bob)"]


def test_a_time_limit_claimed_to_play_another_order_is_caught(cli, monkeypatch):
    joined(cli, monkeypatch)
    with monkeypatch.context() as m:
        cheat(m, lambda choice, game, state, seat, seed: (
            bots.BotChoice(another_legal_order(game, state, seat, bots.fallback_order(game, state, seat, seed)),
                           choice.level, "the heuristic bot hit its safety time limit", 0.0, timed_out=True)
            if _first_orders_of_bob(choice, game, state, seat, seed) else None))
        play_out(cli, m)
    r = cli.fails("verify", "g")
    assert ("(r1-orders): the log says the heuristic bot hit its safety time limit for bob, but the order "
            "published") in r.err
    assert "is not the random legal order that stands in for it" in r.err


def test_a_players_own_bot_joins_with_fresh_randomness_not_a_predictable_contribution(cli, monkeypatch):
    """`koryo-pbm bot` answers for a person with the person's key: at the join, its contribution
    must be as unknown to the moderator as the person's own would be."""
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice"])
    cli.ok("new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--bot", "bob=heuristic")
    said = [cli.ok("bot", "g", "--as", "alice", "--out", cli.cwd / f"join{k}.envelope", "--json").json
            for k in range(2)]
    first, second = (d["order"]["contribution"] for d in said)
    assert said[0]["decision"] == "join" and first != second and commit.is_contribution(first)
    top = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())
    game = find_game("koryo")
    from koryo_pbm.fair import Joining

    joining = Joining(game)
    view = joining.from_view(top["public"], {}, "alice")
    predictable = bots.choose(joining, view, "alice", "heuristic", seed=bots.seat_seed(top["game_id"], "join", "alice"))
    assert predictable.order["contribution"] not in (first, second)


def test_a_bot_level_other_than_the_public_policys_is_caught(cli, monkeypatch):
    """The moderator has bob's seat played by the level whose order suits it (here the random
    bot, the log and the published order saying so): the policy names the heuristic bot."""
    from koryo_pbm.match import resolution

    joined(cli, monkeypatch)
    real = resolution._bot_players

    def other_level(policy, decision, *a, **kw):
        played = real(policy, decision, *a, **kw)
        if played and decision.id == "r1-orders" and "bob" in played:
            played["bob"] = ("random", played["bob"][1])
        return played

    with monkeypatch.context() as m:
        m.setattr(resolution, "_bot_players", other_level)
        play_out(cli, m)
    assert "the random bot played bob's seat" in cli.ok("log", "g").out
    r = cli.fails("verify", "g")
    assert ("(r1-orders): the log says the random bot played for bob, but the game's public policy names the "
            "heuristic bot for bob's bot seat") in r.err
