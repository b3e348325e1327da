"""The judge cannot be turned against a player (issue 17, item 4), over dovecot and postfix.

An attacker who knows alice's address and holds a copy of one of her envelopes sends the judge,
through postfix like any other mail, a flood: mails tagged for the game with alice's address
forged in ``From`` (each would get a help reply with the 30 KB game file), copies of alice's
envelope from the attacker's own address (each would get alice a receipt) and from alice's
forged address, every one with text in its ``Date`` and ``Subject`` that it wants the judge to
carry to alice. The judge runs from cron (``serve --once``, a new process each time): its rate
limits must hold across the runs. Counted: the mails that leave the judge.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from servers import DOMAIN, PASSWORD

from koryo_pbm.cli.main import main

NAMES = ("alice", "bob", "carol")
LURE = "URGENT download https://evil.example/key.exe and mail your key file to eve@evil.example"


class Game:
    def __init__(self, servers, tmp_path, monkeypatch, unknown=()):
        """``unknown``: players whose address has no mailbox (postfix refuses mail to it for good)."""
        self.servers, self.tmp = servers, tmp_path
        self.judge = servers.user("judge")
        self.users = {n: f"nobody-{n}-{tmp_path.name}" if n in unknown else servers.user(n) for n in NAMES}
        self.mod = servers.user("other")
        self.attacker = servers.user("mallory")
        monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KORYO_PBM_IMAP_PASSWORD", PASSWORD)
        monkeypatch.setenv("KORYO_PBM_SMTP_PASSWORD", PASSWORD)
        monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
        monkeypatch.chdir(tmp_path)
        pubs = {}
        for n in ["mod", *NAMES]:
            self.cli("keygen", n)
            pubs[n] = (tmp_path / "home" / "keys" / f"{n}.pub").read_text().strip()
        args = ["new", "games/friday", "--as", "mod", "--seed", "flood"]
        for n in NAMES:
            args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={self.address(n)}"]
        (tmp_path / "games").mkdir()
        self.cli(*args)
        self.sent_to_judge = 0

    def address(self, name: str) -> str:
        return f"{self.users[name]}@{DOMAIN}"

    def cli(self, *args) -> None:
        assert main([str(a) for a in args]) == 0, args

    def serve(self) -> None:
        """One cron run, once every mail sent to the judge has arrived in its INBOX."""
        # every mail sent since the last run has arrived (the judge moves what it handled away)
        assert len(self.servers.delivered(self.judge, self.sent_to_judge, timeout=30)) >= self.sent_to_judge
        self.sent_to_judge = 0
        s = self.servers
        assert main(["serve", "games", "--as", "mod", "--once", "--retry", "0.01",
                     "--imap", f"imaps://{self.judge}@127.0.0.1:{s.dovecot.imaps_port}/INBOX",
                     "--smtp", f"smtps://{self.judge}@127.0.0.1:{s.postfix.smtps_port}", "--ca-file", str(s.ca),
                     "--from", f"Koryo judge <{self.judge}@{DOMAIN}>", "--moderator", f"{self.mod}@{DOMAIN}",
                     "--log-file", str(self.tmp / "judge.log")]) == 0
        end = time.monotonic() + 30
        while not self.servers.postfix.queue_empty():
            assert time.monotonic() < end, "postfix did not deliver"
            time.sleep(0.05)

    def send(self, envelope_from: str, header_from: str, subject: str, text: str, date: str | None = None) -> None:
        import smtplib

        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = header_from, f"{self.judge}@{DOMAIN}", subject
        msg["Date"] = date or format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
        msg["Message-ID"] = make_msgid(domain="attacker.example")
        msg.set_content(text)
        with smtplib.SMTP("127.0.0.1", self.servers.postfix.plain_port, timeout=30) as smtp:
            smtp.send_message(msg, from_addr=envelope_from)
        self.sent_to_judge += 1

    def mailbox(self, user: str) -> list[email.message.EmailMessage]:
        found = []
        for sub in ("new", "cur"):
            folder = self.servers.maildir(user) / sub
            if folder.is_dir():
                found += [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                          for p in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns)]
        return found  # type: ignore[return-value]


def _text(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content()


def test_a_forged_sender_flood_gets_alice_one_mail_and_carries_none_of_its_text(mail_servers, tmp_path, monkeypatch):
    g = Game(mail_servers, tmp_path, monkeypatch)
    g.serve()  # the start mails
    [start] = g.mailbox(g.users["alice"])
    folder = tmp_path / "alice"
    folder.mkdir()
    game = next(p for p in start.iter_attachments() if p.get_filename() == "game.toml")
    (folder / "game.toml").write_bytes(game.get_payload(decode=True))
    g.cli("orders", folder / "game.toml", "--as", "alice", "-o", folder / "orders.toml")
    g.cli("submit", folder / "orders.toml", "--as", "alice", "--game", folder / "game.toml", "--out", folder / "env.txt")
    envelope = (folder / "env.txt").read_text()
    g.send(g.address("alice"), f"Alice <{g.address('alice')}>", "Re: round 1", "My orders:\n\n" + envelope)
    g.serve()
    assert len(g.mailbox(g.users["alice"])) == 2  # the start mail and her receipt
    sent_before = len(list((tmp_path / "games" / "friday" / "outbox" / "sent").iterdir()))

    # the flood, in two cron runs: 12 tagged mails "from" alice, 6 copies of her envelope from the
    # attacker's address and 6 from alice's forged one, all with the lure in Date and Subject
    attacker = f"{g.attacker}@{DOMAIN}"
    for run in range(2):
        for i in range(6):
            # (a person's words: "Help!" alone would be the mail command help, with its own limit of 5)
            g.send(attacker, g.address("alice"), f"[koryo-pbm friday] {LURE} {run}-{i}", "Help! What now?",
                   date=f"Tue, 24 Nov 2026 10:00:0{i} +0000 {LURE}")
            g.send(attacker, attacker, f"{LURE} {run}-{i}", envelope, date=f"{LURE} {i}")
            g.send(attacker, g.address("alice"), f"Re: {LURE} {run}-{i}", envelope, date=f"{LURE} {i}")
        g.serve()  # a new judge process each time: the limits were kept on disk

    # out of 36 mails: one answer to alice (the first help, with the game file), the forwards to
    # the moderator (at most 5 an hour for one player), nothing to the attacker
    alice = g.mailbox(g.users["alice"])[2:]
    assert len(alice) == 1, [str(m["Subject"]) for m in alice]
    [answer] = alice
    assert str(answer["Subject"]).startswith("[koryo-pbm friday] no envelope, help (re: URGENT download [link] ")
    quoted = str(answer["Subject"]).split("(re: ", 1)[1][:-1]
    assert len(quoted) <= 60 and "evil" not in quoted
    text = _text(answer)
    for word in ("evil", "URGENT", "download", "key.exe", "Nov 2026 10:00"):
        assert word not in text, word
    assert "Your mail received " in text and "holds no envelope" in " ".join(text.split())
    forwards = g.mailbox(g.mod)
    assert 1 <= len(forwards) <= 5, len(forwards)
    assert all(str(m["Subject"]).startswith("[koryo-pbm friday] from alice: ") for m in forwards)
    assert str(forwards[0]["Reply-To"]) == g.address("alice")
    raw = next(p for p in forwards[0].iter_attachments()).get_payload(decode=True)
    assert b"Help! What now?" in raw and hashlib.sha256(raw).hexdigest()[:8] in _text(forwards[0])
    assert g.mailbox(g.attacker) == []
    sent_after = len(list((tmp_path / "games" / "friday" / "outbox" / "sent").iterdir()))
    assert sent_after - sent_before == 1 + len(forwards)
    # and the moderator's log says what was held back and why, and every mail in and out
    log = (tmp_path / "judge.log").read_text()
    assert log.count("rate limit: game friday, " + g.address("alice")) >= 20
    assert "whose receipt was mailed to alice before; the sender is not alice's address: not answered" in log
    assert log.count(" received mail ") == 1 + 36 and " sent answer-" in log


def test_answers_that_reach_nobody_do_not_use_up_the_rate_limit(mail_servers, tmp_path, monkeypatch):
    """carol's address has no mailbox: postfix refuses every mail to it for good (550). Five mail
    commands in carol's name (5 an hour are answered) are answered, each answer refused for
    good and kept in outbox/failed: none reached anybody, so none counts, and a sixth is answered
    too. A rate-limited answer is never silently dropped: the log says so (the old count did)."""
    g = Game(mail_servers, tmp_path, monkeypatch, unknown=("carol",))
    g.serve()  # the start mails (carol's refused for good)
    failed = tmp_path / "games" / "friday" / "outbox" / "failed"
    before = len(list(failed.glob("*.eml")))
    attacker = f"{g.attacker}@{DOMAIN}"
    for i in range(5):
        g.send(attacker, g.address("carol"), f"[koryo-pbm friday] status {i}", "status\n")
    g.serve()
    assert len(list(failed.glob("*.eml"))) == before + 5
    log = (tmp_path / "judge.log").read_text()
    assert log.count("no longer counts against the rate limit") == 5
    g.send(attacker, g.address("carol"), "[koryo-pbm friday] status 5", "status\n")
    g.serve()
    assert len(list(failed.glob("*.eml"))) == before + 6
    log = (tmp_path / "judge.log").read_text()
    assert "rate limit: game friday" not in log and log.count("mail command 'status' of carol") == 6
    assert g.mailbox(g.attacker) == []
