"""Text another party controls, made safe to print on a terminal.

File names in a shared folder, names and reasons inside envelopes and mail reach other users'
terminals. A control character there can move the cursor, retitle the window, write a fake
error line, hide text (OSC, CSI sequences) or reverse what follows (bidi overrides). Everything
such a party may have chosen is printed through :func:`printable`, which writes each of those
characters as a visible escape (``\\x1b``, ``\\u202e``) and leaves every other character alone.

Escaped: C0 controls (tab and newline included: a message is one line), DEL, C1 controls, the
bidi embeddings, overrides, isolates and marks, the line and paragraph separators, and lone
surrogates (a file name that is not valid UTF-8).
"""

from __future__ import annotations

import re
from functools import cache

_UNSAFE_CHARS = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
# For JSON, which already escapes C0 and backslash: what is left that a terminal obeys.
_UNSAFE_JSON_CHARS = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"


@cache
def _pattern(chars: str) -> re.Pattern[str]:
    # compiled on first use: most text is printable (str.isprintable() is true for none of these
    # characters), and compiling these classes costs every command a few milliseconds
    return re.compile(f"[{chars}]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: object) -> str:
    """``str(text)`` with every control, bidi and separator character escaped visibly."""
    s = str(text)
    if s.isprintable():  # none of them is printable (Cc, Cf, Zl, Zp, Cs): nothing to escape
        return s
    return _pattern(_UNSAFE_CHARS).sub(_escape, s)


def json_safe(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with C1, DEL and bidi characters
    (and lone surrogates) written as ``\\uXXXX``: the same JSON value, nothing a terminal would act on."""
    if encoded.isprintable():
        return encoded
    return _pattern(_UNSAFE_JSON_CHARS).sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
