"""What the moderator's signature of a game file covers, and the player copy (format v4, issue 18).

The moderator's part (the whole state, and every counted order kept for the end-of-game replay) is
most of a file late in a game, and no player can open it. The signature covers the *digested form*
of the file: the same bytes, but for the moderator's part (the last table) whose ``data = '...'``
line is ``digest = "sha256:<hex>"``, the SHA-256 of that base64 text (:func:`part_digest`). So the
whole file and its *player copy*, the digested form with the signature line (:func:`player_copy`),
verify with the same signature, and are the same version to a player (:func:`file_identity`). The
judge mails players the player copy; the moderator's commands refuse it in one line
(:func:`player_copy_refusal`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from koryo_pbm.crypto.keys import sha256_hex
from koryo_pbm.errors import FormatError
from koryo_pbm.store.gamedoc import (
    _HEX16,
    FIRST_LINE,
    FORMAT,
    MODERATOR_PART,
    GameDoc,
    _is_b64,
)

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


