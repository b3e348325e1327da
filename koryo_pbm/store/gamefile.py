"""The game file: one signed TOML document per game (``DIR/game.toml``); it knows no game.

Layout (fixed key order; the moderator's Ed25519 signature, context ``game-file``, covers the
exact bytes of everything before the last line, which is ``signature = "<base64>"``, in their
*digested form*: see "Player copies" below)::

    format = "koryo-pbm-game/v4"       # the first line, always (v3, v2: see below)
    game_id = "..."
    game = "mygame"
    version = 12                       # state number, +1 at every write (set by the caller)
    moderator = "koryo-pbm-pub-v1:..."
    deal = "joined"                    # how the deal is made: "joined" (the moderator's secret and
                                       #   every player's contribution), "seed" (a seed the moderator
                                       #   chose, --seed) or "position" (--position): not fair-proof
    seed_commitment = "sha256:<hex>"   # SHA-256 of a domain tag, a random 32-byte salt and the seed
    seed = "..."                       # only once the game is over: the seed, published
    salt = "<64 hex>"                  #   with the salt of its commitment
    [players]                          # seat order
    [contributions]                    # deal "joined", once dealt: player -> 64 hex digits (seat order)
    [decision]                         # id, kind, waiting_for, received, deadline (optional, UTC
                                       #   "2026-11-27T18:00:00Z"); absent when over
    [service]                          # optional: the public deadline and absent-player policy
                                       #   (see koryo_pbm.deadlines)
    [public]                           # the game's public state (the game decides)
    [[log]]                            # hash-chained entries: seq, version, decision, prev, hash,
                                       #   accepted, events (the public events, one sentence each)
    [replay]                           # only once the game is over: what `verify` replays the game
                                       #   from: first, options, position (each if given) and
    [[replay.orders]]                  #   every accepted order: decision, player, what the player
                                       #   signed (answers, submitted, nonce: the envelope's header
                                       #   fields the file does not already say; orders, its text;
                                       #   inner, the player's signature of both, base64) and the
                                       #   envelope's digest, as the log counts it (v2: the whole
                                       #   armoured envelope in place of answers..digest)
    [sealed.NAME]                      # recipient (fingerprint), data (base64 HPKE blob, written
                                       #   as a literal string: 'AbC...'); the moderator's part
                                       #   last, and in a player copy: recipient, digest
    signature = "<base64>"

Player copies (v4, issue 18). The moderator's part (the whole state, and every counted order kept
for the end-of-game replay) is most of a file late in a game, and no player can open it. The
signature covers the *digested form* of the file: the same bytes, but for the moderator's part
(the last table) whose ``data = '...'`` line is ``digest = "sha256:<hex>"``, the SHA-256 of that
base64 text (:func:`part_digest`). So the whole file and its *player copy*, the digested form with
the signature line (:func:`player_copy`), verify with the same signature, and are the same version
to a player (:func:`file_identity`). The judge mails players the player copy; the moderator's
commands refuse it in one line (:func:`player_copy_refusal`).

Reading checks the signature before parsing: the plain lines before the first table (the
*header*, at most 64 KiB) are parsed alone for the moderator's key, the signature over the body
is verified with it, and only then is the whole body parsed; a forged 16 MB file costs a hash.

Format v4 is format v3 with the signature over the digested form (v3's covers the bytes as they
are: a v3 file has no player copy). Format v3 (issue 19) is format v2 with smaller published
orders: v2 published each signed order as the player's whole sealed envelope (some 2 KB, its
padded ciphertext included, which nobody but the moderator can open); v3 publishes what
``verify`` checks, the orders and the header the player signed with them. A finished v2 file is
read (and written) as v2; a v3 file is read, and its next version written as v4; every other
file this koryo-pbm writes is v4.

Rule for unknown fields: format v4 has exactly these top-level keys (``decision`` while the game
goes on; ``seed``, ``salt`` and ``replay`` once it is over, never with ``decision``;
``contributions`` only for a joined game once dealt; ``service``
optional), and the ``decision``, ``log`` entries,
``replay`` and ``sealed`` parts exactly theirs; anything else is refused. A file of format v1
(before the fair deal) is refused with a message naming its format. A later format gets a new
first line.

Sealed parts hold compact JSON (only their recipient reads it); their HPKE ``info`` is ``b"koryo-pbm game part v1\\0" + game_id + b"\\0"
+ version + b"\\0" + name + b"\\0" + recipient fingerprint``, so a part cannot be moved to another
game, version, seat or key and still open.

The JSON is padded with spaces before it is sealed, so that the size of a part depends only on
its *shape*, never on the text inside it: :func:`padded_size` counts every text as a multiple of
16 bytes (at least 16: every card name fits), every number as 24 bytes, and the structure (keys,
lists, tables) as it is. Two parts whose lists have the same lengths (a hand of 7 cards, whichever
they are) seal to the same size. The opener refuses padding of anything but spaces after the JSON.
"""

from __future__ import annotations

import binascii
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from functools import cache
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity, sha256_hex, validate_name
from koryo_pbm.crypto.sign import SIGNATURE_SIZE, sign, verify
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, TamperedError
from koryo_pbm.printable import printable
from koryo_pbm.values import BASE64, HEX, HEX64, ID, Frozen, Spelling, Value, is_sha256, keep

FORMAT = "koryo-pbm-game/v4"
FIRST_LINE = f'format = "{FORMAT}"\n'
# v3: the same but for the signature, which covers the file's bytes as they are (the moderator's
# part included), so that no copy without that part verifies (written until issue 18's player
# copies; read still)
FORMAT_V3 = "koryo-pbm-game/v3"
# v2: as v3 but for ``replay.orders``, where each signed order is the player's whole sealed
# envelope (written until issue 19; read still, and written again for such a finished game).
FORMAT_V2 = "koryo-pbm-game/v2"
READ_FORMATS = (FORMAT, FORMAT_V3, FORMAT_V2)
READS = f"{FORMAT}, {FORMAT_V3} and {FORMAT_V2}"
SIGN_CONTEXT = "game-file"
PART_INFO_PREFIX = b"koryo-pbm game part v1\x00"
MODERATOR_PART = "moderator"
MAX_GAME_FILE = 16 * 1024 * 1024
ZERO_HASH = "sha256:" + "0" * 64

TOP_KEYS = ("format", "game_id", "game", "version", "moderator", "deal", "seed_commitment", "seed", "salt",
            "players", "contributions", "decision", "service", "public", "log", "replay", "sealed")
OPTIONAL_KEYS = ("decision", "seed", "salt", "contributions", "service", "replay")
DEALS = ("joined", "seed", "position", "blind")
REPLAY_KEYS = ("first", "options", "position", "orders")
# a signed order: what the player signed (the envelope's header fields that the game does not
# already say, the orders text, the inner signature) and the envelope's digest, as the log counts
# it; ``key``: a former key of the seat that signed it (the envelope's format, the game and the
# moderator's fingerprint are the file's own; the signer's fingerprint is that of the key)
REPLAY_ORDER_KEYS = ("decision", "player", "answers", "submitted", "nonce", "digest", "orders", "inner", "key")
REPLAY_ORDER_OPTIONAL = ("key",)
REPLAY_ORDER_KEYS_V2 = ("decision", "player", "envelope", "orders", "inner", "key")  # v2: the whole envelope
REPLAY_BOT_ORDER_KEYS = ("decision", "player", "bot", "orders")  # one the moderator's bot played (level)
DECISION_KEYS = ("id", "kind", "waiting_for", "received", "deadline")
LOG_KEYS = ("seq", "version", "decision", "prev", "hash", "events", "accepted")
PART_KEYS = ("recipient", "data")
DIGEST_PART_KEYS = ("recipient", "digest")  # the moderator's part in a player copy (v4)

