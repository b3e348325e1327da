"""Players' mail as mail clients really write it, through postfix and dovecot to the judge's IMAP
folder: every style still carries the player's envelope, byte for byte, to the judge's reader."""

from __future__ import annotations

import base64
import quopri
from email.message import EmailMessage
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from servers import PASSWORD

from koryo_pbm.crypto.envelope import Envelope
from koryo_pbm.transport.imap import ImapSource
from koryo_pbm.transport.mail import envelopes_from_mail


def judge_reads(mail_servers, judge, tmp_path, count=1):
    """What the judge finds in its folder: [(raw mail, [envelope digests or error texts])]."""
    mail_servers.delivered(judge, count)
    src = ImapSource.from_url(f"imaps://{judge}@127.0.0.1:{mail_servers.dovecot.imaps_port}/INBOX",
                              password=PASSWORD, ca_file=mail_servers.ca)
    try:
        got = list(src.fetch())
    finally:
        src.close()
    out = []
    for n, m in enumerate(got):
        path = tmp_path / f"fetched-{n}.eml"
        path.write_bytes(m.data)
        out.append((m.data, [i.digest if isinstance(i, Envelope) else str(i) for _, i in envelopes_from_mail(path)]))
    return out


def _stdlib_body(text, sender, to):
    m = EmailMessage()
    m.set_content(f"Hi judge,\n\nmy orders:\n\n{text}\nAlice\n")
    return m


def _stdlib_attachment(text, sender, to):
    m = EmailMessage()
    m.set_content("Orders attached.\n")
    m.add_attachment(text.encode(), maintype="text", subtype="plain", filename="envelope.txt")
    return m


def _quoted_reply(text, sender, to):
    m = EmailMessage()
    quoted = "".join(f"> {line}\n" if line else ">\n" for line in text.splitlines())
    m.set_content(f"On Tue, the judge wrote:\n> Your orders were:\n>\n{quoted}\nYes, these are still my orders.\n")
    m["In-Reply-To"] = "<earlier@example.org>"
    return m


def _forward(text, sender, to):
    inner = EmailMessage()
    inner["From"], inner["To"], inner["Subject"] = sender, sender, "my orders (draft)"
    inner.set_content(f"{text}\n")
    outer = EmailMessage()
    outer.set_content("Forwarding my orders from my other account.\n")
    outer.add_attachment(inner)  # message/rfc822
    return outer


def _quoted_printable(text, sender, to):
    body = f"Grüße aus Köln — meine Befehle:\n\n{text}\n"
    m = MIMEText(body, "plain", "utf-8")
    del m["Content-Transfer-Encoding"]
    m.set_payload(quopri.encodestring(body.encode()).decode())
    m["Content-Transfer-Encoding"] = "quoted-printable"
    return m


def _base64(text, sender, to):
    m = MIMEText("", "plain", "utf-8")
    del m["Content-Transfer-Encoding"]
    m.set_payload(base64.encodebytes(f"orders:\n{text}".encode()).decode())
    m["Content-Transfer-Encoding"] = "base64"
    return m


def _format_flowed(text, sender, to):
    # As Thunderbird writes it: space-stuffed, paragraph lines wrapped at 72 with a trailing space.
    prose = ("These are my orders for this round, and I hope the envelope survives the trip through "
             "every mail server between here and the judge.")
    lines = []
    words = prose.split(" ")
    line = ""
    for w in words:
        if len(line) + len(w) + 1 > 72:
            lines.append(line + " ")
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    lines.append("")
    lines.extend(text.splitlines())
    m = MIMEText("\n".join(lines) + "\n", "plain", "utf-8")
    m.set_param("format", "flowed")
    return m


def _html_only(text, sender, to):
    html_text = "<br>\n".join(text.splitlines())
    return MIMEText(f"<html><body><p>My orders:</p><div>{html_text}</div></body></html>", "html", "utf-8")


def _multipart_alternative(text, sender, to):
    m = MIMEMultipart("alternative")
    m.attach(MIMEText(f"{text}\n", "plain", "utf-8"))
    m.attach(MIMEText("<html><body><pre>" + text + "</pre></body></html>", "html", "utf-8"))
    return m


def _octet_stream_attachment(text, sender, to):
    m = MIMEMultipart()
    m.attach(MIMEText("see attachment", "plain"))
    m.attach(MIMEApplication(text.encode(), "octet-stream", Name="orders.env"))
    return m


STYLES = {
    "plain body": _stdlib_body,
    "text attachment": _stdlib_attachment,
    "quoted reply": _quoted_reply,
    "forward as message/rfc822": _forward,
    "quoted-printable": _quoted_printable,
    "base64": _base64,
    "format=flowed": _format_flowed,
    "HTML only": _html_only,
    "text and HTML alternatives": _multipart_alternative,
    "binary attachment": _octet_stream_attachment,
}


@pytest.mark.parametrize("style", list(STYLES))
def test_an_envelope_survives_mail_written_with_the_email_package(style, mail_servers, mailer, envelope, tmp_path):
    text, digest = envelope
    judge, alice = mail_servers.user("judge"), mail_servers.user("alice")
    m = STYLES[style](text, mailer.address(alice), mailer.address(judge))
    m["From"], m["To"], m["Subject"] = mailer.address(alice), mailer.address(judge), f"orders ({style})"
    mailer.send(m)
    [(raw, found)] = judge_reads(mail_servers, judge, tmp_path)
    assert f"orders ({style})".encode() in raw
    assert found == [digest]


def test_an_envelope_survives_mutt_in_the_body_and_as_an_attachment(mail_servers, mailer, envelope, tmp_path):
    text, digest = envelope
    judge, bob = mail_servers.user("judge"), mail_servers.user("bob")
    attachment = tmp_path / "envelope.txt"
    attachment.write_text(text)
    mailer.mutt(mailer.address(bob), mailer.address(judge), "orders in the body", f"Hello judge,\n\n{text}\n-- \nBob\n")
    mailer.mutt(mailer.address(bob), mailer.address(judge), "orders attached", "Attached, grüße.\n", attach=attachment,
                settings=("set text_flowed=yes", "set allow_8bit=no"))
    got = judge_reads(mail_servers, judge, tmp_path, count=2)
    assert len(got) == 2
    for raw, found in got:
        assert b"User-Agent: Mutt" in raw
        assert found == [digest]
    assert any(b"format=flowed" in raw and b"quoted-printable" in raw for raw, _ in got)


def test_an_envelope_survives_s_nail_in_the_body_and_as_an_attachment(mail_servers, mailer, envelope, tmp_path):
    text, digest = envelope
    judge, carol = mail_servers.user("judge"), mail_servers.user("carol")
    attachment = tmp_path / "orders.env"
    attachment.write_text(text)
    mailer.snail(mailer.address(carol), mailer.address(judge), "orders in the body", f"{text}\n")
    mailer.snail(mailer.address(carol), mailer.address(judge), "orders attached", "see the attachment\n", attach=attachment)
    got = judge_reads(mail_servers, judge, tmp_path, count=2)
    assert len(got) == 2
    for raw, found in got:
        assert found == [digest], raw.decode(errors="replace")[:2000]
