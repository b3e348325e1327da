"""``koryo-pbm bot``: a bot answers for a player with that player's key, through the real CLI."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import run_subprocess
from test_cli_bymail import make_keys, new_game

NAMES = ["alice", "bob", "carol"]


def human_turn(cli, folder, status) -> None:
    """alice, a script: the suggested orders file, submitted."""
    orders = cli.cwd / f"{status['decision']}-alice.toml"
    cli.ok("orders", folder, "--as", "alice", "-o", orders)
    cli.ok("submit", orders, "--as", "alice", "--game", folder)


def test_a_human_plays_a_whole_game_against_two_bots(cli):
    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="versus-bots")
    answered = {"bob": 0, "carol": 0}
    for _ in range(400):
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            break
        if "alice" in status["missing"]:
            human_turn(cli, folder, status)
        for who, level in (("bob", "heuristic"), ("carol", "random")):
            r = cli.ok("bot", folder, "--as", who, "--level", level)
            if who in status["missing"]:
                assert r.out.startswith(f"{who} ({level} bot) answered {status['decision']} in ")
                assert f"-> {folder}/inbox/" in r.out and r.out.count("\n") == 1
                answered[who] += 1
            else:
                assert r.out.startswith("nothing to answer: ")
        cli.ok("resolve", folder, "--as", "mod")
    final = cli.ok("show", folder, "--as", "alice", "--json").json
    assert final["phase"] == "over" and set(final["scores"]) == set(NAMES)
    assert answered["bob"] > 5 and answered["carol"] > 5
    # every bot envelope was accepted, none rejected
    assert not (folder / "archive" / "rejected").exists() or not list((folder / "archive" / "rejected").iterdir())
    r = cli.ok("bot", folder, "--as", "bob")
    assert r.out.startswith("game ") and "is over: nothing to answer" in r.out
    # the bot's envelopes are in this machine's record, as submit's are: verify --as checks them
    r = cli.ok("verify", folder, "--as", "bob")
    assert f"every envelope of bob this machine submitted last ({answered['bob']} decisions)" in r.out


def test_the_bot_plays_what_the_bot_level_chooses_from_the_players_view(cli):
    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="same-choice")
    j = cli.ok("bot", folder, "--as", "carol", "--json").json
    # the heuristic bot's choice is what `orders` suggests (same bot, same view, same seed)
    suggested = cli.ok("orders", folder, "--as", "carol").out
    import tomllib

    body = tomllib.loads(suggested)
    assert j["player"] == "carol" and j["level"] == "heuristic" and j["fallback"] == ""
    assert j["order"] == {k: v for k, v in body.items() if k not in ("game", "decision")}
    assert cli.ok("status", folder, "--json").json["in_inbox"] == ["carol"]


def test_a_failing_bot_falls_back_to_a_random_legal_order_with_a_warning(cli, monkeypatch):
    from koryo_pbm_games.koryo.game import KoryoGame

    def broken(self, *args, **kwargs):
        raise ZeroDivisionError("a bug")

    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="fallback")
    monkeypatch.setattr(KoryoGame, "bot_order", broken)
    r = cli.ok("bot", folder, "--as", "bob")
    assert "(a random legal order: the heuristic bot failed (ZeroDivisionError: a bug))" in r.out
    assert r.err == ("koryo-pbm: warning: the heuristic bot failed (ZeroDivisionError: a bug) for bob; "
                     "a random legal order stands in\n")
    monkeypatch.undo()
    for who in ("alice", "carol"):
        cli.ok("bot", folder, "--as", who, "--level", "random")
    res = cli.ok("resolve", folder, "--as", "mod")
    assert "rejected" not in res.out
    assert cli.ok("status", folder, "--json").json["decision"] != "r1-orders"


@pytest.mark.parametrize("args,code,reason", [
    (["--as", "bob", "--level", "expert"], 2, "Koryo has no bot level 'expert' (levels: random, heuristic, search)"),
    (["--as", "bob", "--watch", "--out", "x.envelope"], 2, "--watch answers many decisions"),
    (["--as", "bob", "--budget", "0"], 2, ""),
    (["--as", "mod"], 1, ""),
    ([], 2, "say who you are"),
])
def test_bad_input_is_refused_in_one_line_and_nothing_is_submitted(cli, args, code, reason):
    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="refused")
    r = cli.fails("bot", folder, *args, code=code)
    assert r.err.startswith("koryo-pbm: error: " + reason) and r.err.count("\n") == 1
    assert not list((folder / "inbox").iterdir())
    assert not (cli.cwd / "x.envelope").exists()


def test_watching_bots_play_to_the_end_in_their_own_processes(cli):
    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="watching")
    import os

    env = {**os.environ, "KORYO_PBM_HOME": str(cli.home)}
    procs = {
        who: subprocess.Popen([sys.executable, "-m", "koryo_pbm", "bot", str(folder), "--as", who, "--level", level,
                               "--watch", "--poll", "0.05"], cwd=cli.cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        for who, level in (("bob", "heuristic"), ("carol", "search"))
    }
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            status = cli.ok("status", folder, "--json").json
            if status["decision"] is None:
                break
            if "alice" in status["missing"]:
                human_turn(cli, folder, status)
            if set(status["waiting_for"]) <= set(status["received"]) | set(status["in_inbox"]) | {"alice"}:
                cli.ok("resolve", folder, "--as", "mod")
            time.sleep(0.05)
        assert status["decision"] is None, "the game did not end in time"
        outs = {who: p.communicate(timeout=30) for who, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    for who, (out, err) in outs.items():
        assert procs[who].returncode == 0, err
        lines_out = out.splitlines()
        assert lines_out[-1].endswith("is over: nothing to answer")
        assert len(lines_out) > 5 and all(" bot) answered " in ln for ln in lines_out[:-1])
        assert "Traceback" not in err
    # the bots answered each decision once: nothing was rejected
    assert not (folder / "archive" / "rejected").exists() or not list((folder / "archive" / "rejected").iterdir())


def test_bot_help_and_listing(cli, tmp_path):
    r = run_subprocess(["--help"], tmp_path, tmp_path)
    assert "bot " in r.stdout and "replace " in r.stdout


def test_wait_sees_the_bots_envelope_in_the_inbox(cli):
    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="wait")
    r = cli.ok("wait", folder, "--as", "bob", "--timeout", "0")
    assert r.out.startswith("your turn, bob: decision r1-orders")
    cli.ok("bot", folder, "--as", "bob")
    r = cli.fails("wait", folder, "--as", "bob", "--timeout", "0", code=4)
    assert "still not your turn" in r.err


def test_wait_does_not_call_an_answered_turn_yours_while_a_resolve_archives_it(cli, monkeypatch):
    # the race of the players' guide's loop: wait reads the game file, the judge writes the next
    # version and archives the envelopes it counted (yours among them), then wait looks at the
    # inbox: yours is gone, but counted in a version wait did not read
    from koryo_pbm.store import inbox

    lines = make_keys(cli, NAMES)
    folder = new_game(cli, lines, names=NAMES, seed="wait")
    for name in NAMES:
        cli.ok("bot", folder, "--as", name)
    real = inbox.list_inbox
    calls = []

    def judge_meanwhile(where):
        if not calls:
            r = run_subprocess(["resolve", str(folder), "--as", "mod"], cli.home, cli.cwd)
            assert r.returncode == 0, r.stderr
        calls.append(where)
        return real(where)

    monkeypatch.setattr(inbox, "list_inbox", judge_meanwhile)
    r = cli.ok("wait", folder, "--as", "bob", "--timeout", "0")
    assert calls  # the resolve ran between reading the file and looking at the inbox
    assert r.out.startswith("your turn, bob: decision ") and "r1-orders" not in r.out, r.out


def doc_section(page: str, title: str) -> list[str]:
    """The ``sh`` code blocks of the section ``title`` of ``page`` (README.md, docs/players.md, ...),
    as written there."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / page).read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return re.findall(r"```sh\n(.*?)```", text[start:end if end >= 0 else None], flags=re.S)


