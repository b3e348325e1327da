"""The outbox: every mail the judge sends is first a file in the game folder's ``outbox/``.

A mail is queued by writing ``outbox/<key>.eml`` atomically (the complete message, headers and
all); its key says what it is for (the answer to one incoming mail, the state mail of one
version to one player), so the same mail is never queued twice, even by a judge killed and
started again. Sending hands the bytes to the :class:`~koryo_pbm.transport.senders.Sender`,
then moves the file to ``outbox/sent/`` (one rename). A failed attempt is recorded beside it
(``outbox/.retry/<key>``: attempts, next try, reason) and retried with back-off, doubling up to
an hour: an outage loses nothing. A mail refused for good (an address that does not exist)
moves to ``outbox/failed/`` with its reason in ``<key>.reason``. Nothing is ever deleted.

A judge killed after the server accepted a mail but before the rename sends that one mail
again when restarted; it carries the same ``Message-ID``, which mail clients use to show it once.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from email.header import Header
from email.utils import encode_rfc2231, format_datetime, formataddr, getaddresses, parseaddr
from functools import lru_cache
from pathlib import Path
from typing import Any

from koryo_pbm.errors import StorageError
from koryo_pbm.judge.incoming import JUDGE_HEADER
from koryo_pbm.judge.messages import Outgoing
from koryo_pbm.store.atomic import is_temp_name, write_atomic
from koryo_pbm.transport.senders import Sender, SendError

OUTBOX = "outbox"
SENT = "sent"
FAILED = "failed"
RETRY = ".retry"
SUFFIX = ".eml"
MAX_BACKOFF = 3600.0
_SAFE = re.compile(r"[^A-Za-z0-9_.+-]")


def outbox_dir(game_dir: Path) -> Path:
    return Path(game_dir) / OUTBOX


def safe_key(key: str) -> str:
    return _SAFE.sub("_", key)[:120]


def _header(name: str, value: str) -> str:
    """``Name: value`` folded at spaces to lines of at most 78 characters, RFC 2047-encoded when
    not ASCII (address headers: only the display names)."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"a line break in the {name} header")
    if not value.isascii():
        if name in ("From", "To"):
            return f"{name}: " + ", ".join(formataddr(pair, "utf-8") for pair in getaddresses([value]))
        return f"{name}: " + Header(value, "utf-8", header_name=name).encode(linesep="\r\n")
    line = f"{name}: {value}"
    if len(line) <= 78:
        return line
    lines, current = [], ""
    for word in line.split(" "):
        if current and len(current) + 1 + len(word) > 78:
            lines.append(current)
            current = " " + word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return "\r\n".join(lines)


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").replace(b"\n", b"\r\n")


def render(out: Outgoing, *, from_header: str, message_id: str, date: float, tag: str,
           automatic: str = "auto-replied", mark: str = JUDGE_HEADER) -> bytes:
    """The complete message for ``out`` (CRLF line ends, as SMTP wants them).

    Written out directly (what ``EmailMessage`` with the SMTP policy writes, twenty times faster:
    the judge renders two or three mails per envelope): a text part, 7bit when it can be
    (lines up to 998 characters are fine, so what a player copies out of the raw mail, a receipt
    or a command, is exactly what is shown), quoted-printable otherwise; each attachment
    quoted-printable when it is text (a game file: a fifth smaller than base64), else base64.
    ``mark``: the header that tells the sender's own mail if it comes back (the judge's, or the
    co-dealer's: the judge must read that one)."""
    import binascii
    import datetime

    head = [
        _header("From", from_header),
        _header("To", out.to),
        _header("Subject", out.subject),
        _header("Date", format_datetime(datetime.datetime.fromtimestamp(date, datetime.UTC))),
        _header("Message-ID", message_id),
    ]
    if out.reply_to:
        head.append(_header("Reply-To", out.reply_to))
    if out.in_reply_to:
        head.append(_header("In-Reply-To", out.in_reply_to))
    if out.references:
        head.append(_header("References", " ".join(out.references)))
    head.append(_header("Auto-Submitted", automatic))  # RFC 3834: no robot answers the judge
    head.append(_header(mark, tag))
    head.append("MIME-Version: 1.0")
    text = out.body if out.body.endswith("\n") else out.body + "\n"
    if out.body.isascii() and all(len(line) <= 900 for line in out.body.splitlines()):
        cte, body = "7bit", _crlf(text.encode("ascii"))
    else:
        cte, body = "quoted-printable", _crlf(binascii.b2a_qp(text.encode("utf-8"), istext=True))
    text_part = f'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: {cte}\r\n\r\n'.encode() + body
    if not out.attachments:
        return ("\r\n".join(head) + "\r\n").encode("ascii") + text_part
    boundary = f"==============={os.urandom(12).hex()}=="
    parts = [text_part]
    for name, data in out.attachments:
        if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
            disposition = f'attachment; filename="{name}"'
        else:
            disposition = f"attachment; filename*={encode_rfc2231(name, 'utf-8')}"
        kind = ("application/toml" if name.endswith(".toml") else "text/html" if name.endswith(".html")
                else "application/octet-stream")
        parts.append(f"Content-Type: {kind}\r\nContent-Disposition: {disposition}\r\n".encode()
                     + _attachment_body(data))
    delimiter = f"--{boundary}\r\n".encode()
    # each delimiter begins on a line of its own: the line break before it belongs to it
    return ((("\r\n".join(head) + f'\r\nContent-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n').encode("ascii"))
            + b"".join(delimiter + part + b"\r\n" for part in parts) + f"--{boundary}--\r\n".encode())


