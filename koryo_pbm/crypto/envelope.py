"""Envelopes: one player's orders for one decision of one game, signed by the player and sealed
to the moderator.

Armoured form (ASCII, lines of at most 76 characters, survives email and quoting)::

    -----BEGIN KORYO-PBM ENVELOPE-----
    format: koryo-pbm-envelope/v2
    game_id: <id>
    decision: <decision id>
    answers: <64 hex digits: the head of the game's history the player answered>
    player: <player name>
    submitted: <ISO-8601 UTC time>
    nonce: <32 hex digits>
    moderator: <fingerprint of the moderator key it is sealed to>
    sender: <fingerprint of the player's key>

    <base64 of ciphertext || signature, wrapped at 64 characters>
    -----END KORYO-PBM ENVELOPE-----

The header is public (``status`` shows who submitted without the moderator's key). Its
*canonical bytes* are the nine ``key: value\\n`` lines in this order. Rule for unknown fields:
v2 has exactly these nine, in this order; anything else is refused (a later format gets a new
``format`` value). Envelopes of format v1 (without ``answers``, orders unpadded) are refused
with a message that says to submit again.

``answers`` is the head of the game's hash chain (``koryo_pbm.store.gamelog.head``, without its
``sha256:``) in the game file the player answered: the moderator cannot count an answer to a
file that is not the game's history (``resolve`` refuses it), and anyone holding the envelope
(its digest is in the log) sees which history the player was shown.

* inner signature (context ``envelope-orders``) over canonical header + orders bytes, made by the
  player; the sealed plaintext is ``inner signature (64 bytes) || block``, where the block is the
  length of the orders (4 bytes, big-endian), the orders (UTF-8 TOML) and zero bytes up to a
  multiple of ``PAD_QUANTUM`` (1 KiB): every order of up to 1 KiB - 4 bytes seals to one size
  (``koryo-pbm submit`` seals the canonical form of an order, without comments or spacing). The
  opener refuses any other padding;
* sealing: HPKE to the moderator, ``info = b"koryo-pbm envelope v1\\x00" + canonical header``;
* outer signature (context ``envelope``) over canonical header + ciphertext, by the player: anyone
  with the player's public key can check who sent it and that no byte changed.
"""

from __future__ import annotations

import binascii
import os

from koryo_pbm.crypto.keys import Identity, PublicIdentity, sha256_hex
from koryo_pbm.crypto.sign import SIGNATURE_SIZE, sign, verify
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, TamperedError
from koryo_pbm.values import BASE64, HEX, HEX64, ID, Frozen, Spelling, shaped

FORMAT = "koryo-pbm-envelope/v2"
OLD_FORMATS = ("koryo-pbm-envelope/v1",)
BEGIN = "-----BEGIN KORYO-PBM ENVELOPE-----"
END = "-----END KORYO-PBM ENVELOPE-----"
FIELDS = ("format", "game_id", "decision", "answers", "player", "submitted", "nonce", "moderator", "sender")
SEAL_INFO_PREFIX = b"koryo-pbm envelope v1\x00"
OUTER_CONTEXT = "envelope"
INNER_CONTEXT = "envelope-orders"
MAX_ARMORED = 256 * 1024
MAX_ORDERS = 160 * 1024  # so that the armoured envelope stays well under MAX_ARMORED
WRAP = 64
PAD_QUANTUM = 1024  # the sealed orders block (length, orders, zeros) is a multiple of this
_LENGTH = 4
_HPKE_OVERHEAD = 32 + 16  # X25519 enc + Poly1305 tag

# checked with string methods, not compiled patterns (see koryo_pbm.values)
_HEX16 = Spelling(HEX, 16)  # [0-9a-f]{16}
_HEX32 = Spelling(HEX, 32)
_B64_LINE = Spelling(BASE64 + "=", 1, None)  # [A-Za-z0-9+/=]+


def _quote(line: str) -> tuple[str, int]:
    """The mail quoting at the start of ``line`` and where it ends: the ``group(1)`` and ``end()``
    of ``re.match(r"[ \\t]*((?:>[ \\t]?)*)", line)``."""
    i, n = 0, len(line)
    while i < n and line[i] in " \t":
        i += 1
    start = i
    while i < n and line[i] == ">":
        i += 1
        if i < n and line[i] in " \t":
            i += 1
    return line[start:i], i


