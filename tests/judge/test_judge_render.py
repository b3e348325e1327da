"""The judge writes its mails out directly (fast); mail readers must see exactly what the email
package would have made of the same parts: headers, text, attachments byte for byte."""

from __future__ import annotations

import email
import email.policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.judge.messages import Outgoing
from koryo_pbm.judge.outbox import render

CASES = {
    "state mail": Outgoing(key="k", to="p1@example.org", subject="[koryo-pbm friday] round 2: your turn",
                           body="Koryo game friday, version 4, for p1.\n" * 40,
                           attachments=(("game.toml", b'format = "koryo-pbm-game/v1"\n' * 500),)),
    "non-ASCII everywhere": Outgoing(
        key="k", to="Jürgen Müller <j@example.org>",
        subject="[koryo-pbm fröhlich] Re: Grüße aus Köln, a long subject that goes on well beyond seventy-eight characters",
        body="Grüße\n" + "x" * 1200 + "\nend", in_reply_to="<abc@example.org>", references=("<a@x.org>", "<b@y.org>")),
    "carriage returns and binary": Outgoing(
        key="k", to="p1@example.org", subject="s", body="line\r\nwith cr\n-----BEGIN KORYO-PBM RECEIPT-----\nabc\n",
        attachments=(("game.toml", b"a\r\nb\n\x00\xff"),)),
    "long ASCII subject, empty body": Outgoing(key="k", to="p1@example.org", subject="word " * 60, body=""),
    "odd file names": Outgoing(key="k", to="p1@example.org", subject="tabs\tand  spaces", body="x\n",
                               attachments=(("my game.toml", b""), ("spiel-ü.toml", b"1"))),
}


def _reference(out: Outgoing, from_header: str) -> bytes:
    """What the email package writes for the same mail."""
    import datetime
    from email.message import EmailMessage
    from email.utils import format_datetime

    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"], msg["To"], msg["Subject"] = from_header, out.to, out.subject
    msg["Date"] = format_datetime(datetime.datetime.fromtimestamp(1700000000, datetime.UTC))
    msg["Message-ID"] = "<m.g@example.org>"
    if out.in_reply_to:
        msg["In-Reply-To"] = out.in_reply_to
    if out.references:
        msg["References"] = " ".join(out.references)
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Koryo-Pbm-Judge"] = "friday"
    plain = out.body.isascii() and all(len(line) <= 900 for line in out.body.splitlines())
    msg.set_content(out.body, charset="utf-8", cte="7bit" if plain else "quoted-printable")
    for name, data in out.attachments:
        msg.add_attachment(data, maintype="application", subtype="toml", filename=name)
    return msg.as_bytes()


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("from_header", ["Koryo judge <judge@example.org>", "Jüdge Dredd <judge@example.org>"])
def test_a_rendered_mail_reads_as_the_email_package_would_write_it(case, from_header):
    out = CASES[case]
    data = render(out, from_header=from_header, message_id="<m.g@example.org>", date=1700000000, tag="friday")
    ours = email.message_from_bytes(data, policy=email.policy.default)
    ref = email.message_from_bytes(_reference(out, from_header), policy=email.policy.default)
    assert sorted((k, str(v)) for k, v in ours.items() if k != "Content-Type") == \
        sorted((k, str(v)) for k, v in ref.items() if k != "Content-Type")
    assert ours.get_content_type() == ref.get_content_type()
    assert ours.get_body(("plain",)).get_content() == ref.get_body(("plain",)).get_content()
    assert [(p.get_filename(), p.get_content_type(), p.get_content()) for p in ours.iter_attachments()] == \
        [(p.get_filename(), p.get_content_type(), p.get_content()) for p in ref.iter_attachments()]
    assert all(not part.defects for part in ours.walk())
    lines = data.split(b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"") and max(map(len, lines)) <= 998 and data.isascii()


def test_a_line_break_in_a_header_is_refused():
    out = Outgoing(key="k", to="p1@example.org\r\nBcc: everyone@example.org", subject="s", body="b")
    with pytest.raises(ValueError, match="line break"):
        render(out, from_header="J <j@example.org>", message_id="<m@example.org>", date=0, tag="t")


