"""The fast TOML writer gives exactly tomli_w's text."""

from __future__ import annotations

import tomllib
from datetime import date, datetime, time, timezone

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.store import tomlw

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", "a.b", "a b", 'q"uote', "back\\slash", "tab\there", "new\nline", "\x00\x7f\x1b\b\f\r", "é ü ✓", "bare-key_9"]
)
scalars = (
    texts
    | st.integers(-(2**63), 2**63 - 1)
    | st.booleans()
    | st.floats(allow_nan=False)
    | st.dates()
    | st.datetimes()
    | st.times()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=25,
)
tables = st.dictionaries(texts, values, max_size=6)


@settings(max_examples=400, deadline=None)
@given(tables)
def test_same_text_as_tomli_w(doc):
    assert tomlw.dumps(doc) == tomli_w.dumps(doc)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(texts, values, min_size=1, max_size=3), min_size=1, max_size=3), texts)
def test_arrays_of_tables(rows, name):
    doc = {"x": 1, name: rows, "t": {"aot": rows, "s": name}}
    assert tomlw.dumps(doc) == tomli_w.dumps(doc)


def test_strings_are_escaped_as_tomli_w_does():
    for i in range(0x110000):
        if 0xD800 <= i <= 0xDFFF:
            continue
        s = "a" + chr(i) + "b"
        if i < 0x300 or i % 997 == 0:
            assert tomlw.string(s) == tomli_w.dumps({"k": s})[4:-1]
            assert tomllib.loads(f"k = {tomlw.string(s)}")["k"] == s


def test_errors_match():
    with pytest.raises(TypeError):
        tomlw.dumps({"k": object()})
    with pytest.raises(TypeError):
        tomlw.dumps({1: "v"})
    with pytest.raises(ValueError):
        tomlw.dumps({"k": time(1, 2, tzinfo=timezone.utc)})
    doc = {"d": date(2020, 1, 2), "dt": datetime(2020, 1, 2, 3, 4, 5), "t": (1, 2), "e": {}, "l": []}
    assert tomlw.dumps(doc) == tomli_w.dumps(doc)
