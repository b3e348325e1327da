"""The sealed parts of a game file: sealing, opening and their sizes.

Sealed parts hold compact JSON (only their recipient reads it); their HPKE ``info`` is
``b"koryo-pbm game part v1\\0" + game_id + b"\\0" + version + b"\\0" + name + b"\\0" +
recipient fingerprint``, so a part cannot be moved to another game, version, seat or key and still
open.

The JSON is padded with spaces before it is sealed, so that the size of a part depends only on
its *shape*, never on the text inside it: :func:`padded_size` counts every text as a multiple of
16 bytes (at least 16: every card name fits), every number as 24 bytes, and the structure (keys,
lists, tables) as it is. Two parts whose lists have the same lengths (a hand of 7 cards, whichever
they are) seal to the same size. The opener refuses padding of anything but spaces after the JSON."""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity, sha256_hex
from koryo_pbm.errors import FormatError, NotForYou, TamperedError
from koryo_pbm.store.gamedoc import (
    MODERATOR_PART,
    PART_INFO_PREFIX,
    GameDoc,
    _b64,
    _json_default,
    _plain,
)
from koryo_pbm.store.playercopy import (
    player_copy_refusal,
)
from koryo_pbm.values import Value, keep

# The JSON writer of sealed parts, made once: ``json.dumps`` with any argument builds a new encoder on
# every call (several microseconds; a resolve asks a few hundred times). Its ``encode`` is exactly
# what ``json.dumps`` with the same arguments returns.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default)


# --- sealed parts ------------------------------------------------------------------------------


def part_info(game_id: str, version: int, name: str, recipient: str) -> bytes:
    """The HPKE ``info`` of a sealed part: purpose, game, version, part name and recipient."""
    return PART_INFO_PREFIX + b"\x00".join(
        s.encode("utf-8") for s in (game_id, str(int(version)), name, recipient)
    )


TEXT_QUANTUM = 16  # bytes: every text in a sealed part counts as a multiple of this (card names fit in one)
NUMBER_ROOM = 24  # bytes: any JSON number koryo-pbm writes (an int below 2**63, a float's repr) fits


def compact_json(value: Any) -> str:
    """``value`` as compact JSON, the form sealed parts hold (``ValueError`` or ``TypeError`` for
    what JSON cannot hold: NaN, infinities, other objects)."""
    return _COMPACT_JSON.encode(value)


