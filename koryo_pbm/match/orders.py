"""Orders files as players write them and as ``submit`` seals them: parsing, the canonical
text, and reading orders and position files with a size limit."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from koryo_pbm.errors import FormatError, OrderError

ORDERS_LIMIT = 64 * 1024  # bytes of an orders file
POSITION_LIMIT = 256 * 1024  # bytes of a position file


def parse_orders(text: str, *, source: str = "orders") -> tuple[str, str, dict[str, Any]]:
    """``(game_id, decision_id, body)`` from the text of an orders file."""
    if len(text.encode("utf-8", "surrogatepass")) > ORDERS_LIMIT:
        raise FormatError(f"{source} is larger than {ORDERS_LIMIT} bytes")
    doc = loads_toml(text, source)
    game_id, decision = doc.pop("game", None), doc.pop("decision", None)
    if not isinstance(game_id, str) or not game_id:
        raise OrderError(f"{source} has no 'game' (the game id, as `koryo-pbm status` shows it)")
    if not isinstance(decision, str) or not decision:
        raise OrderError(f"{source} has no 'decision' (the pending decision, as `koryo-pbm status` shows it)")
    return game_id, decision, doc


def _inline(value: Any) -> str:
    """``value`` as an inline TOML value (lists and tables on one line)."""
    kind = type(value)
    if kind is str and len(value) <= 64:  # the common cases first, by their exact type (no ABC's check)
        return _text(value)
    if kind is dict:
        return "{" + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + "}"
    if kind is list:
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if type(value) is str and len(value) <= 64:  # the same few words in every order: written once
        return _text(value)
    if type(value) is int and -(1 << 63) <= value < 1 << 63:
        return _integer(value)
    return _dump_scalar(value)


def _dump_scalar(value: Any) -> str:
    import tomli_w

    return tomli_w.dumps({"v": value}).removeprefix("v = ").removesuffix("\n")


# Text of these characters (printable ASCII but the quote and the backslash) is written by
# tomli_w as itself in double quotes and read back by tomllib as written; keys of these
# (TOML's bare keys) are written as they are. Card ids, seats, decision and game ids are: they
# need neither writer nor reader (each costs a call of both the first time it is seen).
_PLAIN_TEXT = frozenset(chr(c) for c in range(0x20, 0x7F)) - frozenset('"\\')
_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@lru_cache(maxsize=4096)
def _text(value: str) -> str:
    if _PLAIN_TEXT.issuperset(value):
        return f'"{value}"'
    return _dump_scalar(value)


@lru_cache(maxsize=1024)
def _integer(value: int) -> str:  # apart from _text: the cache would take 1 for True
    return _dump_scalar(value)


def _key(key: str) -> str:
    return _short_key(key) if type(key) is str and len(key) <= 64 else _dump_key(key)


def _dump_key(key: str) -> str:
    import tomli_w

    return tomli_w.dumps({key: 0}).removesuffix(" = 0\n")


@lru_cache(maxsize=1024)
def _short_key(key: str) -> str:
    if key and _BARE_KEY.issuperset(key):
        return key
    return _dump_key(key)


def _plain(value: Any, depth: int) -> bool:
    """Whether ``value`` is one :func:`_inline` writes so that ``tomllib`` reads back the very
    same value: a string or key whose written form was read back once (:func:`_text_ok`), a
    64-bit integer, a boolean, a list or ``dict`` of such (not a tuple: it reads back as a
    list), at most 32 deep."""
    kind = type(value)
    if kind is str:
        return len(value) <= 64 and _text_ok(value)
    if kind is int:
        return -(1 << 63) <= value < 1 << 63
    if kind is bool:
        return True
    if depth >= 32:
        return False
    if kind is list:
        return all(_plain(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and len(k) <= 64 and _key_ok(k) and _plain(v, depth + 1) for k, v in value.items())
    return False


@lru_cache(maxsize=4096)
def _text_ok(value: str) -> bool:
    if _PLAIN_TEXT.issuperset(value):
        return True
    try:
        return tomllib.loads(f"v = {_text(value)}") == {"v": value}
    except (TypeError, ValueError, tomllib.TOMLDecodeError):
        return False


@lru_cache(maxsize=1024)
def _key_ok(key: str) -> bool:
    if key and _BARE_KEY.issuperset(key):
        return True
    try:
        return tomllib.loads(f"{_short_key(key)} = 0") == {key: 0}
    except (TypeError, ValueError, tomllib.TOMLDecodeError):
        return False


def _written(value: Any, depth: int) -> str | None:
    """:func:`_inline` of ``value`` if it is :func:`_plain` at ``depth``, else ``None``: both in
    one pass (the menus write a canonical text for each of thousands of orders)."""
    kind = type(value)
    if kind is str:
        return _text(value) if len(value) <= 64 and _text_ok(value) else None
    if kind is int:
        return _integer(value) if -(1 << 63) <= value < 1 << 63 else None
    if kind is bool:
        return _dump_scalar(value)
    if depth >= 32:
        return None
    parts = []
    if kind is list:
        for v in value:
            written = _written(v, depth + 1)
            if written is None:
                return None
            parts.append(written)
        return "[" + ", ".join(parts) + "]"
    if kind is dict:
        for k, v in value.items():
            if not (type(k) is str and len(k) <= 64 and _key_ok(k)):
                return None
            written = _written(v, depth + 1)
            if written is None:
                return None
            parts.append(f"{_short_key(k)} = {written}")
        return "{" + ", ".join(parts) + "}"
    return None


def canonical_orders(game_id: str, decision: str, body: Mapping[str, Any]) -> str:
    """The orders as ``submit`` seals them: ``game``, ``decision`` and the order, one line per
    key, lists and tables inline, no comments, no spacing of the player's: every legal order of
    a decision fits in the envelope's first padding block, so all seal to one size."""
    table = {"game": game_id, "decision": decision, **body}
    lines = []
    for k, v in table.items():
        written = _written(v, 1) if type(k) is str and len(k) <= 64 and _key_ok(k) else None
        if written is None:
            break
        lines.append(f"{_short_key(k)} = {written}\n")
    else:  # every value plain (the games' orders): written and checked in one pass
        return "".join(lines)
    import tomli_w

    try:
        text = "".join(f"{_key(k)} = {_inline(v)}\n" for k, v in table.items())
        # plain values (checked strings and keys, integers, booleans, lists and dicts of them)
        # read back as written by construction: the check by reading it back is for the rest
        if _plain(table, 0) or tomllib.loads(text) == table:
            return text
    except (TypeError, ValueError, tomllib.TOMLDecodeError, RecursionError):
        pass
    try:  # what an inline table cannot say (none of the games' orders): the plain writer
        return tomli_w.dumps(table)
    except (TypeError, ValueError, RecursionError) as exc:
        raise FormatError(f"the orders cannot be written: {exc}") from None


def loads_toml(text: str, source: str) -> dict[str, Any]:
    """A TOML document a user wrote; ``FormatError`` naming ``source`` if it is not one."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:
        raise FormatError(f"{source} is nested too deeply") from None


def _read_text(path: Path, limit: int, what: str) -> str:
    """A user's text file (a pipe works too), never reading more than ``limit`` bytes."""
    from koryo_pbm.store.atomic import read_limited

    data = read_limited(path, limit, what, regular_only=False)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{what} {path} is not UTF-8 text") from None


def read_orders_file(path: Path) -> str:
    """The text of an orders file."""
    return _read_text(path, ORDERS_LIMIT, "orders file")


def read_position(path: Path) -> dict[str, Any]:
    """A position file, parsed (the game checks what it says)."""
    return loads_toml(_read_text(path, POSITION_LIMIT, "position file"), f"position file {path}")
