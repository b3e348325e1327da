"""The judge's mail edges: a local Maildir as a source, a sendmail program as a sender."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.errors import StorageError
from koryo_pbm.transport import sources
from koryo_pbm.transport.senders import Sender, SendError, SendmailSender
from koryo_pbm.transport.sources import MaildirSource, Source


def maildir(root: Path) -> Path:
    for sub in ("new", "cur", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def deliver(box: Path, name: str, data: bytes, when: int, sub: str = "new") -> Path:
    path = box / sub / name
    path.write_bytes(data)
    os.utime(path, (when, when))
    return path


def test_maildir_source_yields_oldest_first_and_moves_handled_mail_to_done(tmp_path):
    box = maildir(tmp_path / "Mail")
    deliver(box, "2.M2.host", b"Subject: second\n\nb\n", 2000)
    deliver(box, "1.M1.host:2,S", b"Subject: first\n\na\n", 1000, sub="cur")
    src = MaildirSource(box)
    assert isinstance(src, Source)
    mails = list(src.fetch())
    assert [m.key for m in mails] == ["cur/1.M1.host:2,S", "new/2.M2.host"]
    assert mails[0].data == b"Subject: first\n\na\n" and not mails[0].truncated and mails[0].size == 18
    assert mails[1].label == f"Maildir {box}, new/2.M2.host"
    src.mark_handled(mails[0])
    src.mark_handled(mails[0])  # idempotent
    assert [m.key for m in src.fetch()] == ["new/2.M2.host"]
    done = box / ".koryo-pbm.done" / "cur"
    assert [p.name for p in done.iterdir()] == ["1.M1.host:2,S"]
    assert (done / "1.M1.host:2,S").read_bytes() == b"Subject: first\n\na\n"  # moved, never deleted


def test_maildir_source_reads_a_huge_mail_only_up_to_its_head(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAIL_LIMIT", 1000)
    box = maildir(tmp_path / "Mail")
    deliver(box, "big", b"Subject: big\n\n" + b"x" * 5000, 1)
    (mail,) = MaildirSource(box).fetch()
    assert mail.truncated and mail.size == 5014 and mail.data.startswith(b"Subject: big")
    assert len(mail.data) <= sources.HEAD_LIMIT


def test_maildir_source_skips_symlinks_folders_and_hidden_files(tmp_path):
    box = maildir(tmp_path / "Mail")
    secret = tmp_path / "secret"
    secret.write_text("the moderator's key")
    (box / "new" / "link").symlink_to(secret)
    (box / "new" / "folder").mkdir()
    (box / "new" / ".hidden").write_text("x")
    assert list(MaildirSource(box).fetch()) == []


def test_maildir_source_refuses_a_folder_that_is_not_a_maildir(tmp_path):
    with pytest.raises(StorageError, match="is not a Maildir"):
        MaildirSource(tmp_path)


def fake_sendmail(tmp_path: Path, exit_status: int = 0, message: str = "") -> tuple[Path, Path]:
    log = tmp_path / "sent"
    script = tmp_path / "sendmail"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"open({str(log)!r}, 'ab').write(repr(sys.argv[1:]).encode() + b'\\n' + sys.stdin.buffer.read() + b'\\n--\\n')\n"
        f"sys.stderr.write({message!r})\n"
        f"sys.exit({exit_status})\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


def test_sendmail_sender_passes_the_exact_bytes_and_envelope(tmp_path):
    script, log = fake_sendmail(tmp_path)
    sender = SendmailSender(script)
    assert isinstance(sender, Sender)
    data = b"From: judge@example.org\r\nTo: alice@example.org\r\nSubject: hi\r\n\r\n.\r\nbody\r\n"
    sender.send(data, sender="judge@example.org", recipients=["alice@example.org"])
    args, _, rest = log.read_bytes().partition(b"\n")
    assert args == b"['-i', '-f', 'judge@example.org', '--', 'alice@example.org']"
    assert rest == data + b"\n--\n"


@pytest.mark.parametrize(("status", "permanent"), [(75, False), (1, False), (67, True), (65, True)])
def test_sendmail_failures_say_whether_to_retry(tmp_path, status, permanent):
    script, _ = fake_sendmail(tmp_path, status, "no luck today\n")
    with pytest.raises(SendError, match=f"exit status {status}.*no luck today") as info:
        SendmailSender(script).send(b"x", sender="j@example.org", recipients=["a@example.org"])
    assert info.value.permanent is permanent


def test_sendmail_missing_program_and_hostile_addresses(tmp_path):
    with pytest.raises(SendError, match="no sendmail program at") as info:
        SendmailSender(tmp_path / "nope").send(b"x", sender="j@example.org", recipients=["a@example.org"])
    assert not info.value.permanent
    script, log = fake_sendmail(tmp_path)
    for bad in ["-oQ/tmp", "a@example.org\nb@example.org", "a b@example.org"]:
        with pytest.raises(SendError, match="is not a mail address") as info:
            SendmailSender(script).send(b"x", sender="j@example.org", recipients=[bad])
        assert info.value.permanent
    assert not log.exists()



@settings(max_examples=300)
@given(st.lists(st.sampled_from([b".", b"..", b"\r\n", b"\n", b"\r", b"a", b" .", b"=2E"]), max_size=40).map(b"".join))
def test_smtp_doubles_each_dot_that_begins_a_line_as_smtplib_does(msg):
    import smtplib

    from koryo_pbm.transport.smtp import dot_stuffed

    assert dot_stuffed(msg) == smtplib._quote_periods(msg)  # type: ignore[attr-defined]
