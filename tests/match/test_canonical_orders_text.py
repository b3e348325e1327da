"""The canonical orders text writes plain text and bare keys without tomli_w and checks them
without tomllib (issue 19: each cost a call of both the first time a word was seen in a
resolve): written exactly as tomli_w writes them, read back by tomllib as they were."""

from __future__ import annotations

import tomllib

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.match import orders

# every printable ASCII character, the quote, the backslash, a tab, a control character, a
# non-ASCII letter: the plain ones and each kind the fast paths must leave to tomli_w
ALPHABET = st.sampled_from([chr(c) for c in range(0x20, 0x7F)] + ["\t", "\n", "\x7f", "\x01", "é", "€"])


@settings(max_examples=400, deadline=None)
@given(st.text(ALPHABET, max_size=40))
def test_text_and_keys_are_written_as_tomli_w_writes_them(text):
    orders._text.cache_clear()
    orders._short_key.cache_clear()
    orders._text_ok.cache_clear()
    orders._key_ok.cache_clear()
    assert orders._text(text) == tomli_w.dumps({"v": text}).removeprefix("v = ").removesuffix("\n")
    assert orders._short_key(text) == tomli_w.dumps({text: 0}).removesuffix(" = 0\n")
    try:
        read = tomllib.loads(f"v = {orders._text(text)}") == {"v": text}
    except tomllib.TOMLDecodeError:
        read = False
    assert orders._text_ok(text) is read
    try:
        key_read = tomllib.loads(f"{orders._short_key(text)} = 0") == {text: 0}
    except tomllib.TOMLDecodeError:
        key_read = False
    assert orders._key_ok(text) is key_read


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(ALPHABET, min_size=1, max_size=12),
                       st.one_of(st.text(ALPHABET, max_size=20), st.integers(-10**6, 10**6), st.booleans(),
                                 st.lists(st.text(ALPHABET, max_size=8), max_size=4)), max_size=4))
def test_canonical_orders_read_back_as_the_orders(body):
    body = {k: v for k, v in body.items() if k not in ("game", "decision")}
    text = orders.canonical_orders("koryo-0123456789", "r1-orders", body)
    assert tomllib.loads(text) == {"game": "koryo-0123456789", "decision": "r1-orders", **body}