# checked with string methods, not compiled patterns (see koryo_pbm.values)
_HEX16 = Spelling(HEX, 16)
_BASE64 = Spelling(BASE64, 0, None)  # [A-Za-z0-9+/]*
_SIG_PREFIX = 'signature = "'
_SIG_B64 = Spelling(BASE64, 86)  # the signature line: signature = "([A-Za-z0-9+/]{86}==)"


def _is_b64(value: str) -> bool:
    """``[A-Za-z0-9+/]*={0,2}``"""
    bare = value.rstrip("=")
    return len(value) - len(bare) <= 2 and _BASE64.fits(bare)


def _signature_text(line: str) -> str | None:
    """The base64 signature of a game file's last line, ``signature = "<86 characters>=="``."""
    if not (line.startswith(_SIG_PREFIX) and line.endswith('=="') and len(line) == len(_SIG_PREFIX) + 89):
        return None
    text = line[len(_SIG_PREFIX):-1]
    return text if _SIG_B64.fits(text[:86]) else None


class GameDoc(Value):
    """A game file's content. ``players`` keeps seat order; ``sealed`` maps a part name (a
    player, or ``"moderator"``) to ``{"recipient": fingerprint, "data": base64}``. A new version
    is made with :meth:`~koryo_pbm.values.Value.replace`."""

    _fields = ("game_id", "game", "version", "moderator", "seed_commitment", "players", "decision", "public", "log",
               "sealed", "seed", "service", "deal", "salt", "contributions", "replay")
    game_id: str
    game: str
    version: int
    moderator: PublicIdentity
    seed_commitment: str
    players: dict[str, PublicIdentity]
    decision: dict[str, Any] | None
    public: dict[str, Any]
    log: list[dict[str, Any]]
    sealed: dict[str, dict[str, str]]
    seed: str | None  # published once the game is over (decision is None)
    service: dict[str, Any] | None  # the deadline and absent-player policy (koryo_pbm.deadlines)
    deal: str  # "joined", "seed", "position" or "blind"
    salt: str | None  # published with the seed
    contributions: dict[str, str] | None  # deal "joined", once dealt
    replay: dict[str, Any] | None  # published once the game is over

    def __init__(self, game_id: str, game: str, version: int, moderator: PublicIdentity, seed_commitment: str,
                 players: dict[str, PublicIdentity], decision: dict[str, Any] | None = None,
                 public: dict[str, Any] | None = None, log: list[dict[str, Any]] | None = None,
                 sealed: dict[str, dict[str, str]] | None = None, seed: str | None = None,
                 service: dict[str, Any] | None = None, deal: str = "seed", salt: str | None = None,
                 contributions: dict[str, str] | None = None, replay: dict[str, Any] | None = None) -> None:
        self.game_id = game_id
        self.game = game
        self.version = version
        self.moderator = moderator
        self.seed_commitment = seed_commitment
        self.players = players
        self.decision = decision
        self.public = {} if public is None else public
        self.log = [] if log is None else log
        self.sealed = {} if sealed is None else sealed
        self.seed = seed
        self.service = service
        self.deal = deal
        self.salt = salt
        self.contributions = contributions
        self.replay = replay


def seed_commitment(seed: str, salt: str) -> str:
    """The public commitment to a seed (see :mod:`koryo_pbm.crypto.commit`)."""
    from koryo_pbm.crypto.commit import commitment  # imported where used: a game in progress needs none

    return commitment(seed, salt)


def check_seed(committed: str, seed: str, salt: str) -> bool:
    """True if ``seed`` with ``salt`` is the one committed to."""
    from koryo_pbm.crypto.commit import check_commitment

    return check_commitment(committed, seed, salt)


def describe_deal(doc: GameDoc) -> str:
    """One line for ``show`` and ``status``: how the game's deal is made."""
    deal, dealt = doc.deal, doc.contributions is not None or doc.deal != "joined"
    if deal == "joined":
        if not dealt:
            return ("deal: not dealt yet; every player joins first, and the deal comes from the moderator's "
                    "committed secret and every player's contribution")
        return "deal: fair, from the moderator's committed secret and every player's contribution"
    if deal == "position":
        return "deal: a position the moderator chose (--position): not fair-proof"
    if deal == "blind":
        record = doc.public.get("blind") if isinstance(doc.public, dict) else None
        dealers = record.get("dealers") if isinstance(record, dict) else None
        names = " and ".join(map(str, dealers)) if isinstance(dealers, list) else "?"
        return (f"blind table: dealers {names} (the cards are shuffled and dealt by both; neither alone "
                "sees any hidden card)")
    return "deal: chosen by the moderator (a seed given at `new`): not fair-proof"


# --- TOML-safe values and canonical JSON -------------------------------------------------------


class _Slow(Exception):
    """Raised by the fast paths below for anything but the plain cases: the general code runs."""


def _plain_fast(value: Any) -> Any:
    """:func:`_plain` for plain dicts, lists, text and numbers, without building the ``where`` of
    every node (what costs most when a whole state is copied); ``_Slow`` for anything else."""
    t = type(value)
    if t is str:
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _Slow from None
        return value
    if t is int or t is bool or t is float:
        return value
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _Slow
            out[k] = _plain_fast(v)
        return out
    if t is list or t is tuple:
        return [_plain_fast(v) for v in value]
    raise _Slow


def _plain(value: Any, where: str) -> Any:
    """A deep copy of ``value`` as plain TOML-safe data (dict/list/str/int/float/bool/datetime)."""
    try:
        return _plain_fast(value)
    except _Slow:  # something else somewhere: the general code, which names where a bad value is
        pass
    return _plain_slow(value, where)


def _plain_slow(value: Any, where: str) -> Any:
    if isinstance(value, (str, bool, int, float, datetime, date, time)):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise FormatError(f"{where} holds text that is not valid Unicode") from None
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise FormatError(f"{where} has a non-text key {k!r}")
            out[k] = _plain_slow(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain_slow(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise FormatError(f"{where} holds a value TOML cannot store ({type(value).__name__})")


def _json_default(value: Any) -> str:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    raise TypeError(type(value).__name__)


# The JSON writers of hashes and sealed parts, made once: ``json.dumps`` with any argument builds
# a new encoder on every call (several microseconds; a resolve asks a few hundred times). Each
# ``encode`` is exactly what ``json.dumps`` with the same arguments returns.
_HASHED_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                                default=_json_default)
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default)


