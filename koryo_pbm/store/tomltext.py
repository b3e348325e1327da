"""The TOML text of a game file, written fast: ``tomli_w``'s text, but with the long strings (the
sealed parts' base64, the log's and the replay record's texts, a blind table's decks) written as
TOML literal strings, and the pieces that every later version writes again unchanged (the log's
entries, the players, the public state) kept by what they hold. The same values as ``tomli_w``
writes; :mod:`koryo_pbm.store.gamefile` signs the text."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from koryo_pbm.crypto.keys import sha256_hex
from koryo_pbm.errors import FormatError
from koryo_pbm.store.gamedoc import (
    LOG_KEYS,
    GameDoc,
    _is_b64,
)
from koryo_pbm.values import keep


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


