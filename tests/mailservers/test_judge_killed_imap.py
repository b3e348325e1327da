"""Exactly once over IMAP and SMTP: the judge stopped at every step of a pass, then started again.

``tests/judge/test_judge_killed.py`` stops the judge at every file-system call (Maildir in,
sendmail out). Here the same scenario runs against dovecot and postfix: the judge's mail comes
by IMAPS and its answers leave by SMTPS, and each trial stops one ``serve --once`` at the k-th
of the steps where a stop can lose or repeat something: every rename of a file (the game file,
the queued mails, their move to ``outbox/sent``; the IMAP source renames nothing), every mail handed to SMTP, every mail marked
handled and every IMAP MOVE to ``koryo-pbm/done``. Then the judge is started again (twice). Each
trial must end where a clean run ends: the same game file, the three incoming mails (the two
players' orders, the first held, and a help request) all in
``koryo-pbm/done`` (none lost, none left in INBOX), each player holding exactly the mails of the
clean run by Message-ID, a mail repeated only when the stop fell between SMTP accepting it and
its move to ``outbox/sent``.
"""

from __future__ import annotations

import os
import shutil
import ssl
import time
import tomllib
from collections import Counter
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

import pytest
from imapclient import IMAPClient
from servers import DOMAIN, PASSWORD

from koryo_pbm.cli.main import main
from koryo_pbm.judge import service
from koryo_pbm.transport.imap import ImapSource
from koryo_pbm.transport.smtp import SmtpSender

NAMES = ("alice", "bob")  # two: every trial costs about its number of players


class Killed(BaseException):
    """The process dies here: nothing in koryo-pbm may catch it."""


class Injector:
    def __init__(self, mp, fail_at: int | None):
        self.calls, self.fail_at, self.where = 0, fail_at, None
        self.unmoved = False  # a mail was accepted by SMTP and not yet moved to outbox/sent
        self.stopped_unmoved = False
        for name in ("replace", "rename"):
            mp.setattr(os, name, self._wrap(name, getattr(os, name)))
        for owner, name in ((SmtpSender, "send"), (ImapSource, "mark_handled"), (ImapSource, "flush")):
            mp.setattr(owner, name, self._wrap(name, getattr(owner, name)))

    def _wrap(self, name, real):
        def wrapper(*args, **kw):
            self.calls += 1
            if self.calls == self.fail_at:
                self.where, self.stopped_unmoved = name, self.unmoved
                raise Killed()
            result = real(*args, **kw)
            if name == "send":
                self.unmoved = True
            elif name == "replace":
                self.unmoved = False
            return result

        return wrapper


