"""The judge's mail from an IMAP folder (:class:`ImapSource`, a :class:`~koryo_pbm.transport.sources.Source`).

``imaps://USER@HOST[:PORT]/FOLDER`` speaks TLS from the first byte (port 993 by default);
``imap://USER@HOST[:PORT]/FOLDER`` upgrades with STARTTLS (port 143), and only a server on
127.0.0.1 (or ::1) may be spoken to without TLS, when it offers no STARTTLS. The certificate is
checked against the system's trusted CAs (``SSL_CERT_FILE`` is honoured), or against ``ca_file``
for a server with a certificate of its own. The password never comes from the URL: the caller
reads it from ``$KORYO_PBM_IMAP_PASSWORD`` or a file (see :func:`imap_password`).

New mail is waited for with IDLE when the server offers it, by polling otherwise; a fetch on the
connection kept open sends NOOP first, so that the server looks at the folder again. A handled mail
is moved to the folder ``koryo-pbm/done`` (spelled with the server's hierarchy separator; created
when missing), many at a time: with MOVE when offered, otherwise COPY, then ``\\Deleted`` and UID
EXPUNGE of those messages. Nothing else is ever deleted. A mail larger than
:data:`~koryo_pbm.transport.sources.MAIL_LIMIT` is not downloaded: only its first
:data:`~koryo_pbm.transport.sources.HEAD_LIMIT` bytes, to answer its sender.

Everything that can go wrong with the server or the network raises
:class:`~koryo_pbm.transport.sources.SourceError` (and drops the connection); the judge logs it and
tries again later.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from koryo_pbm.errors import UsageError
from koryo_pbm.transport.sources import DONE_FOLDER, HEAD_LIMIT, MAIL_LIMIT, IncomingMail, SourceError

PASSWORD_VARIABLE = "KORYO_PBM_IMAP_PASSWORD"
TIMEOUT = 60.0  # seconds for any one server reply
IDLE_MAX = 25 * 60.0  # RFC 2177: re-issue IDLE at least every 29 minutes
BATCH_BYTES = 8 * 1024 * 1024  # at most this much mail fetched by one FETCH command
BATCH_COUNT = 100  # at most this many messages fetched by one FETCH command
PIECE = 1024 * 1024  # a message larger than this is fetched alone, in pieces of this size (see _fetch_pieces)
MARK_BATCH = 100  # handled messages moved by one command


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address literally (a name is never trusted to be local)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_url(url: str, schemes: dict[str, int], what: str) -> tuple[str, str, int, str, str]:
    """``(scheme, host, port, user, path)`` of a mail server URL; a one-line UsageError otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"{what} URL {url[:100]!r} cannot be read: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        expected = " or ".join(f"{s}://" for s in schemes)
        raise UsageError(f"{what} URL {url[:100]!r} must start with {expected}")
    if parts.password is not None:
        raise UsageError(f"{what} URL holds a password: never put it on the command line "
                         f"(use ${PASSWORD_VARIABLE if what == 'IMAP' else 'KORYO_PBM_SMTP_PASSWORD'} or a password file)")
    if parts.query or parts.fragment:
        raise UsageError(f"{what} URL {url[:100]!r} has a ?query or #fragment, which koryo-pbm does not use")
    host = parts.hostname or ""
    if not host:
        raise UsageError(f"{what} URL {url[:100]!r} names no server")
    user = unquote(parts.username or "")
    return scheme, host, port or schemes[scheme], user, unquote(parts.path)


def tls_context(ca_file: Path | str | None) -> ssl.SSLContext:
    """A client context that checks the server's certificate and name, against ``ca_file`` if given."""
    if ca_file is None:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=str(ca_file))
    except FileNotFoundError:
        raise UsageError(f"no CA file at {ca_file}") from None
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"the CA file {ca_file} cannot be used: {getattr(exc, 'strerror', None) or exc}") from None


