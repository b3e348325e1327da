"""A club game through the real mail servers (issue 18): the seats taken by mail, the game played
to the end by players who only read their mail (dovecot, postfix, ``koryo-pbm serve`` over IMAP
and SMTP), every mail command answered, press between two players that the moderator's key
cannot open, and the mail each player received (the figure of docs/moderators.md)."""

from __future__ import annotations

import re
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

import pytest
from servers import DOMAIN
from test_judge_by_mail import Table

TURN = re.compile(r": (the game starts, )?your (\w+ )?turn$|your turn: join the game$")
COMMANDS = ("help", "status", "resend", "history", "list")
# bytes per player for a whole joined game with its sign-up (the invitation carries the player page),
# commands and press: issue 18's goal, under 1 MB. 0.46 to 0.61 MB measured (5 runs) since the judge
# mails the player copy of the game file (the moderator's part as its digest); 1.00 to 1.77 MB before
# it, which depended on the deal (who acts when); 2.3 MB before --state-mail turn (see
# docs/moderators.md, "Light mail").
VOLUME_LIMIT = 1_000_000  # without the player page (7.8 MB since it carries the rules: counted apart)


class ClubTable(Table):
    """The players of a game made by invitation; they only read and answer their mail."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.bytes = dict.fromkeys(self.names, 0)
        self.pages = dict.fromkeys(self.names, 0)  # the player page attached (counted apart: 7.8 MB)

    def new_mail(self, name):
        import email
        from email import policy

        box = self.servers.maildir(self.users[name]) / "new"
        if box.is_dir():
            for p in box.iterdir():
                raw = p.read_bytes()
                size = len(raw)
                for part in email.message_from_bytes(raw, policy=policy.default).iter_attachments():
                    if part.get_filename() == "koryo-pbm-player-page.html":
                        self.pages[name] += 1
                        size -= len(part.as_bytes())
                self.bytes[name] += size
        return super().new_mail(name)

    def mail(self, name: str, subject: str, text: str, reply_to: EmailMessage | None = None) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"] = f"{name.title()} <{self.addresses[name]}>", f"{self.judge}@{DOMAIN}"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
        msg["Message-ID"] = make_msgid(domain=DOMAIN)
        if reply_to is not None:
            msg["In-Reply-To"] = str(reply_to["Message-ID"])
        msg.set_content(text)
        self.mailer.send(msg)
        self.sent += 1

    def wait_for(self, name: str, pattern: str, timeout: float = 60) -> EmailMessage:
        deadline = time.monotonic() + timeout
        while True:
            for msg in self.received[name]:
                if re.search(pattern, str(msg["Subject"])):
                    self.received[name].remove(msg)
                    self.seen.append((name, msg))
                    return msg
            assert time.monotonic() < deadline, f"no mail {pattern!r} for {name}:\n{self.judge_log.read_text()[-3000:]}"
            self.received[name] += self.new_mail(name)
            time.sleep(0.02)

    def play_turns(self, timeout: float, during=None) -> None:
        """Answer every mail that says it is the player's turn until each has had the game over."""
        deadline = time.monotonic() + timeout
        while len(self.over) < len(self.names):
            assert self.judge_proc is not None and self.judge_proc.poll() is None, self.judge_log.read_text()[-3000:]
            assert time.monotonic() < deadline, f"the game did not end in time:\n{self.judge_log.read_text()[-3000:]}"
            idle = True
            for name in self.names:
                for msg in [*self.received[name], *self.new_mail(name)]:
                    idle = False
                    self.seen.append((name, msg))
                    subject = str(msg["Subject"])
                    if subject.endswith("game over"):
                        self.over.add(name)
                    elif TURN.search(subject):
                        self.answer(name, msg)
                        if during is not None:
                            during(name, subject)
                self.received[name] = []
            if idle:
                time.sleep(0.02)


def body(msg) -> str:
    return " ".join(msg.get_body(preferencelist=("plain",)).get_content().split())


@pytest.fixture
def club(mail_servers, mailer, tmp_path, monkeypatch, polled_dovecot):
    # the judge polls a dovecot without IDLE (see polled_dovecot): the game waits no 500 ms per mail
    table = ClubTable(mail_servers, mailer, tmp_path, monkeypatch, ["alice", "bob", "carol"],
                      {"alice": "reply", "bob": "attachment", "carol": "mutt"}, polled_dovecot)
    table.seen = []
    yield table
    if table.judge_proc is not None and table.judge_proc.poll() is None:
        table.judge_proc.kill()
        table.judge_proc.wait()