_PLAIN = bytes([10, *range(32, 127)])
# a line of quoted-printable of at most 75 characters that does not end inside an "=XX"
_QP_LINE = re.compile(rb".{1,75}(?<!=)(?<!=[0-9A-F])", re.DOTALL)


@lru_cache(maxsize=4)
def _attachment_body(data: bytes) -> bytes:
    """An attachment's transfer encoding and body: text (at most one byte in 20 outside printable
    ASCII) quoted-printable with every byte kept (its line ends encoded too, so the file decodes
    to exactly these bytes), else base64. Remembered: a version's game file goes to every player."""
    import base64

    if len(data.translate(None, _PLAIN)) * 20 <= len(data):
        return b"Content-Transfer-Encoding: quoted-printable\r\n\r\n" + _quoted_printable(data)
    return b"Content-Transfer-Encoding: base64\r\n\r\n" + _crlf(base64.encodebytes(data))


def _quoted_printable(data: bytes) -> bytes:
    """Quoted-printable (RFC 2045) of ``data``, every byte kept: ``=``, the line feeds and every
    byte outside printable ASCII encoded (``=3D``, ``=0A``, ``=C3``...), a space at the very end
    too, lines of at most 76 characters joined by soft breaks (``=`` CRLF). It decodes to what
    ``binascii.b2a_qp(data, istext=False)`` encodes, at a third of its cost on a game file (the
    work is in C: a replace per kind of byte encoded, one regular expression for the lines)."""
    encoded = data.replace(b"=", b"=3D")
    for byte in sorted(set(data.translate(None, _PLAIN))):  # (few kinds: a game file has a "×" or two)
        encoded = encoded.replace(bytes((byte,)), b"=%02X" % byte)
    encoded = encoded.replace(b"\n", b"=0A")
    if encoded.endswith(b" "):  # white space may not end the last line
        encoded = encoded[:-1] + b"=20"
    lines = _QP_LINE.findall(encoded)
    if lines and lines[-1] == b".":  # never a line of a single dot (the end of an SMTP message)
        lines[-1] = b"=2E"
    return b"=\r\n".join(lines)


def _known(folder: Path, name: str) -> bool:
    where = os.fspath(folder)
    return any(os.path.exists(os.path.join(where, sub, name)) for sub in ("", SENT, FAILED))


@lru_cache(maxsize=8)
def _domain(from_header: str) -> str:
    """The domain of the judge's From address, for its Message-IDs (the same for every mail)."""
    return parseaddr(from_header)[1].rpartition("@")[2] or "koryo-pbm.invalid"


def queued_names(game_dir: Path) -> list[str]:
    """The names of every mail ever queued in this game's outbox (waiting, sent or failed)."""
    folder = outbox_dir(game_dir)
    names: list[str] = []
    for sub in ("", SENT, FAILED):
        try:
            names += [n for n in os.listdir(folder / sub) if n.endswith(SUFFIX) and not is_temp_name(n)]
        except OSError:
            continue
    return names


def is_queued(game_dir: Path, key: str) -> bool:
    """Was a mail with this key queued before (waiting, sent or failed)?"""
    return _known(outbox_dir(game_dir), safe_key(key) + SUFFIX)