def _entry_hash(entry: Mapping[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    try:
        text = _HASHED_JSON.encode(body)
    except (TypeError, ValueError, RecursionError):
        raise FormatError("a log entry holds a value that cannot be hashed") from None
    return "sha256:" + sha256_hex(text.encode("utf-8"))


# --- the log -----------------------------------------------------------------------------------


def append_log(doc: GameDoc, decision_id: str, events: list[str], accepted: list[str]) -> dict[str, Any]:
    """Append one hash-chained entry (for ``doc.version``) to ``doc.log`` and return it."""
    prev = doc.log[-1]["hash"] if doc.log else ZERO_HASH
    entry: dict[str, Any] = {
        "seq": len(doc.log) + 1,
        "version": doc.version,
        "decision": decision_id,
        "prev": prev,
        "events": _plain(list(events), "log events"),
        "accepted": _plain(list(accepted), "log accepted"),
    }
    _check_entry_fields(entry, len(doc.log), with_hash=False)
    entry["hash"] = _entry_hash(entry)
    entry = {k: entry[k] for k in LOG_KEYS}
    doc.log.append(entry)
    return entry


def head(doc: GameDoc) -> str:
    """The head of the game's history: the ``hash`` of its last log entry; before the first
    resolution, a hash of what the game started as (id, game, moderator, seed commitment,
    players, the public state and the pending decision's id), the same in every version until
    a decision is resolved. Players pin it; envelopes name the head they answer."""
    if doc.log:
        return str(doc.log[-1]["hash"])
    start = {
        "game_id": doc.game_id,
        "game": doc.game,
        "moderator": doc.moderator.line(),
        "seed_commitment": doc.seed_commitment,
        "players": {name: key.line() for name, key in doc.players.items()},
        "public": doc.public,
        "decision": doc.decision["id"] if doc.decision else None,
    }
    try:
        text = _HASHED_JSON.encode(start)
    except (TypeError, ValueError, RecursionError):
        raise FormatError(f"game {doc.game_id}: its public state cannot be hashed") from None
    return "sha256:" + sha256_hex(text.encode("utf-8"))


def _check_entry_fields(entry: Any, index: int, *, with_hash: bool = True) -> None:
    where = f"log entry {index + 1}"
    if not isinstance(entry, dict):
        raise FormatError(f"{where} is not a table")
    expected = LOG_KEYS if with_hash else tuple(k for k in LOG_KEYS if k != "hash")
    _exact_keys(entry, expected, where)
    for key in ("seq", "version"):
        if not _is_int(entry[key]):
            raise FormatError(f"{where}: '{key}' must be an integer")
    if not isinstance(entry["decision"], str) or not ID.fits(entry["decision"]):
        raise FormatError(f"{where}: 'decision' must be a decision id")
    for key in ("prev", "hash") if with_hash else ("prev",):
        if not is_sha256(entry[key]):
            raise FormatError(f"{where}: '{key}' must be 'sha256:' and 64 hex digits")
    events = entry["events"]
    if not isinstance(events, list):
        raise FormatError(f"{where}: 'events' must be a list")
    if not all(isinstance(event, str) for event in events):
        raise FormatError(f"{where}: 'events' must be a list of sentences")
    accepted = entry["accepted"]
    if not isinstance(accepted, list) or not all(HEX64.fits(d) for d in accepted):
        raise FormatError(f"{where}: 'accepted' must be a list of envelope digests")


_CHECKED: dict[tuple[Any, ...], None] = {}  # the log entries whose fields were checked last, by their content
_CHECKED_KEPT = 4096


def _check_entry(entry: Any, index: int) -> None:
    """:func:`_check_entry_fields` of a whole entry (with its hash), not done again for an entry
    checked before with the same values of the same types (each version written or read holds
    the whole log, its entries unchanged); kept for the last few thousand."""
    try:
        key: tuple[Any, ...] | None = None
        if type(entry) is dict and len(entry) == len(LOG_KEYS):
            seq, version, events, accepted = entry["seq"], entry["version"], entry["events"], entry["accepted"]
            if type(events) is list and type(accepted) is list:
                key = (type(seq), seq, type(version), version, entry["decision"], entry["prev"], entry["hash"],
                       tuple(events), tuple(accepted))
                if key in _CHECKED:
                    return
    except (KeyError, TypeError):  # a missing field or an unhashable value: the check says what is wrong
        key = None
    _check_entry_fields(entry, index)
    if key is not None:
        keep(_CHECKED, key, None, _CHECKED_KEPT)


_HASHES: dict[tuple[Any, ...], str] = {}  # the hashes of the log entries checked last, by their content
_HASHES_KEPT = 4096


def _checked_entry_hash(entry: Mapping[str, Any]) -> str:
    """:func:`_entry_hash` of a checked entry (:func:`_check_entry_fields`: exactly its fields,
    each an integer, a text or a list of texts), kept for the last few thousand by every value
    in them but the hash: each version written or read checks the whole log again."""
    key = (entry["seq"], entry["version"], entry["decision"], entry["prev"], tuple(entry["events"]),
           tuple(entry["accepted"]))
    digest = _HASHES.get(key)
    if digest is None:
        digest = keep(_HASHES, key, _entry_hash(entry), _HASHES_KEPT)
    return digest


def verify_log(doc: GameDoc, *, checked: bool = False) -> None:
    """Check the hash chain of ``doc.log``; ``TamperedError`` where it breaks. ``checked``: the
    entries' fields were checked already (:func:`_validate` just did)."""
    prev = ZERO_HASH
    last_version = 0
    for i, entry in enumerate(doc.log):
        if not checked:
            _check_entry(entry, i)
        if entry["seq"] != i + 1:
            raise TamperedError(f"log entry {i + 1} has sequence number {entry['seq']}: the log was changed")
        if entry["prev"] != prev:
            raise TamperedError(f"log entry {i + 1} does not follow entry {i}: the log chain is broken")
        if entry["hash"] != _checked_entry_hash(entry):
            raise TamperedError(f"log entry {i + 1} does not match its hash: the log was changed")
        if entry["version"] < last_version or entry["version"] > doc.version:
            raise TamperedError(f"log entry {i + 1} has an impossible version {entry['version']}")
        last_version = entry["version"]
        prev = entry["hash"]


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


def _canonical_b64(value: Any) -> bool:
    """True if ``value`` is text that :func:`_b64` accepts (base64 that ``a2b_base64`` reads in
    strict mode and ``b2a_base64`` writes back the same), told without decoding it: groups of
    four letters of the alphabet, the last one ``xx==`` or ``xxx=`` with the bits the padding
    leaves out zero. ``binascii`` decodes a game's moderator part (some 40 kB) in about 0.1 ms;
    this takes a few microseconds."""
    if not isinstance(value, str) or len(value) % 4:
        return False
    bare = value.rstrip("=")
    pad = len(value) - len(bare)
    if pad > 2 or not _BASE64.fits(bare):
        return False
    # the last letter before the padding carries 2 bits (``==``) or 4 bits (``=``) of data, the
    # rest of its 6 zero
    return not pad or not _B64_VALUE[bare[-1]] & (0b1111 if pad == 2 else 0b11)


_B64_VALUE = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _b64(value: Any, where: str) -> bytes:
    if _canonical_b64(value):  # then decoding it is all there is to do (strict or not: the same)
        return binascii.a2b_base64(value)
    if not isinstance(value, str):
        raise FormatError(f"{where}: data must be base64 text")
    try:
        raw = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError):
        raise FormatError(f"{where}: data is not valid base64") from None
    if binascii.b2a_base64(raw, newline=False).decode("ascii") != value:
        raise FormatError(f"{where}: data is not canonical base64")
    return raw


# --- validation --------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _exact_keys(table: Mapping[str, Any], allowed: tuple[str, ...], where: str,
                optional: tuple[str, ...] = ()) -> None:
    for key in table:
        if key not in allowed:
            raise FormatError(f"{where} has an unknown field {key[:40]!r} (the format allows no others)")
    for key in allowed:
        if key not in table and key not in optional:
            raise FormatError(f"{where} has no '{key}'")


