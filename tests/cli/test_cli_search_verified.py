"""The engine's ``search`` level at a real table (issue 33, item 6): a Korsar game whose bot
seat searches is verified by ``verify``, which chooses every one of the bot's orders again from
the seat's view and its public seed; a moderator who plays another order is caught.

The search's work is cut to a few simulations per decision for test time (the same code path,
the same count when the game is played and when it is verified)."""

from __future__ import annotations

import tomllib

import pytest
from test_cli_bots_verified import START, another_legal_order, at, cheat
from test_cli_bymail import make_keys

from koryo_pbm.engine import bots, search


@pytest.fixture(autouse=True)
def lean(monkeypatch):
    monkeypatch.setattr(search, "SIMULATIONS", {"level": 4, "random": 16})
    monkeypatch.setattr(search, "MIN_SIMULATIONS", 2)
    monkeypatch.setattr(search, "DECISIONS", 120)


def korsar_with_a_searching_bot(cli, monkeypatch, decide=None) -> None:
    """Game ``g``: alice joins, misses her first turn and is abandoned; bob (the engine's
    search) and the bot in alice's seat play the rest."""
    from datetime import timedelta

    at(monkeypatch, START)
    lines = make_keys(cli, ["alice"])
    cli.ok("new", "g", "--game", "korsar", "--as", "mod", "--player", f"alice={lines['alice']}",
           "--bot", "bob=search", "--deadline", "1d", "--missed", "bot", "--abandon-after", "1")
    assert cli.join("g", resolve=False) == ["alice"]
    with monkeypatch.context() as m:
        if decide is not None:
            cheat(m, decide)
        applied = cli.ok("resolve", "g", "--as", "mod", "--json").json["applied"]
        assert applied[0]["decision"] == "join"
        at(m, START + timedelta(days=3))
        cli.ok("resolve", "g", "--as", "mod")
    assert cli.ok("status", "g", "--json").json["decision"] is None


def test_a_korsar_game_with_the_engines_search_verifies_every_bot_order_chosen_again(cli, monkeypatch):
    korsar_with_a_searching_bot(cli, monkeypatch)
    top = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())
    searched = [o for o in top["replay"]["orders"] if o.get("bot") == "search"]
    assert len(searched) >= 10
    r = cli.ok("verify", "g")
    assert r.out.splitlines()[-1] == "verdict: the game verifies", r.out


def test_a_search_order_replaced_by_another_legal_order_is_caught(cli, monkeypatch):
    first: list[str] = []

    def decide(choice, game, state, seat, seed):
        if seat == "bob" and seed[1] != "join" and not first:
            first.append(seed[1])
            return bots.BotChoice(another_legal_order(game, state, seat, choice.order), choice.level, "", 0.0)
        return None

    korsar_with_a_searching_bot(cli, monkeypatch, decide)
    r = cli.fails("verify", "g")
    assert first[0].startswith("t")  # a turn, not the join
    assert f"({first[0]}): the search bot, replayed from bob's view with its public seed, plays" in r.err
    assert "the moderator did not play the bot's order" in r.err
