"""How a version's sealed parts are written (issue 19, the judge's CPU): the moderator's part's
compact JSON is made once, value by value, for its padded size (orders held left out) and for
what it seals; a part's padded size is kept by its JSON. The same texts and sizes as before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.match import creation
from koryo_pbm.store import gamefile

_TEXT = st.text(st.sampled_from(["a", "é", "\"", "\\", "\n", "\x00", "\ud800", "€", " "]), max_size=20)
_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**62, 2**62), st.floats(), _TEXT),
                       lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                               st.dictionaries(st.one_of(_TEXT, st.integers(0, 3)), inner, max_size=4)),
                       max_leaves=20)


@settings(max_examples=300)
@given(st.dictionaries(st.one_of(_TEXT, st.integers(0, 3), st.none()), _VALUES, max_size=6))
def test_the_json_made_value_by_value_is_the_json_of_the_whole_table(table):
    try:
        whole = gamefile.compact_json(table)
    except (TypeError, ValueError):
        whole = None
    pieces = creation._json_pieces(table)
    if pieces is None:  # a key that is not text, or a value that is not JSON: made whole, as before
        assert whole is None or not all(isinstance(k, str) for k in table)
    else:
        assert creation._joined(pieces) == whole
        assert creation._joined({**pieces, "orders": "{}"}) == gamefile.compact_json({**table, "orders": {}})


@settings(max_examples=200)
@given(st.dictionaries(_TEXT, _VALUES, max_size=5))
def test_a_kept_padded_size_is_the_padded_size(table):
    def outcome(f):
        try:
            return "ok", f()
        except (gamefile.FormatError, ValueError) as exc:  # (a key with a lone surrogate: ValueError, as before)
            return type(exc).__name__, str(exc)
    gamefile._SIZES.clear()
    fresh = outcome(lambda: gamefile.padded_size(table))
    assert outcome(lambda: gamefile.kept_padded_size(table)) == fresh
    assert outcome(lambda: gamefile.kept_padded_size(table)) == fresh  # kept, or refused again