def _public_key(value: Any, where: str) -> PublicIdentity:
    if isinstance(value, PublicIdentity):
        return value
    if not isinstance(value, str):
        raise FormatError(f"{where} must be a public key line")
    try:
        return PublicIdentity.parse(value)
    except KoryoPbmError as exc:
        raise FormatError(f"{where}: {exc}") from None


def _validate(doc: GameDoc) -> None:
    """Check every field of ``doc``; ``FormatError`` naming the field."""
    if not isinstance(doc.game_id, str) or not ID.fits(doc.game_id):
        raise FormatError("'game_id' must be an id (letters, digits, '_.:+-', at most 64)")
    if not isinstance(doc.game, str) or not ID.fits(doc.game):
        raise FormatError("'game' must be a game name")
    if not _is_int(doc.version) or not 0 <= doc.version < 2**63:
        raise FormatError("'version' must be a non-negative integer")
    if not isinstance(doc.moderator, PublicIdentity):
        raise FormatError("'moderator' must be a public key")
    if not is_sha256(doc.seed_commitment):
        raise FormatError("'seed_commitment' must be 'sha256:' and 64 hex digits")
    if not isinstance(doc.players, dict):
        raise FormatError("'players' must be a table")
    for name, key in doc.players.items():
        try:
            validate_name(name)
        except KoryoPbmError:
            raise FormatError(f"'players' has an invalid player name {name[:40]!r}") from None
        if name == MODERATOR_PART:
            raise FormatError(f"'players': {MODERATOR_PART!r} cannot be a player's name")
        if not isinstance(key, PublicIdentity):
            raise FormatError(f"'players.{name}' must be a public key")
    d = doc.decision
    if d is not None:
        if not isinstance(d, dict):
            raise FormatError("'decision' must be a table")
        _exact_keys(d, DECISION_KEYS, "'decision'", optional=("deadline",))
        if not isinstance(d["id"], str) or not ID.fits(d["id"]):
            raise FormatError("'decision.id' must be a decision id")
        if not isinstance(d["kind"], str) or not d["kind"]:
            raise FormatError("'decision.kind' must be text")
        for field_name in ("waiting_for", "received"):
            listed = d[field_name]
            if not isinstance(listed, list) or not all(isinstance(n, str) and n in doc.players for n in listed):
                raise FormatError(f"'decision.{field_name}' must be a list of players of this game")
            if len(set(listed)) != len(listed):
                raise FormatError(f"'decision.{field_name}' names a player twice")
        if not set(d["received"]) <= set(d["waiting_for"]):
            raise FormatError("'decision.received' names a player the decision does not wait for")
        if "deadline" in d:
            from koryo_pbm.deadlines import DeadlineError, parse_stamp

            try:
                parse_stamp(d["deadline"], what="'decision.deadline'")
            except DeadlineError as exc:
                raise FormatError(str(exc)) from None
    if doc.service is not None:
        from koryo_pbm.deadlines import policy_of

        policy_of(doc.service, list(doc.players))
    if doc.deal not in DEALS:
        raise FormatError(f"'deal' must be one of {', '.join(DEALS)}")
    if (doc.seed is None) != (doc.salt is None):
        raise FormatError("'seed' and 'salt' are published together")
    if doc.seed is not None:
        if not isinstance(doc.seed, str):
            raise FormatError("'seed' must be text")
        if not isinstance(doc.salt, str) or not HEX64.fits(doc.salt):
            raise FormatError("'salt' must be 64 hex digits")
        if d is not None:
            raise FormatError("'seed' is published only once the game is over (no 'decision')")
        if not check_seed(doc.seed_commitment, doc.seed, doc.salt):
            raise TamperedError("the published seed does not match the seed commitment made at the start")
    if doc.contributions is not None:
        if doc.deal != "joined":
            raise FormatError(f"'contributions' belong to a joined game, not to a deal by {doc.deal}")
        if not isinstance(doc.contributions, dict) or list(doc.contributions) != list(doc.players):
            raise FormatError("'contributions' must name every player, in seat order")
        if not all(HEX64.fits(v) for v in doc.contributions.values()):
            raise FormatError("'contributions' must each be 64 hex digits")
    if doc.replay is not None:
        if d is not None:
            raise FormatError("'replay' is published only once the game is over (no 'decision')")
        _check_replay(doc.replay, doc.players, file_format(doc))
    if not isinstance(doc.public, dict):
        raise FormatError("'public' must be a table")
    if not isinstance(doc.log, list):
        raise FormatError("'log' must be a list of tables")
    for i, entry in enumerate(doc.log):
        _check_entry(entry, i)
    if not isinstance(doc.sealed, dict):
        raise FormatError("'sealed' must be a table")
    for name, part in doc.sealed.items():
        where = f"'sealed.{name}'"
        if name == MODERATOR_PART:
            owner = doc.moderator
        elif name in doc.players:
            owner = doc.players[name]
        else:
            raise FormatError(f"{where} is not a player of this game nor the moderator")
        if not isinstance(part, dict):
            raise FormatError(f"{where} must be a table")
        if name == MODERATOR_PART and "digest" in part:  # a player copy (v4): the part's digest alone
            _exact_keys(part, DIGEST_PART_KEYS, where)
            if not is_sha256(part["digest"]):
                raise FormatError(f"{where}: 'digest' must be 'sha256:' and 64 hex digits")
        else:
            _exact_keys(part, PART_KEYS, where)
        if part["recipient"] != owner.fingerprint():
            raise FormatError(f"{where} is sealed to {str(part['recipient'])[:20]!r}, not to the key of {name!r}")
        if "data" in part:
            if not _canonical_b64(part["data"]):
                _b64(part["data"], where)  # the decoding check, which says what is wrong
            if not part["data"]:
                raise FormatError(f"{where}: data is empty")


def file_format(doc: GameDoc) -> str:
    """The format ``doc`` is written in: v4, or v2 for a game finished before v3 (its published
    orders are whole envelopes)."""
    orders = doc.replay.get("orders") if isinstance(doc.replay, dict) else None
    if isinstance(orders, list) and any(isinstance(o, dict) and "envelope" in o for o in orders):
        return FORMAT_V2
    return FORMAT


