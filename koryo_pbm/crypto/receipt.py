"""Receipts: the moderator's signed statement that one envelope was accepted.

The judge puts one in its answer to every mail that brought a valid envelope, so that the player
can later prove what was accepted (``koryo-pbm receipt FILE`` checks one)::

    -----BEGIN KORYO-PBM RECEIPT-----
    format: koryo-pbm-receipt/v1
    game_id: <id>
    decision: <decision id>
    player: <player name>
    envelope: <hex SHA-256 digest of the envelope (its canonical bytes)>
    submitted: <the envelope's submitted time>
    replaces: <digest of the player's earlier envelope it replaces, or "none">
    received: <ISO-8601 UTC time the judge read it>
    moderator: <the moderator's public key line>

    <base64 of the Ed25519 signature, context "receipt", over the lines above>
    -----END KORYO-PBM RECEIPT-----

Rule for unknown fields: v1 has exactly these nine, in this order; anything else is refused.
"""

from __future__ import annotations

import base64
import binascii
import re

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.crypto.sign import SIGNATURE_SIZE, sign, verify
from koryo_pbm.errors import FormatError, KoryoPbmError
from koryo_pbm.values import HEX64, ID, Frozen

FORMAT = "koryo-pbm-receipt/v1"
BEGIN = "-----BEGIN KORYO-PBM RECEIPT-----"
END = "-----END KORYO-PBM RECEIPT-----"
CONTEXT = "receipt"
FIELDS = ("format", "game_id", "decision", "player", "envelope", "submitted", "replaces", "received", "moderator")
MAX_RECEIPT = 4096

_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|\+00:00)")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)*")


class Receipt(Frozen):
    _fields = ("header", "signature")
    header: dict[str, str]
    signature: bytes

    def __init__(self, header: dict[str, str], signature: bytes) -> None:
        object.__setattr__(self, "header", header)
        object.__setattr__(self, "signature", signature)

    @property
    def moderator(self) -> PublicIdentity:
        return PublicIdentity.parse(self.header["moderator"])

    def canonical_bytes(self) -> bytes:
        return "".join(f"{k}: {self.header[k]}\n" for k in FIELDS).encode("ascii")

    def armor(self) -> str:
        sig = base64.b64encode(self.signature).decode("ascii")
        lines = [BEGIN, *(f"{k}: {self.header[k]}" for k in FIELDS), "", sig[:64], sig[64:], END]
        return "\n".join(line for line in lines if line is not None) + "\n"

    def verify(self) -> None:
        """Check the signature with the moderator key the receipt names; ``TamperedError`` if it fails."""
        verify(self.moderator, CONTEXT, self.canonical_bytes(), self.signature,
               what=f"the receipt for the envelope {self.header['envelope'][:16]}… does not verify: it was changed")


def _check(header: dict[str, str]) -> None:
    if tuple(header) != FIELDS:
        unknown = [k for k in header if k not in FIELDS]
        missing = [k for k in FIELDS if k not in header]
        if unknown:
            raise FormatError(f"unknown receipt field {unknown[0][:40]!r}")
        if missing:
            raise FormatError(f"receipt field {missing[0]!r} is missing")
        raise FormatError("receipt fields are out of order")
    if header["format"] != FORMAT:
        raise FormatError(f"unsupported receipt format {header['format'][:40]!r} (this koryo-pbm reads {FORMAT})")
    for key in ("game_id", "decision", "player"):
        if not ID.fits(header[key]):
            raise FormatError(f"receipt field {key!r} has an invalid value")
    if not HEX64.fits(header["envelope"]):
        raise FormatError("receipt field 'envelope' is not a SHA-256 digest")
    if header["replaces"] != "none" and not HEX64.fits(header["replaces"]):
        raise FormatError("receipt field 'replaces' is not a SHA-256 digest or 'none'")
    for key in ("submitted", "received"):
        if not _TIME.fullmatch(header[key]):
            raise FormatError(f"receipt field {key!r} is not a UTC time")
    try:
        PublicIdentity.parse(header["moderator"])
    except KoryoPbmError:
        raise FormatError("receipt field 'moderator' is not a public key") from None


def make_receipt(moderator: Identity, *, game_id: str, decision: str, player: str, envelope: str,
                 submitted: str, replaces: str | None, received: str) -> Receipt:
    """The moderator's signed receipt for the envelope with digest ``envelope``."""
    header = {
        "format": FORMAT, "game_id": game_id, "decision": decision, "player": player, "envelope": envelope,
        "submitted": submitted, "replaces": replaces or "none", "received": received,
        "moderator": moderator.public.line(),
    }
    _check(header)
    unsigned = Receipt(header, b"\0" * SIGNATURE_SIZE)
    return Receipt(header, sign(moderator, CONTEXT, unsigned.canonical_bytes()))


def _unquote(line: str) -> str:
    return line[_QUOTE.match(line).end():].strip()  # type: ignore[union-attr]


def scan_receipts(text: str) -> list[Receipt | FormatError]:
    """Every receipt block in ``text`` (quoted with '>' or not), in order; a broken one is a
    ``FormatError`` item."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found: list[Receipt | FormatError] = []
    i = 0
    while i < len(lines):
        if _unquote(lines[i]) != BEGIN:
            i += 1
            continue
        block: list[str] = []
        j = i + 1
        while j < len(lines) and _unquote(lines[j]) not in (END, BEGIN) and len(block) < 20:
            block.append(_unquote(lines[j]))
            j += 1
        if j >= len(lines) or _unquote(lines[j]) != END:
            found.append(FormatError(f"a receipt has no '{END}' line (cut short?)"))
            i = j
            continue
        try:
            found.append(_parse(block))
        except FormatError as exc:
            found.append(exc)
        i = j + 1
    return found


def _parse(block: list[str]) -> Receipt:
    header: dict[str, str] = {}
    k = 0
    while k < len(block) and block[k]:
        key, sep, value = block[k].partition(": ")
        if not sep or key in header:
            raise FormatError(f"receipt line {block[k][:40]!r} is not a 'key: value' line of its own")
        header[key] = value
        k += 1
    _check(header)
    body = "".join(block[k:])
    try:
        sig = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise FormatError("the receipt's signature is not base64") from None
    if len(sig) != SIGNATURE_SIZE:
        raise FormatError("the receipt's signature has the wrong length")
    return Receipt(header, sig)
