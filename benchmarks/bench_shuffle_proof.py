"""The proof of a shuffle (koryo_pbm.crypto.shuffle): its size and the CPU to make and check it,
for Koryo's 55 cards and Korsar's 78, beside the shuffle itself, measured in the same run.

Printed, for each deck size (process time, median of ``--runs``, the operations interleaved so
that the machine's load falls on all alike):

* the dealer's shuffle (``blind.shuffle``: its plan from the seed, 2N scalar multiplications),
  the baseline;
* reading the shuffled deck (``deck_from_bytes``: every point checked), what anyone using a deck
  does already;
* making the proof (``prove_shuffle``) and checking it (``check_shuffle``), each as a ratio to
  the shuffle;
* the sizes: the proof beside the deck it proves, raw and in base64, and what the proofs add to
  a whole game's file (a 4-player Koryo game: at most 8 decks of 55, each shuffled by both
  dealers; Korsar: its one deck of 78, shuffled by both), with the CPU to check them all.

Run: ``python benchmarks/bench_shuffle_proof.py [--runs 7]``.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import time
from collections.abc import Callable

from koryo_pbm_games.korsar import cards as korsar_cards
from koryo_pbm_games.koryo import cards as koryo_cards

from koryo_pbm.crypto import blind as bl
from koryo_pbm.crypto import shuffle as sp

GAME = "bench-shuffle-proof"
KORYO = [koryo_cards.CARD_IDS[c] for c in koryo_cards.full_deck()]
KORSAR = korsar_cards.full_deck()


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def b64(size: int) -> int:
    return len(base64.b64encode(bytes(size)))


def one_run(cards: list[str], joint: bytes, deck_id: str) -> dict[str, float]:
    """One dealer's turn on a deck that mod has shuffled already: carl's shuffle, the deck read
    back, carl's proof, and anyone's check of it."""
    before = bl.shuffle(bl.encrypt_deck(cards, joint), joint, bl.new_shuffle_seed(), game_id=GAME,
                        deck_id=deck_id, dealer="mod")
    seed = bl.new_shuffle_seed()
    context = sp.shuffle_context(GAME, deck_id, "carl")
    out: dict[str, object] = {}
    times = {"shuffle": cpu(lambda: out.__setitem__("after", bl.shuffle(
        before, joint, seed, game_id=GAME, deck_id=deck_id, dealer="carl")))}
    after = out["after"]
    assert isinstance(after, tuple)
    raw = bl.deck_to_bytes(after)
    times["read"] = cpu(lambda: bl.deck_from_bytes(raw))
    order, scalars = bl.shuffle_plan(seed, GAME, deck_id, "carl", len(cards))
    times["prove"] = cpu(lambda: out.__setitem__("proof", sp.prove_shuffle(
        before, after, joint, order, scalars, context=context)))
    proof = out["proof"]
    assert isinstance(proof, bytes) and len(proof) == sp.proof_size(len(cards))
    times["check"] = cpu(lambda: sp.check_shuffle(before, after, joint, proof, context=context))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    keys = [bl.KeyShare.generate(), bl.KeyShare.generate()]
    joint = bl.joint_key(GAME, [bl.publish_key(GAME, "mod", keys[0]), bl.publish_key(GAME, "carl", keys[1])])
    decks = {"Koryo": KORYO, "Korsar": KORSAR}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in decks}
    for run in range(args.runs):  # interleaved
        for name, cards in decks.items():
            runs[name].append(one_run(cards, joint, f"deck-{run}"))

    ms = 1000.0
    medians = {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]} for name, rows in runs.items()}
    print(f"CPU, median of {args.runs} runs (process time), beside the dealer's shuffle in the same run:")
    for name, cards in decks.items():
        m = medians[name]
        print(f"  {name}, {len(cards)} cards:")
        for key, what in [("shuffle", "the dealer's shuffle (baseline)"), ("read", "reading the shuffled deck"),
                          ("prove", "making the proof (the dealer)"), ("check", "checking the proof (anyone)")]:
            print(f"    {what:<36} {m[key] * ms:8.1f} ms  = {m[key] / m['shuffle']:5.1f}x the shuffle")
        print(f"    {'shuffle + proof, for the dealer':<36} {(m['shuffle'] + m['prove']) * ms:8.1f} ms"
              f"  = {(m['shuffle'] + m['prove']) / m['shuffle']:5.1f}x the shuffle alone")

    print("Sizes (bytes; base64 in brackets):")
    for name, cards in decks.items():
        n = len(cards)
        proof, deck = sp.proof_size(n), n * bl.CIPHERTEXT_SIZE
        print(f"  {name}, {n} cards: the proof {proof} [{b64(proof)}] = 32·(9 + 5·{n}); the deck it proves"
              f" {deck} [{b64(deck)}]; proof / deck = {proof / deck:.2f}")
    print("A whole game's proofs (at most; every one checked by each player's tools and by verify):")
    for game, what, shuffles in [("Koryo", "Koryo, 4 players: 8 decks x 2 dealers", 16),
                                 ("Korsar", "Korsar: 1 deck x 2 dealers", 2)]:
        size = shuffles * sp.proof_size(len(decks[game]))
        check = shuffles * medians[game]["check"]
        print(f"  {what:<40} {shuffles:2d} proofs: {size:7d} [{b64(size)}] bytes, checked in {check:.2f} s")


if __name__ == "__main__":
    main()
