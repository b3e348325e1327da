"""Envelopes from .eml files, mbox files and Maildir folders."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.crypto.envelope import Envelope, make_envelope
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError
from koryo_pbm.transport import mail
from koryo_pbm.transport.mail import envelopes_from_mail


@pytest.fixture(scope="module")
def keys():
    return {n: Identity.generate(n) for n in ("mod", "alice", "bob")}


def env(keys, player="alice", orders="x = 1\n"):
    return make_envelope(keys[player], keys["mod"].public, game_id="g-1", decision="r1-orders", player=player,
                         orders_text=orders, submitted="2026-01-02T03:04:05Z",
                         answers="sha256:" + "ab" * 32)


def message(body: str, subject="orders", sender="alice@example.org") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator@example.org"
    msg["Subject"] = subject
    msg.set_content(body)
    return msg


def envelopes(found):
    return [e for _, e in found if isinstance(e, Envelope)]


def errors(found):
    return [e for _, e in found if isinstance(e, FormatError)]


def test_eml_body(tmp_path, keys):
    e = env(keys)
    path = tmp_path / "m.eml"
    path.write_bytes(message("Here are my orders:\n\n" + e.armor() + "\nbye\n").as_bytes())
    found = envelopes_from_mail(path)
    assert envelopes(found) == [e]
    assert found[0][0] == f'mail {path} (from alice@example.org, "orders", (no date))'  # names the mail


def test_eml_with_attachments(tmp_path, keys):
    a, b = env(keys), env(keys, "bob")
    msg = message("see attachments")
    msg.add_attachment(a.armor().encode(), maintype="application", subtype="octet-stream",
                       filename="r1-orders--alice.envelope")  # base64-encoded
    msg.add_attachment(b.armor(), subtype="plain", filename="bob.envelope", cte="quoted-printable")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(range(256)), maintype="image", subtype="png", filename="x.png")
    path = tmp_path / "m.eml"
    path.write_bytes(msg.as_bytes())
    assert b"-----BEGIN KORYO-PBM ENVELOPE-----" in path.read_bytes()  # the text one
    found = envelopes_from_mail(path)
    assert envelopes(found) == [a, b] and not errors(found)


def test_quoted_reply_crlf_and_html_alternative(tmp_path, keys):
    e = env(keys)
    quoted = "\n".join("> " + line for line in e.armor().splitlines())
    msg = message(f"Thanks!\n\nOn Tue, alice wrote:\n{quoted}\n")
    html_body = "<html><body><p>Thanks</p><blockquote><pre>" + e.armor().replace("\n", "<br>\n") + "</pre></blockquote></body></html>"
    msg.add_alternative(html_body, subtype="html")
    path = tmp_path / "reply.eml"
    path.write_bytes(msg.as_bytes().replace(b"\n", b"\r\n"))
    found = envelopes_from_mail(path)
    assert envelopes(found) == [e]  # found in both parts, reported once
    assert not errors(found)


def test_forwarded_message(tmp_path, keys):
    e = env(keys)
    inner = message(e.armor())
    outer = message("forwarding alice's orders")
    outer.add_attachment(inner)  # message/rfc822
    path = tmp_path / "fwd.eml"
    path.write_bytes(outer.as_bytes())
    assert envelopes(envelopes_from_mail(path)) == [e]


def test_mbox_several_messages(tmp_path, keys):
    a, b = env(keys), env(keys, "bob")
    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(str(path))
    box.add(message("nothing here"))
    box.add(message(a.armor()))
    box.add(message("broken:\n" + b.armor().replace("player: bob", "player bob")))
    box.add(message(b.armor(), sender="bob@example.org"))
    box.flush()
    box.close()
    empty: list[str] = []
    found = envelopes_from_mail(path, empty=empty)
    assert envelopes(found) == [a, b]
    labels = [label.split(" (from ")[0] for label, _ in found]
    assert labels == [f"mbox {path}, message 2", f"mbox {path}, message 3", f"mbox {path}, message 4"]
    assert found[2][0] == f'mbox {path}, message 4 (from bob@example.org, "orders", (no date))'
    [err] = errors(found)
    assert f"mbox {path}, message 3" in str(err)
    assert empty == [f'mbox {path}, message 1 (from alice@example.org, "orders", (no date))']  # none skipped silently


def test_maildir(tmp_path, keys):
    a, b = env(keys), env(keys, "bob")
    box = mailbox.Maildir(str(tmp_path / "Mail"))
    box.add(message(a.armor()))
    key = box.add(message(b.armor()))
    m = box[key]
    m.set_subdir("cur")
    box[key] = m
    box.add(message("hello"))
    (tmp_path / "Mail" / "tmp" / "half").write_text(a.armor()[:100])  # being delivered: ignored
    found = envelopes_from_mail(tmp_path / "Mail")
    assert sorted(e.player for e in envelopes(found)) == ["alice", "bob"]
    assert not errors(found)
    assert all(label.startswith(f"Maildir {tmp_path / 'Mail'}, ") for label, _ in found)


def test_plain_armour_file(tmp_path, keys):
    e = env(keys)
    path = tmp_path / "orders.txt"
    path.write_text(e.armor())
    assert envelopes(envelopes_from_mail(path)) == [e]


def test_bad_mail(tmp_path, keys, monkeypatch):
    with pytest.raises(StorageError, match="no mail file"):
        envelopes_from_mail(tmp_path / "missing.eml")
    (tmp_path / "notmaildir").mkdir()
    with pytest.raises(StorageError, match="not a Maildir"):
        envelopes_from_mail(tmp_path / "notmaildir")
    garbage = tmp_path / "g.eml"
    garbage.write_bytes(bytes(range(256)) * 10)
    assert envelopes_from_mail(garbage) == []
    monkeypatch.setattr(mail, "MAX_MESSAGE", 100)
    big = tmp_path / "big.eml"
    big.write_bytes(message(env(keys).armor()).as_bytes())
    [(_label, err)] = envelopes_from_mail(big)
    assert isinstance(err, FormatError) and "larger than" in str(err)


def test_oversized_part(tmp_path, keys, monkeypatch):
    monkeypatch.setattr(mail, "MAX_PART", 500)
    path = tmp_path / "m.eml"
    path.write_bytes(message(env(keys).armor()).as_bytes())
    [(_, err)] = envelopes_from_mail(path)
    assert "part is larger" in str(err)


def test_unknown_charset_and_broken_base64(tmp_path, keys):
    e = env(keys)
    raw = (
        "From: a@b\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="XX"\r\n\r\n'
        "--XX\r\nContent-Type: text/plain; charset=x-unknown-42\r\n\r\n" + e.armor().replace("\n", "\r\n") +
        "\r\n--XX\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        "!!!not base64!!!\r\n--XX--\r\n"
    )
    path = tmp_path / "m.eml"
    path.write_bytes(raw.encode())
    assert envelopes(envelopes_from_mail(path)) == [e]


def test_same_envelope_in_two_messages_reported_once(tmp_path, keys):
    e = env(keys)
    path = tmp_path / "box.mbox"
    box = mailbox.mbox(str(path))
    box.add(message(e.armor()))
    box.add(message("> " + e.armor().replace("\n", "\n> ")))
    box.flush()
    box.close()
    assert envelopes(envelopes_from_mail(path)) == [e]


@settings(max_examples=150)
@given(st.binary(max_size=800))
def test_fuzz_mail_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "m.eml"
    path.write_bytes(data)
    try:
        for _, item in envelopes_from_mail(path):
            assert isinstance(item, (Envelope, FormatError))
    except KoryoPbmError:
        pass


@settings(max_examples=60)
@given(st.text(max_size=300))
def test_fuzz_mail_headers_and_mime(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "m.eml"
    raw = ("Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain; charset="
           + text + "\r\nContent-Transfer-Encoding: " + text[::-1] + "\r\n\r\n-----BEGIN KORYO-PBM ENVELOPE-----\r\n"
           + text + "\r\n--b--\r\n")
    path.write_bytes(raw.encode("utf-8", "surrogatepass"))
    for _, item in envelopes_from_mail(path):
        assert isinstance(item, (Envelope, FormatError))


def test_html_only_message(tmp_path, keys):
    e = env(keys)
    body = "".join(f"<div>{line}</div>" for line in e.armor().splitlines()).replace("<div></div>", "<div><br></div>")
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg.set_content(f"<html><body><p>orders:</p>{body}</body></html>", subtype="html")
    path = tmp_path / "h.eml"
    path.write_bytes(msg.as_bytes())
    found = envelopes_from_mail(path)
    assert envelopes(found) == [e] and not errors(found)


@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "7bit"])
def test_a_large_mail_is_read_without_parsing_its_large_parts(tmp_path, keys, cte):
    """A message over SLIM_LIMIT: its large parts are scanned in a stream; the one holding an
    envelope (in a part larger than BIG_PART, in any transfer encoding, across chunk borders) is
    kept and read, the others are not parsed; too many large parts holding one are refused."""
    e, other = env(keys), env(keys, "bob")
    msg = message("see the attachments")
    filler = "".join(f"line {i} of a long text\n" for i in range(8000))  # about 200 KB
    msg.add_attachment(filler + e.armor() + filler, subtype="plain", filename="orders.txt", cte=cte)
    msg.add_attachment(bytes(range(256)) * 12000, maintype="application", subtype="octet-stream",
                       filename="film.bin")  # 3 MB, base64
    msg.add_attachment(other.armor(), subtype="plain", filename="bob.txt")
    data = msg.as_bytes()
    assert len(data) > mail.SLIM_LIMIT
    slimmed, problem = mail.slim(data)
    assert problem is None and len(slimmed) < 1024 * 1024
    path = tmp_path / "m.eml"
    path.write_bytes(data)
    assert {x.digest for x in envelopes(envelopes_from_mail(path))} == {e.digest, other.digest}
    # parts that may hold an envelope, more than SLIM_LIMIT together: one line, nothing read
    many = message("x")
    for i in range(12):
        many.add_attachment(filler + e.armor(), subtype="plain", filename=f"{i}.txt", cte="base64")
    path.write_bytes(many.as_bytes())
    [err] = errors(envelopes_from_mail(path))
    assert "send the envelope alone" in str(err)
