"""The game file's log: hash-chained entries, one for each resolved decision (``seq``, ``version``,
``decision``, ``prev``, ``hash``, ``events``, ``accepted``), and the *head* of a game's history
that players pin and envelopes name. Each entry's ``hash`` is the SHA-256 of its other fields as
canonical JSON (sorted keys, compact); ``prev`` is the hash of the entry before (64 zeros for the
first)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from koryo_pbm.crypto.keys import sha256_hex
from koryo_pbm.errors import FormatError, TamperedError
from koryo_pbm.store.gamedoc import (
    LOG_KEYS,
    ZERO_HASH,
    GameDoc,
    _exact_keys,
    _is_int,
    _json_default,
    _plain,
)
from koryo_pbm.values import HEX64, ID, is_sha256, keep

# The JSON writer of hashes, made once: ``json.dumps`` with any argument builds a new encoder on every
# call (several microseconds; a resolve asks a few hundred times). Its ``encode`` is exactly what
# ``json.dumps`` with the same arguments returns.
_HASHED_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                                default=_json_default)


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


