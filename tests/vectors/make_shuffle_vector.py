"""Write ``shuffle-proof-v1.toml``: a test vector of the proof of a shuffle (koryo_pbm.crypto.shuffle).

One shuffle of 4 cards, every input fixed: the dealers' key shares, the cards, the dealer's
shuffle seed, and the prover's random draws (here from SHAKE-256 of a fixed seed, 64 bytes a
draw, reduced mod ℓ: only for the vector; a real proof draws from the OS). It records the
generators, the u_i, the challenge and the proof, so that another implementation (the player
page, a stand-alone verifier) can check itself against it value by value.
``tests/crypto/test_shuffle_proof.py`` checks the vector against the Python code of today: a
change of format, hash or tag fails a test (then run ``python tests/vectors/make_shuffle_vector.py``
and commit what it writes, with a new version if proofs already published change meaning).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "shuffle-proof-v1.toml"

GAME, DECK, DEALER = "vector-game", "round-1", "carl"
CARDS = ["merchant", "spy", "merchant", "omniscient"]
DRAW_SEED = b"koryo-pbm shuffle proof v1 test vector draws"


class Draws:
    """The prover's draws from SHAKE-256(``seed``), 64 bytes each, reduced mod ℓ."""

    def __init__(self, seed: bytes):
        self.seed = seed
        self.count = 0

    def __call__(self) -> bytes:
        from nacl import bindings as na

        self.count += 1
        stream = hashlib.shake_256(self.seed).digest(64 * self.count)
        return na.crypto_core_ed25519_scalar_reduce(stream[-64:])


def fixed_ops(seed: bytes = DRAW_SEED):
    from koryo_pbm.crypto import shuffle as sp

    class FixedDraws(sp._Ops):
        def __init__(self) -> None:
            self.draw = Draws(seed)

        def random_scalar(self) -> bytes:
            return self.draw()

    return FixedDraws()


def make() -> dict:
    from koryo_pbm.crypto import blind as bl
    from koryo_pbm.crypto import shuffle as sp

    def scalar(label: str) -> bytes:
        return bl._hash_to_scalar(b"koryo-pbm shuffle proof v1 test vector\x00", label.encode())

    shares = {"mod": bl.KeyShare(scalar("mod key share")), "carl": bl.KeyShare(scalar("carl key share"))}
    joint = bl._add(shares["mod"].public, shares["carl"].public)
    before = bl.encrypt_deck(CARDS, joint)
    seed = hashlib.sha256(b"koryo-pbm shuffle proof v1 test vector seed").digest()
    order, scalars = bl.shuffle_plan(seed, GAME, DECK, DEALER, len(CARDS))
    after = bl.shuffle(before, joint, seed, game_id=GAME, deck_id=DECK, dealer=DEALER)
    context = sp.shuffle_context(GAME, DECK, DEALER)
    ops = fixed_ops()
    proof = sp._gen_proof(before, after, joint, list(order), list(scalars), context, ops)
    assert proof.well_formed()
    statement = sp._statement(context, joint, before, after)
    data = proof.to_bytes()
    sp.check_shuffle(before, after, joint, data, context=context)
    return {
        "format": "koryo-pbm shuffle proof v1",
        "game_id": GAME, "deck_id": DECK, "dealer": DEALER, "cards": CARDS,
        "context": context.hex(),
        "mod_key_share": shares["mod"].secret.hex(), "carl_key_share": shares["carl"].secret.hex(),
        "joint": joint.hex(),
        "before": bl.deck_to_bytes(before).hex(),
        "shuffle_seed": seed.hex(),
        "order": list(order), "scalars": [s.hex() for s in scalars],
        "after": bl.deck_to_bytes(after).hex(),
        "draw_seed": DRAW_SEED.hex(), "draws": ops.draw.count,
        "generators": [g.hex() for g in sp._generators(len(CARDS))],
        "statement": statement.hex(),
        "u": [u.hex() for u in sp._challenges(statement, proof.c)],
        "challenge": sp._challenge(statement, proof.c, proof.c_hat, proof.t()).hex(),
        "proof_size": len(data),
        "proof": data.hex(),
    }


def main() -> None:
    import tomli_w

    header = ("# The proof of a shuffle, koryo-pbm shuffle proof v1: one test vector, every value in hex.\n"
              "# Written by tests/vectors/make_shuffle_vector.py; checked by tests/crypto/test_shuffle_proof.py.\n")
    OUT.write_text(header + tomli_w.dumps(make()), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
