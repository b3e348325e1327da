"""``printable`` and ``json_safe`` skip their pattern for printable text (issue 19): the same
answers as the pattern applied to everything."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from koryo_pbm.printable import json_safe, printable

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
UNSAFE_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
TEXT = st.text(alphabet=st.one_of(st.characters(codec=None), st.sampled_from("\x1b\u202e\u2066\ud800\t\n\x85")))


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


@given(TEXT)
def test_printable_escapes_exactly_the_unsafe_characters(text):
    assert printable(text) == UNSAFE.sub(_escape, text)


@given(TEXT)
def test_json_safe_escapes_exactly_the_unsafe_characters(text):
    assert json_safe(text) == UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def test_what_a_terminal_would_obey_is_shown():
    assert printable("alice\x1b[2J\u202eevil") == "alice\\x1b[2J\\u202eevil"
    assert printable("héllo wörld") == "héllo wörld"