def queue(game_dir: Path, out: Outgoing, *, from_header: str, game_id: str, tag: str, now: float,
          automatic: str = "auto-replied", mark: str = JUDGE_HEADER, known: set[str] | None = None) -> Path | None:
    """Put ``out`` in the outbox, unless a mail with its key was queued before. The new file, or None.

    ``known``: the :func:`queued_names` of this outbox, listed by a caller that asks for many
    mails while nothing else writes to it (the judge, during one pass): asked instead of the
    folders, and the new name added to it."""
    folder = outbox_dir(game_dir)
    name = safe_key(out.key) + SUFFIX
    if (name in known) if known is not None else _known(folder, name):
        return None
    if not os.path.isdir(os.path.join(folder, RETRY)):  # made last: the others are there (flush makes them too)
        for sub in ("", SENT, FAILED, RETRY):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
    domain = _domain(from_header)
    message_id = f"<{safe_key(out.key)}.{game_id}@{domain}>"
    data = render(out, from_header=from_header, message_id=message_id, date=now, tag=tag, automatic=automatic,
                  mark=mark)
    path = folder / name
    write_atomic(path, data, mode=0o600)
    _stamp_in_order(path)
    if known is not None:
        known.add(name)
    return path


_LAST_QUEUED = [0]  # the modification time (ns) given to the last mail queued by this process


def _stamp_in_order(path: Path) -> None:
    """Give the mail just queued a modification time later than every mail queued before it:
    :func:`pending` sends them oldest first, and a file system's clock moves in ticks (a few
    milliseconds), within which a state mail and the reminder queued after it would otherwise
    tie and go out in the order of their names."""
    import time

    stamp = max(time.time_ns(), _LAST_QUEUED[0] + 1000)  # (µs apart: file systems keep at least that)
    _LAST_QUEUED[0] = stamp
    with contextlib.suppress(OSError):  # the order is a courtesy: a file system refusing it keeps its own
        os.utime(path, ns=(stamp, stamp))


_HEAD_LINE = re.compile(r"[!-9;-~]+:|[ \t]")  # a header field's first line (RFC 5322 name), or a folded one


def _envelope(data: bytes) -> tuple[str, list[str]]:
    """The SMTP sender and recipients of a queued mail: its From and To, read from its header
    block alone (the parser given the whole mail would read its attachment line by line too:
    ten times the work). A header block of plain ASCII fields (as :func:`render` writes them)
    is split into its fields here, as the ``email`` parser would; anything else goes to it."""
    crlf = data.find(b"\n\r\n")
    lf = data.find(b"\n\n", 0, crlf if crlf >= 0 else len(data))
    end = lf if lf >= 0 else crlf if crlf >= 0 else len(data)
    head = data[:end + 1]
    froms: list[str] = []
    tos: list[str] = []
    if head.isascii() and not any(ch in head for ch in b"\x0b\x0c\x1c\x1d\x1e"):  # (str.splitlines' other breaks)
        fields: list[list[str]] = []
        for line in head.decode("ascii").splitlines(keepends=True):
            if not _HEAD_LINE.match(line):
                return _parsed_envelope(head)
            if line[0] in " \t":
                if not fields:
                    return _parsed_envelope(head)
                fields[-1].append(line)
            else:
                fields.append([line])
        for lines in fields:
            name, value = lines[0].split(":", 1)
            # unfolded as the parser does (compat32's header_source_parse)
            value = (value.lstrip(" \t") + "".join(lines[1:])).rstrip("\r\n")
            if name.lower() == "from":
                froms.append(value)
            elif name.lower() == "to":
                tos.append(value)
        sender, recipients = _addresses(froms[0] if froms else "", tuple(tos))
        return sender, list(recipients)
    return _parsed_envelope(head)


def _parsed_envelope(head: bytes) -> tuple[str, list[str]]:
    import email.policy
    from email.parser import BytesHeaderParser

    message = BytesHeaderParser(policy=email.policy.compat32).parsebytes(head)
    sender, recipients = _addresses(str(message.get("From", "")), tuple(str(v) for v in message.get_all("To", [])))
    return sender, list(recipients)