def _check_replay(replay: Any, players: Mapping[str, Any], version: str = FORMAT) -> None:
    if not isinstance(replay, dict):
        raise FormatError("'replay' must be a table")
    _exact_keys(replay, REPLAY_KEYS, "'replay'", optional=("first", "options", "position"))
    if "first" in replay and replay["first"] not in players:
        raise FormatError("'replay.first' must be a player of this game")
    for key in ("options", "position"):
        if key in replay and not isinstance(replay[key], dict):
            raise FormatError(f"'replay.{key}' must be a table")
    orders = replay["orders"]
    if not isinstance(orders, list):
        raise FormatError("'replay.orders' must be a list of tables")
    for i, item in enumerate(orders):
        where = f"'replay.orders' item {i + 1}"
        if not isinstance(item, dict):
            raise FormatError(f"{where} is not a table")
        if "bot" in item:
            _exact_keys(item, REPLAY_BOT_ORDER_KEYS, where)
        elif version == FORMAT_V2:
            _exact_keys(item, REPLAY_ORDER_KEYS_V2, where, optional=("key",))
        else:
            _exact_keys(item, REPLAY_ORDER_KEYS, where, optional=REPLAY_ORDER_OPTIONAL)
        if not all(isinstance(item[k], str) for k in item):
            raise FormatError(f"{where}: every field must be text")
        if item["player"] not in players:
            raise FormatError(f"{where}: {item['player'][:40]!r} is not a player of this game")


# --- the player copy (v4) ------------------------------------------------------------------------

# The moderator's part, the last table of a v4 file: its lines in a whole file, and in a player copy.
_MODERATOR_TABLE = f"\n[sealed.{MODERATOR_PART}]\n".encode("ascii")
_RECIPIENT_LINE = b'recipient = "'  # then 16 hex digits and '"'


def _moderator_data(body: bytes, start: int) -> tuple[int, bytes] | None:
    """Where the ``data`` line starts and its base64 text, if ``body[start:]`` is exactly
    ``recipient = "[0-9a-f]{16}"\\ndata = (['"])([A-Za-z0-9+/]*={0,2})\\1\\n`` (the expression,
    checked with bytes methods: compiling it would cost every command)."""
    rest = body[start:]
    if (len(rest) < 41 or not rest.startswith(_RECIPIENT_LINE) or rest[29:38] != b'"\ndata = '
            or not _HEX16.fits(rest[13:29].decode("ascii", "replace"))):
        return None
    quote = rest[38:39]
    if quote not in (b"'", b'"') or not rest.endswith(quote + b"\n"):
        return None
    data = rest[39:-2]
    return (start + 31, data) if _is_b64(data.decode("ascii", "replace")) else None


_V4_FIRST_LINE = FIRST_LINE.encode("ascii")


