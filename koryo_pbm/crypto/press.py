"""Press: a player's message to other players, signed by the sender and sealed to each recipient.

The moderator (or the judge) relays press and cannot read it. Armoured form::

    -----BEGIN KORYO-PBM PRESS-----
    format: koryo-pbm-press/v1
    game_id: <id>
    from: <player>
    to: <player>,<player>,...          (the recipients, in the order of the sealed copies)
    sent: <ISO-8601 UTC time>
    nonce: <32 hex digits>
    sender: <fingerprint of the sender's key>
    recipients: <fingerprint>,<fingerprint>,...   (the keys sealed to, one per name of ``to``)

    <base64 of copy_1 || ... || copy_n || signature, wrapped at 64 characters>
    -----END KORYO-PBM PRESS-----

* the text (UTF-8, at most ``MAX_TEXT`` bytes) is padded to a block of 1, 2, 4, 8 or 16 KiB
  (its length, 4 bytes big-endian, the text, zero bytes): a press says its size only to that
  bucket, the same for every recipient;
* each copy is HPKE (as :mod:`koryo_pbm.crypto.seal`) to one recipient with
  ``info = b"koryo-pbm press v1\\x00" + canonical header + recipient name + b"\\n"``: its own
  domain (an orders envelope, a sealed hand or a press copy never opens as another) and its own
  place (a copy cannot be moved to another recipient);
* the signature (context ``press``) by the sender covers the canonical header and every copy.

Nothing of the text is in the header; the header says who wrote to whom and when (the relay
must know where to send it).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass

from koryo_pbm.crypto.envelope import _quote, _unquote
from koryo_pbm.crypto.keys import Identity, PublicIdentity, sha256_hex
from koryo_pbm.crypto.sign import SIGNATURE_SIZE, sign, verify
from koryo_pbm.errors import FormatError, NotForYou
from koryo_pbm.values import HEX, ID, Spelling

FORMAT = "koryo-pbm-press/v1"
BEGIN = "-----BEGIN KORYO-PBM PRESS-----"
END = "-----END KORYO-PBM PRESS-----"
FIELDS = ("format", "game_id", "from", "to", "sent", "nonce", "sender", "recipients")
SEAL_INFO_PREFIX = b"koryo-pbm press v1\x00"
CONTEXT = "press"
MAX_TEXT = 16_000  # bytes of UTF-8 text in one press
BUCKETS = (1024, 2048, 4096, 8192, 16384)  # the sizes a padded text can have
MAX_RECIPIENTS = 16
MAX_ARMORED = 512 * 1024
WRAP = 64
_LENGTH = 4
_HPKE_OVERHEAD = 32 + 16

_HEX16 = Spelling(HEX, 16)  # [0-9a-f]{16}: a key fingerprint
_HEX32 = Spelling(HEX, 32)  # [0-9a-f]{32}: a nonce
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")
_B64_LINE = re.compile(r"[A-Za-z0-9+/=]+")


def _check_header(header: dict[str, str]) -> None:
    if tuple(header) != FIELDS:
        unknown = [k for k in header if k not in FIELDS]
        if unknown:
            raise FormatError(f"unknown press header field {unknown[0][:40]!r}")
        missing = [k for k in FIELDS if k not in header]
        if missing:
            raise FormatError(f"press header field {missing[0]!r} is missing")
        raise FormatError("press header fields are out of order")
    if header["format"] != FORMAT:
        raise FormatError(f"unsupported press format {header['format'][:40]!r} (this koryo-pbm reads {FORMAT})")
    names = header["to"].split(",")
    fingerprints = header["recipients"].split(",")
    ok = (ID.fits(header["game_id"]) and ID.fits(header["from"])
          and _TIME.fullmatch(header["sent"]) and _HEX32.fits(header["nonce"])
          and _HEX16.fits(header["sender"]) and all(ID.fits(n) for n in names)
          and all(_HEX16.fits(f) for f in fingerprints))
    if not ok:
        raise FormatError("a press header field has an invalid value")
    if len(names) != len(fingerprints) or len(set(names)) != len(names) or len(names) > MAX_RECIPIENTS:
        raise FormatError("the press names its recipients wrongly")
    if header["from"] in names:
        raise FormatError("the press is addressed to its own sender")


def _header_bytes(header: dict[str, str]) -> bytes:
    return "".join(f"{k}: {header[k]}\n" for k in FIELDS).encode("ascii")


def pad(text: bytes) -> bytes:
    need = _LENGTH + len(text)
    size = next(b for b in BUCKETS if b >= need)
    return len(text).to_bytes(_LENGTH, "big") + text + bytes(size - need)


def unpad(block: bytes) -> bytes:
    n = int.from_bytes(block[:_LENGTH], "big")
    if (len(block) not in BUCKETS or n > len(block) - _LENGTH or block[_LENGTH + n:].count(0) != len(block) - _LENGTH - n
            or next(b for b in BUCKETS if b >= _LENGTH + n) != len(block)):
        raise FormatError("the press is padded wrongly")
    return block[_LENGTH:_LENGTH + n]


@dataclass(frozen=True)
class Press:
    header: dict[str, str]
    copies: tuple[bytes, ...]
    signature: bytes

    @property
    def game_id(self) -> str:
        return self.header["game_id"]

    @property
    def sender_name(self) -> str:
        return self.header["from"]

    @property
    def recipients(self) -> list[str]:
        return self.header["to"].split(",")

    @property
    def sent(self) -> str:
        return self.header["sent"]

    def body(self) -> bytes:
        return b"".join(self.copies) + self.signature

    @property
    def digest(self) -> str:
        return sha256_hex(_header_bytes(self.header) + self.body())

    def armor(self) -> str:
        body = base64.b64encode(self.body()).decode("ascii")
        lines = [BEGIN, *(f"{k}: {self.header[k]}" for k in FIELDS), ""]
        lines += [body[i:i + WRAP] for i in range(0, len(body), WRAP)]
        lines.append(END)
        return "\n".join(lines) + "\n"

    def verify(self, sender: PublicIdentity) -> None:
        """The sender's signature over the header and every copy (``TamperedError`` if not)."""
        if self.header["sender"] != sender.fingerprint():
            from koryo_pbm.errors import TamperedError

            raise TamperedError(f"the press from {self.sender_name} is signed by key {self.header['sender']}, "
                                f"not by {self.sender_name}'s key {sender.fingerprint()}")
        verify(sender, CONTEXT, _header_bytes(self.header) + b"".join(self.copies), self.signature,
               what=f"the signature of the press from {self.sender_name} does not verify: it was changed")

    def open(self, reader: Identity, name: str, sender: PublicIdentity) -> str:
        """The text, for ``reader`` (the player ``name``), after checking the sender's signature."""
        from koryo_pbm.crypto.seal import open_sealed

        self.verify(sender)
        names = self.recipients
        if name not in names:
            raise NotForYou(f"the press from {self.sender_name} is for {', '.join(names)}, not for {name}")
        i = names.index(name)
        if self.header["recipients"].split(",")[i] != reader.public.fingerprint():
            raise NotForYou(f"the press from {self.sender_name} is sealed to another key of {name} "
                            f"({self.header['recipients'].split(',')[i]}); yours is {reader.public.fingerprint()}")
        block = open_sealed(reader, self.copies[i], SEAL_INFO_PREFIX + _header_bytes(self.header) + f"{name}\n".encode(),
                            what=f"the press from {self.sender_name}")
        try:
            return unpad(block).decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"the press from {self.sender_name} is not UTF-8 text") from None


