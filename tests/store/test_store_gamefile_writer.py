"""The game file's own TOML writer: the same bytes as tomli_w, read back identically."""

from __future__ import annotations

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.crypto.keys import Identity
from koryo_pbm.store import gamefile
from koryo_pbm.store.gamefile import GameDoc, append_log, decode, encode, seal_part, seed_commitment

KEYS = {n: Identity.generate(n) for n in ("mod", "a.b", "c-d", "9.z.e")}

names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
public_values = st.recursive(
    names | st.integers(-(2**63), 2**63 - 1) | st.booleans(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=15,
)


def make_doc(public, events, decision=True, log=True, seed=None) -> GameDoc:
    doc = GameDoc(
        game_id="koryo-0a1b2c3d4e",
        game="koryo",
        version=7,
        moderator=KEYS["mod"].public,
        seed_commitment=seed_commitment(seed or "s"),
        players={n: KEYS[n].public for n in ("c-d", "a.b", "9.z.e")},
        decision={"id": "r2.orders", "kind": 'k "ind"\n', "waiting_for": ["a.b", "c-d"], "received": ["a.b"]}
        if decision else None,
        public=public,
        seed=None if decision else seed,
    )
    if log:
        append_log(doc, "r1-orders", events, ["a" * 64])
        append_log(doc, "r1.bonus", [], [])
        append_log(doc, "r2", events[::-1], ["b" * 64, "c" * 64])
    for name, key in doc.players.items():
        doc.sealed[name] = seal_part(doc, name, key, {"hand": [1, 5], "name": name})
    doc.sealed["moderator"] = seal_part(doc, "moderator", doc.moderator, {"seed": "s"})
    return doc


def check(doc: GameDoc) -> None:
    data = encode(doc, KEYS["mod"])
    body = data[: data.rstrip(b"\n").rfind(b"\n") + 1]
    assert body == tomli_w.dumps(gamefile._to_toml(doc)).encode("utf-8")
    back = decode(data)
    assert back.players == doc.players and back.log == doc.log and back.public == doc.public
    assert back.sealed == doc.sealed and back.decision == doc.decision and back.seed == doc.seed


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, public_values, max_size=5), st.lists(names, max_size=4))
def test_game_file_bytes_as_tomli_w_writes_them(public, events):
    check(make_doc(public, events))


def test_shapes():
    check(make_doc({}, ["x"], log=False))
    check(make_doc({"t": {"u": {}}, "aot": [{"a": 1}, {"b": [1, 2]}]}, ["a\tb", "é"], decision=False, seed="s"))
    check(make_doc({"long": [{"k": "v" * 120}]}, ['"quoted" \\ back']))
