"""Whole games played through the judge over real mail: ``koryo-pbm serve`` reads its IMAP folder
on dovecot and sends through postfix (SMTPS with login); the players only read the mail postfix
delivers into their Maildirs and answer it, each with their own habits (the envelope in the body
of a reply, as an attachment, sent by mutt or by s-nail). A complete 3-player Koryo game and a
complete 4-player Korsar team game, the judge polling a dovecot without IDLE (``polled_dovecot``:
dovecot's IDLE waits 500 ms before it reports each mail), and a Korsar team game from its endgame,
the judge woken by IDLE."""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import signal
import subprocess
import sys
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from imapclient import IMAPClient
from servers import DOMAIN, PASSWORD

from koryo_pbm.cli.main import main

REPO = Path(__file__).resolve().parents[2]
KORSAR_ENDGAME = REPO / "examples" / "positions" / "korsar-4-teams-endgame.toml"


class Table:
    """The moderator and the players of one game, each with a mailbox on the test servers."""

    def __init__(self, servers, mailer, tmp_path, monkeypatch, names, habits, dovecot=None):
        self.servers, self.mailer, self.tmp = servers, mailer, tmp_path
        # the dovecot the judge reads: the session's (IDLE), or polled_dovecot (no IDLE, polled)
        self.dovecot = dovecot if dovecot is not None else servers.dovecot
        self.poll = "2" if self.dovecot.capabilities is None else "0.1"
        self.names, self.habits = names, habits
        self.home = tmp_path / "home"
        self.judge = servers.user("judge")
        self.users = {n: servers.user(role) for n, role in zip(names, ("alice", "bob", "carol", "dave"), strict=False)}
        self.addresses = {n: f"{u}@{DOMAIN}" for n, u in self.users.items()}
        self.received: dict[str, list[EmailMessage]] = {n: [] for n in names}
        self.sent = 0
        self.sent_by = dict.fromkeys(names, 0)
        self.over: set[str] = set()
        monkeypatch.setenv("KORYO_PBM_HOME", str(self.home))
        monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
        monkeypatch.chdir(tmp_path)
        self.pubs = {}
        for n in ["mod", *names]:
            self.cli("keygen", n)
            self.pubs[n] = (self.home / "keys" / f"{n}.pub").read_text().strip()
        self.judge_proc: subprocess.Popen | None = None

    def cli(self, *args) -> None:
        code = main([str(a) for a in args])
        assert code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({code})"

    def new_game(self, folder: str, *extra: str) -> Path:
        args = ["new", f"games/{folder}", "--as", "mod", *extra]
        for n in self.names:
            args += ["--player", f"{n}={self.pubs[n]}", "--email", f"{n}={self.addresses[n]}"]
        (self.tmp / "games").mkdir(exist_ok=True)
        self.cli(*args)
        return self.tmp / "games" / folder

    def start_judge(self) -> None:
        s = self.servers
        env = {**os.environ, "KORYO_PBM_HOME": str(self.home), "KORYO_PBM_IMAP_PASSWORD": PASSWORD,
               "KORYO_PBM_SMTP_PASSWORD": PASSWORD}
        self.judge_log = self.tmp / "judge.log"
        with open(self.judge_log, "wb") as log:
            self.judge_proc = subprocess.Popen(
                [sys.executable, "-m", "koryo_pbm", "serve", "games", "--as", "mod",
                 "--imap", f"imaps://{self.judge}@127.0.0.1:{self.dovecot.imaps_port}/INBOX",
                 "--smtp", f"smtps://{self.judge}@127.0.0.1:{s.postfix.smtps_port}", "--ca-file", str(s.ca),
                 "--from", f"Koryo judge <{self.judge}@{DOMAIN}>", "--poll", self.poll, "--retry", "1"],
                cwd=self.tmp, env=env, stdout=log, stderr=subprocess.STDOUT)

    def stop_judge(self) -> str:
        assert self.judge_proc is not None
        self.judge_proc.send_signal(signal.SIGTERM)
        code = self.judge_proc.wait(30)
        text = self.judge_log.read_text()
        assert code == 0, text[-3000:]
        assert "Traceback" not in text, text[-3000:]
        return text

    def new_mail(self, name: str) -> list[EmailMessage]:
        box = self.servers.maildir(self.users[name])
        found = []
        new = box / "new"
        if not new.is_dir():
            return []
        for path in sorted(new.iterdir(), key=lambda p: (p.stat().st_mtime_ns, p.name)):
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            os.rename(path, box / "cur" / (path.name + ":2,S"))
            found.append(msg)  # type: ignore[arg-type]
        return found

    def answer(self, name: str, msg: EmailMessage) -> None:
        """What a player does with a state mail that says it is their turn: save the game file,
        write the example orders, seal them, and answer the mail with the envelope."""
        folder = self.tmp / "players" / name
        folder.mkdir(parents=True, exist_ok=True)
        game = folder / "game.toml"
        [part] = [p for p in msg.iter_attachments() if p.get_filename() == "game.toml"]
        game.write_bytes(part.get_payload(decode=True))
        orders, out = folder / "orders.toml", folder / "envelope.txt"
        for f in (orders, out):
            f.unlink(missing_ok=True)
        self.cli("orders", game, "--as", name, "-o", orders)
        self.cli("submit", orders, "--as", name, "--game", game, "--out", out)
        text = out.read_text()
        subject = f"Re: {msg['Subject']}"
        habit = self.habits[name]
        me, judge = self.addresses[name], f"{self.judge}@{DOMAIN}"
        if habit == "mutt":
            self.mailer.mutt(me, judge, subject, f"My orders.\n\n{text}\n")
        elif habit == "s-nail":
            self.mailer.snail(me, judge, subject, "Orders attached.\n", attach=out)
        else:
            reply = EmailMessage()
            reply["From"], reply["To"], reply["Subject"] = f"{name.title()} <{me}>", judge, subject
            reply["Date"] = format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
            reply["Message-ID"] = make_msgid(domain=DOMAIN)
            reply["In-Reply-To"] = str(msg["Message-ID"])
            quoted = "".join(f"> {line}\n" for line in msg.get_body(preferencelist=("plain",)).get_content().splitlines()[:5])
            if habit == "attachment":
                reply.set_content(f"{quoted}\nOrders attached.\n")
                reply.add_attachment(text.encode(), maintype="text", subtype="plain", filename="orders.txt")
            else:
                reply.set_content(f"{quoted}\nHere are my orders:\n\n{text}\n")
            self.mailer.send(reply)
        self.sent += 1
        self.sent_by[name] += 1

    def play(self, timeout: float) -> None:
        """Read and answer mail until every player has had the game-over mail."""
        deadline = time.monotonic() + timeout
        while len(self.over) < len(self.names):
            assert self.judge_proc is not None and self.judge_proc.poll() is None, self.judge_log.read_text()[-3000:]
            assert time.monotonic() < deadline, f"the game did not end in time:\n{self.judge_log.read_text()[-3000:]}"
            idle = True
            for name in self.names:
                for msg in self.new_mail(name):
                    idle = False
                    self.received[name].append(msg)
                    assert str(msg["From"]) == f"Koryo judge <{self.judge}@{DOMAIN}>"
                    subject = str(msg["Subject"])
                    if not any(p.get_filename() == "game.toml" for p in msg.iter_attachments()):
                        continue  # an answer to the player's mail: receipts, checked at the end
                    if subject.endswith("game over"):
                        self.over.add(name)
                    elif re.search(r": (the game starts, )?your (\w+ )?turn$", subject):
                        self.answer(name, msg)
            if idle:
                time.sleep(0.02)  # the next state mail: postfix delivers it some 20 ms after the judge sends it

    def judge_folder(self, folder: str) -> int:
        with IMAPClient("127.0.0.1", self.servers.dovecot.imaps_port,
                        ssl_context=__import__("ssl").create_default_context(cafile=str(self.servers.ca))) as c:
            c.login(self.judge, PASSWORD)
            return int(c.select_folder(folder, readonly=True)[b"EXISTS"])

    def settle(self, timeout: float = 30) -> None:
        """Until the judge has handled every mail sent to it and postfix has delivered every answer."""
        deadline = time.monotonic() + timeout
        while self.judge_folder("koryo-pbm/done") < self.sent or self.judge_folder("INBOX"):
            assert time.monotonic() < deadline, self.judge_log.read_text()[-3000:]
            time.sleep(0.05)
        while not self.servers.postfix.queue_empty():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        for name in self.names:
            self.received[name] += self.new_mail(name)


