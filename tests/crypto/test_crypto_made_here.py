"""Envelopes and parts this process made are opened from memory, with the same outcome."""

from __future__ import annotations

import pytest

from koryo_pbm.crypto import envelope as env_mod
from koryo_pbm.crypto.envelope import Envelope, make_envelope
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import NotForYou, TamperedError
from koryo_pbm.store.gamefile import GameDoc, open_part, seal_part, seed_commitment

K = {n: Identity.generate(n) for n in ("mod", "other_mod", "alice", "eve")}


def envelope(signer="alice", player="alice", moderator="mod"):
    return make_envelope(K[signer], K[moderator].public, game_id="koryo-1", decision="r1", player=player,
                         orders_text="game = 'koryo-1'\ndecision = 'r1'\n✓ = 1\n", submitted="2026-01-01T00:00:00Z")


def test_own_envelope_opens_and_checks_keys():
    e = envelope()
    assert e.canonical_bytes() in env_mod._made_here
    assert e.open(K["mod"], K["alice"].public).endswith("✓ = 1\n")
    with pytest.raises(TamperedError):
        e.open(K["mod"], K["eve"].public)  # another player's key
    with pytest.raises(NotForYou):
        e.open(K["other_mod"], K["alice"].public)  # sealed to another moderator
    forged = envelope(signer="eve", player="alice")
    with pytest.raises(TamperedError):
        forged.open(K["mod"], K["alice"].public)
    changed = Envelope(e.header, e.ciphertext[:-1] + bytes([e.ciphertext[-1] ^ 1]), e.signature)
    with pytest.raises(TamperedError):
        changed.open(K["mod"], K["alice"].public)


def test_own_parts_open_only_for_their_recipient():
    doc = GameDoc(game_id="g-1", game="koryo", version=2, moderator=K["mod"].public,
                  seed_commitment=seed_commitment("s"), players={"alice": K["alice"].public})
    doc.sealed["alice"] = seal_part(doc, "alice", K["alice"].public, {"hand": [1, 2]})
    assert open_part(doc, "alice", K["alice"]) == {"hand": [1, 2]}
    with pytest.raises(NotForYou):
        open_part(doc, "alice", K["eve"])
    moved = GameDoc(**{**doc.__dict__, "version": 3})
    with pytest.raises(TamperedError):
        open_part(moved, "alice", K["alice"])  # the info binds the version
    data = doc.sealed["alice"]["data"]
    flipped = data[:10] + ("A" if data[10] != "A" else "B") + data[11:]
    doc.sealed["alice"] = {"recipient": doc.sealed["alice"]["recipient"], "data": flipped}
    with pytest.raises(TamperedError):
        open_part(doc, "alice", K["alice"])