def part_digest(data: str | bytes) -> str:
    """What stands for a sealed part in a player copy: ``sha256:`` and the SHA-256 of its ``data``
    (the base64 text, as the file writes it)."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    return "sha256:" + sha256_hex(raw)


def _digested(body: bytes) -> tuple[bytes, bytes | None]:
    """``(the digested form, the moderator's data)`` of a v4 file's signed body: when its last
    lines are the moderator's part with its ``data``, the same body with that line swapped for
    ``digest = "sha256:..."`` (:func:`part_digest`) and that data; else ``(body, None)``. The data
    is base64 in a literal string (as koryo-pbm writes it) or a basic one (as any TOML writer can).

    The last body's answer is kept: reading a file asks it twice of the same bytes (for its
    signature, then to check the moderator's part), and it scans and hashes that part."""
    # (by equality too: the pin's file identity asks again of a copy of the same bytes)
    if _last_digested and (_last_digested[0] is body or _last_digested[0] == body):
        return _last_digested[1]
    at = body.rfind(_MODERATOR_TABLE)
    found = None if at < 0 else _moderator_data(body, at + len(_MODERATOR_TABLE))
    if found is None:
        result: tuple[bytes, bytes | None] = (body, None)
    else:
        line, data = found
        result = body[:line] + f'digest = "{part_digest(data)}"\n'.encode("ascii"), data
    _last_digested[:] = [body, result]
    return result


_last_digested: list[Any] = []  # [body, _digested(body)]: the last body asked (bytes do not change)


def signed_message(body: bytes) -> bytes:
    """What the moderator's signature of a game file covers, given the file's body (every byte
    before its signature line): from format v4 on, the *digested form* of the body, the
    moderator's part (the last table) with its data replaced by its digest, so that the whole
    file and its player copy (:func:`player_copy`) verify with one signature; before v4, the
    body as it is."""
    return _digested(body)[0] if body.startswith(_V4_FIRST_LINE) else body


def player_copy(data: bytes) -> bytes:
    """The player copy of the game file ``data``: the file with the moderator's part (which no
    player can open, and which holds every counted order until the end: most of a file late in a
    game) replaced by its digest, and the same signature line. What the judge mails players;
    every player command reads it as the file, and only the moderator's commands need the whole
    file. A file of an earlier format, or already a player copy, is returned as it is."""
    if not data.startswith(_V4_FIRST_LINE) or b"\r" in data or not data.endswith(b"\n"):
        return data
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    return _digested(data[:cut])[0] + data[cut:]


def file_identity(data: bytes) -> str:
    """The identity of a game file's version as players pin it: ``sha256:`` and the SHA-256 of its
    player copy, line endings as signed. A whole file and its player copy are the same file; a
    file of an earlier format is the SHA-256 of its bytes, as before v4."""
    return "sha256:" + sha256_hex(player_copy(data.replace(b"\r\n", b"\n")))


def is_player_copy(doc: GameDoc) -> bool:
    """Whether ``doc`` was read from a player copy (its moderator's part is a digest alone)."""
    part = doc.sealed.get(MODERATOR_PART)
    return isinstance(part, dict) and "digest" in part and "data" not in part


def player_copy_refusal(doc: GameDoc) -> str:
    """Why a moderator's command cannot use a player copy, in one line."""
    return (f"this game file is a player copy of game {doc.game_id} (version {doc.version}): it holds the "
            "moderator's part only as its digest; the moderator's commands need the whole file, the one in "
            "the game's folder that the judge or the moderator keeps")


def _check_moderator_part(top: Mapping[str, Any], body: bytes) -> None:
    """The moderator's part of a file agrees with its format: in v4, whole only as the file's last
    table (how the signature covers it) or a digest alone (a player copy); before v4, whole."""
    sealed = top.get("sealed")
    part = sealed.get(MODERATOR_PART) if isinstance(sealed, dict) else None
    if not isinstance(part, dict):
        return  # none, or not a table: the validation says so
    if top.get("format") != FORMAT:
        if "digest" in part:
            raise FormatError(f"format {top.get('format')} has no player copies: the moderator's part must hold "
                              "its data")
        return
    if "data" in part:
        data = _digested(body)[1]
        if data is None or part["data"] != data.decode("ascii"):
            raise FormatError(f"the moderator's part must be the last table of a {FORMAT} file, written as "
                              "recipient and data")


# --- encode / decode ---------------------------------------------------------------------------


def _to_toml(doc: GameDoc) -> dict[str, Any]:
    top: dict[str, Any] = {
        "format": file_format(doc),
        "game_id": doc.game_id,
        "game": doc.game,
        "version": doc.version,
        "moderator": doc.moderator.line(),
        "deal": doc.deal,
        "seed_commitment": doc.seed_commitment,
    }
    if doc.seed is not None:
        top["seed"] = doc.seed
        top["salt"] = doc.salt
    top["players"] = {name: key.line() for name, key in doc.players.items()}
    if doc.contributions is not None:
        top["contributions"] = dict(doc.contributions)
    if doc.decision is not None:
        top["decision"] = {k: doc.decision[k] for k in DECISION_KEYS if k in doc.decision}
    if doc.service is not None:
        top["service"] = _plain(doc.service, "service")
    top["public"] = _plain(doc.public, "public")
    top["log"] = [{k: e[k] for k in LOG_KEYS} for e in doc.log]
    if doc.replay is not None:
        top["replay"] = _plain(doc.replay, "replay")
    # the moderator's part last: a player copy is the file with that part's last line swapped
    # for its digest (see signed_message)
    names = [n for n in doc.sealed if n != MODERATOR_PART] + [n for n in doc.sealed if n == MODERATOR_PART]
    top["sealed"] = {name: {k: doc.sealed[name][k] for k in PART_KEYS} for name in names}
    return top


def encode(doc: GameDoc, moderator: Identity) -> bytes:
    """The signed bytes of ``doc``. Refuses (``NotForYou``) a key other than ``doc.moderator``."""
    if moderator.public != doc.moderator:
        raise NotForYou(
            f"key {moderator.name!r} ({moderator.public.fingerprint()}) is not the moderator of game "
            f"{doc.game_id} (moderator key {doc.moderator.fingerprint()})"
        )
    if is_player_copy(doc):
        raise FormatError(player_copy_refusal(doc))
    _validate(doc)
    verify_log(doc, checked=True)
    top = _to_toml(doc)
    text = _toml_text(doc, top)
    body = text.encode("utf-8")
    first = top["format"]
    assert body.startswith(f'format = "{first}"\n'.encode()) and body.endswith(b"\n")
    signature = sign(moderator, SIGN_CONTEXT, signed_message(body))
    return body + f'signature = "{binascii.b2a_base64(signature, newline=False).decode("ascii")}"\n'.encode("ascii")


def _toml_text(doc: GameDoc, top: dict[str, Any]) -> str:
    """The TOML of ``top`` (:func:`_to_toml` of ``doc``, checked): ``tomli_w``'s, but for the
    sealed parts' base64 and the strings of the log and the replay record, written as TOML literal
    strings ('...', or '''...''' when they hold line breaks) where they can be: the same values,
    but read and written at C speed (tomllib and tomli_w go through a basic string character by
    character in Python, and these strings are most of a game file). Each is swapped for a marker
    that tomli_w writes, then the marker for the literal string.

    The log's entries, which every later version writes again as they are, are each written
    once (:func:`_log_entry_text`, kept by their content) and the file put together from its
    pieces as tomli_w joins them (:func:`_pieces_text`): the same text."""
    import tomli_w

    blobs: list[str] = []
    token = os.urandom(4).hex()

    def mark(value: str) -> str:
        blobs.append(value)
        return f"@{token}-{len(blobs) - 1}@"

    for part in top["sealed"].values():
        part["data"] = mark(part["data"])
    log = top["log"]
    # an array of tables (not an inline array), as tomli_w writes it whenever one of its entries
    # does not fit on one line, as an entry with an event or an accepted envelope never does
    texts: list[str] | None = None
    if log and any(entry["events"] or entry["accepted"] for entry in log):
        entries = [_log_entry_text(entry) for entry in log]
        if all(text is not None for text, _ in entries):
            texts = [text for text, _ in entries if text is not None]
            # the markers the entries' strings take: those after them are numbered as they were
            blobs.extend("" for _, marks in entries for _ in range(marks))
    if texts is None:
        top["log"] = _literals(log, mark)
    if "replay" in top:
        top["replay"] = _literals(top["replay"], mark)
    record = top["public"].get("blind") if doc.deal == "blind" else None
    for deck in record.get("decks", []) if isinstance(record, dict) else []:
        outputs = deck.get("outputs") if isinstance(deck, dict) else None
        if not isinstance(outputs, list):
            continue
        for i, data in enumerate(outputs):
            if isinstance(data, str) and _is_b64(data):  # a blind table's deck: 4.7 kB of base64
                outputs[i] = mark(data)
    try:
        text = None if texts is None else _pieces_text(top, texts, marked=record is not None)
        if text is None:
            text = tomli_w.dumps(top)
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise FormatError(f"game {doc.game_id} cannot be written as TOML: {exc}") from None
    return _unmark(text, token, blobs)


_PIECES: dict[tuple[str, Any], str] = {}  # the TOML of lines and tables written last, by what they hold
_PIECES_KEPT = 4096
_KEPT_TABLES = ("players", "contributions", "decision", "service", "public")  # no marker in them


def _pieces_text(top: Mapping[str, Any], log: list[str], *, marked: bool) -> str | None:
    """What ``tomli_w.dumps(top)`` writes, put together from its pieces as tomli_w joins them:
    the top's plain lines, then each table after a blank line, the log's entries as given
    (``log``: the TOML of each, an array of tables); ``None`` if ``top`` holds anything else (then
    tomli_w writes it whole). The lines and the tables without markers (the public state unless
    ``marked``: a blind table's decks are) are kept by what they hold (a table by the SHA-256 of
    the :func:`repr` of its checked plain values, which tells apart every text, number, truth
    value and time, and the order of keys): a version that holds an order has the players, the
    public state and most lines of the version before."""
    import tomli_w

    lines: list[str] = []
    tables: list[str] = []
    for key, value in top.items():
        if key == "log":
            tables.append("\n".join(log))
            continue
        kind = value.__class__
        if kind is dict:
            if key not in _KEPT_TABLES or (marked and key == "public"):
                tables.append(tomli_w.dumps({key: value}))
                continue
            what: tuple[str, Any] = (key, sha256_hex(repr(value).encode("utf-8", "surrogatepass")))
        elif kind is str or kind is int:
            what = (key, value)
        else:
            return None
        text = _PIECES.get(what)
        if text is None:
            text = keep(_PIECES, what, tomli_w.dumps({key: value}), _PIECES_KEPT)
        (tables if kind is dict else lines).append(text)
    if not lines:
        return None
    return "".join(lines) + "".join("\n" + table for table in tables)


def _unmark(text: str, token: str, blobs: list[str]) -> str:
    """``text`` with each marker ``"@TOKEN-N@"`` (a basic string tomli_w wrote) swapped for the
    literal string of ``blobs[N]``: what ``re.sub(f'"@{token}-([0-9]+)@"', ...)`` does, without
    compiling a pattern that names a new token for every file."""
    pieces = text.split(f'"@{token}-')
    out = [pieces[0]]
    for piece in pieces[1:]:
        number, at, rest = piece.partition('@"')
        if at and number.isdigit() and number.isascii():
            value = blobs[int(number)]
            out.append(f"'''{value}'''" if "\n" in value else f"'{value}'")
            out.append(rest)
        else:  # not a marker (no string can hold one, but say so if one did)
            out.append(f'"@{token}-')
            out.append(piece)
    return "".join(out)


_ENTRIES: dict[tuple[Any, ...], tuple[str | None, int]] = {}  # log entries written last, by their content
_ENTRIES_KEPT = 4096


def _log_entry_text(entry: Mapping[str, Any]) -> tuple[str | None, int]:
    """The TOML ``[[log]]`` table of one checked log entry (:func:`_check_entry_fields`: every
    field an integer, a text or a list of texts), as :func:`_toml_text` writes it inside a log
    that is an array of tables, its long strings literal, and how many markers those took
    (``None`` for the text of an entry that tomli_w alone would write inline: one with no event
    and nothing accepted). Kept for the last few thousand entries by every value in them: each
    later version of a game writes the same entries again."""
    import tomli_w

    key = (entry["seq"], entry["version"], entry["decision"], entry["prev"], entry["hash"],
           tuple(entry["events"]), tuple(entry["accepted"]))
    kept = _ENTRIES.get(key)
    if kept is None:
        blobs: list[str] = []
        token = os.urandom(4).hex()

        def mark(value: str) -> str:
            blobs.append(value)
            return f"@{token}-{len(blobs) - 1}@"

        text = tomli_w.dumps({"log": [_literals({k: entry[k] for k in LOG_KEYS}, mark)]})
        kept = (_unmark(text, token, blobs) if text.startswith("[[log]]\n") else None, len(blobs))
        keep(_ENTRIES, key, kept, _ENTRIES_KEPT)
    return kept


# Strings TOML can hold as a literal string: no apostrophe, no control character but tab (one
# line), or but tab and line feed, not first (a multi-line literal string drops a first line break).
# Compiled on first use: only writing a file asks (status and verify read).
@cache
def _literal_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return (re.compile(r"[^'\x00-\x08\x0a-\x1f\x7f]{16,}"),
            re.compile(r"[^'\x00-\x1f\x7f][^'\x00-\x08\x0b-\x1f\x7f]{15,}"))


def _literals(value: Any, mark: Callable[[str], str]) -> Any:
    """``value`` (tables, lists, strings of a game file) with each string of 16 characters or more
    that a TOML literal string can hold swapped for ``mark(string)``; shorter ones are not worth it."""
    if isinstance(value, str):
        one_line, multi_line = _literal_res()
        if one_line.fullmatch(value) or ("\n" in value and multi_line.fullmatch(value)):
            return mark(value)
        return value
    if isinstance(value, dict):
        return {k: _literals(v, mark) for k, v in value.items()}
    if isinstance(value, list):
        return [_literals(v, mark) for v in value]
    return value


MAX_HEADER = 64 * 1024  # the plain lines before the first table: format .. seed


class Header(Frozen):
    """What a game file says of itself before its first table, read without parsing the rest:
    enough to know whose signature to check and which game and version it claims to be."""

    _fields = ("game_id", "game", "version", "moderator")
    game_id: str
    game: str
    version: int
    moderator: PublicIdentity

    def __init__(self, game_id: str, game: str, version: int, moderator: PublicIdentity) -> None:
        object.__setattr__(self, "game_id", game_id)
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "moderator", moderator)