def _parser_envelope(data: bytes) -> tuple[str, list[str]]:
    """The SMTP sender and recipients as the email package reads them from the mail's head."""
    from email.parser import BytesHeaderParser
    from email.utils import getaddresses, parseaddr

    head = BytesHeaderParser(policy=email.policy.compat32).parsebytes(data)
    return (parseaddr(str(head.get("From", "")))[1],
            [a for _, a in getaddresses([str(v) for v in head.get_all("To", [])]) if a])


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("from_header", ["Koryo judge <judge@example.org>", "Jüdge Dredd <judge@example.org>"])
def test_the_outbox_sends_a_mail_from_and_to_the_addresses_in_its_head(case, from_header):
    from koryo_pbm.judge.outbox import _envelope

    data = render(CASES[case], from_header=from_header, message_id="<m.g@example.org>", date=1700000000,
                  tag="friday")
    assert _envelope(data) == _parser_envelope(data) == ("judge@example.org", [CASES[case].to.split("<")[-1].rstrip(">")])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["From", "To", "to", "FROM", "Subject", "X-A", "", "From ", " "]),
                          st.text(st.sampled_from('ab@.<>," \t\r\n\x0b:=?é'), max_size=30)), max_size=6),
       st.sampled_from([b"\r\n\r\n", b"\n\n", b"\r\n", b""]))
def test_the_outbox_reads_any_head_as_the_email_package_does(fields, end):
    from koryo_pbm.judge.outbox import _envelope

    head = "".join(f"{name}:{value}\r\n" if name.strip() else f"{name}{value}\r\n" for name, value in fields)
    data = head.encode("utf-8") + end + b"body\r\n"
    assert _envelope(data) == _parser_envelope(data)


@settings(max_examples=300, deadline=None)
@given(st.binary().map(lambda b: bytes(32 + x % 95 if x % 7 else 10 for x in b))  # printable ASCII, line feeds
       | st.text(st.sampled_from("= .\nab"), max_size=300).map(str.encode)
       | st.tuples(st.lists(st.sampled_from([b"a = 1\n", b" ", b".", b"\n", b"=", b"x" * 70]), max_size=80),
                   st.lists(st.sampled_from([b"\xc3\x97", b"\t", b"\r", b"\x00", b"\xff"]), max_size=3))
       .map(lambda t: b"".join(t[0][:len(t[0]) // 2] + t[1] + t[0][len(t[0]) // 2:])))  # a few other bytes in text
def test_a_text_attachment_decodes_to_its_bytes_in_lines_of_at_most_76(data):
    import binascii

    out = Outgoing(key="k", to="p1@example.org", subject="s", body="b", attachments=(("game.toml", data),))
    mail = render(out, from_header="J <j@example.org>", message_id="<m@example.org>", date=0, tag="t")
    parsed = email.message_from_bytes(mail, policy=email.policy.default)
    (attachment,) = parsed.iter_attachments()
    assert attachment.get_content() == data and not attachment.defects
    if b"quoted-printable\r\n\r\n" not in mail:  # more than one byte in 20 outside printable ASCII: base64
        return
    body = mail.split(b"quoted-printable\r\n\r\n", 1)[1].rsplit(b"\r\n--", 1)[0]
    assert binascii.a2b_qp(body) == data
    lines = body.split(b"\r\n")
    assert body.isascii() and all(len(line) <= 76 and line != b"." and not line.endswith((b" ", b"\t"))
                                  and b"\r" not in line and b"\n" not in line for line in lines)


def test_the_outbox_sends_mails_in_the_order_they_were_queued(tmp_path):
    # queued within one tick of the file system's clock, as a judge queues a state mail and
    # then a reminder: their names sort the other way round
    from koryo_pbm.judge import outbox

    keys = [f"{prefix}-{n}" for n in range(6) for prefix in ("state", "reminder")]
    for key in keys:
        outbox.queue(tmp_path, Outgoing(key=key, to="p1@example.org", subject=key, body="b"),
                     from_header="judge <judge@example.org>", game_id="g", tag="friday", now=0.0)
    assert [p.name for p in outbox.pending(tmp_path)] == [outbox.safe_key(k) + outbox.SUFFIX for k in keys]
