"""Envelopes from mail files: a single message (``.eml``), an mbox file, or a Maildir folder.

Every text part and every attachment (decoded from base64 or quoted-printable) of every
message is searched for armoured envelopes, quoted replies included (see
:func:`koryo_pbm.crypto.envelope.scan_armored`). Bad mail gives error items, never a traceback;
an envelope found twice (an HTML alternative, a quoted copy) is reported once.

A message is parsed only if its raw bytes pass :func:`check_structure` (one pass: each header
block at most 64 KiB, all of them at most 256 KiB, at most 200 parts and 32 boundaries) and its
parts nest at most 8 deep; otherwise it is one error item with a one-line reason. A mail with
20,000 tiny parts costs a scan of its bytes, not a parse.
"""

from __future__ import annotations

import html
import itertools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from koryo_pbm.crypto.envelope import BEGIN, scan_armored
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError

if TYPE_CHECKING:
    from koryo_pbm.crypto.envelope import Envelope

MAX_MESSAGE = 32 * 1024 * 1024  # one message (an .eml file, a Maildir file, one mbox message)
MAX_MBOX = 512 * 1024 * 1024  # a whole mbox file
MAX_PART = 8 * 1024 * 1024  # one decoded part
# The structure of one message, checked on its raw bytes before it is parsed (the parser's
# cost grows with the number of parts much faster than with their size):
MAX_HEADER_BLOCK = 64 * 1024  # one header block (the message's, or one part's)
MAX_HEADERS = 256 * 1024  # all header blocks of the message together
MAX_PARTS = 200  # MIME parts
MAX_BOUNDARIES = 32  # multipart boundaries declared
MAX_DEPTH = 8  # multipart nesting
# What is parsed of a large message (the ``email`` package holds a parsed message several times
# over: a 31 MB mail cost 333 MB): a message larger than SLIM_LIMIT is parsed without the bodies
# of its parts larger than BIG_PART that hold nothing like an envelope, each scanned for one
# in a stream of BIG_PART chunks instead. The parts kept may come to SLIM_LIMIT bytes together.
SLIM_LIMIT = 2 * 1024 * 1024
BIG_PART = 64 * 1024
_BOUNDARY = re.compile(rb'boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.IGNORECASE)
_MARK = BEGIN.encode("ascii")
_MARKS_UTF16 = (BEGIN.encode("utf-16-le"), BEGIN.encode("utf-16-be"))
_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<\s*(br|/p|/div|/pre|/blockquote|/li)\b[^>]*>[ \t]*\r?\n?", re.IGNORECASE)

Found = list[tuple[str, "Envelope | FormatError"]]


def envelopes_from_mail(path: Path, *, empty: list[str] | None = None) -> Found:
    """``(source label, envelope or FormatError)`` for every armoured block in the mail at ``path``.

    Each label names the message (its place, then its From, Subject and Date), so that a refusal
    can be matched to the mail; ``empty`` gets the label of every message that held nothing
    like an envelope (none is skipped silently)."""
    path = Path(path)
    seen: set[str] = set()
    if path.is_dir():
        return _from_maildir(path, seen, empty)
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except FileNotFoundError:
        raise StorageError(f"no mail file or folder at {path}") from None
    except OSError as exc:
        raise StorageError(f"cannot read mail {path}: {exc.strerror or exc}") from None
    if head == b"From ":
        return _from_mbox(path, seen, empty)
    label = f"mail {path}"
    data = _read(path, label)
    if isinstance(data, FormatError):
        return [(label, data)]
    return _from_message(data, label, seen, name_mail=True, empty=empty)


def _read(path: Path, label: str) -> bytes | FormatError:
    from koryo_pbm.store.atomic import read_limited

    try:
        return read_limited(path, MAX_MESSAGE, "mail file")
    except FormatError as exc:
        return FormatError(f"{label}: {exc}")
    except StorageError as exc:
        return FormatError(f"{label}: {exc}")


def _from_maildir(folder: Path, seen: set[str], empty: list[str] | None = None) -> Found:
    subs = [s for s in ("new", "cur") if (folder / s).is_dir()]
    if not subs:
        raise StorageError(f"{folder} is a folder but not a Maildir (it has no cur/ or new/)")
    found: Found = []
    for sub in subs:
        try:
            names = sorted(os.listdir(folder / sub))
        except OSError as exc:
            raise StorageError(f"cannot list {folder / sub}: {exc.strerror or exc}") from None
        for name in names:
            path = folder / sub / name
            if name.startswith(".") or not path.is_file():
                continue
            label = f"Maildir {folder}, {sub}/{name}"
            data = _read(path, label)
            if isinstance(data, FormatError):
                found.append((label, data))
            else:
                found.extend(_from_message(data, label, seen, name_mail=True, empty=empty))
    return found


def _from_mbox(path: Path, seen: set[str], empty: list[str] | None = None) -> Found:
    import mailbox

    try:
        size = path.stat().st_size
    except OSError as exc:
        raise StorageError(f"cannot read mbox {path}: {exc.strerror or exc}") from None
    if size > MAX_MBOX:
        raise FormatError(f"mbox {path} is larger than {MAX_MBOX} bytes")
    found: Found = []
    try:
        box = mailbox.mbox(str(path), create=False)
        try:
            for n, key in enumerate(box.iterkeys(), 1):
                label = f"mbox {path}, message {n}"
                data = box.get_bytes(key)
                if len(data) > MAX_MESSAGE:
                    found.append((label, FormatError(f"{label} is larger than {MAX_MESSAGE} bytes")))
                    continue
                found.extend(_from_message(data, label, seen, name_mail=True, empty=empty))
        finally:
            box.close()
    except OSError as exc:
        raise StorageError(f"cannot read mbox {path}: {exc.strerror or exc}") from None
    except mailbox.Error as exc:
        raise FormatError(f"mbox {path} cannot be read: {exc}") from None
    return found


def scan_message(data: bytes, label: str) -> Found:
    """Every envelope of one raw message (``data``), each once; what looks like an envelope but
    cannot be read is a ``FormatError`` item naming ``label``."""
    return _from_message(data, label, set())


def read_message(data: bytes, label: str, *, checked: bool = False) -> tuple[Any, Found]:
    """:func:`scan_message`, and the message as parsed for it (a ``compat32`` ``Message``: its
    headers as written, for a caller that reads them too without parsing the mail again), or
    None when it was not parsed (its structure refused, or the parser failed: the items say
    why). ``checked``: ``data`` already passed :func:`check_structure`."""
    kept: list[Any] = []
    found = _from_message(data, label, set(), checked=checked, kept=kept)
    return (kept[0] if kept else None), found


def _named(message: Any, label: str) -> str:
    """``label`` with the message's From, Subject and Date: ``mail x.eml (from a@b, "Subject", Date)``."""
    from email.header import decode_header, make_header

    def text(name: str) -> str:
        value = message.get(name)
        if value is None:
            return ""
        try:
            value = str(make_header(decode_header(str(value))))
        except Exception:  # an encoded word that cannot be decoded: shown as written
            value = str(value)
        value = " ".join(value.split())
        return value if len(value) <= 80 else value[:79] + "…"

    subject = text("Subject") or "(no subject)"
    return f'{label} (from {text("From") or "(no sender)"}, "{subject}", {text("Date") or "(no date)"})'


def _from_message(data: bytes, label: str, seen: set[str], *, name_mail: bool = False,
                  empty: list[str] | None = None, checked: bool = False, kept: list[Any] | None = None) -> Found:
    """Every envelope of one raw message; a message that cannot be read is one error item.
    ``name_mail``: labels name the message by its From, Subject and Date too; ``empty`` gets the
    label of a message without anything like an envelope. ``checked``: ``data`` passed
    :func:`check_structure` already; ``kept`` gets the parsed message (see :func:`read_message`)."""
    import email
    import email.policy

    found: Found = []
    again: list[str] = []  # envelopes found before (in another message): not repeated, not a miss
    problem = None if checked else check_structure(data)
    if problem is None and len(data) > SLIM_LIMIT:
        data, problem = slim(data)
    if problem is not None:
        return [(label, FormatError(f"{label}: {problem}"))]
    try:
        # compat32: the parts' headers are read as plain text, not parsed into header objects
        # (what the default policy does, at several times the cost); payloads decode the same
        message = email.message_from_bytes(data, policy=email.policy.compat32)
        if kept is not None:
            kept.append(message)
        if name_mail:
            label = _named(message, label)
        depth = _depth(message)
        if depth > MAX_DEPTH:
            return [(label, FormatError(f"{label}: its parts are nested {depth} deep (at most {MAX_DEPTH} are read)"))]
        for part in message.walk():
            if part.is_multipart():
                continue
            found.extend(_from_part(part, label, seen, again))
    except KoryoPbmError as exc:  # pragma: no cover - _from_part returns its errors as items
        found.append((label, FormatError(f"{label}: {exc}")))
    except Exception as exc:
        found.append((label, FormatError(f"{label}: this message cannot be read ({exc.__class__.__name__})")))
    if not found and not again and empty is not None:
        empty.append(label)
    return found


def _header_end(data: bytes, start: int) -> int:
    """Where the header block starting at ``start`` ends (its blank line), or -1 if it does
    not end within ``MAX_HEADER_BLOCK`` bytes."""
    window = start + MAX_HEADER_BLOCK + 4
    if data.startswith(b"\n", start) or data.startswith(b"\r\n", start):
        return start
    ends = [i for i in (data.find(b"\n\n", start, window), data.find(b"\n\r\n", start, window)) if i >= 0]
    if not ends:
        return len(data) if len(data) - start <= MAX_HEADER_BLOCK else -1
    return min(ends) + 1


def check_structure(data: bytes) -> str | None:
    """Why the raw message ``data`` is not parsed (its headers too large, too many parts or
    boundaries), or ``None``. One pass over the bytes, whatever they hold."""
    end = _header_end(data, 0)
    if end < 0:
        return f"its header is larger than {MAX_HEADER_BLOCK} bytes"
    total = end
    boundaries = {m.group(1) or m.group(2) for m in _BOUNDARY.finditer(data)}
    if len(boundaries) > MAX_BOUNDARIES:
        return f"it declares more than {MAX_BOUNDARIES} multipart boundaries"
    if not boundaries:
        return None
    delimiter = re.compile(b"\n--(?:" + b"|".join(re.escape(b) for b in sorted(boundaries)) + b")(--)?")
    parts = 0
    for m in delimiter.finditer(data):
        if m.group(1):  # a closing delimiter
            continue
        parts += 1
        if parts > MAX_PARTS:
            return f"it has more than {MAX_PARTS} parts"
        line_end = data.find(b"\n", m.end())
        if line_end < 0:
            break
        end = _header_end(data, line_end + 1)
        if end < 0:
            return f"a part's header is larger than {MAX_HEADER_BLOCK} bytes"
        total += end - line_end
        if total > MAX_HEADERS:
            return f"its headers are larger than {MAX_HEADERS} bytes together"
    return None


_CTE = re.compile(rb"(?im)^content-transfer-encoding[ \t]*:[ \t]*([A-Za-z0-9-]+)")
_NOT_B64 = re.compile(rb"[^A-Za-z0-9+/]")


def _marked(body: memoryview, cte: bytes) -> bool:
    """Does ``body`` (one part's, encoded with ``cte``) hold what may be an envelope? Decoded
    ``BIG_PART`` bytes at a time (a chunk's last bytes are searched again with the next one)."""
    import binascii

    marks = (_MARK, *_MARKS_UTF16)
    keep = max(len(m) for m in marks) - 1
    tail, carry = b"", b""
    for start in range(0, len(body), BIG_PART):
        chunk = bytes(body[start:start + BIG_PART])
        if cte == b"base64":
            text = carry + _NOT_B64.sub(b"", chunk)
            whole = len(text) - len(text) % 4
            carry = text[whole:]
            try:
                decoded = binascii.a2b_base64(text[:whole])
            except binascii.Error:
                decoded = b""
        elif cte == b"quoted-printable":
            text = carry + chunk
            cut = text.rfind(b"\n") + 1 if start + BIG_PART < len(body) else len(text)
            carry = text[cut:]
            decoded = binascii.a2b_qp(text[:cut])
        else:
            decoded = chunk
        window = tail + decoded
        if any(m in window for m in marks):
            return True
        tail = window[-keep:]
    return False


def slim(data: bytes) -> tuple[bytes, str | None]:
    """``data`` (a message that passed :func:`check_structure`) without the bodies of its parts
    larger than :data:`BIG_PART` that hold nothing like an envelope (each replaced by an empty
    body, its headers kept), and why it cannot be read, or None: what is left must be at most
    :data:`SLIM_LIMIT` bytes. One pass over ``data``; the memory of a chunk at a time."""
    boundaries = {m.group(1) or m.group(2) for m in _BOUNDARY.finditer(data)}
    cuts = [0]  # where each segment starts: the message's head, then each part after its delimiter line
    if boundaries:
        delimiter = re.compile(b"\n--(?:" + b"|".join(re.escape(b) for b in sorted(boundaries)) + b")(--)?")
        for m in delimiter.finditer(data):
            cuts.append(m.start() + 1)
    cuts.append(len(data))
    pieces: list[bytes] = []
    view = memoryview(data)
    for start, end in itertools.pairwise(cuts):
        if end - start <= BIG_PART:
            pieces.append(data[start:end])
            continue
        line_end = data.find(b"\n", start, end) + 1 if start else 0  # the delimiter line, kept
        head_end = _header_end(data, line_end)
        if head_end < 0 or head_end >= end:
            pieces.append(data[start:end])
            continue
        head = data[start:head_end]
        cte = _CTE.search(head)
        # the body, up to the line break that belongs to the next delimiter
        if _marked(view[head_end:end], cte.group(1).lower() if cte else b"7bit"):
            pieces.append(data[start:end])
        else:
            pieces.append(head + (b"\r\n" if head.endswith(b"\r\n") else b"\n"))
        if sum(len(p) for p in pieces) > SLIM_LIMIT:
            break
    kept = sum(len(p) for p in pieces)
    if kept > SLIM_LIMIT:
        return data[:0], (f"it is {len(data) // (1024 * 1024)} MiB and its parts that may hold an envelope are "
                          f"more than {SLIM_LIMIT // (1024 * 1024)} MiB together: send the envelope alone, pasted "
                          "into the text or as a small attachment")
    return b"".join(pieces), None


def _depth(message: Any) -> int:
    """How deep multiparts nest in the parsed ``message`` (0: a single part)."""
    deepest, stack = 0, [(message, 1)]
    while stack:
        part, depth = stack.pop()
        if part.is_multipart():
            deepest = max(deepest, depth)
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((p, depth + 1) for p in payload)
    return deepest


def _from_part(part: Any, label: str, seen: set[str], again: list[str] | None = None) -> Found:
    payload = part.get_payload(decode=True)
    if payload is None:
        return []
    if isinstance(payload, str):  # pragma: no cover - decode=True gives bytes
        payload = payload.encode("utf-8", "replace")
    if len(payload) > MAX_PART:
        if _MARK in payload[: MAX_PART + 1024]:
            return [(label, FormatError(f"{label}: a part is larger than {MAX_PART} bytes"))]
        return []
    html_part = part.get_content_type() == "text/html"
    charset = part.get_content_charset() or "utf-8"
    wide = charset.replace("_", "-") in ("utf-16", "utf-16-le", "utf-16-be", "utf-32")
    if _MARK not in payload and not html_part and not wide:
        if any(mark in payload for mark in _MARKS_UTF16):
            return [(label, FormatError(
                f"{label}: an envelope in UTF-16 text (as some Windows editors save it) cannot be read: "
                "save it as UTF-8 or plain ASCII text, or paste it into the mail itself"))]
        return []
    try:
        text = payload.decode(charset, errors="replace")
    except LookupError:
        text = payload.decode("utf-8", errors="replace")
    if html_part:
        text = html.unescape(_TAG.sub("", _BREAK.sub("\n", text)))
    if BEGIN not in text:
        return []
    found: Found = []
    for item in scan_armored(text):
        if isinstance(item, FormatError):
            found.append((label, FormatError(f"{label}: {item}")))
        elif item.digest not in seen:
            seen.add(item.digest)
            found.append((label, item))
        elif again is not None:
            again.append(item.digest)
    return found