class Trial:
    def __init__(self, servers, tmp_path, monkeypatch, connections: int):
        self.servers, self.tmp = servers, tmp_path
        self.home = tmp_path / "home"
        self.judge = servers.user("judge")
        self.users = {n: servers.user(n) for n in NAMES}
        monkeypatch.setenv("KORYO_PBM_HOME", str(self.home))
        monkeypatch.setenv("KORYO_PBM_IMAP_PASSWORD", PASSWORD)
        monkeypatch.setenv("KORYO_PBM_SMTP_PASSWORD", PASSWORD)
        monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(service, "SEND_CONNECTIONS", connections)
        pubs = {}
        for n in ["mod", *NAMES]:
            self.cli("keygen", n)
            pubs[n] = (self.home / "keys" / f"{n}.pub").read_text().strip()
        args = ["new", "games/friday", "--as", "mod", "--seed", "killed-over-imap"]
        for n in NAMES:
            args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={self.users[n]}@{DOMAIN}"]
        (tmp_path / "games").mkdir()
        self.cli(*args)

    def cli(self, *args) -> int:
        code = main([str(a) for a in args])
        assert code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({code})"
        return code

    def serve(self) -> int:
        s = self.servers
        return main(["serve", "games", "--as", "mod", "--once", "--retry", "0.01",
                     "--imap", f"imaps://{self.judge}@127.0.0.1:{s.dovecot.imaps_port}/INBOX",
                     "--smtp", f"smtps://{self.judge}@127.0.0.1:{s.postfix.smtps_port}", "--ca-file", str(s.ca),
                     "--from", f"Koryo judge <{self.judge}@{DOMAIN}>"])

    def imap(self) -> IMAPClient:
        c = IMAPClient("127.0.0.1", self.servers.dovecot.imaps_port,
                       ssl_context=ssl.create_default_context(cafile=str(self.servers.ca)))
        c.login(self.judge, PASSWORD)
        return c

    def counts(self) -> tuple[int, int]:
        with self.imap() as c:
            inbox = int(c.select_folder("INBOX", readonly=True)[b"EXISTS"])
            done = int(c.select_folder("koryo-pbm/done", readonly=True)[b"EXISTS"]) if c.folder_exists("koryo-pbm/done") else 0
        return inbox, done

    def reset_mail(self, incoming: list[bytes]) -> None:
        """The judge's INBOX holds exactly ``incoming``, its done folder nothing; the players' boxes are empty."""
        self.settle()
        with self.imap() as c:
            for folder in ("INBOX", "koryo-pbm/done"):
                if c.folder_exists(folder):
                    c.select_folder(folder)
                    uids = c.search("ALL")
                    if uids:
                        c.delete_messages(uids)
                        c.expunge()
            for data in incoming:
                c.append("INBOX", data)
        for user in self.users.values():
            for sub in ("new", "cur"):
                folder = self.servers.maildir(user) / sub
                if folder.is_dir():
                    for p in folder.iterdir():
                        p.unlink()

    def settle(self, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while not self.servers.postfix.queue_empty():
            assert time.monotonic() < end, "postfix did not deliver"
            time.sleep(0.05)

    def mailbox(self, name: str) -> list[bytes]:
        found = []
        for sub in ("new", "cur"):
            folder = self.servers.maildir(self.users[name]) / sub
            if folder.is_dir():
                found += [p.read_bytes() for p in folder.iterdir()]
        return found

    def outcome(self) -> dict:
        import email
        import email.policy

        self.settle()
        game = tomllib.loads((self.tmp / "games" / "friday" / "game.toml").read_text())
        mails = {n: Counter(str(email.message_from_bytes(d, policy=email.policy.default)["Message-ID"])
                            for d in self.mailbox(n)) for n in NAMES}
        return {"game": {k: game.get(k) for k in ("version", "public", "decision", "log")}, "mails": mails,
                "folders": self.counts()}


def _orders_mail(t: Trial, name: str, state_mail: bytes) -> bytes:
    import email
    import email.policy

    msg = email.message_from_bytes(state_mail, policy=email.policy.default)
    folder = t.tmp / "players" / name
    folder.mkdir(parents=True)
    game = next(p for p in msg.iter_attachments() if p.get_filename() == "game.toml")
    (folder / "game.toml").write_bytes(game.get_payload(decode=True))
    t.cli("orders", folder / "game.toml", "--as", name, "-o", folder / "orders.toml")
    t.cli("submit", folder / "orders.toml", "--as", name, "--game", folder / "game.toml", "--out", folder / "env.txt")
    reply = EmailMessage()
    reply["From"] = f"{name} <{t.users[name]}@{DOMAIN}>"
    reply["To"] = f"{t.judge}@{DOMAIN}"
    reply["Subject"] = "Re: " + str(msg["Subject"])
    reply["Date"] = format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
    reply["Message-ID"] = make_msgid(domain="players.example")
    reply["In-Reply-To"] = str(msg["Message-ID"])
    reply.set_content("My orders:\n\n" + (folder / "env.txt").read_text())
    return reply.as_bytes()


@pytest.mark.parametrize("connections", [1, 4])
def test_the_judge_over_imap_and_smtp_stopped_at_every_step_finishes_the_job_exactly_once(
        mail_servers, tmp_path, monkeypatch, connections):
    """With one SMTP connection every run takes the same steps; with four, the outboxes are sent
    by several threads at once, and a stop in one thread ends the run while the others finish
    what they hold."""
    t = Trial(mail_servers, tmp_path, monkeypatch, connections)
    assert t.serve() == 0  # the start mails
    t.settle()
    starts = {n: t.mailbox(n) for n in NAMES}
    assert all(len(v) == 1 for v in starts.values()), starts
    incoming = [_orders_mail(t, n, starts[n][0]) for n in NAMES]
    help_me = EmailMessage()
    help_me["From"] = f"alice <{t.users['alice']}@{DOMAIN}>"
    help_me["To"] = f"{t.judge}@{DOMAIN}"
    help_me["Subject"] = "[koryo-pbm friday] what now?"
    help_me["Message-ID"] = make_msgid(domain="players.example")
    help_me.set_content("Help, please.")
    incoming.append(help_me.as_bytes())
    snap = tmp_path / "snap"
    shutil.copytree(tmp_path / "games", snap)

    def restore() -> None:
        shutil.rmtree(tmp_path / "games")
        shutil.copytree(snap, tmp_path / "games")
        t.reset_mail(incoming)

    def run(fail_at):
        with monkeypatch.context() as mp:
            inj = Injector(mp, fail_at)
            try:
                code = t.serve()
            except Killed:
                code = None
        return inj, code

    restore()
    inj, code = run(None)
    assert code == 0
    n_calls = inj.calls
    clean = t.outcome()
    assert clean["folders"] == (0, len(incoming))
    assert clean["game"]["version"] == 3 and len(clean["game"]["log"]) == 1  # one held, then resolved
    # each player: a receipt and the new state; alice also the help
    assert {n: sum(c.values()) for n, c in clean["mails"].items()} == {"alice": 3, "bob": 2}
    assert n_calls >= 15, n_calls

    where: Counter = Counter()
    for k in range(1, n_calls + 1):
        restore()
        inj, code = run(k)
        if connections > 1 and inj.where is None:
            continue  # the threads took fewer steps this time
        assert inj.where is not None and code is None, k
        for _ in range(2):
            assert t.serve() == 0
        got = t.outcome()
        context = f"stopped at step {k} ({inj.where})"
        assert got["game"] == clean["game"], context
        assert got["folders"] == (0, len(incoming)), context  # every mail moved to koryo-pbm/done, none lost
        twice = 0
        for n in NAMES:
            assert set(got["mails"][n]) == set(clean["mails"][n]), (context, n)
            twice += sum(got["mails"][n].values()) - len(got["mails"][n])
        if connections == 1:
            assert twice <= 1 and (not twice or inj.stopped_unmoved), context
        else:  # the stop fell in one thread; another may have been between a send and its move too
            assert twice <= connections, context
        where[inj.where] += 1
    assert set(where) == {"replace", "send", "mark_handled", "flush"}, where


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield
    capsys.readouterr()
