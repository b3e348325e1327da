"""Issue 31, item 3: two judges serve one community (``serve --shard K/N``), each with its own
ROOT and its own IMAP folder on one dovecot, the mail filed into ``shard-K`` by the Sieve rules of
``serve --sieve N`` (dovecot's Pigeonhole, run by its LDA as the mail system delivers). Two short
games (Korsar from its endgame), one per shard, played to the end by mail; a reply that lost its
game tag is filed into shard 1's folder, moved by its judge to shard 2's, and answered once."""

from __future__ import annotations

import email
import email.policy
import os
import re
import shutil
import ssl
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
import servers as servers_module
from imapclient import IMAPClient
from servers import DOMAIN, MAIL_UID, PASSWORD

from koryo_pbm.cli.main import main
from koryo_pbm.judge.shards import shard_of

REPO = Path(__file__).resolve().parents[2]
ENDGAME = REPO / "examples" / "positions" / "korsar-4-teams-endgame.toml"
NAMES = ("alice", "bob", "carol", "dave")


@pytest.fixture
def sieve_dovecot(mail_servers):
    reason = servers_module.sieve_missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (required under CI=true)")
        pytest.skip(reason)
    server = servers_module.Dovecot(mail_servers.root / f"dovecot-sieve-{os.getpid()}", mail_servers.base,
                                    mail_servers.cert, mail_servers.key, sieve=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def cli(*args) -> None:
    assert main([str(a) for a in args]) == 0, args


def test_two_judges_shard_one_community_by_sieve(mail_servers, sieve_dovecot, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KORYO_PBM_IMAP_PASSWORD", PASSWORD)
    monkeypatch.setenv("KORYO_PBM_SMTP_PASSWORD", PASSWORD)
    monkeypatch.chdir(tmp_path)
    judge = mail_servers.user("judge")
    users = {n: mail_servers.user(n) for n in NAMES}
    address = {n: f"{u}@{DOMAIN}" for n, u in users.items()}
    pubs = {}
    for n in ["mod", *NAMES]:
        cli("keygen", n)
        pubs[n] = (tmp_path / "home" / "keys" / f"{n}.pub").read_text().strip()
    # two games, one in each shard's ROOT (a game's shard is a hash of its random id)
    roots = {1: tmp_path / "shard1", 2: tmp_path / "shard2"}
    for r in roots.values():
        r.mkdir()
    made = 0
    while not all(any(r.iterdir()) for r in roots.values()):
        made += 1
        assert made < 40
        folder = tmp_path / f"g{made}"
        args = ["new", folder, "--as", "mod", "--game", "korsar", "--position", ENDGAME, "--seed", f"s{made}"]
        for n in NAMES:
            args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={address[n]}"]
        cli(*args)
        from koryo_pbm.store import gamefile

        k = shard_of(gamefile.read_header(folder / "game.toml").game_id, 2)
        if any(roots[k].iterdir()):
            shutil.rmtree(folder)
        else:
            folder.rename(roots[k] / folder.name)
    tags = {k: next(roots[k].iterdir()).name for k in roots}
    # the rules, made from a folder that sees every shard's games, installed as the judge's script
    seen = tmp_path / "all"
    seen.mkdir()
    for k, tag in tags.items():
        (seen / tag).symlink_to(roots[k] / tag)
    capsys.readouterr()
    cli("serve", seen, "--as", "mod", "--sieve", "2")
    rules = capsys.readouterr().out
    assert f'"[koryo-pbm {tags[2]}]"] {{ fileinto :create "shard-2"; stop; }}' in rules, rules
    script = mail_servers.maildir(judge) / ".dovecot.sieve"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(rules)
    for p in (script.parent, script):
        os.chown(p, MAIL_UID, MAIL_UID)
    context = ssl.create_default_context(cafile=str(mail_servers.ca))

    def imap():
        c = IMAPClient("127.0.0.1", sieve_dovecot.imaps_port, ssl_context=context)
        c.login(judge, PASSWORD)
        return c

    with imap() as c:
        for k in roots:
            c.create_folder(f"shard-{k}")

    def serve(k):
        cli("serve", roots[k], "--as", "mod", "--shard", f"{k}/2", "--once", "--log-file", tmp_path / f"judge{k}.log",
            "--imap", f"imaps://{judge}@127.0.0.1:{sieve_dovecot.imaps_port}/shard-{k}",
            "--smtp", f"smtps://{judge}@127.0.0.1:{mail_servers.postfix.smtps_port}", "--ca-file", mail_servers.ca,
            "--from", f"Koryo judge <{judge}@{DOMAIN}>")

    over: set[tuple[str, str]] = set()
    sent = receipts = 0
    untagged = None
    for _round in range(40):
        if len(over) == 2 * len(NAMES):
            break
        serve(1)
        serve(2)
        deadline = __import__("time").monotonic() + 30
        while not mail_servers.postfix.queue_empty():
            assert __import__("time").monotonic() < deadline
            __import__("time").sleep(0.02)
        for n in NAMES:
            box = mail_servers.maildir(users[n])
            new = sorted((box / "new").iterdir(), key=lambda p: (p.stat().st_mtime_ns, p.name)) if (box / "new").is_dir() else []
            for path in new:
                msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                os.rename(path, box / "cur" / (path.name + ":2,S"))
                subject = str(msg["Subject"])
                tag = re.match(r"\[koryo-pbm ([^\]]+)\]", subject).group(1)
                receipts += "BEGIN KORYO-PBM RECEIPT" in msg.get_body(preferencelist=("plain",)).get_content()
                if subject.endswith("game over"):
                    over.add((n, tag))
                    continue
                if not re.search(r": (the game starts, )?your (\w+ )?turn$", subject):
                    continue
                folder = tmp_path / "players" / n / tag
                folder.mkdir(parents=True, exist_ok=True)
                [part] = [p for p in msg.iter_attachments() if p.get_filename() == "game.toml"]
                (folder / "game.toml").write_bytes(part.get_payload(decode=True))
                for f in ("orders.toml", "envelope.txt"):
                    (folder / f).unlink(missing_ok=True)
                cli("orders", folder / "game.toml", "--as", n, "-o", folder / "orders.toml")
                cli("submit", folder / "orders.toml", "--as", n, "--game", folder / "game.toml", "--out",
                    folder / "envelope.txt")
                reply = EmailMessage()
                # the first reply for shard 2's game lost its tag (a new mail, not a reply): filed
                # into shard 1's folder by the rules' last line
                lost = untagged is None and tag == tags[2]
                reply["Subject"] = "my orders" if lost else f"Re: {subject}"
                if lost:
                    untagged = n
                reply["From"], reply["To"] = f"{n.title()} <{address[n]}>", f"{judge}@{DOMAIN}"
                reply["Date"] = format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
                reply["Message-ID"] = make_msgid(domain=DOMAIN)
                reply.set_content(f"Here are my orders:\n\n{(folder / 'envelope.txt').read_text()}\n")
                sieve_dovecot.deliver(judge, reply.as_bytes(), address[n])
                sent += 1
    assert len(over) == 2 * len(NAMES), (over, (tmp_path / "judge1.log").read_text()[-2000:])
    from koryo_pbm.store import gamefile

    for k, tag in tags.items():
        assert gamefile.read_game(roots[k] / tag / "game.toml").decision is None
        outbox = roots[k] / tag / "outbox"
        assert not list(outbox.glob("*.eml")) and not list((outbox / "failed").glob("*"))
    logs = {k: (tmp_path / f"judge{k}.log").read_text() for k in roots}
    assert untagged is not None
    # moved once by shard 1's judge, unanswered there; answered by shard 2's: one receipt per envelope
    assert len(re.findall(r"for shard 2's games: moved to shard-2, not answered here", logs[1])) == 1, logs[1]
    assert receipts == sent
    for k in roots:  # each judge served its own game only, and said nothing of the other
        assert tags[3 - k] not in logs[k].replace("shard-2", ""), logs[k]
    with imap() as c:
        assert c.select_folder("koryo-pbm/done", readonly=True)[b"EXISTS"] == sent
        for k in roots:
            assert c.select_folder(f"shard-{k}", readonly=True)[b"EXISTS"] == 0
        assert c.select_folder("INBOX", readonly=True)[b"EXISTS"] == 0
