"""How the judge's outgoing mail leaves: the :class:`Sender` interface, and a sendmail program.

The judge composes every mail completely (headers, ``Message-ID``, body, attachment) as bytes
and queues it in the game's ``outbox/``; a sender only delivers those bytes. Implementations:

* :class:`SendmailSender` (here): a sendmail-compatible program (``/usr/sbin/sendmail`` of
  postfix, exim, msmtp, nullmailer), called as ``PATH -i -f FROM -- RCPT...``.
* ``koryo_pbm.transport.smtp.SmtpSender``: an SMTP submission server (``smtps://`` or
  ``smtp://`` with STARTTLS). Made by ``SmtpSender.from_url(url, password=...)``.

Contract for every sender (what the outbox relies on):

* ``send(data, sender=..., recipients=...)`` returns once the mail was accepted for delivery.
  ``data`` is the complete message; ``sender`` is the envelope sender (``MAIL FROM``, ``-f``);
  ``recipients`` the envelope recipients (already taken from the message; never its headers).
* On failure it raises :class:`SendError`, ``permanent=True`` when trying again cannot help
  (a 5xx reply to the recipient or the data, sendmail's "no such user"); otherwise the outbox
  keeps the mail and retries with back-off (an outage loses nothing).
* ``close()`` releases connections; a sender may keep one open between ``send`` calls.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from koryo_pbm.errors import KoryoPbmError

SEND_TIMEOUT = 120.0  # seconds one delivery may take


class SendError(KoryoPbmError):
    """A mail could not be handed on; ``permanent`` when retrying cannot help."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@runtime_checkable
class Sender(Protocol):
    """Delivers complete messages (see the module docstring for the contract)."""

    label: str

    def send(self, data: bytes, *, sender: str, recipients: Sequence[str]) -> None: ...

    def close(self) -> None: ...


# sysexits.h codes after which sending the same mail again cannot succeed
_PERMANENT_EXITS = {64: "usage error", 65: "data format error", 67: "addressee unknown", 68: "host name unknown"}


class SendmailSender:
    """A sendmail-compatible program: the message on its standard input, ``-i`` (a line with a
    single dot is not the end), ``-f`` the envelope sender, the recipients after ``--``."""

    def __init__(self, program: Path | str, *, timeout: float = SEND_TIMEOUT) -> None:
        # a path, made absolute once: the program at that path is run, never one found on $PATH
        # (``Path("./sendmail")`` is ``sendmail``, which subprocess would look up there)
        self.program = os.path.abspath(os.fspath(program))
        self.timeout = timeout
        self.label = f"sendmail {self.program}"

    def send(self, data: bytes, *, sender: str, recipients: Sequence[str]) -> None:
        if not recipients:
            raise SendError("a mail without recipients cannot be sent", permanent=True)
        for address in (sender, *recipients):
            if address.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in address):
                raise SendError(f"{address[:80]!r} is not a mail address", permanent=True)
        args = [self.program, "-i", "-f", sender, "--", *recipients]
        try:
            done = subprocess.run(args, input=data, capture_output=True, timeout=self.timeout, check=False)
        except FileNotFoundError:
            raise SendError(f"no sendmail program at {self.program}") from None
        except PermissionError:
            raise SendError(f"{self.program} cannot be run (permission denied)") from None
        except subprocess.TimeoutExpired:
            raise SendError(f"{self.program} did not finish within {self.timeout:g} seconds") from None
        except OSError as exc:
            raise SendError(f"{self.program} cannot be run: {exc.strerror or exc}") from None
        if done.returncode != 0:
            detail = " ".join(done.stderr.decode("utf-8", "replace").split())[:200]
            kind = _PERMANENT_EXITS.get(done.returncode)
            raise SendError(
                f"{self.program} failed (exit status {done.returncode}{', ' + kind if kind else ''})"
                + (f": {detail}" if detail else ""),
                permanent=kind is not None,
            )

    def close(self) -> None:
        pass