def test_a_club_game_signed_up_played_and_talked_over_by_real_mail(club):
    t = club
    from koryo_pbm.crypto.keys import PublicIdentity
    from koryo_pbm.crypto.press import scan_press
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store.keyring import find_identity

    (t.tmp / "games").mkdir()
    t.cli("new", "games/club", "--as", "mod", *[a for n in t.names for a in ("--invite", f"{n}={t.addresses[n]}")])
    t.start_judge()
    # each invitee answers the invitation with the key line keygen printed, and compares the fingerprint
    for name in t.names:
        invitation = t.wait_for(name, r"\] invitation: seat ")
        assert f"koryo-pbm keygen {name}" in body(invitation)
        assert "Your cards are sealed to your key: only you and the moderator, who deals them, can see them." \
            in body(invitation)
        t.mail(name, f"Re: {invitation['Subject']}", f"My key:\n{t.pubs[name]}\n", reply_to=invitation)
    for name in t.names:
        taken = t.wait_for(name, r"\] seat \w+ taken, fingerprint ")
        assert str(taken["Subject"]).endswith(PublicIdentity.parse(t.pubs[name]).fingerprint())

    # the game is made and played to the end; on bob's first turn he tries every command, and
    # alice writes to bob
    asked: list[str] = []

    def during(name: str, subject: str) -> None:
        if name == "bob" and "help" not in asked and "join" not in subject:
            for word in COMMANDS:
                t.mail("bob", f"[koryo-pbm club] {word}", f"{word}\n")
                asked.append(word)
        if name == "alice" and not any(w == "press" for w in asked) and "join" not in subject:
            game = t.tmp / "players" / "alice" / "game.toml"
            t.cli("say", game, "Bob, shall we leave the east to Carol?", "--as", "alice", "--to", "bob",
                  "--out", t.tmp / "press.txt")
            t.mail("alice", "[koryo-pbm club] a word", (t.tmp / "press.txt").read_text())
            asked.append("press")

    t.play_turns(timeout=300, during=during)
    t.settle(timeout=60)
    for name in t.names:
        t.seen += [(name, m) for m in t.received[name]]
    log = t.stop_judge()
    assert "Traceback" not in log
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(t.tmp / "games" / "club" / "game.toml")
    assert doc.decision is None and doc.deal == "joined"
    bob = {str(m["Subject"]): m for n, m in t.seen if n == "bob"}
    for word in COMMANDS:
        assert any(s.startswith(f"[koryo-pbm club] {word}") for s in bob), (word, sorted(bob))
    resend = next(m for s, m in bob.items() if s.startswith("[koryo-pbm club] resend"))
    assert any(p.get_filename() == "game.toml" for p in resend.iter_attachments())
    history = next(m for s, m in bob.items() if s == "[koryo-pbm club] history")
    assert "bob joined" in body(history) and "the cards were dealt from the moderator's committed secret" in \
        body(history), body(history)
    listing = next(m for s, m in bob.items() if s == "[koryo-pbm club] list")
    assert "* [koryo-pbm club] (Koryo) as bob:" in body(listing)
    # one wording of who is awaited (the words of show and status), and the steps a player reads
    status = next(m for s, m in bob.items() if s == "[koryo-pbm club] status")
    assert re.search(r"\(\w+\): waiting for [a-z, ]+( \([a-z, ]+ answered\))?\. ", body(status)), body(status)
    turn = next(m for s, m in bob.items() if re.search(r"round \d+: your orders turn$", s))
    assert "koryo-pbm play club/game.toml --as bob --out orders.txt" in body(turn)
    # the page first: the steps for someone who never opened a terminal, the command line after them
    assert body(turn).index("Open the player page in your browser") < body(turn).index("If you use the command line")
    # the game over mail says to save its file over the last one, and the commands it gives then work
    over = next(m for s, m in bob.items() if s.endswith("game over"))
    assert "save it as club/game.toml (over the one you have)." in body(over)
    assert "The final game file is attached: open it in your player page" in body(over)
    final = next(p for p in over.iter_attachments() if p.get_filename() == "game.toml").get_payload(decode=True)
    (t.tmp / "players" / "bob" / "club").mkdir(exist_ok=True)
    (t.tmp / "players" / "bob" / "club" / "game.toml").write_bytes(final)
    t.cli("verify", t.tmp / "players" / "bob" / "club" / "game.toml", "--as", "bob")
    # the press: relayed to bob only, read by bob from the saved mail; the moderator's key cannot open it
    relayed = [m for n, m in t.seen if str(m["Subject"]) == "[koryo-pbm club] press from alice"]
    assert [n for n, m in t.seen if str(m["Subject"]) == "[koryo-pbm club] press from alice"] == ["bob"]
    saved = t.tmp / "players" / "bob" / "press.eml"
    saved.write_bytes(relayed[0].as_bytes())
    t.cli("read", saved, "--as", "bob", "--game", t.tmp / "players" / "bob" / "game.toml")
    (press,) = scan_press(relayed[0].get_body(preferencelist=("plain",)).get_content())
    with pytest.raises(KoryoPbmError):
        press.open(find_identity("mod", None), "bob", find_identity("alice", None).public)
    assert b"leave the east" not in (t.tmp / "games" / "club" / "game.toml").read_bytes()
    # the mail each player received for the whole game, sign-up included
    print(f"\nmail per player, a whole 3-player club game by real mail: {t.bytes} without the player "
          f"page, attached {t.pages} times")
    assert all(v < VOLUME_LIMIT for v in t.bytes.values()), t.bytes
    assert all(n <= 1 for n in t.pages.values()), t.pages  # the 7.8 MB page once a player at most
