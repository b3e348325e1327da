"""How a version's sealed parts are written (issue 19, the judge's CPU): the moderator's part's
compact JSON is made once, value by value, for its padded size (orders held left out) and for
what it seals; a part's padded size is kept by its JSON. The same texts and sizes as before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.errors import FormatError
from koryo_pbm.match import creation
from koryo_pbm.store import gamelog, gameparts

_TEXT = st.text(st.sampled_from(["a", "é", "\"", "\\", "\n", "\x00", "\ud800", "€", " "]), max_size=20)
_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**62, 2**62), st.floats(), _TEXT),
                       lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                               st.dictionaries(st.one_of(_TEXT, st.integers(0, 3)), inner, max_size=4)),
                       max_leaves=20)


@settings(max_examples=300)
@given(st.dictionaries(st.one_of(_TEXT, st.integers(0, 3), st.none()), _VALUES, max_size=6))
def test_the_json_made_value_by_value_is_the_json_of_the_whole_table(table):
    try:
        whole = gameparts.compact_json(table)
    except (TypeError, ValueError):
        whole = None
    pieces = creation._json_pieces(table)
    if pieces is None:  # a key that is not text, or a value that is not JSON: made whole, as before
        assert whole is None or not all(isinstance(k, str) for k in table)
    else:
        assert creation._joined(pieces) == whole
        assert creation._joined({**pieces, "orders": "{}"}) == gameparts.compact_json({**table, "orders": {}})


@settings(max_examples=200)
@given(st.dictionaries(_TEXT, _VALUES, max_size=5))
def test_a_kept_padded_size_is_the_padded_size(table):
    def outcome(f):
        try:
            return "ok", f()
        except (FormatError, ValueError) as exc:  # (a key with a lone surrogate: ValueError, as before)
            return type(exc).__name__, str(exc)
    gameparts._SIZES.clear()
    fresh = outcome(lambda: gameparts.padded_size(table))
    assert outcome(lambda: gameparts.kept_padded_size(table)) == fresh
    assert outcome(lambda: gameparts.kept_padded_size(table)) == fresh  # kept, or refused again


def _facts(mv):
    """What a resolve reads of a moderator's view: the state (as stored), the secrets, the
    orders held, the addresses, the former keys, the game's kind."""
    return (mv.game.dump_state(mv.state), mv.secrets.seed, mv.secrets.salt, mv.secrets.setup, mv.secrets.played,
            mv.orders, list(mv.emails.items()), {n: [k.line() for k in ks] for n, ks in mv.former.items()},
            type(mv.game), mv.doc.version)


def test_the_judge_resolves_the_version_it_wrote_from_exactly_what_its_file_opens_to():
    """A judge resolves the version it wrote last from the state and secrets it sealed into it,
    without opening its moderator's part (``reopen_moderator``): the same as the file opens to,
    version after version (orders held and decisions completed), taken once, and never for a
    part this process did not seal last."""
    import random
    from datetime import UTC, datetime

    from koryo_pbm import match
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game

    game = find_game("koryo")
    ids = {p: Identity.generate(p) for p in ("p1", "p2", "p3")}
    mod = Identity.generate("mod")
    doc, _ = match.create(game, mod, {p: i.public for p, i in ids.items()}, seed="kept-1",
                          emails={"p3": "p3@example.org", "p1": "p1@example.org"})
    rng = random.Random(7)

    def copy(d):
        return d.replace(players=dict(d.players), log=list(d.log), sealed=dict(d.sealed))

    held = completed = 0
    for step in range(14):
        opened = match.open_moderator(copy(doc), mod)
        kept = creation.reopen_moderator(copy(doc), mod)
        assert _facts(kept) == _facts(opened)
        assert list(kept.emails) == ["p1", "p3"]  # in seat order, as the part opens
        again = creation.reopen_moderator(copy(doc), mod)  # taken once: opened from the file now
        assert _facts(again) == _facts(opened) and again.state is not kept.state
        decision = game.pending(opened.state)
        player = next(p for p in decision.players if p not in opened.orders)
        order = game.random_order(opened.state, player, rng)
        env = make_envelope(ids[player], mod.public, game_id=doc.game_id, decision=decision.id,
                            answers=gamelog.head(doc), player=player,
                            orders_text=match.canonical_orders(doc.game_id, decision.id, order),
                            submitted=f"2026-11-26T06:{step:02d}:00Z")
        before = doc
        result = match.resolve(kept, [match.Candidate(source="test", envelope=env)],
                               now=datetime(2026, 11, 26, 6, 0, tzinfo=UTC))
        status = result.candidates[0].status
        assert status in ("held", "accepted") and result.written
        held += status == "held"
        completed += status == "accepted"
        doc = result.doc
        # the version before is no longer the part sealed last: opened from its file, not taken
        assert creation._FILLED.take(copy(before), mod) is None
    assert held and completed
