"""Envelopes from mail files: a single message (``.eml``), an mbox file, or a Maildir folder.

Every text part and every attachment (decoded from base64 or quoted-printable) of every
message is searched for armoured envelopes, quoted replies included (see
:func:`koryo_pbm.crypto.envelope.scan_armored`). Bad mail gives error items, never a traceback;
an envelope found twice (an HTML alternative, a quoted copy) is reported once.
"""

from __future__ import annotations

import html
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
MAX_PARTS = 500  # parts of one message looked at
_MARK = BEGIN.encode("ascii")
_MARKS_UTF16 = (BEGIN.encode("utf-16-le"), BEGIN.encode("utf-16-be"))
_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<\s*(br|/p|/div|/pre|/blockquote|/li)\b[^>]*>[ \t]*\r?\n?", re.IGNORECASE)

Found = list[tuple[str, "Envelope | FormatError"]]


def envelopes_from_mail(path: Path) -> Found:
    """``(source label, envelope or FormatError)`` for every armoured block in the mail at ``path``."""
    path = Path(path)
    seen: set[str] = set()
    if path.is_dir():
        return _from_maildir(path, seen)
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except FileNotFoundError:
        raise StorageError(f"no mail file or folder at {path}") from None
    except OSError as exc:
        raise StorageError(f"cannot read mail {path}: {exc.strerror or exc}") from None
    if head == b"From ":
        return _from_mbox(path, seen)
    label = f"mail {path}"
    data = _read(path, label)
    if isinstance(data, FormatError):
        return [(label, data)]
    return _from_message(data, label, seen)


def _read(path: Path, label: str) -> bytes | FormatError:
    from koryo_pbm.store.atomic import read_limited

    try:
        return read_limited(path, MAX_MESSAGE, "mail file")
    except FormatError as exc:
        return FormatError(f"{label}: {exc}")
    except StorageError as exc:
        return FormatError(f"{label}: {exc}")


def _from_maildir(folder: Path, seen: set[str]) -> Found:
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
                found.extend(_from_message(data, label, seen))
    return found


def _from_mbox(path: Path, seen: set[str]) -> Found:
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
                found.extend(_from_message(data, label, seen))
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


def _from_message(data: bytes, label: str, seen: set[str]) -> Found:
    """Every envelope of one raw message; a message that cannot be read is one error item."""
    import email
    import email.policy

    found: Found = []
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
        for n, part in enumerate(message.walk()):
            if n > MAX_PARTS:
                found.append((label, FormatError(f"{label}: the message has more than {MAX_PARTS} parts; "
                                                 "the rest were not read")))
                break
            if part.is_multipart():
                continue
            found.extend(_from_part(part, label, seen))
    except KoryoPbmError as exc:  # pragma: no cover - _from_part returns its errors as items
        found.append((label, FormatError(f"{label}: {exc}")))
    except Exception as exc:
        found.append((label, FormatError(f"{label}: this message cannot be read ({exc.__class__.__name__})")))
    return found


def _from_part(part: Any, label: str, seen: set[str]) -> Found:
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
    return found