def _is_time(value: str) -> bool:
    """``\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|\\+00:00)``"""
    if value.endswith("Z"):
        core = value[:-1]
    elif value.endswith("+00:00"):
        core = value[:-6]
    else:
        return False
    fraction = core[19:]
    return shaped(core[:19], "9999-99-99T99:99:99") and (
        not fraction or (fraction[0] == "." and 2 <= len(fraction) <= 7 and fraction[1:].isdecimal()))
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u00a0 \t"


def _check_field(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise FormatError(f"envelope field {key!r} must be text")
    if key == "format":
        if value in OLD_FORMATS:
            raise FormatError(f"envelope format {value} is no longer read (this koryo-pbm reads {FORMAT}, which "
                              "names the history it answers): submit the orders again")
        if value != FORMAT:
            raise FormatError(f"unsupported envelope format {value[:40]!r} (this koryo-pbm reads {FORMAT})")
        return value
    if key in ("moderator", "sender"):
        ok = _HEX16.fits(value)
    elif key == "nonce":
        ok = _HEX32.fits(value)
    elif key == "answers":
        ok = HEX64.fits(value)
    elif key == "submitted":
        ok = _is_time(value)
    else:
        ok = ID.fits(value)
    if not ok:
        raise FormatError(f"envelope field {key!r} has an invalid value {value[:70]!r}")
    return value


def _validate_header(header: dict[str, str]) -> None:
    if tuple(header) != FIELDS:
        unknown = [k for k in header if k not in FIELDS]
        if unknown:
            raise FormatError(f"unknown envelope header field {unknown[0][:40]!r}")
        missing = [k for k in FIELDS if k not in header]
        if missing:
            raise FormatError(f"envelope header field {missing[0]!r} is missing")
        raise FormatError("envelope header fields are out of order")
    for key in FIELDS:
        _check_field(key, header[key])


def signed_header(*, game_id: str, decision: str, answers: str, player: str, submitted: str, nonce: str,
                  moderator: str, sender: str) -> dict[str, str]:
    """The header of an envelope of the current format with these fields (``answers`` without
    its ``sha256:``), checked (``FormatError``): what a player signed with their orders, rebuilt
    from the fields a finished game publishes (:func:`check_inner` then checks the signature)."""
    header = {"format": FORMAT, "game_id": game_id, "decision": decision, "answers": answers, "player": player,
              "submitted": submitted, "nonce": nonce, "moderator": moderator, "sender": sender}
    _validate_header(header)
    return header


def header_bytes(header: dict[str, str]) -> bytes:
    """The canonical bytes of a (valid) header: ``key: value\\n`` lines in the fixed order."""
    return "".join(f"{k}: {header[k]}\n" for k in FIELDS).encode("ascii")


class Envelope(Frozen):
    _fields = ("header", "ciphertext", "signature")
    header: dict[str, str]
    ciphertext: bytes
    signature: bytes

    def __init__(self, header: dict[str, str], ciphertext: bytes, signature: bytes) -> None:
        if not isinstance(header, dict):
            raise FormatError("envelope header must be a table")
        # detach from the caller's objects: an envelope never changes once made
        object.__setattr__(self, "header", dict(header))
        object.__setattr__(self, "ciphertext", bytes(ciphertext))
        object.__setattr__(self, "signature", bytes(signature))
        _validate_header(self.header)
        if len(self.signature) != SIGNATURE_SIZE:
            raise FormatError("envelope signature has the wrong length")
        if len(self.ciphertext) < _HPKE_OVERHEAD + SIGNATURE_SIZE:
            raise FormatError("envelope body is too short")

    @classmethod
    def _checked(cls, header: dict[str, str], ciphertext: bytes, signature: bytes) -> Envelope:
        """The envelope of a ``header`` of its own that :func:`_validate_header` passed (what
        reading armour made), without checking each field again."""
        self = object.__new__(cls)
        object.__setattr__(self, "header", header)
        object.__setattr__(self, "ciphertext", bytes(ciphertext))
        object.__setattr__(self, "signature", bytes(signature))
        if len(self.signature) != SIGNATURE_SIZE:
            raise FormatError("envelope signature has the wrong length")
        if len(self.ciphertext) < _HPKE_OVERHEAD + SIGNATURE_SIZE:
            raise FormatError("envelope body is too short")
        return self

    # -- header fields ---------------------------------------------------------------------
    @property
    def game_id(self) -> str:
        return self.header["game_id"]

    @property
    def decision(self) -> str:
        return self.header["decision"]

    @property
    def player(self) -> str:
        return self.header["player"]

    @property
    def answers(self) -> str:
        """The head of the game's history (``sha256:<hex>``) in the file the player answered."""
        return "sha256:" + self.header["answers"]

    @property
    def submitted(self) -> str:
        return self.header["submitted"]

    @property
    def nonce(self) -> str:
        return self.header["nonce"]

    @property
    def moderator(self) -> str:
        """Fingerprint of the moderator key this envelope is sealed to."""
        return self.header["moderator"]

    @property
    def sender(self) -> str:
        """Fingerprint of the key that signed this envelope."""
        return self.header["sender"]

    # -- bytes -----------------------------------------------------------------------------
    def header_bytes(self) -> bytes:
        return header_bytes(self.header)

    def canonical_bytes(self) -> bytes:
        """Header + ciphertext + signature: everything the envelope is (the header is self-delimiting)."""
        return self.header_bytes() + self.ciphertext + self.signature

    @property
    def digest(self) -> str:
        """Hex SHA-256 of the canonical bytes: a stable id, used to refuse replays. Kept with the
        bytes it was taken of (a resolve asks it of each envelope several times)."""
        data = self.canonical_bytes()
        kept = self.__dict__.get("_digest")
        if kept is not None and kept[0] == data:
            return kept[1]
        digest = sha256_hex(data)
        object.__setattr__(self, "_digest", (data, digest))
        return digest

    def armor(self) -> str:
        body = binascii.b2a_base64(self.ciphertext + self.signature, newline=False).decode("ascii")
        lines = [BEGIN, *(f"{k}: {self.header[k]}" for k in FIELDS), ""]
        lines += [body[i : i + WRAP] for i in range(0, len(body), WRAP)]
        lines.append(END)
        return "\n".join(lines) + "\n"

    # -- checks ----------------------------------------------------------------------------
    def _describe(self) -> str:
        return f"envelope of {self.player} for {self.decision} of game {self.game_id}"

    def verify(self, player_public: PublicIdentity) -> None:
        """Check the outer signature with the player's key; ``TamperedError`` if it fails."""
        if self.sender != player_public.fingerprint():
            raise TamperedError(
                f"{self._describe()} is signed by key {self.sender}, not by the player's key "
                f"{player_public.fingerprint()}"
            )
        signed = self.header_bytes() + self.ciphertext
        checked = (player_public.raw, signed, self.signature)
        if self.__dict__.get("_verified") == checked:
            return  # checked already with this key, these very bytes (resolve screens, then opens)
        verify(
            player_public,
            OUTER_CONTEXT,
            signed,
            self.signature,
            what=f"signature of the {self._describe()} does not verify: it was changed",
        )
        object.__setattr__(self, "_verified", checked)

    def open(self, moderator: Identity, player_public: PublicIdentity) -> str:
        """Verify, open with the moderator's key, verify the inner signature; the orders text."""
        return self.open_signed(moderator, player_public)[0]

    def open_signed(self, moderator: Identity, player_public: PublicIdentity) -> tuple[str, bytes]:
        """:meth:`open`, and the player's inner signature of the orders (what the moderator
        publishes with them at the end, so that anyone can check they are the player's)."""
        from koryo_pbm.crypto.seal import open_sealed

        self.verify(player_public)
        mine = moderator.public.fingerprint()
        if self.moderator != mine:
            raise NotForYou(
                f"the {self._describe()} is sealed to another moderator key (fingerprint {self.moderator}); "
                f"you are {mine}"
            )
        hb = self.header_bytes()
        plain = open_sealed(moderator, self.ciphertext, SEAL_INFO_PREFIX + hb, what=f"the {self._describe()}")
        inner, orders = plain[:SIGNATURE_SIZE], unpad(plain[SIGNATURE_SIZE:], f"the {self._describe()}")
        verify(
            player_public,
            INNER_CONTEXT,
            hb + orders,
            inner,
            what=f"the inner signature of the {self._describe()} does not verify",
        )
        try:
            return orders.decode("utf-8"), inner
        except UnicodeDecodeError:
            raise FormatError(f"the orders in the {self._describe()} are not UTF-8 text") from None


def pad(orders: bytes) -> bytes:
    """``orders`` in a block of a multiple of ``PAD_QUANTUM`` bytes: its length (4 bytes,
    big-endian), the orders, zero bytes."""
    size = -(-(_LENGTH + len(orders)) // PAD_QUANTUM) * PAD_QUANTUM
    return len(orders).to_bytes(_LENGTH, "big") + orders + bytes(size - _LENGTH - len(orders))


def unpad(block: bytes, what: str) -> bytes:
    """The orders in a padded block; ``FormatError`` for any block :func:`pad` does not make."""
    n = int.from_bytes(block[:_LENGTH], "big")
    if (len(block) % PAD_QUANTUM or len(block) < PAD_QUANTUM or n > len(block) - _LENGTH
            or len(block) - PAD_QUANTUM >= _LENGTH + n or block[_LENGTH + n:].count(0) != len(block) - _LENGTH - n):
        raise FormatError(f"the orders in the {what} are padded wrongly")
    return block[_LENGTH:_LENGTH + n]


def check_inner(header: dict[str, str], orders_text: str, inner: bytes, player_public: PublicIdentity) -> None:
    """Check a player's inner signature of ``orders_text`` under ``header`` (as
    :meth:`Envelope.open_signed` returns it); ``TamperedError`` if it is not theirs."""
    verify(player_public, INNER_CONTEXT, header_bytes(header) + orders_text.encode("utf-8"), inner,
           what=f"the orders published for {header.get('player')} for {header.get('decision')} are not the ones "
                "the player signed")


def make_envelope(
    identity: Identity,
    moderator: PublicIdentity,
    *,
    game_id: str,
    decision: str,
    answers: str,
    player: str,
    orders_text: str,
    submitted: str,
    nonce: str | None = None,
) -> Envelope:
    """Sign ``orders_text`` as ``identity`` and seal it, padded, to ``moderator``; ``answers``
    is the head of the game's history in the file the player answered (``koryo_pbm.store.gamelog.head``)."""
    from koryo_pbm.crypto.seal import seal

    header = {
        "format": FORMAT,
        "game_id": game_id,
        "decision": decision,
        "answers": answers.removeprefix("sha256:"),
        "player": player,
        "submitted": submitted,
        "nonce": nonce if nonce is not None else os.urandom(16).hex(),
        "moderator": moderator.fingerprint(),
        "sender": identity.public.fingerprint(),
    }
    _validate_header(header)
    orders = orders_text.encode("utf-8")
    if len(orders) > MAX_ORDERS:
        raise FormatError(f"orders are larger than {MAX_ORDERS} bytes")
    hb = header_bytes(header)
    inner = sign(identity, INNER_CONTEXT, hb + orders)
    ciphertext = seal(moderator, inner + pad(orders), SEAL_INFO_PREFIX + hb)
    outer = sign(identity, OUTER_CONTEXT, hb + ciphertext)
    return Envelope(header, ciphertext, outer)


# --- reading armour --------------------------------------------------------------------------


def _parse_block(lines: list[str]) -> Envelope:
    """``lines``: the unquoted, stripped lines between BEGIN and END."""
    header: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i] != "":
        key, sep, value = lines[i].partition(": ")
        if not sep:
            raise FormatError(f"envelope header line {lines[i][:40]!r} is not 'key: value'")
        if key in header:
            raise FormatError(f"envelope header field {key[:40]!r} appears twice")
        header[key] = value
        i += 1
        if len(header) > len(FIELDS):
            break
    if "format" in header:
        _check_field("format", header["format"])
    elif header:
        raise FormatError(f"envelope header must start with 'format: {FORMAT}'")
    _validate_header(header)
    body_lines = [line for line in lines[i:] if line != ""]
    if not body_lines:
        raise FormatError("envelope has no body")
    body = "".join(body_lines)
    if not _B64_LINE.fits(body):  # every line does (none is empty) when the lines joined do
        raise FormatError("envelope body is not base64")
    try:
        raw = binascii.a2b_base64(body, strict_mode=True)
    except (binascii.Error, ValueError):
        raise FormatError("envelope body is not valid base64") from None
    if binascii.b2a_base64(raw, newline=False).decode("ascii") != body:
        raise FormatError("envelope body is not canonical base64")
    if len(raw) < _HPKE_OVERHEAD + 2 * SIGNATURE_SIZE:
        raise FormatError("envelope body is too short")
    if (len(raw) - _HPKE_OVERHEAD - 2 * SIGNATURE_SIZE) % PAD_QUANTUM:
        # a v2 envelope seals whole blocks of PAD_QUANTUM: a body of another length lost (or
        # gained) lines on the way, most often a line left out of a paste. Said here, before any
        # signature is checked: "it was changed" would sound like cheating and give no next step
        raise FormatError(f"envelope body is cut: {len(body_lines)} lines of it are here, which is not a whole "
                          "envelope (a line is missing or was added)")
    return Envelope._checked(header, raw[:-SIGNATURE_SIZE], raw[-SIGNATURE_SIZE:])


def _unquote(line: str, depth: int) -> str | None:
    """Remove ``depth`` levels of '>' quoting (each '>' optionally followed by one space)."""
    if depth == 0:  # nothing to remove: what the steps below give then
        return line.strip()
    if not line.strip():
        return ""  # some mail clients leave the blank lines of a quote unquoted
    pos = 0
    n = len(line)
    while pos < n and line[pos] in " \t":
        pos += 1
    for _ in range(depth):
        if pos < n and line[pos] == ">":
            pos += 1
            if pos < n and line[pos] in " \t":
                pos += 1
        else:
            return None
    return line[pos:].strip()


def scan_armored(text: str) -> list[Envelope | FormatError]:
    """Every armoured envelope in ``text``, in order; a malformed block gives a ``FormatError`` item.

    Handles CRLF, trailing spaces, indentation and '>' quoting (as in a quoted email reply).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    results: list[Envelope | FormatError] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if BEGIN not in line:
            i += 1
            continue
        prefix, end = _quote(line)
        rest = line[end:].rstrip()
        if rest != BEGIN:
            # Never skipped in silence: a mail with a damaged BEGIN line gets told what is wrong.
            if rest.lstrip(_INVISIBLE) == BEGIN:
                results.append(FormatError(
                    "the envelope's BEGIN line starts with a byte-order mark or another invisible character "
                    "(some editors add one): save the envelope as plain UTF-8 text without BOM, or paste it again"))
            else:
                results.append(FormatError(
                    f"the envelope's BEGIN line is joined to other text: '{BEGIN}' must be on a line of its "
                    "own (paste the envelope again, starting on a new line)"))
            i += 1
            continue
        depth = prefix.count(">")
        block: list[str] = []
        size = len(line)
        j = i + 1
        error: FormatError | None = None
        ended = False
        while j < n:
            size += len(lines[j]) + 1
            inner = _unquote(lines[j], depth)
            if inner is not None and inner == END:
                ended = True
                break
            if inner is not None and inner == BEGIN:
                break  # a new block starts: this one is unterminated
            if size > MAX_ARMORED:
                error = FormatError(f"armoured envelope is larger than {MAX_ARMORED} bytes")
                # skip to this block's END, if any
                while j < n and _unquote(lines[j], depth) != END:
                    j += 1
                ended = j < n
                break
            if inner is None:
                error = FormatError("armoured envelope is broken: its quoting changes in the middle")
                break
            block.append(inner)
            j += 1
        if error is None and not ended:
            error = FormatError(f"armoured envelope has no '{END}' line")
        if error is None:
            try:
                results.append(_parse_block(block))
            except FormatError as exc:
                results.append(exc)
            except KoryoPbmError as exc:  # pragma: no cover - defensive
                results.append(FormatError(str(exc)))
        else:
            results.append(error)
        i = j + 1 if ended else max(j, i + 1)
    return results


def parse_armored(text: str) -> list[Envelope]:
    """Every armoured envelope in ``text``; ``FormatError`` at the first malformed block."""
    found = []
    for item in scan_armored(text):
        if isinstance(item, FormatError):
            raise item
        found.append(item)
    return found


def parse_one(text: str, what: str = "text") -> Envelope:
    """Exactly one envelope in ``text`` (an ``.envelope`` file), else ``FormatError``."""
    found = parse_armored(text)
    if len(found) != 1:
        raise FormatError(f"{what} holds {len(found)} envelopes, expected exactly one")
    return found[0]


