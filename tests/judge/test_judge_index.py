"""Issue 31, item 1: the judge's index of its games (``ROOT/.koryo-pbm-judge/games.json``) is a
cache of the game files: a pass reads only what changed or is due, a deleted index is rebuilt and
the deadline still fires, a game file changed behind the judge's back is noticed, and a damaged
or foreign game folder among the others is logged in one line while the rest are served."""

from __future__ import annotations

import json
import os

import pytest
from judge_kit import FROM
from test_judge_deadlines import START, mails, serve_at, setup_game

INDEX = ".koryo-pbm-judge/games.json"


def _settle(folder):
    """Date the game's file and inbox an hour back (as a game untouched for a while: stamps the
    judge can trust at once, not ones taken within a tick of a change)."""
    for path in (folder / "game.toml", folder / "inbox"):
        if path.exists():
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 3600 * 10**9))


def test_the_deadline_fires_from_the_index_and_from_an_index_rebuilt_after_deletion(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "2d"])
    games = cli.cwd / "games"
    serve_at(cli, po, monkeypatch, START)
    mails(po)
    _settle(games / "friday")
    serve_at(cli, po, monkeypatch, "2026-11-24T19:00Z")  # nothing to do: the index is written
    entry = json.loads((games / INDEX).read_text())["games"]["friday"]
    # the reminders are due a day before the deadline (the judge's --remind 1d)
    assert entry["due"] == 1795629600.0  # 2026-11-25T18:00Z
    serve_at(cli, po, monkeypatch, "2026-11-25T18:00Z")  # the game unchanged: due, so looked at
    got = mails(po)
    assert all(len(got[p]) == 1 and "reminder" in str(got[p][0]["Subject"]) for p in got), got
    (games / INDEX).unlink()  # deleted (or lost in a crash): rebuilt from the games
    serve_at(cli, po, monkeypatch, "2026-11-26T18:05Z")
    got = mails(po)
    assert all("deadline passed" in str(got[p][-1]["Subject"]) for p in got), got
    assert json.loads((games / INDEX).read_text())["games"]["friday"]["id"]


def test_a_game_file_changed_behind_the_judges_back_is_noticed(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "2d"])
    games = cli.cwd / "games"
    serve_at(cli, po, monkeypatch, START)
    mails(po)
    _settle(games / "friday")
    serve_at(cli, po, monkeypatch, START)
    assert json.loads((games / INDEX).read_text())["games"]["friday"]["due"]
    # the moderator moves the deadline by hand: the index still has the old file's stamps
    cli.ok("deadline", "games/friday", "--as", "mod", "+5d")
    serve_at(cli, po, monkeypatch, START)
    got = mails(po)
    for p in got:
        (state,) = got[p]
        text = " ".join(state.get_body(("plain",)).get_content().split())
        assert "extended the deadline of r1-orders to 2026-12-01 18:00 UTC" in text, text
    # an order dropped in the inbox with the file settled: the inbox's own stamp tells
    _settle(games / "friday")
    serve_at(cli, po, monkeypatch, START)
    status = cli.ok("status", "games/friday", "--json").json
    orders = cli.cwd / "o.toml"
    cli.ok("orders", "games/friday", "--as", "alice", "-o", orders)
    cli.ok("submit", orders, "--as", "alice", "--game", "games/friday")
    serve_at(cli, po, monkeypatch, START)
    after = cli.ok("status", "games/friday", "--json").json
    assert "alice" in status["missing"] and "alice" not in after["missing"]


def test_a_damaged_or_foreign_game_folder_is_logged_in_one_line_and_the_others_are_served(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch)
    games = cli.cwd / "games"
    (games / "broken").mkdir()
    (games / "broken" / "game.toml").write_text("this is not a game file\n")
    cli.ok("keygen", "stranger")
    cli.ok("new", "games/foreign", "--as", "stranger", "--seed", "x",
           "--player", f"alice={cli.ok('keygen', 'x1').out.strip()}", "--player", f"bob={cli.ok('keygen', 'x2').out.strip()}")
    cli.ok("new", "games/second", "--as", "mod", "--seed", "y",
           "--player", f"alice={cli.ok('keygen', 'al2').out.strip()}", "--email", "alice=al2@example.org",
           "--player", f"bob={cli.ok('keygen', 'bo2').out.strip()}", "--email", "bob=bo2@example.org")
    for run in range(2):
        r = serve_at(cli, po, monkeypatch, START)
        bad = [line for line in r.err.splitlines() if "broken" in line or "foreign" in line]
        assert len([line for line in bad if "broken" in line]) == 1, r.err
        assert len([line for line in bad if "foreign" in line]) == 1, r.err
        assert all(line.startswith("koryo-pbm serve: ") for line in bad) and "Traceback" not in r.err
        if run == 0:
            assert all(len(m) == 1 for m in mails(po).values())  # friday's players: their start mails
            assert len(po.messages("al2@example.org")) == 1 and len(po.messages("bo2@example.org")) == 1
    assert sorted(json.loads((games / INDEX).read_text())["games"]) == ["friday", "second"]
    assert (games / "broken" / "game.toml").read_text() == "this is not a game file\n"  # untouched


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "stamps"])
def test_a_running_judge_sees_a_game_changed_behind_its_back(cli, tmp_path, monkeypatch, inotify):
    """A judge that keeps running: told by the kernel (inotify) or by the file stamps."""
    from datetime import datetime

    from koryo_pbm.cli.common import load_identity
    from koryo_pbm.judge.service import Judge
    from koryo_pbm.transport.senders import SendmailSender

    if not inotify:
        monkeypatch.setenv("KORYO_PBM_NO_INOTIFY", "1")
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "2d"])
    games = cli.cwd / "games"
    now = datetime.fromisoformat(START.replace("Z", "+00:00")).timestamp()
    lines: list[str] = []
    judge = Judge(root=games, identity=load_identity("mod", None), sender=SendmailSender(po.sendmail),
                  from_header=FROM, log=lines.append, clock=lambda: now)
    try:
        assert (judge._index.watcher is not None) == inotify
        judge.run_once()
        mails(po)
        _settle(games / "friday")
        judge.run_once()
        lines.clear()
        judge.run_once()
        assert lines == []  # nothing to do
        monkeypatch.setenv("KORYO_PBM_NOW", START)
        cli.ok("deadline", "games/friday", "--as", "mod", "+5d")
        judge.run_once()
        got = mails(po)
        assert all(len(got[p]) == 1 and "extended the deadline" in got[p][0].get_body(("plain",)).get_content()
                   for p in got), lines
    finally:
        judge.close()
