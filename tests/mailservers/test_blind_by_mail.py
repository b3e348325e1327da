"""A blind game through the judge over real mail (issue 20): the moderator's ``serve`` reads
its IMAP folder on dovecot and sends through postfix; the co-dealer is ``serve --as carl
--co-dealer`` on its own machine (its own key home) and mailbox, over IMAP and SMTP too; the
players, the moderator's own seat among them, only read their mail and answer it. At the end
``verify`` audits the final file the players were mailed, and no mail any player received
carries a hidden card in clear.

A 2-player Koryo game (dora: the moderator's own seat). The judge and the co-dealer both poll a
dovecot without IDLE (``polled_dovecot``, see tests/mailservers/conftest.py). The blind Korsar team game through the
judge is tests/judge/test_judge_blind_korsar.py, by Maildir: about 120 turns, minutes at the
latency of real mail."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from blind_checks import card_words, pairs
from servers import DOMAIN, PASSWORD
from test_judge_by_mail import Table, receipts_of

from koryo_pbm.cli.main import main


def _koryo_cards() -> tuple[str, ...]:
    from koryo_pbm_games.koryo.cards import CARD_IDS

    return CARD_IDS


NAMES = ["alice", "dora"]  # dora: the moderator's own seat


def _run(*args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    assert code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({code})"
    return out.getvalue()


class BlindTable(Table):
    """A :class:`Table` with a co-dealer: carl's key in a home of its own, a mailbox, a serve."""

    def __init__(self, servers, mailer, tmp_path, monkeypatch, names, habits, dovecot=None):
        super().__init__(servers, mailer, tmp_path, monkeypatch, names, habits, dovecot)
        self.carl_home = tmp_path / "carl-home"
        self.carl_user = servers.user("erin")
        self.carl_address = f"{self.carl_user}@{DOMAIN}"
        monkeypatch.setenv("KORYO_PBM_HOME", str(self.carl_home))
        self.cli("keygen", "carl")
        monkeypatch.setenv("KORYO_PBM_HOME", str(self.home))
        self.carl_pub = (self.carl_home / "keys" / "carl.pub").read_text().strip()
        self.co_dealer_proc: subprocess.Popen | None = None
        self.co_dealer_told = False
        self.hands: dict[str, str] = {}  # every hidden slot a player was seen holding -> its card

    def start_co_dealer(self) -> None:
        s = self.servers
        (self.tmp / "dealt").mkdir()
        env = {**os.environ, "KORYO_PBM_HOME": str(self.carl_home), "KORYO_PBM_IMAP_PASSWORD": PASSWORD,
               "KORYO_PBM_SMTP_PASSWORD": PASSWORD}
        self.co_dealer_log = self.tmp / "co-dealer.log"
        with open(self.co_dealer_log, "wb") as log:
            self.co_dealer_proc = subprocess.Popen(
                [sys.executable, "-m", "koryo_pbm", "serve", "dealt", "--as", "carl", "--co-dealer",
                 "--imap", f"imaps://{self.carl_user}@127.0.0.1:{self.dovecot.imaps_port}/INBOX",
                 "--smtp", f"smtps://{self.carl_user}@127.0.0.1:{s.postfix.smtps_port}", "--ca-file", str(s.ca),
                 "--from", f"Carl (co-dealer) <{self.carl_address}>", "--poll", self.poll, "--retry", "1"],
                cwd=self.tmp, env=env, stdout=log, stderr=subprocess.STDOUT)

    def tell_co_dealer_to_stop(self) -> None:
        """SIGTERM, once: a second one while ``serve`` closes its connections ends it by the
        signal, before it says it stopped: not what this test looks at."""
        assert self.co_dealer_proc is not None
        if not self.co_dealer_told:
            self.co_dealer_proc.send_signal(signal.SIGTERM)
            self.co_dealer_told = True

    def stop_co_dealer(self) -> str:
        assert self.co_dealer_proc is not None
        self.tell_co_dealer_to_stop()
        code = self.co_dealer_proc.wait(30)
        text = self.co_dealer_log.read_text()
        assert code == 0 and "Traceback" not in text, text[-3000:]
        return text

    def done_subjects(self, user: str) -> list[str]:
        """The subjects of the mails in ``user``'s IMAP folder koryo-pbm/done."""
        import ssl

        from imapclient import IMAPClient

        with IMAPClient("127.0.0.1", self.servers.dovecot.imaps_port,
                        ssl_context=ssl.create_default_context(cafile=str(self.servers.ca))) as c:
            c.login(user, PASSWORD)
            c.select_folder("koryo-pbm/done", readonly=True)
            found = c.fetch(c.search(), ["BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])
        return [" ".join(v[b"BODY[HEADER.FIELDS (SUBJECT)]"].decode().split()).removeprefix("Subject: ")
                for v in found.values()]

    def answer(self, name, msg) -> None:
        super().answer(name, msg)
        # the hand the player holds now, as only the player's key opens it
        shown = json.loads(_run("show", self.tmp / "players" / name / "game.toml", "--as", name, "--json"))
        self.hands.update(shown.get("cards") or {})  # (a blind game's hidden slots)


@pytest.fixture
def blind_table(mail_servers, mailer, tmp_path, monkeypatch, polled_dovecot):
    tables = []

    def make(names, habits):
        t = BlindTable(mail_servers, mailer, tmp_path, monkeypatch, names, habits, polled_dovecot)
        tables.append(t)
        return t

    yield make
    for t in tables:
        for proc in (t.judge_proc, t.co_dealer_proc):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def _no_hand_in_clear(table: BlindTable, final_log: list, cards: tuple[str, ...]) -> int:
    """What every mail a player received carries: a text and at most the signed game file. The
    text names no card the public log did not name by then; the game file's clear part (all but
    its sealed parts) holds no hidden slot with its card. Returns how many mails were checked."""
    import tomllib

    checked = 0
    for name in table.names:
        for msg in table.received[name]:
            names = [p.get_filename() for p in msg.iter_attachments()]
            assert set(names) <= {"game.toml", "koryo-pbm-player-page.html"}, names  # the page: first mail
            text = msg.get_body(preferencelist=("plain",)).get_content()
            version = re.search(r", version (\d+), for ", text)
            if version is not None:  # a state mail: it tells what happened, from the public log
                public = sum((card_words(json.dumps(e.get("events", [])), cards) for e in final_log
                              if int(e.get("version", 0)) <= int(version.group(1))), Counter())
                named = card_words(text, cards)
                assert not (named - public), (str(msg["Subject"]), named - public)
            if "game.toml" in names:
                [part] = [p for p in msg.iter_attachments() if p.get_filename() == "game.toml"]
                doc = tomllib.loads(part.get_payload(decode=True).decode())
                doc.pop("sealed", None)
                revealed = {r["slot"] for r in doc["public"]["blind"]["reveals"]}
                leaked = [(k, v) for k, v in pairs(doc) if isinstance(k, str) and k not in revealed
                          and table.hands.get(k) == v]
                assert not leaked, (leaked[:3], str(msg["Subject"]))
            checked += 1
    return checked


def test_a_blind_game_through_dovecot_and_postfix_with_the_co_dealer_by_mail(blind_table):
    names, cards = NAMES, _koryo_cards  # the card ids no mail may name before the public log does
    table = blind_table(names, dict.fromkeys(names, "reply") | {names[-1]: "attachment"})
    folder = table.new_game("blind", "--game", "koryo", "--blind", "--co-dealer", f"carl={table.carl_pub}",
                            "--email", f"carl={table.carl_address}")
    table.start_judge()
    table.start_co_dealer()
    started = time.monotonic()
    table.play(timeout=300)
    print(f"\na blind {len(names)}-player koryo game through local mail: {time.monotonic() - started:.1f} s, "
          f"{table.sent} player envelopes (measured side by side with an open game: benchmarks/bench_blind_mail.py)")
    table.settle()
    # both told to stop at once: each ends its wait (up to its --poll) at the same time
    table.tell_co_dealer_to_stop()
    log = table.stop_judge()
    carl_log = table.stop_co_dealer()
    assert f"@127.0.0.1:{table.dovecot.imaps_port}/INBOX" in log and f"reading imaps://{table.carl_user}@127.0.0.1:" \
        f"{table.dovecot.imaps_port}/INBOX" in carl_log  # both polled the dovecot without IDLE
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(folder / "game.toml")
    assert doc.decision is None and doc.deal == "blind"
    # the co-dealer answered each of its decisions once, by mail, and was mailed nothing else
    asked = re.findall(r"carl's envelope for (\S+) of blind: accepted", log)
    assert asked[0] == "keys" and asked[-1] == "end" and len(asked) > 10, asked
    assert set(asked) <= {e["decision"] for e in doc.log}
    answered = re.findall(r"co-dealer carl: answered (\S+) of game ", carl_log)
    assert answered == asked, (answered, asked)
    assert log.count("carl's envelope for ") == len(asked)  # none refused, late or duplicate
    mailed = table.done_subjects(table.carl_user)
    assert len(mailed) == len(asked) and all(s.endswith("your deal turn") for s in mailed), mailed
    sent = list((table.tmp / "dealt" / doc.game_id / "outbox" / "sent").iterdir())
    assert len(sent) == len(asked) and all(b"\r\nAuto-Submitted: auto-replied\r\n" in p.read_bytes() for p in sent)
    # the judge handled every mail (players' and co-dealer's), answered each player's with a receipt
    assert table.judge_folder("koryo-pbm/done") == table.sent + len(asked)
    assert len([r for n in names for r in receipts_of(table.received[n])]) == table.sent
    assert all(table.sent_by[n] >= 3 for n in names), table.sent_by
    # the final file the players were mailed: verify's audit of the blind table passes
    over = [m for m in table.received[names[0]] if str(m["Subject"]).endswith("game over")]
    final = table.tmp / "players" / names[0] / "final.toml"
    final.write_bytes(next(p for p in over[-1].iter_attachments()).get_payload(decode=True))
    report = json.loads(_run("verify", final, "--json"))
    checks = {c["check"]: c for c in report["checks"]}
    assert report["ok"], report
    assert " shuffled by mod and carl, " in checks["blind"]["detail"], checks["blind"]
    # no mail to a player carries a hidden card in clear
    assert len(table.hands) > 20
    assert _no_hand_in_clear(table, doc.log, cards()) == sum(len(table.received[n]) for n in names)
