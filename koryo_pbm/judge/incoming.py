"""What the judge reads from one incoming mail: its sender, subject, date and ids, whether it is
automatic (never answered), and every envelope (or envelope-like thing it cannot read) inside."""

from __future__ import annotations

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

    @property
    def tags(self) -> list[str]:
        """The game tags in the subject: ``[koryo-pbm friday]`` gives ``friday``."""
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


def _header(message, name: str) -> str:
    """A header's value decoded (RFC 2047 words, dates): for what is shown (Subject, Date)."""
    try:
        value = message.get(name)
    except Exception:  # a header the parser cannot make sense of
        return ""
    if value is None:
        return ""
    return " ".join(str(value).split())[:HEADER_LIMIT]


class _Raw:
    """The first value of each header as written, unfolded: what is only tested or searched
    (Auto-Submitted, List-Id, Message-ID, ...) is not parsed into header objects (the costly
    part of reading a mail with the ``email`` package)."""

    def __init__(self, message) -> None:
        self.values: dict[str, str] = {}
        for name, value in message.raw_items():
            self.values.setdefault(name.lower(), value)

    def get(self, name: str) -> str | None:
        value = self.values.get(name.lower())
        return None if value is None else " ".join(value[:HEADER_LIMIT * 4].split())


def _sender(message) -> str | None:
    try:
        raw = message.get_all("From") or []
        pairs = getaddresses([str(v)[:HEADER_LIMIT] for v in raw[:1]])
    except Exception:
        return None
    for _name, address in pairs:
        if address and "@" in address and not any(ch.isspace() for ch in address):
            return address
    return None


def _automatic(message, sender: str | None) -> str | None:
    auto = _header(message, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto[:40]}"
    precedence = _header(message, "Precedence").lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe", "X-Autoreply", "X-Autorespond"):
        if _header(message, name):
            return f"it has a {name} header"
    if _header(message, "Return-Path") == "<>":
        return "its return path is empty (a bounce)"
    if sender is None:
        return "it has no sender address"
    local = sender.rsplit("@", 1)[0].lower()
    if local in AUTOMATIC_SENDERS or local.startswith(("mailer-daemon", "owner-")) or local.endswith("-request"):
        return f"it comes from {sender}"
    if _header(message, "Content-Type").lower().startswith("multipart/report"):
        return "it is a delivery report"
    return None


def parse_mail(data: bytes, label: str, *, head_only: bool = False) -> ParsedMail:
    """Read one raw mail. ``head_only``: the header only (for a mail too large to read)."""
    import email
    import email.policy
    from email.parser import BytesHeaderParser

    from koryo_pbm.transport.mail import MAX_HEADER_BLOCK, check_structure, scan_message

    problem = None if head_only else check_structure(data)
    if problem is not None:  # too costly to parse whole: its head only, to name and answer it
        head_only = True
    # the header block only (the body is parsed once, by scan_message): a header parser given the
    # whole mail would hold its body too, as text
    end = min(i for i in (data.find(b"\n\n", 0, MAX_HEADER_BLOCK + 4), data.find(b"\n\r\n", 0, MAX_HEADER_BLOCK + 4),
                          MAX_HEADER_BLOCK) if i >= 0)
    try:
        message = BytesHeaderParser(policy=email.policy.default).parsebytes(data[:end + 1])
        raw = _Raw(message)
    except Exception:
        return ParsedMail(label, None, "", "", None, [], "it cannot be read as a mail", False,
                          [FormatError(f"{label}: this message cannot be read")])
    sender = _sender(message)
    mid = _MSGID.search(_header(raw, "Message-ID"))
    refs = _MSGID.findall(_header(raw, "References"))[-20:]
    parsed = ParsedMail(
        label=label,
        sender=sender,
        subject=_header(message, "Subject"),
        date=_header(message, "Date"),
        message_id=mid.group(0) if mid else None,
        references=refs,
        automatic=_automatic(raw, sender),
        from_judge=bool(_header(raw, JUDGE_HEADER)),
    )
    if problem is not None:
        parsed.found = [FormatError(f"this mail cannot be read: {problem}")]
    elif not head_only:
        parsed.found = [item for _, item in scan_message(data, label)]
    return parsed