def make_press(identity: Identity, *, game_id: str, sender: str, to: dict[str, PublicIdentity], text: str,
               sent: str, nonce: str | None = None) -> Press:
    """Sign ``text`` as ``identity`` (the player ``sender``) and seal a copy to each of ``to``."""
    from koryo_pbm.crypto.seal import seal

    raw = text.encode("utf-8")
    if len(raw) > MAX_TEXT:
        raise FormatError(f"the press text is {len(raw)} bytes, more than the {MAX_TEXT} a press may hold")
    if not to:
        raise FormatError("the press has no recipient")
    header = {"format": FORMAT, "game_id": game_id, "from": sender, "to": ",".join(to), "sent": sent,
              "nonce": nonce if nonce is not None else os.urandom(16).hex(),
              "sender": identity.public.fingerprint(), "recipients": ",".join(k.fingerprint() for k in to.values())}
    _check_header(header)
    hb = _header_bytes(header)
    block = pad(raw)
    copies = tuple(seal(key, block, SEAL_INFO_PREFIX + hb + f"{name}\n".encode()) for name, key in to.items())
    return Press(header, copies, sign(identity, CONTEXT, hb + b"".join(copies)))


def _parse_block(lines: list[str]) -> Press:
    header: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i] != "" and len(header) <= len(FIELDS):
        key, sep, value = lines[i].partition(": ")
        if not sep or key in header:
            raise FormatError("a press header line is not 'key: value'")
        header[key] = value
        i += 1
    _check_header(header)
    body_lines = [line for line in lines[i:] if line]
    if not body_lines or not all(_B64_LINE.fullmatch(line) for line in body_lines):
        raise FormatError("the press body is not base64")
    try:
        raw = base64.b64decode("".join(body_lines), validate=True)
    except (binascii.Error, ValueError):
        raise FormatError("the press body is not valid base64 (was it cut?)") from None
    n = len(header["to"].split(","))
    size, rest = divmod(len(raw) - SIGNATURE_SIZE, n)
    if len(raw) <= SIGNATURE_SIZE or rest or size - _HPKE_OVERHEAD not in BUCKETS:
        raise FormatError("the press body has the wrong length (was a line lost when it was pasted?)")
    copies = tuple(raw[k * size:(k + 1) * size] for k in range(n))
    return Press(header, copies, raw[-SIGNATURE_SIZE:])


def scan_press(text: str) -> list[Press | FormatError]:
    """Every armoured press in ``text`` (also quoted with '>'), a ``FormatError`` per broken one."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found: list[Press | FormatError] = []
    i, n = 0, len(lines)
    while i < n:
        if BEGIN not in lines[i]:
            i += 1
            continue
        depth = _quote(lines[i])[0].count(">")
        block: list[str] = []
        size, j, ended = 0, i + 1, False
        while j < n:
            size += len(lines[j]) + 1
            inner = _unquote(lines[j], depth)
            if inner == END:
                ended = True
                break
            if inner is None or inner == BEGIN or size > MAX_ARMORED:
                break
            block.append(inner)
            j += 1
        if size > MAX_ARMORED:
            found.append(FormatError(f"the press is larger than {MAX_ARMORED // 1024} KiB"))
        elif not ended:
            found.append(FormatError(f"the press has no '{END}' line (was it cut when it was pasted?)"))
        else:
            try:
                found.append(_parse_block(block))
            except FormatError as exc:
                found.append(exc)
        i = j + 1
    return found