def _split(data: bytes, source: str) -> tuple[bytes, bytes]:
    """``(signed body, signature)`` of a game file's bytes; ``FormatError`` if it has neither."""
    if len(data) > MAX_GAME_FILE:
        raise FormatError(f"{source} is larger than {MAX_GAME_FILE} bytes")
    if not any(data.startswith(f'format = "{f}"\n'.encode("ascii")) for f in READ_FORMATS):
        if data.startswith(b'format = "koryo-pbm-game/'):
            first = data[: data.find(b"\n", 0, 80)].decode("ascii", "replace")
            which = first[len('format = "'):].rstrip('"')
            if which == "koryo-pbm-game/v1":
                raise FormatError(f"{source} has format koryo-pbm-game/v1 (made before the fair deal); this "
                                  f"koryo-pbm reads {READS} only: finish that game with the "
                                  "koryo-pbm that began it")
            raise FormatError(f"{source} has an unsupported format (this koryo-pbm reads {READS}; "
                              "a later format needs a later koryo-pbm)")
        raise FormatError(f"{source} is not a koryo-pbm game file (its first line must be {FIRST_LINE.strip()})")
    if not data.endswith(b"\n"):
        raise FormatError(f"{source} is cut short: it does not end with its signature line")
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    body, last = data[:cut], data[cut:-1]
    text = _signature_text(last.decode("ascii", errors="replace"))
    if text is None:
        raise FormatError(f"{source} has no valid signature line at its end")
    signature = binascii.a2b_base64(text)
    if len(signature) != SIGNATURE_SIZE or binascii.b2a_base64(signature, newline=False).decode("ascii") != text:
        raise FormatError(f"{source} has a damaged signature line")
    return body, signature


