"""ImapSource against a real dovecot: TLS, STARTTLS, folders, IDLE and polling, moving handled mail,
large mail, and servers that fail."""

from __future__ import annotations

import os
import re
import ssl
import threading
import time
from email.message import EmailMessage

import pytest
from imapclient import IMAPClient
from servers import DOMAIN, PASSWORD, free_port

from koryo_pbm.errors import UsageError
from koryo_pbm.transport.imap import ImapSource, imap_password
from koryo_pbm.transport.sources import HEAD_LIMIT, MAIL_LIMIT, SourceError


def mail(sender: str, to: str, subject: str, body: str = "hello\n") -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, to, subject
    m.set_content(body)
    return m


def source(servers, user, *, scheme="imaps", port=None, **kw) -> ImapSource:
    port = port or (servers.dovecot.imaps_port if scheme == "imaps" else servers.dovecot.imap_port)
    return ImapSource.from_url(f"{scheme}://{user}@127.0.0.1:{port}/INBOX", password=PASSWORD,
                               ca_file=servers.ca, **kw)


def folder_subjects(servers, user, folder) -> list[str]:
    with IMAPClient("127.0.0.1", servers.dovecot.imaps_port, ssl_context=ssl.create_default_context(cafile=str(servers.ca))) as c:
        c.login(user, PASSWORD)
        c.select_folder(folder, readonly=True)
        found = c.fetch(c.search("ALL"), ["BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])
        return sorted(v[b"BODY[HEADER.FIELDS (SUBJECT)]"].decode().split(":", 1)[1].strip() for v in found.values())


def deliver(mailer, servers, user, subjects, sender="alice1"):
    """Each mail delivered before the next is sent: they arrive in this order."""
    already = len(servers.delivered(user, 0))
    for n, s in enumerate(subjects, 1):
        mailer.send(mail(mailer.address(sender), mailer.address(user), s))
        servers.delivered(user, already + n)


def test_imaps_fetches_every_mail_oldest_first_and_moves_handled_mail_to_koryo_pbm_done(mail_servers, mailer):
    judge = mail_servers.user("judge")
    deliver(mailer, mail_servers, judge, ["first", "second", "third"])
    src = source(mail_servers, judge)
    try:
        got = list(src.fetch())
        assert [re.search(rb"Subject: (\w+)", m.data).group(1) for m in got] == [b"first", b"second", b"third"]
        assert all(not m.truncated and m.size == len(m.data) for m in got)
        assert len({m.key for m in got}) == 3 and all(m.label.startswith(f"imaps://{judge}@127.0.0.1") for m in got)
        src.mark_handled(got[0])
        src.mark_handled(got[0])  # again: no error, nothing else moves
        assert [m.key for m in src.fetch()] == [got[1].key, got[2].key]
    finally:
        src.close()
    assert folder_subjects(mail_servers, judge, "koryo-pbm/done") == ["first"]
    assert folder_subjects(mail_servers, judge, "INBOX") == ["second", "third"]
    # A judge killed before marking sees the unmarked mail again, under the same key.
    again = source(mail_servers, judge)
    try:
        assert [m.key for m in again.fetch()] == [got[1].key, got[2].key]
    finally:
        again.close()


def test_imap_url_upgrades_with_starttls_and_trusts_the_ca_from_ssl_cert_file(mail_servers, mailer, monkeypatch):
    judge = mail_servers.user("judge")
    deliver(mailer, mail_servers, judge, ["over starttls"])
    monkeypatch.setenv("SSL_CERT_FILE", str(mail_servers.ca))
    src = ImapSource.from_url(f"imap://{judge}@127.0.0.1:{mail_servers.dovecot.imap_port}/INBOX", password=PASSWORD)
    try:
        [m] = list(src.fetch())
        assert b"Subject: over starttls" in m.data
        assert isinstance(src._client.socket(), ssl.SSLSocket)  # the password went over TLS
    finally:
        src.close()


def test_an_untrusted_certificate_is_refused_before_the_password_is_sent(mail_servers, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    judge = mail_servers.user("judge")
    log_before = mail_servers.dovecot.log.read_text()
    for scheme, port in (("imaps", mail_servers.dovecot.imaps_port), ("imap", mail_servers.dovecot.imap_port)):
        src = ImapSource.from_url(f"{scheme}://{judge}@127.0.0.1:{port}/INBOX", password=PASSWORD)
        with pytest.raises(SourceError, match="certificate is not trusted.*--ca-file"):
            list(src.fetch())
        src.close()
    assert f"user=<{judge}>" not in mail_servers.dovecot.log.read_text()[len(log_before):]


def test_plain_imap_only_to_127_0_0_1_and_then_polling_and_copy_delete_expunge(mail_servers, bare_dovecot, mailer):
    """A server that offers no TLS, IDLE or MOVE: fine on 127.0.0.1 only; polled; COPY + delete."""
    judge = mail_servers.user("judge")
    deliver(mailer, mail_servers, judge, ["old server", "stays"])
    remote = ImapSource.from_url(f"imap://{judge}@localhost:{bare_dovecot.imap_port}/INBOX", password=PASSWORD)
    with pytest.raises(SourceError, match="offers no STARTTLS; koryo-pbm sends a password without TLS only to 127.0.0.1"):
        list(remote.fetch())
    src = ImapSource.from_url(f"imap://{judge}@127.0.0.1:{bare_dovecot.imap_port}/INBOX", password=PASSWORD, poll=0.2)
    try:
        first, second = list(src.fetch())
        assert not src._client.has_capability("IDLE") and not src._client.has_capability("MOVE")
        src.mark_handled(first)
        start = time.monotonic()
        src.wait(30)  # no IDLE: waits one polling interval, not the whole timeout
        assert time.monotonic() - start < 10
        assert [m.key for m in src.fetch()] == [second.key]
    finally:
        src.close()
    assert folder_subjects(mail_servers, judge, "koryo-pbm/done") == ["old server"]
    assert folder_subjects(mail_servers, judge, "INBOX") == ["stays"]


def test_without_idle_mail_delivered_after_a_fetch_is_found_by_the_next_poll(mail_servers, bare_dovecot, mailer):
    """Polling a server without IDLE on the connection kept open: mail that postfix delivers after a
    fetch is in the next fetch after one polling interval, not seconds later (dovecot does not look
    at a Maildir again for a SEARCH within 5 s of its last full look; a NOOP makes it look)."""
    judge = mail_servers.user("judge")
    src = ImapSource.from_url(f"imap://{judge}@127.0.0.1:{bare_dovecot.imap_port}/INBOX", password=PASSWORD, poll=0.1)
    try:
        assert list(src.fetch()) == []
        assert not src._client.has_capability("IDLE")
        kept = src._client
        deliver(mailer, mail_servers, judge, ["after the first fetch"])
        start = time.monotonic()
        src.wait(30)
        got = list(src.fetch())
        took = time.monotonic() - start
        assert src._client is kept  # the same connection, not a reconnect that looks afresh
        assert [b"Subject: after the first fetch" in m.data for m in got] == [True], f"not found after {took:.2f} s"
    finally:
        src.close()


def test_idle_wakes_the_judge_when_mail_arrives(mail_servers, mailer):
    judge = mail_servers.user("judge")
    src = source(mail_servers, judge)
    try:
        assert list(src.fetch()) == []
        assert src._client.has_capability("IDLE")
        timer = threading.Timer(1.0, lambda: mailer.send(mail(mailer.address("bob1"), mailer.address(judge), "wake up")))
        timer.start()
        start = time.monotonic()
        src.wait(120)
        waited = time.monotonic() - start
        timer.join()
        assert waited < 60, "IDLE did not report the new mail"
        servers_seen = mail_servers.delivered(judge, 1)
        assert servers_seen
        deadline = time.monotonic() + 10
        got = []
        while not got and time.monotonic() < deadline:
            got = list(src.fetch())
        assert b"Subject: wake up" in got[0].data
        # Mail that came while the judge was busy (not idling) does not wait for the next IDLE timeout.
        mailer.send(mail(mailer.address("bob1"), mailer.address(judge), "while busy"))
        mail_servers.delivered(judge, 2)
        start = time.monotonic()
        src.wait(120)
        assert time.monotonic() - start < 60
    finally:
        src.close()


def test_a_34_mb_mail_is_not_downloaded_only_its_head(mail_servers, mailer):
    judge = mail_servers.user("judge")
    deliver(mailer, mail_servers, judge, ["small before"])
    big = mail(mailer.address("mallory1"), mailer.address(judge), "huge attachment")
    big.add_attachment(os.urandom(25 * 1024 * 1024), maintype="application", subtype="octet-stream", filename="big.bin")
    mailer.send(big)
    mailer.send(mail(mailer.address("alice1"), mailer.address(judge), "small after"))
    assert len(mail_servers.delivered(judge, 3, timeout=180)) == 3
    log_before = len(mail_servers.dovecot.log.read_text())
    src = source(mail_servers, judge)
    try:
        got = list(src.fetch())
    finally:
        src.close()
    assert [m.truncated for m in got] == [False, True, False]
    huge = got[1]
    assert huge.size > MAIL_LIMIT > len(huge.data) and len(huge.data) <= HEAD_LIMIT
    assert b"Subject: huge attachment" in huge.data
    # dovecot's own count of the bytes it sent this session (logged at logout): well under a megabyte
    pattern = re.compile(r"imap\(" + judge + r"\).*Logged out in=\d+ out=(\d+)")
    deadline = time.monotonic() + 60
    while not (sent := pattern.findall(mail_servers.dovecot.log.read_text()[log_before:])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sent and max(int(n) for n in sent) < 1024 * 1024


def test_many_mails_come_in_bounded_batches_all_of_them(mail_servers):
    judge = mail_servers.user("judge")
    with IMAPClient("127.0.0.1", mail_servers.dovecot.imaps_port, ssl_context=ssl.create_default_context(cafile=str(mail_servers.ca))) as c:
        c.login(judge, PASSWORD)
        for n in range(250):
            c.append("INBOX", f"From: p@{DOMAIN}\r\nSubject: n{n}\r\n\r\nbody {n}\r\n".encode())
    src = source(mail_servers, judge)
    try:
        got = list(src.fetch())
        assert [re.search(rb"Subject: (n\d+)", m.data).group(1).decode() for m in got] == [f"n{n}" for n in range(250)]
        for m in got[:200]:
            src.mark_handled(m)
        assert len(list(src.fetch())) == 50
    finally:
        src.close()


def test_wrong_password_unreachable_server_and_missing_folder_are_source_errors(mail_servers):
    judge = mail_servers.user("judge")
    bad = ImapSource.from_url(f"imaps://{judge}@127.0.0.1:{mail_servers.dovecot.imaps_port}/INBOX", password="wrong",
                              ca_file=mail_servers.ca)
    with pytest.raises(SourceError, match=f"logging in as {judge} failed: .*AUTHENTICATIONFAILED"):
        list(bad.fetch())
    down = ImapSource.from_url(f"imaps://{judge}@127.0.0.1:{free_port()}/INBOX", password=PASSWORD, ca_file=mail_servers.ca)
    with pytest.raises(SourceError, match="connecting to 127.0.0.1:.* failed: Connection refused"):
        list(down.fetch())
    down.wait(0.1)  # waiting on a broken source is not an error either
    missing = ImapSource.from_url(f"imaps://{judge}@127.0.0.1:{mail_servers.dovecot.imaps_port}/Nowhere",
                                  password=PASSWORD, ca_file=mail_servers.ca)
    with pytest.raises(SourceError, match="opening the folder Nowhere failed"):
        list(missing.fetch())
    for s in (bad, down, missing):
        s.close()


def test_a_dropped_connection_is_a_source_error_and_the_next_fetch_reconnects(mail_servers, mailer):
    judge = mail_servers.user("judge")
    deliver(mailer, mail_servers, judge, ["before the drop"])
    src = source(mail_servers, judge)
    try:
        [m] = list(src.fetch())
        src.mark_handled(m)
        src._client.socket().shutdown(2)  # the network goes away under the judge
        with pytest.raises(SourceError):
            list(src.fetch())  # the move of the handled mail fails with it
        [again] = list(src.fetch())  # handled again (the judge is idempotent), moved this time
        assert again.key == m.key
        src.mark_handled(again)
        assert list(src.fetch()) == []
    finally:
        src.close()


@pytest.mark.parametrize(("url", "message"), [
    ("imaps://judge:secret@mail.example.org/INBOX", "never put it on the command line"),
    ("pop3://judge@mail.example.org/", "must start with imaps:// or imap://"),
    ("imaps:///INBOX", "names no server"),
    ("imaps://mail.example.org/INBOX", "names no user"),
    ("imaps://judge@mail.example.org:99999/INBOX", "cannot be read"),
])
def test_bad_imap_urls_are_one_line_usage_errors(url, message):
    with pytest.raises(UsageError, match=message) as info:
        ImapSource.from_url(url, password="x")
    assert "\n" not in str(info.value)
    assert "secret" not in str(info.value)


def test_the_imap_password_comes_from_a_file_or_the_environment_only(tmp_path, monkeypatch):
    monkeypatch.delenv("KORYO_PBM_IMAP_PASSWORD", raising=False)
    with pytest.raises(UsageError, match=r"set \$KORYO_PBM_IMAP_PASSWORD or give a password file"):
        imap_password()
    monkeypatch.setenv("KORYO_PBM_IMAP_PASSWORD", "from-env")
    assert imap_password() == "from-env"
    (tmp_path / "pw").write_text("from file\nignored\n")
    assert imap_password(tmp_path / "pw") == "from file"
    with pytest.raises(UsageError, match="no IMAP password file at"):
        imap_password(tmp_path / "nope")


def test_a_large_mail_is_fetched_in_pieces_byte_exact(mail_servers, monkeypatch):
    """A message over PIECE is fetched alone, PIECE bytes at a time (the judge's memory for it is
    about twice its size, not several times), and comes out exactly as the server holds it,
    whether its size is a multiple of PIECE or not; the small ones around it in their batch."""
    from koryo_pbm.transport import imap

    monkeypatch.setattr(imap, "PIECE", 64 * 1024)
    judge = mail_servers.user("judge")
    head = f"From: p@{DOMAIN}\r\nSubject: big\r\n\r\n".encode()
    bodies = [head + os.urandom(300_000).hex().encode()[: 3 * 64 * 1024 - len(head)],  # exactly 3 pieces
              head + b"x\r\n" * 70_000]
    with IMAPClient("127.0.0.1", mail_servers.dovecot.imaps_port, ssl_context=ssl.create_default_context(cafile=str(mail_servers.ca))) as c:
        c.login(judge, PASSWORD)
        c.append("INBOX", f"From: p@{DOMAIN}\r\nSubject: small\r\n\r\nhi\r\n".encode())
        for b in bodies:
            c.append("INBOX", b)
    src = source(mail_servers, judge)
    try:
        got = list(src.fetch())
    finally:
        src.close()
    assert [m.data for m in got[1:]] == bodies and b"Subject: small" in got[0].data
    assert not any(m.truncated for m in got)
