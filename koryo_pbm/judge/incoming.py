"""What the judge reads from one incoming mail: its sender, subject, date and ids, whether it is
automatic (never answered), and every envelope (or envelope-like thing it cannot read) inside."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from email.utils import getaddresses

from koryo_pbm.crypto.envelope import Envelope
from koryo_pbm.errors import FormatError

HEADER_LIMIT = 998  # characters kept of a header value
_MSGID = re.compile(r"<[^<>\s]{1,250}>")
_TAG = re.compile(r"\[koryo-pbm ([A-Za-z0-9_.:+-]{1,64})\]", re.IGNORECASE)
AUTOMATIC_SENDERS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "bounce", "bounces")
JUDGE_HEADER = "X-Koryo-Pbm-Judge"


@dataclass
class ParsedMail:
    label: str
    sender: str | None  # the From address, lower-case domain kept as written
    subject: str
    date: str
    message_id: str | None
    references: list[str]
    automatic: str | None  # why it must never be answered (RFC 3834), or None
    from_judge: bool  # one of our own mails came back (a loop)
    found: list[Envelope | FormatError] = field(default_factory=list)
    received: str = ""  # when the judge received it ("2026-11-25 18:40 UTC"), set by the judge
    digest: str = ""  # the SHA-256 of its raw bytes (hex), set by the judge

    @property
    def short(self) -> str:
        """The short digest that names the mail in answers and in the log."""
        return self.digest[:8]

    @functools.cached_property
    def tags(self) -> list[str]:
        """The game tags in the subject: ``[koryo-pbm friday]`` gives ``friday`` (found once: the
        judge asks it of every game it serves)."""
        return _TAG.findall(self.subject)

    def describe(self) -> str:
        """How answers name the mail: when the judge received it and its short digest, never
        with what its sender wrote (a Date or Subject header could carry any text)."""
        when = f" received {self.received}" if self.received else ""
        mail = f" (mail {self.short})" if self.digest else ""
        return f"your mail{when}{mail}"

    def names(self) -> str:
        """The mail for the moderator's log: its short digest, From, Subject, Date."""
        mail = f"mail {self.short}" if self.digest else "mail"
        return (f'{mail} from {self.sender or "(no sender)"}, "{_short(self.subject or "(no subject)", 80)}", '
                f'{_short(self.date or "(no date)", 40)}')


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


_EASY_ADDRESS = r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
# a From written the plain way (``Name <local@domain>`` or ``local@domain``, names and addresses of
# plain characters only), for which every address parser finds the same address
_EASY_FROM = re.compile(rf"(?:[A-Za-z0-9_-]+(?: [A-Za-z0-9_-]+)* )?<({_EASY_ADDRESS})>|({_EASY_ADDRESS})")


class _Raw:
    """The first value of each header as written, unfolded. What is only tested or searched
    (Auto-Submitted, List-Id, Message-ID, ...) is used as written; what is shown (Subject, Date)
    and the sender's address are decoded as the ``email`` package's header registry does
    (RFC 2047 words, dates, address lists), the costly part of reading a mail with it, which
    is skipped for a value that it would give back unchanged (plain ASCII text without encoded
    words, a plain address: see :func:`decoded`)."""

    def __init__(self, message) -> None:
        self.values: dict[str, str] = {}
        for name, value in message.raw_items():
            self.values.setdefault(name.lower(), value)

    def get(self, name: str) -> str | None:
        value = self.values.get(name.lower())
        return None if value is None else " ".join(value[:HEADER_LIMIT * 4].split())

    def text(self, name: str) -> str:
        """A header's value as written, one line, at most ``HEADER_LIMIT`` characters ("": none)."""
        return (self.get(name) or "")[:HEADER_LIMIT]

    def decoded(self, name: str) -> str:
        """A header's value decoded (RFC 2047 words, dates) as the header registry reads it
        (``email.policy.default``), one line: for what is shown (Subject, Date)."""
        value = self.values.get(name.lower())
        if value is None:
            return ""
        if value.isascii():
            if name == "Date":
                return " ".join(_date(value).split())[:HEADER_LIMIT]
            if "=?" not in value:  # no encoded word: the registry's text is the value, unfolded
                return " ".join(value.split())[:HEADER_LIMIT]
        try:
            parsed = _registry(name, value)
        except Exception:  # a header the parser cannot make sense of
            return ""
        return " ".join(str(parsed).split())[:HEADER_LIMIT]

    def sender(self) -> str | None:
        """The address of the (first) From header, or None."""
        value = self.values.get("from")
        if value is None:
            return None
        if value.isascii():
            easy = _EASY_FROM.fullmatch(" ".join(value.split()))
            if easy:
                return easy.group(1) or easy.group(2)
        try:
            pairs = getaddresses([str(_registry("From", value))[:HEADER_LIMIT]])
        except Exception:
            return None
        for _name, address in pairs:
            if address and "@" in address and not any(ch.isspace() for ch in address):
                return address
        return None