def _room(value: Any) -> int:
    """The bytes ``value`` takes in a padded part: what its compact JSON would take if every text
    were as long as the next multiple of ``TEXT_QUANTUM`` and every number ``NUMBER_ROOM`` long."""
    kind = type(value)
    # the plain kinds first, by their exact type (what _plain gives), as the general tests below
    # count them: a table and a list are most nodes, and the abstract classes are slow to ask
    if kind is dict:
        return 2 + max(0, len(value) - 1) + sum(_room(k) + 1 + _room(v) for k, v in value.items())
    if kind is list:
        return 2 + max(0, len(value) - 1) + sum(_room(v) for v in value)
    if kind is int:
        return max(NUMBER_ROOM, len(repr(value)))  # (the JSON of an int is its repr)
    if kind is str and value.isprintable():
        # compact JSON (ensure_ascii=False) escapes only '"', '\\' and what is not printable here:
        # its length without encoding it (this runs for every text of every sealed part)
        inner = len(value.encode("utf-8")) + value.count('"') + value.count("\\")
        return 2 + max(1, -(-inner // TEXT_QUANTUM)) * TEXT_QUANTUM
    if isinstance(value, (str, datetime, date, time)):
        inner = len(compact_json(value).encode("utf-8")) - 2
        return 2 + max(1, -(-inner // TEXT_QUANTUM)) * TEXT_QUANTUM
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, (int, float)):
        return max(NUMBER_ROOM, len(compact_json(value)))
    if isinstance(value, Mapping):
        return 2 + max(0, len(value) - 1) + sum(_room(k) + 1 + _room(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 2 + max(0, len(value) - 1) + sum(_room(v) for v in value)
    raise FormatError(f"a sealed part holds a value that cannot be written ({type(value).__name__})")


def padded_size(data: Mapping[str, Any]) -> int:
    """The size in bytes that ``data`` is padded to in a sealed part: a function of its shape only
    (the keys, the lengths of its lists and tables, and of any text longer than 16 bytes)."""
    return _room(_plain(data, "part"))


_SIZES: dict[str, int] = {}  # the padded sizes of the parts sealed last, by the SHA-256 of their compact JSON
_SIZES_KEPT = 16384


def kept_padded_size(data: Mapping[str, Any], text: str | None = None) -> int:
    """:func:`padded_size` of ``data``, kept for the last parts sealed by the SHA-256 of their
    compact JSON ``text`` (:func:`compact_json` of ``data``; made here when not given), which says
    all the size is a function of: every text, number and key. A version that only holds an
    order seals the parts of the version before again, most of them unchanged; the JSON is
    written in C, the size counted in Python over every value."""
    try:
        digest = sha256_hex((compact_json(data) if text is None else text).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):  # not JSON: padded_size says why
        return padded_size(data)
    return _kept(digest, lambda: padded_size(data))


def _kept(digest: str, size_of: Callable[[], int]) -> int:
    size = _SIZES.pop(digest, None)
    return keep(_SIZES, digest, size_of() if size is None else size, _SIZES_KEPT)


def seal_part(doc: GameDoc, name: str, recipient: PublicIdentity, data: Mapping[str, Any], *,
              size: int | None = None, text: str | None = None) -> dict[str, str]:
    """Seal ``data`` to ``recipient`` as part ``name`` of ``doc`` at ``doc.version``.

    Inside the seal the data is compact JSON (only its recipient ever reads it, and JSON is read
    many times faster than TOML: the moderator's part holds the whole game state), padded with
    spaces to ``size`` bytes (default: :func:`padded_size`): the sealed size says nothing that
    the shape of ``data`` does not. ``FormatError`` if the JSON is longer than ``size``.
    ``text``: the compact JSON of ``data`` (:func:`compact_json`), when the caller has made it
    (``data`` is checked all the same)."""
    from koryo_pbm.crypto.seal import seal

    plain = _plain(data, f"part {name!r}")
    try:
        raw = (compact_json(plain) if text is None else text).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise FormatError(f"part {name!r} cannot be written: {exc}") from None
    target = _kept(sha256_hex(raw), lambda: _room(plain)) if size is None else size
    if len(raw) > target:
        raise FormatError(f"part {name!r} takes {len(raw)} bytes, more than the {target} it is padded to")
    fpr = recipient.fingerprint()
    info = part_info(doc.game_id, doc.version, name, fpr)
    blob = seal(recipient, raw + b" " * (target - len(raw)), info)
    text64 = binascii.b2a_base64(blob, newline=False).decode("ascii")
    if name == MODERATOR_PART:
        _SEALED.keep(doc.game_id, text64, info, recipient, raw)
    return {"recipient": fpr, "data": text64}


class _Sealed:
    """The moderator's part this process sealed last for each game (its JSON, before the
    padding), with the SHA-256 of the sealed blob's base64 text, its HPKE ``info`` and the
    recipient's key: a judge opens the part it sealed in the version before at every resolve.
    The same ciphertext with the same ``info`` opens to the same text with that recipient's key,
    and only with it, so the opener gives it without opening it again; any other text, ``info``
    or key is opened as ever. Only the moderator's part (the demo's players open theirs for
    real), one for each game, up to 8 MiB."""

    LIMIT = 8 * 1024 * 1024

    def __init__(self) -> None:
        self.parts: dict[str, tuple[str, bytes, PublicIdentity, bytes]] = {}
        self.size = 0

    def keep(self, game_id: str, data: str, info: bytes, recipient: PublicIdentity, raw: bytes) -> None:
        old = self.parts.pop(game_id, None)
        if old is not None:
            self.size -= len(old[3])
        if len(raw) > self.LIMIT:
            return
        while self.parts and self.size + len(raw) > self.LIMIT:
            self.size -= len(self.parts.pop(next(iter(self.parts)))[3])
        self.parts[game_id] = (_text_digest(data), info, recipient, raw)
        self.size += len(raw)

    def get(self, game_id: str, data: object, info: bytes, identity: Identity) -> bytes | None:
        kept = self.parts.get(game_id)
        if kept is None or not isinstance(data, str) or kept[1] != info or kept[2] != identity.public:
            return None
        return kept[3] if _text_digest(data) == kept[0] else None


def _text_digest(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


_SEALED = _Sealed()


def sealed_part(doc: GameDoc, name: str, identity: Identity) -> dict[str, Any]:
    """Part ``name`` as the file holds it, checked before it is opened: there (``FormatError``),
    whole (not a player copy's digest), sealed to ``identity`` (``NotForYou``)."""
    part = doc.sealed.get(name)
    if part is None:
        raise FormatError(f"game {doc.game_id} has no sealed part {name!r}")
    if "data" not in part and "digest" in part:
        raise FormatError(player_copy_refusal(doc))
    mine = identity.public.fingerprint()
    if part.get("recipient") != mine:
        raise NotForYou(
            f"the part {name!r} is sealed to another key (fingerprint {part.get('recipient')}); you are {mine}"
        )
    return part


def open_part(doc: GameDoc, name: str, identity: Identity) -> dict[str, Any]:
    """Open part ``name`` with ``identity``: ``NotForYou`` if sealed to another key,
    ``TamperedError`` if it does not open, ``FormatError`` if what is inside is not a table."""
    from koryo_pbm.crypto.seal import open_sealed

    part = sealed_part(doc, name, identity)
    info = part_info(doc.game_id, doc.version, name, identity.public.fingerprint())
    what = f"the sealed part {name!r} of game {doc.game_id} (version {doc.version})"
    kept = _SEALED.get(doc.game_id, part.get("data"), info, identity) if name == MODERATOR_PART else None
    if kept is not None:  # this process sealed this very text with this info to this key
        return _part_data(kept, what)
    blob = _b64(part.get("data"), f"sealed part {name!r}")
    plain = open_sealed(identity, blob, info, what=what)
    return _part_data(plain, what)


def _part_data(plain: bytes, what: str) -> dict[str, Any]:
    """The table a sealed part holds (compact JSON padded with spaces); ``FormatError`` if not."""
    text = plain.rstrip(b" ")  # the padding: spaces only, after the JSON table
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FormatError(f"{what} does not hold valid data") from None
    if not isinstance(data, dict):
        raise FormatError(f"{what} does not hold a table")
    if not text.endswith(b"}"):  # JSON allows other white space: padding is spaces, nothing else
        raise FormatError(f"{what} is padded with something other than spaces")
    return data


# Every way a sealed part's HPKE ``info`` may bind it: a function of the document, the part's
# name and a recipient's fingerprint. Parts written by ``seal_part`` are bound by
# ``part_info`` (game, version, name, recipient). A new kind of part bound to other values (the
# blind table's co-dealer parts, planned unbound to the version: docs/blind-table.md) adds its
# binding here; :func:`open_every_part` (``koryo-pbm inspect``) then opens it without change.
PART_BINDINGS: list[Callable[[GameDoc, str, str], bytes]] = [
    lambda doc, name, recipient: part_info(doc.game_id, doc.version, name, recipient),
]


class OpenedPart(Value):
    """A sealed part that a key opens: its name, the recipient the file names (fingerprint),
    whether that is the key's own, and the table inside."""

    _fields = ("name", "recipient", "labelled_mine", "data")
    name: str
    recipient: str
    labelled_mine: bool
    data: dict[str, Any]

    def __init__(self, name: str, recipient: str, labelled_mine: bool, data: dict[str, Any]) -> None:
        self.name = name
        self.recipient = recipient
        self.labelled_mine = labelled_mine
        self.data = data


def open_every_part(doc: GameDoc, identity: Identity) -> tuple[list[OpenedPart], list[str]]:
    """Try ``identity`` on every sealed part of ``doc``, whatever its name or the recipient the
    file names, with every binding of :data:`PART_BINDINGS`: the parts that open (in file order)
    and the names of those that do not. A part the file says is sealed to this key but that does
    not open is ``TamperedError``, as :func:`open_part` says; one that opens but holds no table,
    ``FormatError``."""
    from koryo_pbm.crypto.seal import open_sealed

    mine = identity.public.fingerprint()
    opened: list[OpenedPart] = []
    closed: list[str] = []
    for name, part in doc.sealed.items():
        if "data" not in part and "digest" in part:
            continue  # a player copy keeps the moderator's part as its digest: nothing to open
        label = str(part.get("recipient"))
        blob = _b64(part.get("data"), f"sealed part {name!r}")
        what = f"the sealed part {name!r} of game {doc.game_id} (version {doc.version})"
        plain = None
        for binding in PART_BINDINGS:
            for recipient in dict.fromkeys((mine, label)):  # as labelled, and bound to this key
                try:
                    plain = open_sealed(identity, blob, binding(doc, name, recipient), what=what)
                except TamperedError:
                    continue
                break
            if plain is not None:
                break
        if plain is None:
            if label == mine:
                raise TamperedError(f"{what} is sealed to your key but does not open: it was changed or moved")
            closed.append(name)
            continue
        opened.append(OpenedPart(name, label, label == mine, _part_data(plain, what)))
    return opened, closed


