"""Hostile and broken mail costs the judge bounded time and memory, gets at most one answer (and
none when it is automatic or the judge's own mail coming back), and never stops the judge from
serving the other mails of the same pass."""

from __future__ import annotations

import resource
import time

from judge_kit import JUDGE, deliver
from test_judge_answers import answers, envelope_text, start
from test_judge_mail_game import serve_once


def _raw(sender: str, subject: str, head: str, body: bytes) -> bytes:
    return (f"From: {sender}\r\nTo: {JUDGE}\r\nSubject: {subject}\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\n"
            f"Message-ID: <{abs(hash(subject))}@players.example>\r\n{head}").encode() + b"\r\n" + body


def test_hostile_mails_are_answered_at_most_once_and_the_others_are_served(cli, tmp_path):
    po, game = start(cli, tmp_path)
    envs = {p: envelope_text(cli, p, game) for p in ("alice", "bob", "carol")}
    box = po.judge_box
    # alice: a header line of 1 MiB, then 20,000 parts
    deliver(box, _raw("alice@example.org", "huge header", "X-Junk: " + "a" * (1 << 20) + "\r\n", b"hello\r\n"))
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(20_000)) + b"--b--\r\n"
    deliver(box, _raw("alice@example.org", "many parts", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
                      'boundary="b"\r\n', parts))
    # bob: his envelope in the text, and a 30 MB attachment
    import base64

    big = base64.encodebytes(b"\0" * (22 * 1024 * 1024))
    deliver(box, _raw("bob@example.org", "orders and a film", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
                      'boundary="c"\r\n', b"--c\r\nContent-Type: text/plain\r\n\r\n" + envs["bob"].encode()
                      + b"\r\n--c\r\nContent-Type: video/mp4\r\nContent-Transfer-Encoding: base64\r\n\r\n" + big
                      + b"\r\n--c--\r\n"))
    # carol: her envelope in a text part whose charset does not exist
    deliver(box, _raw("carol@example.org", "wrong charset", 'MIME-Version: 1.0\r\nContent-Type: text/plain; '
                      'charset="x-no-such-charset"\r\n', envs["carol"].encode()))
    # a bounce of one of the judge's mails, and one of the judge's own mails coming back
    deliver(box, _raw("MAILER-DAEMON@example.org", "Undelivered Mail Returned to Sender",
                      "Return-Path: <>\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=d\r\n",
                      b"--d\r\nContent-Type: text/plain\r\n\r\n-----BEGIN KORYO-PBM ENVELOPE-----\r\nformat: x\r\n--d--\r\n"))
    deliver(box, _raw(JUDGE, "[koryo-pbm friday] round 1: your turn", "X-Koryo-Pbm-Judge: friday\r\n"
                      "Auto-Submitted: auto-generated\r\n", b"a loop\r\n"))
    # and alice's orders, well formed, in the same pass
    po.send_to_judge("alice@example.org", "my orders", envs["alice"])

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start_time = time.monotonic()
    r = serve_once(cli, po)
    elapsed = time.monotonic() - start_time
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert r.code == 0 and "Traceback" not in r.err, r.err
    assert elapsed < 60, elapsed  # about 2 s; bounded whatever the load of the machine
    assert grown < 400 * 1024, grown  # KiB: the 30 MB mail is read once, not copied again and again

    got = {p: answers(po, f"{p}@example.org") for p in ("alice", "bob", "carol")}
    alice = {str(m["Subject"]).rsplit("(re: ", 1)[-1].rstrip(")"): t for m, t in got["alice"]}
    # her first unreadable mail answered with what is wrong, the second held back by the rate
    # limit (one automatic answer per game, address and hour) and logged; the receipt; and the
    # state mail of the resolve, as everyone
    assert sorted(alice) == sorted(["huge header", "my orders", "[koryo-pbm friday] round 2: your orders turn"]), list(alice)
    assert "header is larger than" in alice["huge header"]
    assert "rate limit: game friday, alice@example.org: the answer to mail " in r.err
    assert '"many parts"' in r.err.split("rate limit: game friday, alice@example.org", 1)[1].split("\n", 1)[0]
    assert "ACCEPTED: alice's orders for r1-orders" in alice["my orders"]
    bob = [t for m, t in got["bob"] if "orders and a film" in str(m["Subject"])]
    carol = [t for m, t in got["carol"] if "wrong charset" in str(m["Subject"])]
    assert len(bob) == 1 and "ACCEPTED: bob's orders for r1-orders" in bob[0]
    assert len(carol) == 1 and "ACCEPTED: carol's orders for r1-orders" in carol[0]
    # the decision was resolved with the three of them
    assert cli.ok("status", "games/friday", "--json").json["decision"] != "r1-orders"
    # the bounce and the loop: never answered (nothing to MAILER-DAEMON, nothing to the judge)
    assert not (po.root / "MAILER-DAEMON@example.org").exists()
    assert not list((po.root / JUDGE / "new").glob("*.sent"))
    assert "one of the judge's own mails came back; not answered" in r.err
    assert any("MAILER-DAEMON" in line and "not answered" in line for line in r.err.splitlines())


# The judge's peak memory in its own process, measured by a small parent: a process started
# from this (large) test process would carry its high-water mark across exec.
_PEAK = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL); _, status, usage = os.wait4(p.pid, 0); "
         "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)")


def _serve_peak(cli, po) -> int:
    """KiB: the peak resident memory of one `serve --once` pass, in a process of its own."""
    import os
    import subprocess
    import sys

    from judge_kit import FROM

    done = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "koryo_pbm", "serve", "games", "--as",
                           "mod", "--once", "--maildir", str(po.judge_box), "--sendmail", str(po.sendmail), "--from",
                           FROM], cwd=cli.cwd, env={**os.environ, "KORYO_PBM_HOME": str(cli.home)},
                          capture_output=True, text=True, timeout=300)
    code, peak = done.stdout.split()
    assert code == "0", done.stderr
    return int(peak)


def test_a_30_mb_mail_costs_the_judge_about_its_size_in_memory(cli, tmp_path):
    """Issue 17: a 31 MB mail made a pass peak at 333 MB. Now its large part is scanned for an
    envelope in a stream and not parsed: the pass costs about the mail's size more than a pass
    over a small mail (the mail is read into memory once)."""
    import base64

    po, game = start(cli, tmp_path)
    envs = {p: envelope_text(cli, p, game) for p in ("alice", "bob")}
    po.send_to_judge("bob@example.org", "small", envs["bob"])
    small = _serve_peak(cli, po)
    film = base64.encodebytes(b"\1" * (22 * 1024 * 1024))
    mail = _raw("alice@example.org", "orders and a film", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
                'boundary="c"\r\n', b"--c\r\nContent-Type: text/plain\r\n\r\n" + envs["alice"].encode()
                + b"\r\n--c\r\nContent-Type: video/mp4\r\nContent-Transfer-Encoding: base64\r\n\r\n" + film
                + b"\r\n--c--\r\n")
    del film
    deliver(po.judge_box, mail)
    size = len(mail) // 1024
    del mail
    large = _serve_peak(cli, po)
    assert cli.ok("status", "games/friday", "--json").json["received"] == ["alice", "bob"]
    assert large - small < 2 * size, (small, large, size)  # KiB; before: 290 MiB for a 30 MiB mail
