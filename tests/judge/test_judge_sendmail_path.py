"""``serve --sendmail PATH``: the program at that path is the one run (a relative path too: it
was once looked up on PATH instead), refused at start when it cannot be run, and a program that
is gone or fails at send time leaves the mail queued and logged, never "sent"."""

from __future__ import annotations

import os
import shutil
import stat

from judge_kit import FROM, PostOffice

PLAYERS = ["alice", "bob"]


def _game(cli, tmp_path):
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *PLAYERS]}
    args = ["new", "games/friday", "--as", "mod", "--seed", "sendmail-path"]
    for n in PLAYERS:
        args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org"]
    (cli.cwd / "games").mkdir(exist_ok=True)
    cli.ok(*args)
    return PostOffice(tmp_path / "post")


def test_a_relative_sendmail_path_runs_that_program_not_one_on_path(cli, tmp_path, monkeypatch):
    po = _game(cli, tmp_path)
    shutil.copy(po.sendmail, cli.cwd / "sendmail")  # ./sendmail: the post office's program
    trap = tmp_path / "bin"
    trap.mkdir()
    (trap / "sendmail").write_text(f"#!/bin/sh\necho called >> '{tmp_path / 'trap.log'}'\ncat > /dev/null\n")
    (trap / "sendmail").chmod(0o755)
    monkeypatch.setenv("PATH", f"{trap}{os.pathsep}{os.environ['PATH']}")
    r = cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", "./sendmail",
            "--from", FROM)
    assert r.code == 0, r.err
    assert not (tmp_path / "trap.log").exists(), "the sendmail found on PATH was run"
    for p in PLAYERS:
        assert len(po.messages(f"{p}@example.org")) == 1


def test_a_sendmail_that_cannot_be_run_is_refused_at_start(cli, tmp_path):
    po = _game(cli, tmp_path)
    (cli.cwd / "not-a-program").write_text("#!/bin/sh\n")
    for given, why in (("./missing", "no such file"), ("not-a-program", "not executable")):
        r = cli.fails("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", given,
                      "--from", FROM)
        assert why in r.err and str(cli.cwd / given.removeprefix("./")) in r.err, r.err
        assert len(r.err.strip().splitlines()) == 1, r.err
    assert not (cli.cwd / "games" / "friday" / "outbox").exists()  # nothing done


def test_a_sendmail_gone_or_failing_at_send_time_is_retried_not_sent(tmp_path):
    from koryo_pbm.judge import outbox
    from koryo_pbm.judge.messages import Outgoing
    from koryo_pbm.transport.senders import SendmailSender

    po = PostOffice(tmp_path / "post")
    program = tmp_path / "sendmail"
    shutil.copy(po.sendmail, program)
    sender = SendmailSender(program)
    game = tmp_path / "game"
    game.mkdir()
    outbox.queue(game, Outgoing(key="k1", to="alice@example.org", subject="hello", body="hi"), from_header=FROM,
                 game_id="g", tag="game", now=0.0)
    lines: list[str] = []
    program.unlink()  # gone after the judge started
    outbox.flush(game, sender, now=0.0, retry_base=0.01, log=lines.append)
    program.write_text("#!/bin/sh\necho 'local delivery refused' >&2\nexit 75\n")  # back, but failing
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    outbox.flush(game, sender, now=10.0, retry_base=0.01, log=lines.append)
    assert not any(line.startswith("sent ") for line in lines), lines
    assert "no sendmail program at" in lines[0] and "attempt 1" in lines[0], lines
    assert "local delivery refused" in lines[1] and "attempt 2" in lines[1], lines
    assert [p.name for p in (game / "outbox").glob("*.eml")] == ["k1.eml"]  # still waiting
    shutil.copy(po.sendmail, program)  # repaired: sent at the next try
    outbox.flush(game, sender, now=100.0, retry_base=0.01, log=lines.append)
    assert lines[-1].startswith("sent k1.eml") and len(po.messages("alice@example.org")) == 1