def receipts_of(msgs) -> list[str]:
    return [m.get_body(preferencelist=("plain",)).get_content() for m in msgs
            if "BEGIN KORYO-PBM RECEIPT" in m.get_body(preferencelist=("plain",)).get_content()]


def check_game(table: Table, game: Path, log: str) -> None:
    # every answer and state mail the judge queued went through postfix; none waits or failed
    outbox = game / "outbox"
    assert not list(outbox.glob("*.eml")) and not list((outbox / "failed").glob("*"))
    delivered = sum(len(v) for v in table.received.values())
    assert len(list((outbox / "sent").glob("*.eml"))) == delivered
    # one receipt for every envelope a player sent, threaded to it, each one checked by the player
    receipts = [r for n in table.names for r in receipts_of(table.received[n])]
    assert len(receipts) == table.sent
    for name in table.names:
        for n, msg in enumerate(m for m in table.received[name] if "RECEIPT" in m.get_body(preferencelist=("plain",)).get_content()):
            assert msg["In-Reply-To"]
            saved = table.tmp / "players" / name / f"receipt-{n}.txt"
            saved.write_text(msg.get_body(preferencelist=("plain",)).get_content())
            table.cli("receipt", saved, "--game", game)
    # every mail to the judge was moved to koryo-pbm/done, none deleted
    assert table.judge_folder("koryo-pbm/done") == table.sent
    assert table.judge_folder("INBOX") == 0
    assert "reading imaps://" in log and "sending by smtps://" in log
    # the judge read the dovecot it was given: IDLE, or polled without it
    assert f"@127.0.0.1:{table.dovecot.imaps_port}/INBOX" in log


