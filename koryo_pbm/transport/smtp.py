"""The judge's outgoing mail through an SMTP server (:class:`SmtpSender`, a
:class:`~koryo_pbm.transport.senders.Sender`).

``smtps://USER@HOST[:PORT]`` speaks TLS from the first byte (port 465 by default);
``smtp://USER@HOST[:PORT]`` upgrades with STARTTLS (port 587), and only a server on 127.0.0.1
(or ::1) may be spoken to without TLS, when it offers no STARTTLS. Without ``USER@`` the judge
does not log in (a local relay that trusts 127.0.0.1). The password comes from
``$KORYO_PBM_SMTP_PASSWORD`` or a file (see :func:`smtp_password`), never from the URL.

One connection is kept open between mails and opened again when the server has closed it.
Every failure is a :class:`~koryo_pbm.transport.senders.SendError`: ``permanent`` for a 5xx reply
to the recipient or the message (retrying cannot help), temporary for everything else (the
network, a 4xx reply, a refused login: the outbox keeps the mail and tries again later).
"""

from __future__ import annotations

import contextlib
import smtplib
import socket
import ssl
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from koryo_pbm.errors import UsageError
from koryo_pbm.transport.imap import is_loopback, parse_url, read_password, tls_context
from koryo_pbm.transport.senders import SendError

PASSWORD_VARIABLE = "KORYO_PBM_SMTP_PASSWORD"
TIMEOUT = 60.0  # seconds for any one server reply
IDLE_CHECK = 20.0  # a connection unused this long is checked with NOOP before the next mail


def smtp_password(password_file: Path | str | None = None) -> str:
    """The SMTP password from a password file or ``$KORYO_PBM_SMTP_PASSWORD``."""
    return read_password(PASSWORD_VARIABLE, password_file, "SMTP")


