"""Complete games in which every player uses only the player page, in headless Chromium with
the network off; the moderator's ``resolve`` moves the game (envelopes dropped into the inbox,
as the judge does with the replies it receives)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from page_kit import Page

from koryo_pbm.crypto.envelope import parse_one
from koryo_pbm.crypto.keys import load_identity

FIGURES = Path(__file__).resolve().parent / "figures.json"


def _play(cli, page: Page, folder: Path, keys: dict[str, Path], passphrases: dict[str, str], seed: str,
          figures: dict) -> int:
    """Every waiting player answers from the page (a choice picked at random, the suggestion
    half of the time); the moderator resolves; until the game is over. Returns the decisions."""
    rng = random.Random(seed)
    decisions = 0
    per_decision: list[int] = []
    opens: list[float] = []
    while True:
        status = cli.ok("status", folder, "--json").json
        if status.get("decision") is None:
            break
        for player in status["missing"]:
            before = page.actions
            t = time.perf_counter()
            said = page.open_game(folder / "game.toml", keys[player], passphrases[player])
            opens.append(time.perf_counter() - t)
            assert said.startswith("opened:"), said
            page.actions += 1  # choosing the game file: the page opens it (the key stays unlocked in the open page)
            steps: list[bool] = []  # each pick: the suggested one or not

            def pick(labels, suggested):
                took = suggested is not None and rng.random() < 0.5
                steps.append(took)
                return suggested if took else rng.randrange(len(labels))

            page.choose(pick)
            armored = page.envelope()  # the finished choice is sealed and copied at once
            page.actions += 1  # pasting the envelope into the reply
            per_decision.append(page.actions - before)
            if steps[0]:  # the suggestion is offered whole (or is a finished choice): one click, three actions
                assert len(steps) == 1 and per_decision[-1] == 3, (steps, per_decision[-1])
            env = parse_one(armored)
            assert env.player == player and env.decision == status["decision"]
            (folder / "inbox" / f"{env.decision}--{player}.envelope").write_text(armored)
        applied = cli.ok("resolve", folder, "--as", "mod", "--json").json
        assert applied["applied"], applied  # every envelope the page made was counted
        decisions += 1
    figures["decisions"] = decisions
    figures["actions_per_decision_max"] = max(per_decision)
    figures["actions_per_decision_mean"] = round(sum(per_decision) / len(per_decision), 2)
    figures["open_seconds_max"] = round(max(opens), 3)
    figures["open_seconds_median"] = round(sorted(opens)[len(opens) // 2], 3)
    return decisions


def _record(name: str, figures: dict) -> None:
    try:
        data = json.loads(FIGURES.read_text())
    except (FileNotFoundError, ValueError):
        data = {}
    data[name] = figures
    print(name, figures)


def test_keys_made_on_the_page_join_and_play_a_3_player_koryo_game(cli, page, tmp_path, monkeypatch):
    keys, lines, passphrases = {}, {}, {}
    for name in ("alice", "bob", "carol"):
        passphrases[name] = f"{name} likes long passphrases"
        lines[name], data = page.make_key(name, passphrases[name])
        keys[name] = tmp_path / f"{name}.key"
        keys[name].write_bytes(data)
        keys[name].chmod(0o600)
        # the command line reads the page's key file: the same key
        assert load_identity(keys[name], passphrases[name]).public.line() == lines[name]
    cli.ok("keygen", "mod")
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--as", "mod", *[f"--player={n}={lines[n]}" for n in lines])
    assert cli.ok("status", folder, "--json").json["decision"] == "join"
    figures: dict = {}
    _play(cli, page, folder, keys, passphrases, "koryo", figures)
    over = cli.ok("status", folder, "--json").json
    assert over.get("decision") is None
    cli.ok("verify", folder / "game.toml")  # the finished game replays: every order the page signed
    _record("koryo-3", figures)


def test_a_4_player_korsar_team_game_played_on_the_page(cli, page, tmp_path):
    """A 4-player Korsar team game played on the page to its end: dealt from a seed, with the
    draw pile cut to ten cards (a position, as ``koryo-pbm position --from`` writes it), so that
    every kind of turn comes (galleons put to sea, attacks, defences, seizures, draws, then
    discards once the pile is empty) in about a third of a whole game's decisions. The join on the page is the Koryo game's above; the page
    code is the same for both games."""
    import tomllib

    import tomli_w

    names = ("alice", "bob", "carol", "dave")
    for n in names:
        cli.ok("keygen", n)
    cli.ok("keygen", "mod")
    keyring = cli.home / "keys"
    players = [f"--player={n}={keyring / (n + '.pub')}" for n in names]
    cli.ok("new", "dealt", "--game", "korsar", "--as", "mod", "--seed", "page korsar", *players,
           "--team", "alice,bob", "--team", "carol,dave")
    cli.ok("position", "--from", "dealt", "--as", "mod", "-o", tmp_path / "dealt.toml")
    position = tomllib.loads((tmp_path / "dealt.toml").read_text())
    # dealt: six cards each (seven for one whose first hand had no galleon: it drew), the rest the pile
    assert all(len(h) >= 6 for h in position["hands"].values()) and len(position["pile"]) > 40
    position["pile"] = position["pile"][:10]
    (tmp_path / "short.toml").write_text(tomli_w.dumps(position))
    folder = cli.cwd / "k"
    cli.ok("new", folder, "--game", "korsar", "--as", "mod", "--position", tmp_path / "short.toml", *players)
    assert cli.ok("show", folder, "--json").json["teams"] == [["alice", "bob"], ["carol", "dave"]]
    figures: dict = {}
    page.load()
    t = time.perf_counter()
    first = cli.ok("status", folder, "--json").json["missing"][0]
    said = page.open_game(folder / "game.toml", keyring / f"{first}.key", "")
    figures["first_open_seconds_4_player_file"] = round(time.perf_counter() - t, 3)
    figures["game_file_bytes_at_start"] = (folder / "game.toml").stat().st_size
    assert said.startswith("opened:"), said
    _play(cli, page, folder, {n: keyring / f"{n}.key" for n in names}, dict.fromkeys(names, ""), "korsar", figures)
    assert cli.ok("status", folder, "--json").json.get("decision") is None
    assert figures["decisions"] > 15
    assert "the draw pile is empty: from now on a player may discard" in cli.ok("log", folder).out
    cli.ok("verify", folder / "game.toml")
    _record("korsar-4-teams", figures)
    # at game over the page still shows the table, and the score as `log` gives it
    said = page.open_game(folder / "game.toml", keyring / "carol.key", "")
    assert said.startswith("The game is over"), said
    assert page.by("#picture svg") and page.by("#table").get_attribute("textContent").strip()
    final = page.by("#breakdown").text
    logged = cli.ok("log", folder).out
    assert final.startswith("score breakdown:\n  alice + bob: ") and final in logged, (final, logged[-400:])


def test_a_gops_ending_played_on_the_page(cli, page, tmp_path):
    """GOPS, the third game, needs no page code of its own: two players bid on the page from the
    menus the contract's defaults give (its legal orders), from round 11 to the end."""
    import tomli_w

    names = ("alice", "bob")
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keyring = cli.home / "keys"
    position = {"game": "gops", "players": list(names), "ties": "discard", "round": 11,
                "hands": {"alice": ["b1", "b5", "b9"], "bob": ["b2", "b3", "b13"]}, "deck": ["p12", "p13"],
                "table": ["p11"], "won": {"alice": ["p1", "p2", "p3", "p4", "p5"], "bob": ["p6", "p7", "p8", "p9", "p10"]},
                "discarded": [], "bids": {}}
    (tmp_path / "ending.toml").write_text(tomli_w.dumps(position))
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--game", "gops", "--as", "mod", "--position", tmp_path / "ending.toml",
           *[f"--player={n}={keyring / (n + '.pub')}" for n in names])
    figures: dict = {}
    page.load()
    assert _play(cli, page, folder, {n: keyring / f"{n}.key" for n in names}, dict.fromkeys(names, ""), "gops",
                 figures) == 2  # rounds 11 and 12; round 13's last cards play themselves
    final = cli.ok("show", folder, "--json").json
    assert final["decision"] is None and sum(final["scores"].values()) <= 91 and final["winners"]
    assert "(the only legal move)" in cli.ok("log", folder).out
    cli.ok("verify", folder / "game.toml")
