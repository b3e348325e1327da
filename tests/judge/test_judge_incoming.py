"""What the judge reads of an incoming mail (its sender, subject, date, ids) is what the ``email``
package's header registry reads: the judge parses each mail once and decodes only what it shows,
and must not read a hostile or unusual header differently for it."""

from __future__ import annotations

import email.policy
from email.header import Header
from email.parser import BytesHeaderParser
from email.utils import getaddresses

from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.judge.incoming import HEADER_LIMIT, parse_mail

PLAIN_FROM = ["alice@example.org", "Alice <alice@example.org>", "Alice Smith <alice.smith@mail.example.org>",
              "bob-2 <bob+games@example.org>", "  Carol   <carol@example.org>  ", "x_y <x_y@a-b.example>"]
ODD_FROM = ['"Smith, Alice" <alice@example.org>', "alice@example.org (Alice)", "Alice <alice@example.org>, bob@x.org",
            "<alice@example.org>", "Alice <alice@example.org", "alice@@example.org", "Al.ice <a@b.c>", "a@b.c <d@e.f>",
            "=?utf-8?q?B=C3=B6b?= <bob@example.org>", "=?utf-8?q?mallory=40evil.org?= <bob@example.org>",
            "Ålice <alice@example.org>", "undisclosed-recipients:;", "group: a@b.c, d@e.f;", "", "@", "<>",
            "a@b.c\r\n\t<d@e.f>", "Alice\r\n <alice@example.org>", "\"a\\\"b\" <c@d.e>", "a@[127.0.0.1]"]
PLAIN_SUBJECT = ["my orders for r1-orders", "Re: [koryo-pbm friday] round 2", "  spaced   out\t subject ",
                 "folded\r\n subject", "=", "x=?y", "a" * 1200]
ODD_SUBJECT = ["=?utf-8?b?w6TDtsO8?=", "=?utf-8?q?Z=C3=BCge?= for r2", "=?bogus?q?x?=", "=?utf-8?b?!!!?=",
               "Züge für Runde 2", "=?utf-8?q?a?= =?utf-8?q?b?=", "x=?utf-8?q?a?=y"]
DATES = ["Tue, 24 Nov 2026 10:00:00 +0000", "24 Nov 2026 10:00 -0000", "Tue, 24 Nov 2026 10:00:00 GMT",
         "yesterday", "Tue, 31 Feb 2026 10:00:00 +0000", "Tue, 24 Nov 2026 25:61:00 +0000", "", "0",
         "Tue, 24 Nov 2026 10:00:00 +9999", "Tue,\r\n 24 Nov 2026 10:00:00 +0100", "Dienstag, 24. November 2026"]
# any text, non-ASCII and specials included (headers stay one folded header each)
_ANY = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=60)


def _encoded(text: str) -> str:
    return Header(text, "utf-8").encode()


def _value(plain: list[str], odd: list[str]):
    return st.one_of(st.sampled_from(plain), st.sampled_from(odd), _ANY, _ANY.map(_encoded),
                     st.tuples(st.sampled_from(plain), _ANY).map(" ".join))


def _mail(headers: list[tuple[str, str]], body: bytes = b"hello\r\n") -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return head.encode("utf-8", "surrogateescape") + b"\r\n" + body


def _registry(data: bytes) -> dict:
    """What the judge read before it parsed each mail once: the header block parsed with the
    header registry (``email.policy.default``), the shown values decoded by it."""
    end = min(i for i in (data.find(b"\n\n"), data.find(b"\n\r\n"), 65536) if i >= 0)
    message = BytesHeaderParser(policy=email.policy.default).parsebytes(data[:end + 1])

    def shown(name: str) -> str:
        try:
            value = message.get(name)
        except Exception:
            return ""
        return "" if value is None else " ".join(str(value).split())[:HEADER_LIMIT]

    sender = None
    try:
        pairs = getaddresses([str(v)[:HEADER_LIMIT] for v in (message.get_all("From") or [])[:1]])
    except Exception:
        pairs = []
    for _name, address in pairs:
        if address and "@" in address and not any(ch.isspace() for ch in address):
            sender = address
            break
    return {"sender": sender, "subject": shown("Subject"), "date": shown("Date")}


def _read(data: bytes) -> dict:
    parsed = parse_mail(data, "m")
    return {"sender": parsed.sender, "subject": parsed.subject, "date": parsed.date}


@settings(max_examples=400, deadline=None)
@given(sender=_value(PLAIN_FROM, ODD_FROM), subject=_value(PLAIN_SUBJECT, ODD_SUBJECT),
       date=_value(DATES, DATES), raw_utf8=st.booleans())
def test_sender_subject_and_date_are_read_as_the_header_registry_reads_them(sender, subject, date, raw_utf8):
    headers = [("From", sender), ("To", "judge@example.org"), ("Subject", subject), ("Date", date),
               ("Message-ID", "<1@example.org>")]
    data = _mail(headers)
    if raw_utf8:  # a mail client that writes UTF-8 into headers as it is (RFC 6532)
        data = data.replace(b"Subject: ", "Subject: ünïcode ".encode())
    assert _read(data) == _registry(data)


def test_every_listed_form_is_read_as_the_header_registry_reads_it():
    for sender in PLAIN_FROM + ODD_FROM:
        for subject in PLAIN_SUBJECT + ODD_SUBJECT:
            data = _mail([("From", sender), ("Subject", subject), ("Date", DATES[len(subject) % len(DATES)])])
            assert _read(data) == _registry(data), (sender, subject)
    # a second From header, a header written in capitals, a missing Date
    data = _mail([("FROM", "Alice <alice@example.org>"), ("From", "bob@example.org"), ("SUBJECT", "x")])
    assert _read(data) == _registry(data) == {"sender": "alice@example.org", "subject": "x", "date": ""}


def test_ids_and_automatic_mail_as_written():
    data = _mail([("From", "Alice <alice@example.org>"), ("Subject", "orders"),
                  ("Message-ID", " <a.1@example.org> (comment)"), ("References", "<r1@x> junk <r2@x>\r\n\t<r3@x>"),
                  ("Auto-Submitted", "auto-replied")])
    parsed = parse_mail(data, "m")
    assert (parsed.message_id, parsed.references) == ("<a.1@example.org>", ["<r1@x>", "<r2@x>", "<r3@x>"])
    assert parsed.automatic == "Auto-Submitted: auto-replied" and parsed.found == []
    bounce = parse_mail(_mail([("From", "MAILER-DAEMON@example.org"), ("Return-Path", "<>")]), "m")
    assert bounce.automatic == "its return path is empty (a bounce)"
    # the References searched as far as a header is kept, as before
    long_refs = " ".join(f"<r{i}@example.org>" for i in range(200))
    parsed = parse_mail(_mail([("From", "a@b.c"), ("References", long_refs)]), "m")
    kept = long_refs[:HEADER_LIMIT].split()
    assert parsed.references == [r for r in kept if r.endswith(">")][-20:]
