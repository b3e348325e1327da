"""The menu an older koryo-pbm's resolve sealed into a waiting player's part, read back.

Before the player page ran the rules itself (:mod:`koryo_pbm.pagecore`), resolve wrote each
waiting player's menu of legal choices into their sealed part, under the key ``menu``: compact
JSON, compressed with raw DEFLATE (RFC 1951), in base64. This koryo-pbm writes none (every part
is what the game gives, without a menu room); the page offers the menu of a file of an older
koryo-pbm only where its own rules give none, and ``inspect`` shows it. Layout::

    {"decision": "<decision id>",
     "root": {"n": 0} | {"t": 0},
     "nodes": [{"q": "<question>", "d": <suggested option>, "o": [{"l": "<label>", "n": <node>} | {"l", "t": <order>}]}],
     "orders": ["<canonical orders text>", ...],
     "fresh": "contribution",   # the join (pages before the page wrote the join itself): 64 zeros to replace
     "complete": true | false, "view": "<the table as text>", "picture": {"title", "scene"}}
"""

from __future__ import annotations

import binascii
import zlib
from typing import Any

MENU_KEY = "menu"  # the key of the menu in a waiting player's part (older files)
MENU_LIMIT = 4 * 1024 * 1024  # bytes: the most a menu inflates to (the page refuses more too)


def decode_menu(text: Any) -> dict[str, Any] | None:
    """The menu an older resolve sealed (or a menu of an even older file, a table as it is),
    ``None`` when it is none of these; never inflates beyond :data:`MENU_LIMIT`."""
    import json

    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        return None
    try:
        blob = binascii.a2b_base64(text.encode("ascii"), strict_mode=True)
        inflate = zlib.decompressobj(-15)
        raw = inflate.decompress(blob, MENU_LIMIT)
        if inflate.unconsumed_tail or not inflate.eof:
            return None
        menu = json.loads(raw.decode("utf-8"))
    except (UnicodeError, binascii.Error, zlib.error, ValueError, RecursionError):
        return None
    return menu if isinstance(menu, dict) else None