def _quicker(playing: str) -> str:
    """The guide's loop with the judge and ``wait`` looking every 0.25 s where the guide says 1 s
    (each turn waits for both: a second of idle time a turn, ~9 turns), the rest as written."""
    assert playing.count(" --poll 1") == 2, playing
    return playing.replace(" --poll 1", " --poll 0.25")


def test_play_alone_against_bots_as_the_players_guide_says(tmp_path):
    """The players' guide's two blocks, run by bash as written (the menus answered with Enter, the
    suggestion, and y; the two ``--poll 1`` as ``--poll 0.25``: :func:`_quicker`), until the game
    is over."""
    import os
    import signal
    from pathlib import Path

    setup, playing = doc_section("docs/players.md", "Play alone against bots")
    playing = _quicker(playing)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    answers = subprocess.Popen(["yes", "\n\n\n\n\ny"], stdout=subprocess.PIPE)
    proc = subprocess.Popen(["bash", "-c", setup + playing], cwd=tmp_path, env=env, stdin=answers.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the judge, started in the background
        answers.kill()
        answers.wait()
    assert proc.returncode == 0 and "error" not in err, err
    over = out.split("is over: nothing to wait for\n")[-1]  # the loop ends with the final scores
    assert over.startswith("score breakdown:\n  me: ") and "\n  dave: " in over, out
    assert out.count("your turn, me: decision ") > 8
    judge = (tmp_path / "solo" / "judge.log").read_text()
    assert "Traceback" not in judge and "error" not in judge, judge
    final = subprocess.run(["koryo-pbm", "show", "solo/game", "--json"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    import json

    view = json.loads(final.stdout)
    assert view["phase"] == "over" and view["players"] == ["me", "bob", "carol", "dave"]
    story = subprocess.run(["koryo-pbm", "log", "solo/game"], cwd=tmp_path, env=env, capture_output=True,
                           text=True).stdout
    assert "the heuristic bot played carol's seat" in story


def test_q_stops_the_players_guides_loop(tmp_path):
    """The same blocks answered with q: play stops (exit status 130) and so does the loop, with
    nothing submitted and the game not over."""
    import os
    import signal
    from pathlib import Path

    setup, playing = doc_section("docs/players.md", "Play alone against bots")
    playing = _quicker(playing)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(["bash", "-c", setup + playing], cwd=tmp_path, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate("q\n", timeout=60)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the judge, started in the background
    assert proc.returncode == 0 and out.count("your turn, me: decision ") == 1, out + err
    assert err.strip().splitlines()[-1] == "koryo-pbm: error: stopped: nothing was submitted", err
    assert not any((tmp_path / "solo" / "game" / "inbox").glob("*--me.envelope"))


def test_a_watching_bot_stops_when_its_seat_is_given_to_another_key(cli):
    import os

    lines = make_keys(cli, [*NAMES, "erin"])
    folder = new_game(cli, lines, names=NAMES, seed="replaced-bot")
    cli.ok("bot", folder, "--as", "bob")  # bob's orders are in: the watching bot waits
    env = {**os.environ, "KORYO_PBM_HOME": str(cli.home)}
    proc = subprocess.Popen([sys.executable, "-m", "koryo_pbm", "bot", str(folder), "--as", "bob", "--watch",
                             "--poll", "0.05"], cwd=cli.cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        assert proc.poll() is None
        cli.ok("replace", folder, "--as", "mod", f"bob={lines['erin']}")
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1 and out == ""  # nothing to answer while it watched
    assert err.startswith("koryo-pbm: error: key 'bob' (") and "is not the key game" in err
    assert err.count("\n") == 1