def _registry(name: str, value: str):
    """The header object ``email.policy.default`` makes of a raw value (what ``EmailMessage.get``
    gives)."""
    import email.policy

    return email.policy.default.header_fetch_parse(name, value)


def _date(value: str) -> str:
    """A plain-ASCII Date value as the header registry shows it: reformatted when it can be read
    as a date, else as written ("" where the registry fails)."""
    from email.utils import format_datetime, parsedate_to_datetime

    value = value.replace("\r", "").replace("\n", "")  # as the policy joins a folded value
    if not value:
        return ""
    try:
        return format_datetime(parsedate_to_datetime(value))
    except ValueError:
        return value
    except Exception:
        return ""


def _automatic(raw: _Raw, sender: str | None) -> str | None:
    auto = raw.text("Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto[:40]}"
    precedence = raw.text("Precedence").lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe", "X-Autoreply", "X-Autorespond"):
        if raw.text(name):
            return f"it has a {name} header"
    if raw.text("Return-Path") == "<>":
        return "its return path is empty (a bounce)"
    if sender is None:
        return "it has no sender address"
    local = sender.rsplit("@", 1)[0].lower()
    if local in AUTOMATIC_SENDERS or local.startswith(("mailer-daemon", "owner-")) or local.endswith("-request"):
        return f"it comes from {sender}"
    if raw.text("Content-Type").lower().startswith("multipart/report"):
        return "it is a delivery report"
    return None


def parse_mail(data: bytes, label: str, *, head_only: bool = False) -> ParsedMail:
    """Read one raw mail. ``head_only``: the header only (for a mail too large to read).

    The mail is parsed once (``compat32``: headers kept as written), for its envelopes and its
    headers both; only the headers that are shown or give the sender are decoded."""
    from email.parser import BytesHeaderParser
    from email.policy import compat32

    from koryo_pbm.transport.mail import MAX_HEADER_BLOCK, check_structure, read_message

    problem = None if head_only else check_structure(data)
    found: list[Envelope | FormatError] = []
    message = None
    if problem is not None:  # too costly to parse whole: its head only, to name and answer it
        found = [FormatError(f"this mail cannot be read: {problem}")]
    elif not head_only:
        message, items = read_message(data, label, checked=True)
        found = [item for _, item in items]
    try:
        if message is None:
            # the header block only: a header parser given the whole mail would hold its body too
            end = min(i for i in (data.find(b"\n\n", 0, MAX_HEADER_BLOCK + 4),
                                  data.find(b"\n\r\n", 0, MAX_HEADER_BLOCK + 4), MAX_HEADER_BLOCK) if i >= 0)
            message = BytesHeaderParser(policy=compat32).parsebytes(data[:end + 1])
        raw = _Raw(message)
    except Exception:
        return ParsedMail(label, None, "", "", None, [], "it cannot be read as a mail", False,
                          [FormatError(f"{label}: this message cannot be read")])
    sender = raw.sender()
    mid = _MSGID.search(raw.text("Message-ID"))
    refs = _MSGID.findall(raw.text("References"))[-20:]
    return ParsedMail(
        label=label,
        sender=sender,
        subject=raw.decoded("Subject"),
        date=raw.decoded("Date"),
        message_id=mid.group(0) if mid else None,
        references=refs,
        automatic=_automatic(raw, sender),
        from_judge=bool(raw.text(JUDGE_HEADER)),
        found=found,
    )