@lru_cache(maxsize=256)
def _addresses(from_value: str, to_values: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The address of a From value and those of the To values (remembered: the judge's From is the
    same on every mail, and each player's address on many)."""
    return parseaddr(from_value)[1], tuple(a for _, a in getaddresses(list(to_values)) if a)


def _retry_state(path: Path) -> tuple[int, float]:
    try:
        attempts, next_try, *_ = path.read_text(encoding="utf-8").split("\n", 2)
        return int(attempts), float(next_try)
    except (OSError, ValueError):
        return 0, 0.0


def _waiting(name: str) -> bool:
    return name.endswith(SUFFIX) and not is_temp_name(name) and not name.startswith(".")


def pending(game_dir: Path) -> list[Path]:
    """The mails waiting in the outbox, oldest first."""
    folder = outbox_dir(game_dir)
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if _waiting(entry.name):
                    try:
                        found.append((entry.stat(follow_symlinks=True).st_mtime_ns, entry.name))
                    except OSError:  # gone meanwhile (sent by a judge killed and started again)
                        found.append((0, entry.name))
    except OSError:
        return []
    return [folder / name for _, name in sorted(found)]


def has_pending(game_dir: Path) -> bool:
    """Whether a mail waits in the outbox (one listing, nothing read)."""
    try:
        with os.scandir(outbox_dir(game_dir)) as entries:
            return any(_waiting(entry.name) for entry in entries)
    except OSError:
        return False


def _read_mail(path: Path) -> bytes:
    """A queued mail's bytes (a file the judge wrote: not through Python's buffered ``open``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        size = os.fstat(fd).st_size
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, max(size + 1, 65536))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def flush(game_dir: Path, sender: Sender, *, now: float, retry_base: float,
          log: Callable[[str], None], give_up_after: int = 3,
          failed: Callable[[str], None] | None = None) -> tuple[int, int]:
    """Send what is due in this game's outbox. ``(sent, deferred)``. After ``give_up_after``
    failures in a row the rest waits for the next round (the server is probably down).
    ``failed`` is called with the (safe) key of each mail given up for good."""
    folder = outbox_dir(game_dir)
    sent = deferred = 0
    failures_in_a_row = 0
    waiting = pending(game_dir)
    if not waiting:
        return 0, 0
    try:  # the mails tried before (most have not been): only theirs are read and removed
        retried = set(os.listdir(folder / RETRY))
    except FileNotFoundError:
        retried = set()
    except OSError:
        retried = None
    for path in waiting:
        retry = folder / RETRY / path.name
        attempts, next_try = _retry_state(retry) if retried is None or path.name in retried else (0, 0.0)
        if next_try > now:
            deferred += 1
            continue
        if failures_in_a_row >= give_up_after:
            deferred += 1
            continue
        try:
            data = _read_mail(path)
        except FileNotFoundError:
            continue
        mail_from, recipients = _envelope(data)
        try:
            sender.send(data, sender=mail_from, recipients=recipients)
        except SendError as exc:
            if exc.permanent:
                (folder / FAILED).mkdir(exist_ok=True)
                write_atomic(folder / FAILED / (path.name[: -len(SUFFIX)] + ".reason"),
                             (str(exc) + "\n").encode("utf-8"))
                os.replace(path, folder / FAILED / path.name)
                _unlink(retry)
                log(f"cannot send {path} to {', '.join(recipients)}, and trying again cannot help: {exc} "
                    f"(kept in {folder / FAILED})")
                if failed is not None:
                    failed(path.name[: -len(SUFFIX)])
                continue
            attempts += 1
            wait = min(retry_base * 2 ** (attempts - 1), MAX_BACKOFF)
            (folder / RETRY).mkdir(exist_ok=True)
            write_atomic(retry, f"{attempts}\n{now + wait}\n{exc}\n".encode())
            if retried is not None:
                retried.add(path.name)
            log(f"cannot send {path.name} to {', '.join(recipients)} (attempt {attempts}): {exc}; "
                f"next try in {wait:g} s")
            failures_in_a_row += 1
            deferred += 1
            continue
        failures_in_a_row = 0
        log(f"sent {path.name} to {', '.join(recipients)}" + (f" (attempt {attempts + 1})" if attempts else ""))
        try:
            try:
                os.replace(path, folder / SENT / path.name)
            except FileNotFoundError:  # no sent/ yet (queue makes it): made, then moved
                (folder / SENT).mkdir(exist_ok=True)
                os.replace(path, folder / SENT / path.name)
            if retried is None or path.name in retried:
                _unlink(retry)
        except OSError as exc:
            # sent, but still in the outbox: it goes again (same Message-ID) at the next pass
            raise StorageError(f"{path.name} was sent but cannot be moved to {folder / SENT}: "
                               f"{exc.strerror or exc}") from None
        sent += 1
    return sent, deferred


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def in_parallel(items: list[Any], senders: list[Any], work: Callable[[Any, Any], Any]) -> None:
    """``work(item, sender)`` for each item, through all the senders at once (each a connection:
    an SMTP server answers each mail only once it is safely queued, and in parallel those waits
    overlap); each item by one sender."""
    import queue
    from concurrent.futures import ThreadPoolExecutor

    if len(senders) == 1 or len(items) < 2:
        for item in items:
            work(item, senders[0])
        return
    todo: queue.SimpleQueue[Any] = queue.SimpleQueue()
    for item in items:
        todo.put(item)

    def run(sender: Any) -> None:
        while True:
            try:
                item = todo.get_nowait()
            except queue.Empty:
                return
            work(item, sender)

    with ThreadPoolExecutor(len(senders)) as pool:
        list(pool.map(run, senders))