def _reply(exc: smtplib.SMTPResponseException) -> str:
    text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
    return f"{exc.smtp_code} {' '.join(text.split())}"[:200]


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the server's certificate is not trusted ({exc.verify_message}; --ca-file names a CA to trust)"
    if isinstance(exc, socket.timeout | TimeoutError):
        return "no answer in time"
    if isinstance(exc, smtplib.SMTPResponseException):
        return _reply(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return " ".join(str(exc).split())[:200] or exc.__class__.__name__


def dot_stuffed(msg: bytes) -> bytes:
    """``msg`` with each line that begins with a dot given a second one (RFC 5321 4.5.2), as
    smtplib's DATA does it, by ``bytes.replace`` (smtplib's regular expression costs about 10 ns
    a byte: a quarter of a millisecond for a state mail with its game file)."""
    stuffed = msg.replace(b"\n.", b"\n..")
    return b"." + stuffed if stuffed.startswith(b".") else stuffed


def _data(conn: smtplib.SMTP, msg: Any) -> tuple[int, bytes]:
    """smtplib's ``SMTP.data`` (DATA, the message, the final dot), with :func:`dot_stuffed`."""
    conn.putcmd("data")
    code, reply = conn.getreply()
    if code != 354:
        raise smtplib.SMTPDataError(code, reply)
    if isinstance(msg, str):
        msg = smtplib._fix_eols(msg).encode("ascii")  # type: ignore[attr-defined]
    quoted = dot_stuffed(bytes(msg))
    if quoted[-2:] != b"\r\n":
        quoted += b"\r\n"
    conn.send(quoted + b".\r\n")
    return conn.getreply()


class _SMTP(smtplib.SMTP):
    def data(self, msg: Any) -> tuple[int, bytes]:
        return _data(self, msg)


class _SMTP_SSL(smtplib.SMTP_SSL):
    def data(self, msg: Any) -> tuple[int, bytes]:
        return _data(self, msg)


class SmtpSender:
    """An SMTP submission server (see the module docstring)."""

    def __init__(self, host: str, *, port: int | None = None, user: str = "", password: str = "",
                 tls: str = "tls", ca_file: Path | str | None = None, timeout: float = TIMEOUT) -> None:
        if tls not in ("tls", "starttls"):
            raise ValueError(tls)
        if user and not password:
            raise UsageError(f"the SMTP password is missing: set ${PASSWORD_VARIABLE} or give a password file")
        self.host, self.user, self._password = host, user, password
        self.port = port or (465 if tls == "tls" else 587)
        self.tls = tls
        self.context = tls_context(ca_file)
        self.timeout = timeout
        scheme = "smtps" if tls == "tls" else "smtp"
        self.label = f"{scheme}://{user + '@' if user else ''}{host}:{self.port}"
        self._conn: smtplib.SMTP | None = None
        self._used = 0.0

    @classmethod
    def from_url(cls, url: str, *, password: str = "", ca_file: Path | str | None = None) -> SmtpSender:
        scheme, host, port, user, path = parse_url(url, {"smtps": 465, "smtp": 587}, "SMTP")
        if path.strip("/"):
            raise UsageError(f"SMTP URL {url[:100]!r} has a path; write smtps://USER@HOST[:PORT]")
        return cls(host, port=port, user=user, password=password if user else "",
                   tls="tls" if scheme == "smtps" else "starttls", ca_file=ca_file)

    def fork(self) -> SmtpSender:
        """Another sender to the same server with a connection of its own (for sending in parallel
        from several threads: each thread its own sender)."""
        twin = SmtpSender.__new__(SmtpSender)
        twin.__dict__.update(self.__dict__)
        twin._conn, twin._used = None, 0.0
        return twin

    def _connect(self) -> smtplib.SMTP:
        doing = f"connecting to {self.host}:{self.port}"
        conn: smtplib.SMTP | None = None
        try:
            if self.tls == "tls":
                conn = _SMTP_SSL(self.host, self.port, timeout=self.timeout, context=self.context)
            else:
                conn = _SMTP(self.host, self.port, timeout=self.timeout)
            doing = "greeting the server"
            conn.ehlo()
            if self.tls == "starttls":
                if conn.has_extn("starttls"):
                    doing = "STARTTLS"
                    conn.starttls(context=self.context)
                    conn.ehlo()
                elif not is_loopback(self.host):
                    raise SendError(f"{self.label}: the server offers no STARTTLS; koryo-pbm sends mail without "
                                    f"TLS only to 127.0.0.1 (use smtps:// or a server with STARTTLS)")
            if self.user:
                doing = f"logging in as {self.user}"
                conn.login(self.user, self._password)
        except SendError:
            _quietly_close(conn)
            raise
        except (smtplib.SMTPException, OSError, ValueError) as exc:
            _quietly_close(conn)
            raise SendError(f"{self.label}: {doing} failed: {_reason(exc)}") from None
        return conn

    def _ready(self) -> smtplib.SMTP:
        conn = self._conn
        if conn is not None and time.monotonic() - self._used > IDLE_CHECK:
            try:
                code = conn.noop()[0]
            except (smtplib.SMTPException, OSError):
                code = 0
            if code != 250:
                _quietly_close(conn)
                conn = self._conn = None
        if conn is None:
            conn = self._conn = self._connect()
        return conn

    def send(self, data: bytes, *, sender: str, recipients: Sequence[str]) -> None:
        if not recipients:
            raise SendError("a mail without recipients cannot be sent", permanent=True)
        for address in (sender, *recipients):
            if any(ch.isspace() or ord(ch) < 32 or ch in "<>" for ch in address):
                raise SendError(f"{address[:80]!r} is not a mail address", permanent=True)
        conn = self._ready()
        try:
            refused = conn.sendmail(sender, list(recipients), data)
        except smtplib.SMTPRecipientsRefused as exc:
            self._reset()
            replies = "; ".join(f"{rcpt}: {code} {_text(msg)}" for rcpt, (code, msg) in exc.recipients.items())
            permanent = all(500 <= code < 600 for code, _ in exc.recipients.values())
            raise SendError(f"{self.label} refused {replies}"[:300], permanent=permanent) from None
        except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
            self._reset()
            what = "the sender" if isinstance(exc, smtplib.SMTPSenderRefused) else "the mail"
            raise SendError(f"{self.label} refused {what}: {_reply(exc)}", permanent=500 <= exc.smtp_code < 600) from None
        except (smtplib.SMTPException, OSError, ValueError) as exc:
            self.close()
            raise SendError(f"{self.label}: sending failed: {_reason(exc)}") from None
        self._used = time.monotonic()
        if refused:
            replies = "; ".join(f"{rcpt}: {code} {_text(msg)}" for rcpt, (code, msg) in refused.items())
            accepted = [r for r in recipients if r not in refused]
            raise SendError(f"{self.label} accepted the mail for {', '.join(accepted)} but refused {replies}"[:300],
                            permanent=True)

    def _reset(self) -> None:
        """After a refusal the connection is still good (smtplib has sent RSET); forget it if not."""
        conn = self._conn
        if conn is not None and conn.sock is None:
            self._conn = None
        self._used = time.monotonic()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.quit()
            except (smtplib.SMTPException, OSError):
                _quietly_close(conn)


def _text(msg: bytes | str) -> str:
    text = msg.decode("utf-8", "replace") if isinstance(msg, bytes) else msg
    return " ".join(text.split())[:120]


def _quietly_close(conn: smtplib.SMTP | None) -> None:
    if conn is not None:
        with contextlib.suppress(OSError):
            conn.close()