@pytest.fixture
def judge_table(mail_servers, mailer, tmp_path, monkeypatch):
    tables = []

    def make(names, habits, dovecot=None):
        t = Table(mail_servers, mailer, tmp_path, monkeypatch, names, habits, dovecot)
        tables.append(t)
        return t

    yield make
    for t in tables:
        if t.judge_proc is not None and t.judge_proc.poll() is None:
            t.judge_proc.kill()
            t.judge_proc.wait()


def test_a_whole_3_player_koryo_game_through_dovecot_and_postfix(judge_table, polled_dovecot):
    table = judge_table(["alice", "bob", "carol"], {"alice": "reply", "bob": "attachment", "carol": "mutt"},
                        polled_dovecot)
    game = table.new_game("friday", "--seed", "real-mail")
    table.start_judge()
    table.play(timeout=240)
    table.settle()
    log = table.stop_judge()
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(game / "game.toml")
    assert doc.decision is None and doc.public["phase"] == "over"
    assert table.sent >= 9 and all(table.sent_by[n] >= 3 for n in table.names), table.sent_by
    check_game(table, game, log)
    assert all(str(m["Subject"]).startswith("[koryo-pbm friday] ") for n in table.names for m in table.received[n])


def test_a_4_player_korsar_team_game_from_its_endgame_through_dovecot_and_postfix(judge_table):
    table = judge_table(["alice", "bob", "carol", "dave"],
                        {"alice": "reply", "bob": "mutt", "carol": "s-nail", "dave": "attachment"})
    game = table.new_game("teams", "--game", "korsar", "--position", str(KORSAR_ENDGAME), "--seed", "endgame")
    table.start_judge()
    table.play(timeout=180)
    table.settle()
    log = table.stop_judge()
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(game / "game.toml")
    assert doc.decision is None
    assert table.sent >= 2
    check_game(table, game, log)
    over = [m for n in table.names for m in table.received[n] if str(m["Subject"]).endswith("game over")]
    assert len(over) == 4
    text = over[0].get_body(preferencelist=("plain",)).get_content()
    # the mail tells the players the result the game file holds
    shown = subprocess.run([sys.executable, "-m", "koryo_pbm", "show", "games/teams", "--json"], cwd=table.tmp,
                           env={**os.environ, "KORYO_PBM_HOME": str(table.home)}, capture_output=True, text=True)
    final = json.loads(shown.stdout)
    scores = "scores: " + ", ".join(f"{p} {final['scores'][p]}" for p in table.names)
    winners = " and ".join(final["winners"]) + " win"
    assert f"{scores}; {winners}" in " ".join(text.split()), text
    # alice, bob (mutt) and carol (s-nail) were asked to move; dave never was
    assert table.sent_by == {"alice": 2, "bob": 1, "carol": 1, "dave": 0}



def test_a_complete_4_player_korsar_team_game_through_dovecot_and_postfix(judge_table, polled_dovecot):
    """From the deal to the end: every turn is a state mail to the player whose turn it is,
    answered by reply, mutt, s-nail or attachment, and a new state mail to the four."""
    table = judge_table(["alice", "bob", "carol", "dave"],
                        {"alice": "reply", "bob": "mutt", "carol": "s-nail", "dave": "attachment"}, polled_dovecot)
    game = table.new_game("crew", "--game", "korsar", "--team", "alice,bob", "--team", "carol,dave",
                          "--seed", "a-whole-korsar-game")
    table.start_judge()
    table.play(timeout=900)
    table.settle(timeout=60)
    log = table.stop_judge()
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(game / "game.toml")
    assert doc.decision is None and doc.seed == "a-whole-korsar-game"  # over, the seed published
    assert all(table.sent_by[n] >= 3 for n in table.names), table.sent_by
    check_game(table, game, log)
    assert len([m for n in table.names for m in table.received[n] if str(m["Subject"]).endswith("game over")]) == 4
