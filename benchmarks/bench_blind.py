"""The blind table's costs (koryo_pbm.crypto.blind): CPU per party and sizes, with the open
table's equivalent measured side by side in the same run as the baseline.

Printed:

* CPU (process time, median of ``--runs``) of a Koryo 4-player deal (round 1: both dealers
  shuffle the 55 cards, 40 cards dealt, each player checks and opens their 10) for each party,
  and of a Korsar draw (one card: a share from each dealer, checked and opened by the drawer
  and by a partner); each beside the open table's equivalent (the moderator seals each hand
  with HPKE, the player opens it), as a ratio;
* a public reveal check, the dealers' key set-up, and the end-of-game audit of a whole
  4-player Koryo game (8 shuffles of at most 55 cards, every dealt card, half of them revealed);
* the size of every value, and what a whole Koryo game adds to its file (the blind parts only,
  raw and in base64, before the game file's framing).

Run: ``python benchmarks/bench_blind.py [--runs 7]``.
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
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.crypto.seal import open_sealed, seal

GAME = "bench-blind"
PLAYERS = ["alice", "bob", "carol", "dave"]
KORYO = [koryo_cards.CARD_IDS[c] for c in koryo_cards.full_deck()]
KORSAR = korsar_cards.full_deck()


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


class Dealers:
    def __init__(self) -> None:
        self.keys = {"mod": bl.KeyShare.generate(), "carl": bl.KeyShare.generate()}
        self.public = tuple(bl.publish_key(GAME, n, k) for n, k in self.keys.items())
        self.joint = bl.joint_key(GAME, self.public)
        self.seeds: dict[str, dict[str, bytes]] = {n: {} for n in self.keys}

    def shuffle(self, name: str, deck: bl.Deck, deck_id: str) -> bl.Deck:
        seed = self.seeds[name].setdefault(deck_id, bl.new_shuffle_seed())
        return bl.shuffle(deck, self.joint, seed, game_id=GAME, deck_id=deck_id, dealer=name)

    def share(self, name: str, slot: bl.Slot, card: bl.Ciphertext) -> bl.Share:
        return bl.decryption_share(slot, card, name, self.keys[name])


def koryo_deal(d: Dealers, table: bl.CardTable) -> dict[str, float]:
    """Round 1 of a 4-player Koryo game, each party's CPU apart."""
    times: dict[str, float] = {}
    start = bl.encrypt_deck(KORYO, d.joint)
    out: dict[str, bl.Deck] = {}
    times["mod"] = cpu(lambda: out.__setitem__("mod", d.shuffle("mod", start, "round-1")))
    times["carl"] = cpu(lambda: out.__setitem__("carl", d.shuffle("carl", out["mod"], "round-1")))
    deck = out["carl"]
    slots = [bl.Slot(GAME, "round-1", p, PLAYERS[p // 10]) for p in range(40)]
    shares: dict[str, list[bl.Share]] = {}
    for name in d.keys:
        times[name] += cpu(lambda name=name: shares.__setitem__(
            name, [d.share(name, s, deck[s.position]) for s in slots]))
    for i, player in enumerate(PLAYERS):
        mine = range(10 * i, 10 * i + 10)
        times[player] = cpu(lambda mine=mine: [
            bl.open_card(slots[p], deck[p], d.public, [shares["mod"][p], shares["carl"][p]], table) for p in mine])
    return times


def open_deal(ids: dict[str, Identity], hands: dict[str, bytes]) -> dict[str, float]:
    """The open table's deal: the moderator seals each hand to its player, who opens it."""
    sealed: dict[str, bytes] = {}
    times = {"mod": cpu(lambda: sealed.update({p: seal(ids[p].public, h, b"bench hand") for p, h in hands.items()}))}
    for p in hands:
        times[p] = cpu(lambda p=p: open_sealed(ids[p], sealed[p], b"bench hand"))
    return times


def korsar_draw(d: Dealers, table: bl.CardTable, deck: bl.Deck, position: int) -> dict[str, float]:
    slot = bl.Slot(GAME, "korsar", position, "alice")
    card = deck[position]
    shares: dict[str, bl.Share] = {}
    times = {n: cpu(lambda n=n: shares.__setitem__(n, d.share(n, slot, card))) for n in d.keys}
    times["alice"] = cpu(lambda: bl.open_card(slot, card, d.public, list(shares.values()), table))
    times["partner"] = cpu(lambda: bl.open_card(slot, card, d.public, list(shares.values()), table))
    return times


def whole_koryo_game(d: Dealers, table: bl.CardTable) -> tuple[list[bl.DeckRecord], list[bl.Deal], list[bl.Reveal]]:
    """8 shuffles of the 55 cards (the most a round can shuffle), 4 × (11 − r) cards dealt in
    round r (208 in all), every other dealt card revealed."""
    decks, deals, reveals = [], [], []
    for rnd in range(1, 9):
        deck_id = f"round-{rnd}"
        start = bl.encrypt_deck(KORYO, d.joint) if rnd == 1 else decks[-1].final
        first = d.shuffle("mod", start, deck_id)
        decks.append(bl.DeckRecord(deck_id, start, (first, d.shuffle("carl", first, deck_id))))
        n = 11 - rnd
        for p in range(4 * n):
            slot = bl.Slot(GAME, deck_id, p, PLAYERS[p // n])
            shares = tuple(d.share(name, slot, decks[-1].final[p]) for name in d.keys)
            deals.append(bl.Deal(slot, shares))
            if p % 2 == 0:
                card = bl.open_card(slot, decks[-1].final[p], d.public, shares, table)
                reveals.append(bl.Reveal(slot, card, shares))
    return decks, deals, reveals


def b64(size: int) -> int:
    return len(base64.b64encode(bytes(size)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    koryo_table, korsar_table = bl.CardTable(KORYO), bl.CardTable(KORSAR)
    ids = {p: Identity.generate(p) for p in PLAYERS}
    hands = {p: ("\n".join(KORYO[10 * i:10 * i + 10])).encode() for i, p in enumerate(PLAYERS)}

    setup, deal, open_, draw, open_draw, reveal = [], [], [], [], [], []
    korsar_dealers = Dealers()
    korsar_deck = korsar_dealers.shuffle("carl", korsar_dealers.shuffle("mod", bl.encrypt_deck(KORSAR, korsar_dealers.joint), "korsar"), "korsar")
    for run in range(args.runs):  # interleaved, so that the machine's load falls on both alike
        setup.append(cpu(Dealers))
        d = Dealers()
        deal.append(koryo_deal(d, koryo_table))
        open_.append(open_deal(ids, hands))
        draw.append(korsar_draw(korsar_dealers, korsar_table, korsar_deck, 24 + run))
        alice_hand = {"alice": hands["alice"]}
        open_draw.append(open_deal(ids, alice_hand))
        slot = bl.Slot(GAME, "korsar", 24 + run, "alice")
        card = korsar_deck[24 + run]
        shares = [korsar_dealers.share(n, slot, card) for n in korsar_dealers.keys]
        shown = bl.open_card(slot, card, korsar_dealers.public, shares, korsar_table)
        reveal.append(cpu(lambda slot=slot, card=card, shares=shares, shown=shown: bl.check_reveal(
            slot, card, korsar_dealers.public, shares, korsar_table, shown)))

    def med(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    ms = 1000.0
    print(f"CPU, median of {args.runs} runs (process time), blind beside open:")
    print(f"  key set-up (both dealers: key shares, proofs, joint key checked): {statistics.median(setup) * ms:7.1f} ms")
    print("  Koryo, 4 players, round-1 deal (55 cards shuffled twice, 40 dealt):")
    for party in ["mod", "carl", *PLAYERS]:
        blind = med(deal, party)
        plain = med(open_, party) if party in open_[0] else 0.0
        role = {"mod": "moderator (shuffle 55 + 40 shares)", "carl": "co-dealer (shuffle 55 + 40 shares)"}.get(
            party, f"{party} (checks 20 shares, opens 10 cards)")
        ratio = f"  open: {plain * ms:6.2f} ms  = {blind / plain:6.1f}x" if plain else "  open: nothing to do"
        print(f"    {role:<40} {blind * ms:8.1f} ms{ratio}")
    total_blind = sum(med(deal, p) for p in deal[0])
    total_open = sum(med(open_, p) for p in open_[0])
    print(f"    all parties                              {total_blind * ms:8.1f} ms  open: {total_open * ms:6.2f} ms"
          f"  = {total_blind / total_open:6.1f}x")
    print("  Korsar draw (one card):")
    for party, role in [("mod", "moderator (1 share)"), ("carl", "co-dealer (1 share)"),
                        ("alice", "drawer (checks 2 shares, opens)"), ("partner", "partner (the same)")]:
        blind = med(draw, party)
        if party in ("mod", "alice"):
            plain = med(open_draw, "mod" if party == "mod" else "alice")
            print(f"    {role:<40} {blind * ms:8.2f} ms  open: {plain * ms:6.2f} ms  = {blind / plain:6.1f}x")
        else:
            print(f"    {role:<40} {blind * ms:8.2f} ms")
    print(f"  a public reveal check (anyone, one card):  {statistics.median(reveal) * ms:8.2f} ms")

    d = Dealers()
    decks, deals, reveals = whole_koryo_game(d, koryo_table)
    secrets = [bl.DealerSecrets(n, d.keys[n].secret, d.seeds[n]) for n in d.keys]
    audit = cpu(lambda: bl.audit(GAME, d.public, koryo_table, decks, deals, reveals, secrets))
    print(f"  end-of-game audit, whole 4-player Koryo game ({len(decks)} shuffles of 55, {len(deals)} deals,"
          f" {len(reveals)} reveals): {audit:.2f} s")

    print("Sizes (bytes; base64 in brackets):")
    for what, size in [("card point", bl.POINT_SIZE), ("ciphertext (a card in the deck)", bl.CIPHERTEXT_SIZE),
                       ("decryption share (point + Chaum-Pedersen proof)", bl.SHARE_SIZE),
                       ("proof alone (challenge + response)", bl.PROOF_SIZE),
                       ("dealer's public key + Schnorr proof", bl.POINT_SIZE + bl.PROOF_SIZE),
                       ("shuffle seed (published at the end)", bl.SEED_SIZE),
                       ("a dealt card: both dealers' shares", 2 * bl.SHARE_SIZE)]:
        print(f"  {what:<52} {size:5d} [{b64(size)}]")
    shuffles = sum(len(r.final) * bl.CIPHERTEXT_SIZE * len(r.outputs) for r in decks)
    dealt = len(deals) * 2 * bl.SHARE_SIZE
    shown = len(reveals) * 2 * bl.SHARE_SIZE
    keys = 2 * (bl.POINT_SIZE + bl.PROOF_SIZE)
    end = sum(bl.SCALAR_SIZE + len(s.seeds) * bl.SEED_SIZE for s in secrets)
    total = shuffles + dealt + shown + keys + end
    print("  a whole 4-player Koryo game adds to its file (at most):")
    for what, size in [("dealers' keys", keys), (f"{len(decks)} decks, each dealer's output", shuffles),
                       (f"{len(deals)} dealt cards' shares (sealed to the player: + HPKE's 48 per blob)", dealt),
                       (f"{len(reveals)} reveals' shares (public)", shown), ("end-of-game secrets", end),
                       ("in all", total)]:
        print(f"    {what:<70} {size:7d} [{b64(size)}]")


if __name__ == "__main__":
    main()