def _header_table(data: bytes, source: str) -> dict[str, Any]:
    """The plain ``key = value`` lines at the top of a game file (up to its first table),
    parsed alone: at most ``MAX_HEADER`` bytes, whatever the size of the file."""
    end = data.find(b"\n[", 0, MAX_HEADER)
    if end < 0:
        raise FormatError(f"{source} has no header of at most {MAX_HEADER} bytes before its first table")
    try:
        return tomllib.loads(data[: end + 1].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        raise FormatError(f"{source} has a malformed header (the lines before its first table)") from None


def _header(top: Mapping[str, Any], source: str) -> Header:
    game_id, game, version = top.get("game_id"), top.get("game"), top.get("version")
    if not isinstance(game_id, str) or not ID.fits(game_id):
        raise FormatError(f"{source}: 'game_id' must be an id (letters, digits, '_.:+-', at most 64)")
    if not isinstance(game, str) or not ID.fits(game):
        raise FormatError(f"{source}: 'game' must be a game name")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < 2**63:
        raise FormatError(f"{source}: 'version' must be a non-negative integer")
    moderator = _public_key(top.get("moderator"), f"{source}: 'moderator'")
    return Header(game_id, game, version, moderator)


def _check_signed(body: bytes, signature: bytes, header: Header, source: str,
                  expected_moderator: PublicIdentity | None) -> None:
    if expected_moderator is not None and header.moderator != expected_moderator:
        raise TamperedError(
            f"{source} is signed by a different moderator key ({header.moderator.fingerprint()}, "
            f"expected {expected_moderator.fingerprint()})"
        )
    verify(header.moderator, SIGN_CONTEXT, signed_message(body), signature,
           what=f"the signature of {source} does not verify: it was changed after the moderator signed it")


def decode_header(data: bytes, *, expected_moderator: PublicIdentity | None = None,
                  source: str = "game file") -> Header:
    """The header of the game file ``data``, its signature checked, the rest not parsed.

    Costs one signature check (a hash of the bytes), however large or deeply nested the rest
    is: what ``resolve`` uses to look at sync-conflict copies."""
    data = bytes(data)
    body, signature = _split(data, source)
    header = _header(_header_table(body, source), source)
    _check_signed(body, signature, header, source, expected_moderator)
    return header


def decode(data: bytes, *, expected_moderator: PublicIdentity | None = None, source: str = "game file") -> GameDoc:
    """Check and read the bytes of a game file (see the module docstring for every check).

    The signature is checked before the file is parsed: the moderator's key comes from the
    header alone (``decode_header``), so a forged file costs a hash, not a parse."""
    data = bytes(data)
    if b"\r" in data and len(data) <= MAX_GAME_FILE:  # a signed file never holds a CR: converted line endings?
        return _decode_crlf(data, expected_moderator, source)
    body, signature = _split(data, source)
    header = _header(_header_table(body, source), source)
    _check_signed(body, signature, header, source, expected_moderator)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{source} is not UTF-8 text") from None
    try:
        top = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:
        raise FormatError(f"{source} is not valid TOML: nested too deeply") from None
    if _header(top, source) != header:  # cannot differ (same bytes), but say so if it does
        raise FormatError(f"{source}: its header and its body disagree")
    moderator = header.moderator
    try:
        doc = _from_toml(top, moderator)
        _validate(doc)
        verify_log(doc, checked=True)
        _check_moderator_part(top, body)
    except KoryoPbmError as exc:
        raise type(exc)(f"{source}: {exc}") from None
    except RecursionError:  # only a signed file can get here: the moderator's program is broken
        raise FormatError(f"{source}: a value is nested too deeply") from None
    return doc


def _decode_crlf(data: bytes, expected_moderator: PublicIdentity | None, source: str) -> GameDoc:
    """A game file whose line endings a mail client or an editor turned into CRLF is the
    signed file it was when the signature verifies over its LF form (the writer never puts a CR
    in a game file); otherwise it is named for what it is."""
    plain = data.replace(b"\r\n", b"\n")
    if b"\r" in plain:
        raise FormatError(f"{source} holds a carriage return that is not part of a line ending: "
                          "it is not the file the moderator signed")
    try:
        return decode(plain, expected_moderator=expected_moderator, source=source)
    except KoryoPbmError as exc:
        raise type(exc)(f"{source} has Windows line endings (CRLF), and with plain line endings it is still "
                        f"not a valid game file: {exc}") from None


def _from_toml(top: dict[str, Any], moderator: PublicIdentity) -> GameDoc:
    _exact_keys(top, TOP_KEYS, "the game file", optional=OPTIONAL_KEYS)
    if top["format"] not in READ_FORMATS:
        raise FormatError(f"unsupported format (this koryo-pbm reads {READS})")
    players = top["players"]
    if not isinstance(players, dict):
        raise FormatError("'players' must be a table")
    if not isinstance(top["sealed"], dict) or not all(isinstance(p, dict) for p in top["sealed"].values()):
        raise FormatError("'sealed' must be a table of tables")
    doc = GameDoc(
        game_id=top["game_id"],
        game=top["game"],
        version=top["version"],
        moderator=moderator,
        seed_commitment=top["seed_commitment"],
        players={name: _public_key(line, f"'players.{name}'") for name, line in players.items()},
        decision=top.get("decision"),
        public=top["public"],
        log=top["log"],
        sealed=top["sealed"],
        seed=top.get("seed"),
        service=top.get("service"),
        deal=top["deal"],
        salt=top.get("salt"),
        contributions=top.get("contributions"),
        replay=top.get("replay"),
    )
    signed = [o for o in (doc.replay or {}).get("orders", ()) if isinstance(o, dict) and "bot" not in o]
    if any(("envelope" in o) != (top["format"] == FORMAT_V2) for o in signed):
        raise FormatError(f"the file says format {top['format']} but its published orders are not of that format")
    return doc


_recent: dict[str, tuple[GameDoc, bytes]] = {}  # SHA-256 of a game file's bytes -> (document, bytes)
_RECENT = 4


def _keep(data: bytes, doc: GameDoc, digest: str | None = None) -> None:
    keep(_recent, digest or sha256_hex(data), (doc, data), _RECENT)


_written: list[tuple[GameDoc, bytes]] = []  # the last few documents this process signed and wrote


def signed_bytes(doc: GameDoc) -> bytes | None:
    """The signed bytes this process read ``doc`` from (one of the last few game files read)
    or wrote it as (:func:`write_game`), or ``None``: what a player keeps as a copy of the
    version they saw, and the moderator of the version it wrote."""
    for seen, data in [*reversed(list(_recent.values())), *reversed(_written)]:
        # every field: two files of one version may differ in their log alone (a rewritten history)
        if seen == doc:
            return data
    return None


def _fresh(doc: GameDoc) -> GameDoc:
    # Fresh top-level containers; what is nested inside is shared and must not be changed in
    # place (nothing does: a new version gets new public and decision tables).
    return doc.replace(
        players=dict(doc.players),
        decision=dict(doc.decision) if doc.decision is not None else None,
        service=dict(doc.service) if doc.service is not None else None,
        contributions=dict(doc.contributions) if doc.contributions is not None else None,
        public=dict(doc.public),
        log=list(doc.log),
        sealed=dict(doc.sealed),
    )


def read_game_bytes(path: Path) -> bytes:
    """The bytes of the game file ``path``, never through a symbolic link."""
    from koryo_pbm.store.atomic import read_limited_at

    return read_limited_at(Path(path), MAX_GAME_FILE, "game file")


def read_header(path: Path, *, expected_moderator: PublicIdentity | None = None,
                source: str | None = None) -> Header:
    """The signed header of the game file ``path`` (see :func:`decode_header`)."""
    return decode_header(read_game_bytes(path), expected_moderator=expected_moderator,
                         source=source or f"game file {printable(path)}")


def read_game(path: Path, *, expected_moderator: PublicIdentity | None = None, source: str | None = None) -> GameDoc:
    """Read and check ``path`` (see :func:`decode`; ``expected_moderator`` pins the key).

    The same bytes always decode to the same document, so the last few game files this process
    read are remembered by the SHA-256 of their bytes: a process that reads one file several
    times (``resolve`` checks conflict copies against it first; ``demo``'s players share one
    copy of each version) parses and verifies it once. Each call gets its own top-level tables;
    the values inside them are shared, and read-only.
    """
    return decode_remembered(read_game_bytes(path), expected_moderator=expected_moderator,
                             source=source or f"game file {printable(path)}")


def decode_remembered(data: bytes, *, expected_moderator: PublicIdentity | None = None,
                      source: str = "game file") -> GameDoc:
    """:func:`decode`, remembered as :func:`read_game` remembers: the same bytes decoded again
    (the judge reads a version it has just resolved twice) are parsed once."""
    digest = sha256_hex(data)
    kept = _recent.get(digest)
    if kept is None:
        doc = decode(data, expected_moderator=expected_moderator, source=source)
        _keep(data, doc, digest)
    else:
        doc = kept[0]
        if expected_moderator is not None and doc.moderator != expected_moderator:
            raise TamperedError(
                f"{source} is signed by a different moderator key ({doc.moderator.fingerprint()}, "
                f"expected {expected_moderator.fingerprint()})"
            )
    return _fresh(doc)


def write_game(path: Path, doc: GameDoc, moderator: Identity) -> None:
    """Sign and write ``doc`` to ``path`` atomically."""
    from koryo_pbm.store.atomic import write_atomic

    data = encode(doc, moderator)
    write_atomic(Path(path), data)
    _written.append((_fresh(doc), data))  # a copy: a document changed after it was written is not this file
    del _written[:-_RECENT]
