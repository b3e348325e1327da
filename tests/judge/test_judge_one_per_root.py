"""One judge per root: a cron run that overlaps the previous one does nothing (and says so), a
second long-running judge is refused; either way no mail is handled or sent twice."""

from __future__ import annotations

import fcntl
import os

from test_judge_mail_game import serve_once, setup_game

from koryo_pbm.cli.serve import SERVE_LOCK


def test_an_overlapping_run_stops_without_touching_anything(cli, tmp_path):
    po = setup_game(cli, tmp_path)
    po.send_to_judge("alice <alice@example.org>", "[koryo-pbm friday] help?", "What do I do?")
    fd = os.open(cli.cwd / "games" / SERVE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a judge is running
        r = serve_once(cli, po)
        assert r.code == 0, r.err
        assert "another judge is serving games (it holds .koryo-pbm-serve.lock); this run stops" in r.err
        assert not (cli.cwd / "games" / "friday" / "outbox").exists()  # nothing queued, nothing sent
        assert len(os.listdir(po.judge_box / "new")) == 1  # the mail is left for the running judge
        r = cli("serve", "games", "--as", "mod", "--poll", "0.1")
        assert r.code != 0 and "Traceback" not in r.err
        assert r.err.strip().splitlines()[-1] == ("koryo-pbm: error: another judge is serving games "
                                                  "(it holds .koryo-pbm-serve.lock)")
    finally:
        os.close(fd)  # the first judge ends
    r = serve_once(cli, po)
    assert r.code == 0, r.err
    assert not os.listdir(po.judge_box / "new")
    assert [str(m["Subject"]) for m in po.messages("alice@example.org")].count("[koryo-pbm friday] no envelope, help (re: help?)") == 1
