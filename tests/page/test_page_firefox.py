"""The player page in Firefox too: Debian's firefox-esr, headless, driven by puppeteer-core over
WebDriver BiDi (npm, pinned in player-page/; no browser download), every connection sent to a
closed port. One whole 4-player Korsar team game (dealt from a position with a short draw pile,
as in ``test_page_games.py``) in which every player answers from the page, its rules running in
Firefox's WebAssembly; the moderator's ``resolve`` counts every envelope, and ``verify`` replays
the game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "player-page"
FIREFOX = "/usr/bin/firefox-esr"


def _require_firefox() -> None:
    missing = []
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing.append("apt-get install nodejs npm")
    if not os.path.exists(FIREFOX):
        missing.append("apt-get install firefox-esr")
    if missing:
        why = "the Firefox test needs " + "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(why + " (CI=true)")
        pytest.skip(why)
    if not (SOURCES / "node_modules" / "puppeteer-core").is_dir():
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=SOURCES,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]


def test_a_whole_korsar_team_game_played_on_the_page_in_firefox(cli, tmp_path):
    import tomllib

    import tomli_w

    from koryo_pbm.assets import player_page
    from koryo_pbm.crypto.envelope import parse_one
    from koryo_pbm.store.playercopy import player_copy

    _require_firefox()
    names = ("alice", "bob", "carol", "dave")
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    players = [f"--player={n}={keys / (n + '.pub')}" for n in names]
    cli.ok("new", "dealt", "--game", "korsar", "--as", "mod", "--seed", "page firefox", *players,
           "--team", "alice,bob", "--team", "carol,dave")
    cli.ok("position", "--from", "dealt", "--as", "mod", "-o", tmp_path / "dealt.toml")
    position = tomllib.loads((tmp_path / "dealt.toml").read_text())
    position["pile"] = position["pile"][:10]
    (tmp_path / "short.toml").write_text(tomli_w.dumps(position))
    folder = cli.cwd / "k"
    cli.ok("new", folder, "--game", "korsar", "--as", "mod", "--position", tmp_path / "short.toml", *players)
    page = tmp_path / "koryo-pbm-player-page.html"
    page.write_bytes(player_page())
    driver = subprocess.Popen(["node", str(SOURCES / "tools" / "firefox-play.mjs"), str(page)], cwd=SOURCES,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    decisions = mails = 0
    try:
        while (status := cli.ok("status", folder, "--json").json).get("decision") is not None:
            for player in status["missing"]:
                mails += 1
                attachment = tmp_path / f"mail-{mails}" / "game.toml"  # each mail's attachment, as saved
                attachment.parent.mkdir()
                attachment.write_bytes(player_copy((folder / "game.toml").read_bytes()))
                driver.stdin.write(json.dumps({"game": str(attachment), "key": str(keys / f"{player}.key")}) + "\n")
                driver.stdin.flush()
                answer = json.loads(driver.stdout.readline())
                assert "envelope" in answer, answer
                env = parse_one(answer["envelope"])
                assert env.player == player and env.decision == status["decision"]
                (folder / "inbox" / f"{env.decision}--{player}.envelope").write_text(answer["envelope"])
            assert cli.ok("resolve", folder, "--as", "mod", "--json").json["applied"]
            decisions += 1
        driver.stdin.close()
        errors = json.loads(driver.stdout.readline())["errors"]
    finally:
        if not driver.stdin.closed:
            driver.stdin.close()  # the driver closes Firefox at the end of its input
        try:
            driver.wait(timeout=60)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
    assert errors == [], errors
    assert decisions > 15
    cli.ok("verify", folder / "game.toml")