def read_password(variable: str, password_file: Path | str | None, what: str) -> str:
    """The password from a file (its first line) or else from the environment variable."""
    if password_file is not None:
        try:
            with open(password_file, encoding="utf-8") as f:
                text = f.read(4096)
        except FileNotFoundError:
            raise UsageError(f"no {what} password file at {password_file}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"the {what} password file {password_file} cannot be read: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
        password = text.splitlines()[0] if text.splitlines() else ""
        if not password:
            raise UsageError(f"the {what} password file {password_file} is empty")
        return password
    password = os.environ.get(variable, "")
    if not password:
        raise UsageError(f"the {what} password is missing: set ${variable} or give a password file")
    return password


def imap_password(password_file: Path | str | None = None) -> str:
    """The IMAP password from ``--imap-password-file`` or ``$KORYO_PBM_IMAP_PASSWORD``."""
    return read_password(PASSWORD_VARIABLE, password_file, "IMAP")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the server's certificate is not trusted ({exc.verify_message}; --ca-file names a CA to trust)"
    if isinstance(exc, socket.timeout | TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = exc.args[0] if exc.args else exc
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return " ".join(str(text).split())[:200] or exc.__class__.__name__


class ImapSource:
    """One IMAP folder, read by one connection kept open between calls (see the module docstring).

    Its errors do not repeat its label: the judge names the source (``label``) in front of them."""

    def __init__(self, host: str, user: str, password: str, *, port: int | None = None, folder: str = "INBOX",
                 tls: str = "tls", ca_file: Path | str | None = None, done_folder: str = DONE_FOLDER,
                 poll: float = 60.0, timeout: float = TIMEOUT) -> None:
        if tls not in ("tls", "starttls"):
            raise ValueError(tls)
        if not user:
            raise UsageError("the IMAP URL names no user (imaps://USER@HOST/FOLDER)")
        self.host, self.user, self._password = host, user, password
        self.port = port or (993 if tls == "tls" else 143)
        self.folder = folder or "INBOX"
        self.tls = tls
        self.context = tls_context(ca_file)
        self.done_folder = done_folder
        self.poll = poll
        self.timeout = timeout
        scheme = "imaps" if tls == "tls" else "imap"
        self.label = f"{scheme}://{user}@{host}:{self.port}/{self.folder}"
        self._client: Any = None
        self._uidvalidity = 0
        self._done_name = ""
        self._last_uid = 0
        self._pending: list[int] = []

    @classmethod
    def from_url(cls, url: str, *, password: str, done_folder: str = DONE_FOLDER,
                 ca_file: Path | str | None = None, poll: float = 60.0) -> ImapSource:
        scheme, host, port, user, path = parse_url(url, {"imaps": 993, "imap": 143}, "IMAP")
        folder = path.lstrip("/") or "INBOX"
        return cls(host, user, password, port=port, folder=folder, tls="tls" if scheme == "imaps" else "starttls",
                   ca_file=ca_file, done_folder=done_folder, poll=poll)

    # -- the connection ------------------------------------------------------------------------

    def _fail(self, doing: str, exc: BaseException) -> SourceError:
        self._drop()
        return SourceError(f"{doing} failed: {_reason(exc)}")

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.shutdown()

    def connect(self) -> None:
        """Connect, secure, log in and select the folder (done by ``fetch`` when needed)."""
        if self._client is not None:
            return
        from imapclient import IMAPClient

        doing = f"connecting to {self.host}:{self.port}"
        try:
            if self.tls == "tls":
                client = IMAPClient(self.host, self.port, ssl=True, ssl_context=self.context, timeout=self.timeout)
            else:
                client = IMAPClient(self.host, self.port, ssl=False, timeout=self.timeout)
                self._client = client
                if client.has_capability("STARTTLS"):
                    doing = "STARTTLS"
                    client.starttls(self.context)
                elif not is_loopback(self.host):
                    self._drop()
                    raise SourceError("the server offers no STARTTLS; koryo-pbm sends a password "
                                      "without TLS only to 127.0.0.1 (use imaps:// or a server with STARTTLS)")
            self._client = client
            doing = f"logging in as {self.user}"
            client.login(self.user, self._password)
            doing = f"opening the folder {self.folder}"
            info = client.select_folder(self.folder)
            validity = int(info.get(b"UIDVALIDITY", 0))
            if validity != self._uidvalidity:
                self._uidvalidity, self._last_uid = validity, 0
            doing = f"finding the folder {self.done_folder}"
            self._done_name = self._done_folder_name(client)
            if not client.folder_exists(self._done_name):
                doing = f"creating the folder {self._done_name}"
                client.create_folder(self._done_name)
                with contextlib.suppress(Exception):  # subscribing only shows it in mail clients
                    client.subscribe_folder(self._done_name)
        except SourceError:
            raise
        except Exception as exc:
            raise self._fail(doing, exc) from None

    def _done_folder_name(self, client: Any) -> str:
        """``koryo-pbm/done`` spelled for this server: its personal namespace's prefix and separator."""
        return self._spelled(client, self.done_folder)

    @staticmethod
    def _spelled(client: Any, folder: str) -> str:
        """A folder's name spelled for this server: its personal namespace's prefix and separator."""
        prefix, sep = "", "/"
        try:
            personal = client.namespace().personal
            if personal:
                prefix, sep = personal[0][0] or "", personal[0][1] or "/"
        except Exception:
            pass  # no NAMESPACE: the plain name
        if isinstance(prefix, bytes):
            prefix = prefix.decode("utf-8", "replace")
        if isinstance(sep, bytes):
            sep = sep.decode("utf-8", "replace")
        name = folder.replace("/", sep)
        return name if name.startswith(prefix) else prefix + name

    # -- the Source contract -------------------------------------------------------------------

    def fetch(self) -> Iterator[IncomingMail]:
        """Every message in the folder, oldest first, in batches of bounded size."""
        kept_open = self._client is not None
        self.connect()
        self.flush()
        client = self._client
        try:
            if kept_open:
                # A server may answer SEARCH from what it last saw of the mailbox: dovecot looks at a
                # Maildir again for it only every 5 s, so a judge polling without IDLE found one new
                # mail per 5 s whatever its --poll. NOOP makes the server look first (RFC 3501 6.1.2);
                # a fresh connection's SELECT has just looked.
                client.noop()
            uids = sorted(client.search(["NOT", "DELETED"]))
            sizes = {}
            for i in range(0, len(uids), 1000):
                for uid, item in client.fetch(uids[i:i + 1000], ["RFC822.SIZE"]).items():
                    sizes[uid] = int(item.get(b"RFC822.SIZE", 0))
            client._imap.untagged_responses.clear()
        except Exception as exc:
            raise self._fail("listing the folder", exc) from None
        batch: list[int] = []
        batch_bytes = 0
        for uid in uids:
            if uid not in sizes:
                continue  # moved away meanwhile
            size = sizes[uid]
            if size > MAIL_LIMIT:
                yield from self._fetch_batch(batch, sizes)
                batch, batch_bytes = [], 0
                yield from self._fetch_head(uid, size)
                continue
            if size > PIECE:
                yield from self._fetch_batch(batch, sizes)
                batch, batch_bytes = [], 0
                yield from self._fetch_pieces(uid, size)
                continue
            if batch and (batch_bytes + size > BATCH_BYTES or len(batch) >= BATCH_COUNT):
                yield from self._fetch_batch(batch, sizes)
                batch, batch_bytes = [], 0
            batch.append(uid)
            batch_bytes += size
        yield from self._fetch_batch(batch, sizes)

    def _mail(self, uid: int, data: bytes, size: int, truncated: bool) -> IncomingMail:
        self._last_uid = max(self._last_uid, uid)
        key = f"{self._uidvalidity}:{uid}"
        return IncomingMail(key=key, label=f"{self.label}, UID {uid}", data=data, size=size, truncated=truncated)

    def _fetch_batch(self, uids: list[int], sizes: dict[int, int]) -> Iterator[IncomingMail]:
        if not uids:
            return
        if self._client is None:
            raise SourceError("the connection was lost")
        try:
            found = self._client.fetch(uids, ["BODY.PEEK[]"])
        except Exception as exc:
            raise self._fail("fetching mail", exc) from None
        for uid in uids:
            item = found.pop(uid, None)
            if item is None:
                continue  # expunged meanwhile
            data = item.get(b"BODY[]") or b""
            if len(data) > MAIL_LIMIT:  # the server announced a smaller size
                yield self._mail(uid, data[:HEAD_LIMIT], len(data), True)
            else:
                yield self._mail(uid, data, max(len(data), sizes.get(uid, 0)), False)

    def _fetch_pieces(self, uid: int, size: int) -> Iterator[IncomingMail]:
        """One large message, fetched :data:`PIECE` bytes at a time and joined once: the memory
        it costs is about twice its size at the join, then once (a FETCH of the whole message
        costs several times its size in the IMAP library's buffers)."""
        if self._client is None:
            raise SourceError("the connection was lost")
        pieces: list[bytes] = []
        got = 0
        while got <= MAIL_LIMIT:
            try:
                found = self._client.fetch([uid], [f"BODY.PEEK[]<{got}.{PIECE}>"])
            except Exception as exc:
                raise self._fail("fetching a large mail", exc) from None
            self._client._imap.untagged_responses.clear()
            item = found.pop(uid, None)
            if item is None:
                return  # expunged meanwhile
            chunk = b""
            for key, value in item.items():
                if isinstance(key, bytes) and key.startswith(b"BODY[]") and isinstance(value, bytes):
                    chunk = value
            del found, item
            pieces.append(chunk)
            got += len(chunk)
            if len(chunk) < PIECE:
                break
        data = b"".join(pieces)
        del pieces
        if len(data) > MAIL_LIMIT:  # the server announced a smaller size
            yield self._mail(uid, data[:HEAD_LIMIT], len(data), True)
        else:
            yield self._mail(uid, data, max(len(data), size), False)

    def _fetch_head(self, uid: int, size: int) -> Iterator[IncomingMail]:
        if self._client is None:
            raise SourceError("the connection was lost")
        try:
            found = self._client.fetch([uid], [f"BODY.PEEK[]<0.{HEAD_LIMIT}>"])
        except Exception as exc:
            raise self._fail("fetching the start of a large mail", exc) from None
        item = found.get(uid)
        if item is None:
            return
        data = b""
        for key, value in item.items():
            if isinstance(key, bytes) and key.startswith(b"BODY[]") and isinstance(value, bytes):
                data = value[:HEAD_LIMIT]
        yield self._mail(uid, data, size, True)

    def mark_handled(self, mail: IncomingMail) -> None:
        """Move the message to the done folder (MOVE, or COPY + \\Deleted + UID EXPUNGE).

        Moves are sent in batches of :data:`MARK_BATCH` (one command for many messages, which a
        server does at the cost of one): the rest goes with the next ``fetch``, ``wait``, ``flush``
        or ``close``. A judge killed before that finds those messages again and handles them
        again, which changes nothing (the contract of every source)."""
        validity, _, uid_text = mail.key.partition(":")
        if self._client is None or int(validity) != self._uidvalidity:
            self._pending.clear()  # a new connection: the messages are found again, handled idempotently
            return
        self._pending.append(int(uid_text))
        if len(self._pending) >= MARK_BATCH:
            self.flush()

    def flush(self) -> None:
        """Move the messages marked handled so far (see :meth:`mark_handled`)."""
        uids, self._pending = sorted(set(self._pending)), []
        client = self._client
        if not uids or client is None:
            return
        try:
            if client.has_capability("MOVE"):
                client.move(uids, self._done_name)
            else:
                present = sorted(client.fetch(uids, ["UID"]))  # those not moved already
                if present:
                    client.copy(present, self._done_name)
                    client.add_flags(present, [b"\\Deleted"])
                    if client.has_capability("UIDPLUS"):
                        client.uid_expunge(present)
                    else:
                        client.expunge()
            client._imap.untagged_responses.clear()
        except Exception as exc:
            raise self._fail(f"moving {len(uids)} handled mails to {self._done_name}", exc) from None

    def move_to(self, mail: IncomingMail, folder: str) -> None:
        """Move one message to ``folder`` (spelled for this server as the done folder is; made if
        missing), unhandled: another reader's (a judge of another shard) to handle."""
        validity, _, uid_text = mail.key.partition(":")
        client = self._client
        if client is None or int(validity) != self._uidvalidity:
            raise SourceError(f"the connection changed before {mail.label} was moved; moved at the next pass")
        name = self._spelled(client, folder)
        uid = int(uid_text)
        try:
            if not client.folder_exists(name):
                client.create_folder(name)
            if client.has_capability("MOVE"):
                client.move([uid], name)
            else:
                client.copy([uid], name)
                client.add_flags([uid], [b"\\Deleted"])
                if client.has_capability("UIDPLUS"):
                    client.uid_expunge([uid])
                else:
                    client.expunge()
            client._imap.untagged_responses.clear()
        except Exception as exc:
            raise self._fail(f"moving {mail.label} to {name}", exc) from None

    def wait(self, timeout: float) -> None:
        """Until the server reports new mail (IDLE) or ``timeout`` seconds pass; polls without IDLE."""
        timeout = max(0.0, timeout)
        if self._client is not None:
            with contextlib.suppress(SourceError):  # the next fetch reconnects, or reports why it cannot
                self.flush()
        client = self._client
        if client is None or not client.has_capability("IDLE"):
            time.sleep(min(timeout, self.poll))
            return
        try:
            # Mail that arrived since the last fetch (its EXISTS may have come with another reply);
            # NOOP makes the server look at the mailbox first.
            client.noop()
            newer = [uid for uid in client.search(["UID", f"{self._last_uid + 1}:*"]) if uid > self._last_uid]
            client._imap.untagged_responses.clear()  # imaplib keeps EXPUNGE replies otherwise: memory stays flat
            if newer:
                return
            client.idle()
            try:
                client.idle_check(timeout=min(timeout, IDLE_MAX))
            finally:
                client.idle_done()
        except Exception:
            self._drop()  # the next fetch reconnects, or reports why it cannot

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(SourceError):
                self.flush()
        client, self._client = self._client, None
        if client is not None:
            try:
                client.logout()
            except Exception:
                with contextlib.suppress(Exception):
                    client.shutdown()
