"""SmtpSender against a real postfix: SMTPS, STARTTLS submission with login, plain only to
127.0.0.1, one connection for many mails, and failures as temporary or permanent SendErrors."""

from __future__ import annotations

import email
import email.policy
import time
from email.message import EmailMessage

import pytest
from servers import DOMAIN, PASSWORD, free_port

from koryo_pbm.errors import UsageError
from koryo_pbm.transport.senders import SendError
from koryo_pbm.transport.smtp import SmtpSender, smtp_password


def judge_mail(to: str, subject: str, attachment: bytes = b"", body: str = "Round 3: your turn.\n") -> bytes:
    m = EmailMessage()
    m["From"] = f"Judge <judge@{DOMAIN}>"
    m["To"] = to
    m["Subject"] = subject
    m.set_content(body)
    if attachment:
        m.add_attachment(attachment, maintype="application", subtype="toml", filename="game.toml")
    return m.as_bytes(policy=email.policy.SMTP)


def received(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def test_smtps_with_login_delivers_the_exact_attachment(mail_servers):
    judge, alice = mail_servers.user("judge"), mail_servers.user("alice")
    game = b'format = "koryo-pbm-game/v1"\r\nodd = "bytes \xc3\xa9 = and trailing spaces  "\n\n'
    sender = SmtpSender.from_url(f"smtps://{judge}@127.0.0.1:{mail_servers.postfix.smtps_port}", password=PASSWORD,
                                 ca_file=mail_servers.ca)
    try:
        # lines that begin with a dot (one alone would end the message: each is sent doubled)
        sender.send(judge_mail(f"{alice}@{DOMAIN}", "[koryo-pbm g] round 1: your turn", game,
                               body=".\nRound 3: your turn.\n.\n..two\n.end\n"),
                    sender=f"{judge}@{DOMAIN}", recipients=[f"{alice}@{DOMAIN}"])
    finally:
        sender.close()
    [raw] = mail_servers.delivered(alice, 1)
    got = received(raw)
    assert got["Subject"] == "[koryo-pbm g] round 1: your turn"
    assert got["Return-Path"] == f"<{judge}@{DOMAIN}>"
    [part] = list(got.iter_attachments())
    assert part.get_filename() == "game.toml" and part.get_content() == game
    assert got.get_body(("plain",)).get_content() == ".\nRound 3: your turn.\n.\n..two\n.end\n"
    assert "(using TLS" in got["Received"] or "with ESMTPSA" in got["Received"]


def test_starttls_submission_sends_many_mails_over_one_connection(mail_servers, monkeypatch):
    judge, bob = mail_servers.user("judge"), mail_servers.user("bob")
    monkeypatch.setenv("SSL_CERT_FILE", str(mail_servers.ca))
    sender = SmtpSender.from_url(f"smtp://{judge}@127.0.0.1:{mail_servers.postfix.submission_port}", password=PASSWORD)
    log_before = len(mail_servers.postfix.log.read_text())
    try:
        for n in range(30):
            sender.send(judge_mail(f"{bob}@{DOMAIN}", f"receipt {n}"), sender=f"{judge}@{DOMAIN}",
                        recipients=[f"{bob}@{DOMAIN}"])
    finally:
        sender.close()
    subjects = sorted(received(raw)["Subject"] for raw in mail_servers.delivered(bob, 30))
    assert subjects == sorted(f"receipt {n}" for n in range(30))
    log = mail_servers.postfix.log.read_text()[log_before:]
    assert log.count(f"sasl_username={judge}") == 30
    assert "starttls=1" in log and log.count("connect from localhost") - log.count("disconnect from") == 1


def test_plain_smtp_only_to_127_0_0_1(mail_servers):
    carol = mail_servers.user("carol")
    remote = SmtpSender.from_url(f"smtp://localhost:{mail_servers.postfix.plain_port}")
    with pytest.raises(SendError, match="offers no STARTTLS; koryo-pbm sends mail without TLS only to 127.0.0.1") as info:
        remote.send(judge_mail(f"{carol}@{DOMAIN}", "x"), sender=f"judge@{DOMAIN}", recipients=[f"{carol}@{DOMAIN}"])
    assert not info.value.permanent
    local = SmtpSender.from_url(f"smtp://127.0.0.1:{mail_servers.postfix.plain_port}")
    try:
        local.send(judge_mail(f"{carol}@{DOMAIN}", "plain is fine here"), sender=f"judge@{DOMAIN}",
                   recipients=[f"{carol}@{DOMAIN}"])
        # This port closes idle connections after 3 s: the next mail reconnects by itself.
        local._used -= 60
        time.sleep(3.5)
        local.send(judge_mail(f"{carol}@{DOMAIN}", "after the server hung up"), sender=f"judge@{DOMAIN}",
                   recipients=[f"{carol}@{DOMAIN}"])
    finally:
        local.close()
    assert sorted(received(r)["Subject"] for r in mail_servers.delivered(carol, 2)) == ["after the server hung up",
                                                                                        "plain is fine here"]


def test_unknown_recipient_is_permanent_wrong_password_and_outage_are_temporary(mail_servers):
    judge = mail_servers.user("judge")
    url = f"smtps://{judge}@127.0.0.1:{mail_servers.postfix.smtps_port}"
    sender = SmtpSender.from_url(url, password=PASSWORD, ca_file=mail_servers.ca)
    try:
        with pytest.raises(SendError, match=r"refused nobody-here@example.org: 550 .*User unknown") as info:
            sender.send(judge_mail(f"nobody-here@{DOMAIN}", "x"), sender=f"{judge}@{DOMAIN}",
                        recipients=[f"nobody-here@{DOMAIN}"])
        assert info.value.permanent
        # the connection is still good for the next mail
        dave = mail_servers.user("dave")
        sender.send(judge_mail(f"{dave}@{DOMAIN}", "still sending"), sender=f"{judge}@{DOMAIN}", recipients=[f"{dave}@{DOMAIN}"])
        assert mail_servers.delivered(dave, 1)
    finally:
        sender.close()
    wrong = SmtpSender.from_url(url, password="wrong", ca_file=mail_servers.ca)
    with pytest.raises(SendError, match=f"logging in as {judge} failed: 535") as info:
        wrong.send(judge_mail(f"x@{DOMAIN}", "x"), sender=f"{judge}@{DOMAIN}", recipients=[f"x@{DOMAIN}"])
    assert not info.value.permanent
    down = SmtpSender.from_url(f"smtps://{judge}@127.0.0.1:{free_port()}", password=PASSWORD, ca_file=mail_servers.ca)
    with pytest.raises(SendError, match="connecting to 127.0.0.1:.* failed: Connection refused") as info:
        down.send(judge_mail(f"x@{DOMAIN}", "x"), sender=f"{judge}@{DOMAIN}", recipients=[f"x@{DOMAIN}"])
    assert not info.value.permanent
    untrusted = SmtpSender.from_url(url, password=PASSWORD)
    with pytest.raises(SendError, match="certificate is not trusted") as info:
        untrusted.send(judge_mail(f"x@{DOMAIN}", "x"), sender=f"{judge}@{DOMAIN}", recipients=[f"x@{DOMAIN}"])
    assert not info.value.permanent


def test_header_injection_in_addresses_is_refused_before_anything_is_sent(mail_servers):
    sender = SmtpSender.from_url(f"smtp://127.0.0.1:{mail_servers.postfix.plain_port}")
    for bad in ("a@example.org\r\nRCPT TO:<b@example.org>", "<a@example.org>", "a b@example.org"):
        with pytest.raises(SendError, match="is not a mail address") as info:
            sender.send(b"Subject: x\r\n\r\nx\r\n", sender=f"judge@{DOMAIN}", recipients=[bad])
        assert info.value.permanent
    assert sender._conn is None


@pytest.mark.parametrize(("url", "message"), [
    ("smtps://judge:secret@mail.example.org", "never put it on the command line"),
    ("http://mail.example.org", "must start with smtps:// or smtp://"),
    ("smtps://judge@mail.example.org/INBOX", "has a path"),
    ("smtps://judge@", "names no server"),
])
def test_bad_smtp_urls_are_one_line_usage_errors(url, message):
    with pytest.raises(UsageError, match=message) as info:
        SmtpSender.from_url(url, password="x")
    assert "\n" not in str(info.value) and "secret" not in str(info.value)


def test_a_user_without_a_password_is_a_usage_error(monkeypatch):
    monkeypatch.delenv("KORYO_PBM_SMTP_PASSWORD", raising=False)
    with pytest.raises(UsageError, match=r"set \$KORYO_PBM_SMTP_PASSWORD"):
        SmtpSender.from_url("smtps://judge@mail.example.org")
    with pytest.raises(UsageError, match=r"set \$KORYO_PBM_SMTP_PASSWORD"):
        smtp_password()
    monkeypatch.setenv("KORYO_PBM_SMTP_PASSWORD", "pw")
    assert smtp_password() == "pw"
