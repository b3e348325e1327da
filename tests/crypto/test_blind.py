"""The blind table's cryptography (koryo_pbm.crypto.blind): cards dealt so that only their
recipient learns them, checked reveals, and an audit that names each way to cheat."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from koryo_pbm.crypto import blind as bl
from koryo_pbm.errors import FormatError, TamperedError

GAME = "koryo-7f3a"
# A small Koryo-like deck: several copies of some ids, so that drops and duplicates show.
CARDS = ["merchant"] * 4 + ["broadcaster"] * 3 + ["spy"] * 2 + ["barbarian"] * 2 + ["omniscient", "lobbying"]
IDENTITY = (1).to_bytes(32, "little")
# A point of order 8 (a small-order point libsodium must refuse), from its published list.
SMALL_ORDER = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


@dataclasses.dataclass
class Table:
    """An honest blind table: two dealers, two decks (the second a reshuffle of what the first
    did not deal), cards dealt to alice and bob, two reveals, and the dealers' secrets."""

    keys: dict[str, bl.KeyShare]
    dealers: tuple[bl.DealerKey, ...]
    joint: bytes
    table: bl.CardTable
    decks: list[bl.DeckRecord]
    deals: list[bl.Deal]
    reveals: list[bl.Reveal]
    secrets: list[bl.DealerSecrets]
    cards: dict[tuple[str, int], str]  # what each recipient opened

    def audit(self, **changes):
        parts = {"decks": self.decks, "deals": self.deals, "reveals": self.reveals, "secrets": self.secrets,
                 "dealers": self.dealers, **changes}
        return bl.audit(GAME, parts["dealers"], self.table, parts["decks"], parts["deals"], parts["reveals"],
                        parts["secrets"])

    def shares(self, slot: bl.Slot, card: bl.Ciphertext) -> tuple[bl.Share, ...]:
        return tuple(bl.decryption_share(slot, card, d.name, self.keys[d.name]) for d in self.dealers)


def shuffled(deck_id, deck, joint, seeds):
    outputs = []
    for name, seed in seeds.items():
        deck = bl.shuffle(deck, joint, seed, game_id=GAME, deck_id=deck_id, dealer=name)
        outputs.append(deck)
    return tuple(outputs)


def make_table(cards=CARDS, game=GAME) -> Table:
    keys = {"mod": bl.KeyShare.generate(), "carl": bl.KeyShare.generate()}
    dealers = tuple(bl.publish_key(game, name, key) for name, key in keys.items())
    joint = bl.joint_key(game, dealers)
    seeds = {name: {"d1": bl.new_shuffle_seed(), "d2": bl.new_shuffle_seed()} for name in keys}
    first = bl.encrypt_deck(cards, joint)
    out1 = shuffled("d1", first, joint, {n: s["d1"] for n, s in seeds.items()})
    t = Table(keys, dealers, joint, bl.CardTable(cards), [bl.DeckRecord("d1", first, out1)], [], [], [
        bl.DealerSecrets(n, keys[n].secret, s) for n, s in seeds.items()], {})
    for position, recipient in enumerate(["alice", "bob", "alice", "bob"]):
        slot = bl.Slot(game, "d1", position, recipient)
        shares = t.shares(slot, out1[-1][position])
        t.deals.append(bl.Deal(slot, shares))
        t.cards[("d1", position)] = bl.open_card(slot, out1[-1][position], dealers, shares, t.table)
    # Alice plays her first card: its shares go public with it.
    t.reveals.append(bl.Reveal(t.deals[0].slot, t.cards[("d1", 0)], t.deals[0].shares))
    # The undealt rest is shuffled again (as Koryo shuffles its discards back in).
    rest = out1[-1][4:]
    out2 = shuffled("d2", rest, joint, {n: s["d2"] for n, s in seeds.items()})
    t.decks.append(bl.DeckRecord("d2", rest, out2))
    slot = bl.Slot(game, "d2", 0, "bob")
    shares = t.shares(slot, out2[-1][0])
    t.deals.append(bl.Deal(slot, shares))
    t.cards[("d2", 0)] = bl.open_card(slot, out2[-1][0], dealers, shares, t.table)
    t.reveals.append(bl.Reveal(slot, t.cards[("d2", 0)], shares))
    return t


@pytest.fixture(scope="module")
def t() -> Table:
    return make_table()


def final(t: Table, deck: int = 0) -> bl.Deck:
    return t.decks[deck].final


# ---------------------------------------------------------------- the honest path


def test_card_points_are_fixed_valid_and_distinct():
    ids = [*sorted(set(CARDS)), "galleon-2", "yellow-1", "admiral"]
    points = [bl.card_point(c) for c in ids]
    assert points == [bl.card_point(c) for c in ids]  # deterministic
    assert all(na.crypto_core_ed25519_is_valid_point(p) for p in points)
    assert len(set(points)) == len(ids)
    table = bl.CardTable(ids)
    assert [table.card(p) for p in points] == ids
    assert table.card(bl.KeyShare.generate().public) is None
    assert "spy" in table and "joker" not in table
    with pytest.raises(FormatError, match="invalid card id"):
        bl.card_point("")


def test_the_encodings_are_pinned():
    """Card points and shuffle plans are part of the game file's format: they must not change
    silently (these are the values of version 1, as docs/blind-table.md describes them)."""
    import hashlib

    spec = na.crypto_core_ed25519_from_uniform(
        hashlib.sha512(b"koryo-pbm blind v1\x00card\x00" + (8).to_bytes(4, "big") + b"merchant").digest()[:32])
    assert bl.card_point("merchant") == spec
    assert spec.hex() == "45d189dc54b54732c04001a8353f45825ea0cf812356459f4881871559f4e6fc"
    order, scalars = bl.shuffle_plan(bytes(range(32)), "g", "d1", "mod", 8)
    assert order == (2, 4, 0, 6, 3, 7, 5, 1)
    assert scalars[0].hex() == "19ba5526c9e58d97db1d25e1f0c808b5af62f3590f19f19014b5b38b2ce6e107"


def test_each_recipient_learns_exactly_the_card_and_the_audit_agrees(t):
    result = t.audit()
    assert Counter(result.decks["d1"]) == Counter(CARDS)
    assert Counter(result.decks["d2"]) == Counter(CARDS) - Counter(result.decks["d1"][:4])
    for (deck, position), card in t.cards.items():
        assert result.decks[deck][position] == card


def test_the_deck_is_really_shuffled_and_neither_dealer_shuffle_is_the_final_order(t):
    first = t.decks[0]
    assert len({c.c1 for c in first.final}) == len(CARDS)  # every card re-randomised
    assert not set(first.input) & set(first.outputs[0]) and not set(first.outputs[0]) & set(first.final)
    order, scalars = bl.shuffle_plan(t.secrets[0].seeds["d1"], GAME, "d1", "mod", len(CARDS))
    assert sorted(order) == list(range(len(CARDS))) and len(set(scalars)) == len(CARDS)
    assert bl.shuffle_plan(t.secrets[0].seeds["d1"], GAME, "d1", "mod", len(CARDS)) == (order, scalars)
    assert bl.shuffle_plan(t.secrets[0].seeds["d1"], GAME, "d2", "mod", len(CARDS))[0] != order


def test_shuffle_plans_are_uniform_over_permutations():
    """Fixed seeds (so the test cannot flake): 3,000 plans of 3 cards fall evenly on the 6
    orders. A Fisher–Yates with the classic mistake (drawing from all positions at every step)
    would give 4/27 and 5/27, far outside this bound."""
    import hashlib

    counts = Counter(bl.shuffle_plan(hashlib.sha256(i.to_bytes(4, "big")).digest(), "g", "d", "mod", 3)[0]
                     for i in range(3000))
    assert len(counts) == 6
    chi2 = sum((n - 500) ** 2 / 500 for n in counts.values())
    assert chi2 < 20.5, counts  # p = 0.001 for 5 degrees of freedom


def test_one_share_alone_leaves_the_card_encrypted_under_the_other_dealers_key(t):
    card = final(t)[1]
    point = bl.card_point(t.cards[("d1", 1)])
    mod_share, carl_share = t.deals[1].shares
    for mine, theirs in [(mod_share, "carl"), (carl_share, "mod")]:
        partial = na.crypto_core_ed25519_sub(card.c2, mine.point)
        assert t.table.card(partial) is None  # no card: one dealer learns nothing from its share
        # what is left is the card under the other dealer's key: only their share opens it
        blinding = na.crypto_scalarmult_ed25519_noclamp(t.keys[theirs].secret, card.c1)
        assert partial == na.crypto_core_ed25519_add(point, blinding)
        # and one dealer's share never opens the card alone, whatever it is combined with
        with pytest.raises(bl.BlindCheckError, match=f"lacks {theirs}'s share"):
            bl.open_card(t.deals[1].slot, card, t.dealers, [mine], t.table)


def test_a_reveal_is_checked_by_anyone_with_public_data_only(t):
    reveal = t.reveals[0]
    bl.check_reveal(reveal.slot, final(t)[0], t.dealers, reveal.shares, t.table, reveal.card)


def test_values_round_trip_through_bytes_and_sizes_are_fixed(t):
    card = final(t)[0]
    assert bl.Ciphertext.from_bytes(card.to_bytes()) == card and len(card.to_bytes()) == 64
    share = t.deals[0].shares[0]
    assert bl.Share.from_bytes("mod", share.to_bytes()) == share and len(share.to_bytes()) == 96
    key = t.dealers[0]
    assert bl.DealerKey.from_bytes(key.name, key.public, key.proof) == key and len(key.proof) == 64
    assert bl.KeyShare.from_bytes(t.keys["mod"].secret).public == key.public
    assert t.keys["mod"].secret.hex() not in repr(t.keys["mod"]) + repr(t.secrets[0])
    data = bl.deck_to_bytes(final(t))
    assert len(data) == 64 * len(CARDS) and bl.deck_from_bytes(data) == final(t)
    with pytest.raises(FormatError, match="is not a whole number of 64-byte ciphertexts"):
        bl.deck_from_bytes(data[:-1])
    with pytest.raises(FormatError, match="^card 2 of deck d1 is not a point of the group$"):
        bl.deck_from_bytes(data[:128] + IDENTITY + data[160:], "deck d1")


def test_a_games_one_deck_is_the_deck_in_messages_never_deck_deck():
    """Korsar's one deck has the id ``deck``: a message names it "the deck"; any other deck by its id."""
    assert bl.deck_name("d1") == "deck d1" and bl.deck_name(bl.ONE_DECK) == "the deck"
    assert str(bl.Slot(GAME, "deck", 12, "alice")) == "card 12 of the deck (dealt to alice)"
    with pytest.raises(FormatError, match=f"^carl's shuffle seed of the deck is not {bl.SEED_SIZE} bytes$"):
        bl.shuffle_plan(b"short", GAME, "deck", "carl", 3)


# ---------------------------------------------------------------- malformed values


@pytest.mark.parametrize("bad", [IDENTITY, SMALL_ORDER, b"\xff" * 32, bytes(32), b"\x01" * 31])
def test_identity_small_order_and_malformed_points_are_refused(t, bad):
    with pytest.raises(FormatError, match="is not a point of the group"):
        bl.parse_point(bad, "the point")
    with pytest.raises(FormatError):
        bl.Ciphertext.from_bytes(bad + final(t)[0].c2)
    with pytest.raises(FormatError):
        bl.Share.from_bytes("mod", bad + t.deals[0].shares[0].proof)
    with pytest.raises(FormatError):
        bl.DealerKey.from_bytes("mod", bad, t.dealers[0].proof)
    with pytest.raises(bl.BlindCheckError, match="^card 0 of deck d1 \\(dealt to alice\\) is not a ciphertext of the group$"):
        bl.open_card(t.deals[0].slot, bl.Ciphertext(final(t)[0].c1, bad), t.dealers, t.deals[0].shares, t.table)
    share = dataclasses.replace(t.deals[0].shares[0], point=bad)
    with pytest.raises(bl.BlindCheckError, match="mod's share of card 0 of deck d1 \\(dealt to alice\\) does not check"):
        bl.check_share(t.deals[0].slot, final(t)[0], t.dealers[0], share)


@pytest.mark.parametrize("bad", [IDENTITY, SMALL_ORDER, b"\xff" * 32, b"\x01" * 31])
def test_hostile_points_given_to_a_dealer_get_a_reason_not_a_traceback(t, bad):
    """The co-dealer shuffles and shares what the moderator hands it: a deck or a key that is
    not of the group is refused with a reason."""
    deck = (bl.Ciphertext(bad, final(t)[0].c2), *final(t)[1:])
    with pytest.raises(FormatError, match="^(card 0 of )?deck d3 is not"):
        bl.deck_from_bytes(b"".join(c.c1 + c.c2 for c in deck), "deck d3")
    with pytest.raises(FormatError, match="^the joint key is not a point of the group$"):
        bl.shuffle(final(t), bad, bl.new_shuffle_seed(), game_id=GAME, deck_id="d3", dealer="carl")
    with pytest.raises(FormatError, match="^the joint key is not a point of the group$"):
        bl.encrypt_deck(CARDS, bad)
    slot = bl.Slot(GAME, "d3", 0, "alice")
    with pytest.raises(FormatError, match="^card 0 of deck d3 \\(dealt to alice\\) is not a ciphertext of the group$"):
        bl.decryption_share(slot, deck[0], "carl", t.keys["carl"])
    with pytest.raises(bl.BlindCheckError, match="carl's share of card 0 of deck d3"):
        bl.check_share(slot, deck[0], t.dealers[1], t.deals[0].shares[1])
    if len(bad) != 32:  # a point of the wrong size in a deck built by hand: libsodium refuses it
        with pytest.raises(FormatError, match="^deck d3 holds something that is not a point of the group$"):
            bl.shuffle(deck, t.joint, bl.new_shuffle_seed(), game_id=GAME, deck_id="d3", dealer="carl")


def test_non_canonical_or_zero_scalars_are_refused():
    order = bytes.fromhex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")  # the group order
    for bad in [bytes(32), order, b"\xff" * 32, b"\x01"]:
        with pytest.raises(FormatError, match="is not a scalar of the group"):
            bl.KeyShare.from_bytes(bad)


def test_the_errors_are_tampering_errors_with_one_line():
    assert issubclass(bl.BlindCheckError, TamperedError)


# ---------------------------------------------------------------- each way to cheat, caught


def test_a_rogue_key_share_is_refused(t):
    """The co-dealer picks its point as x'·B − Y_mod, so that the joint key is x'·B and it alone
    can open every card: it cannot prove it knows the scalar behind that point."""
    x = bl.KeyShare.generate()
    rogue = na.crypto_core_ed25519_sub(x.public, t.dealers[0].public)
    for proof in [t.dealers[1].proof, bl.publish_key(GAME, "carl", x).proof, bytes(64)]:
        with pytest.raises(bl.BlindCheckError, match="^carl's public key share has no valid proof of knowledge for this game$"):
            bl.joint_key(GAME, [t.dealers[0], bl.DealerKey("carl", rogue, proof)])


def test_a_key_proof_is_bound_to_its_game_and_dealer(t):
    with pytest.raises(bl.BlindCheckError, match="mod's public key share has no valid proof"):
        bl.joint_key("another-game", t.dealers)
    with pytest.raises(bl.BlindCheckError, match="dave's public key share"):
        bl.joint_key(GAME, [dataclasses.replace(t.dealers[0], name="dave"), t.dealers[1]])
    with pytest.raises(bl.BlindCheckError, match="two dealers have the same public key share"):
        bl.joint_key(GAME, [t.dealers[0], dataclasses.replace(t.dealers[0], name="carl")])
    with pytest.raises(bl.BlindCheckError, match="at least two dealers"):
        bl.joint_key(GAME, t.dealers[:1])


def test_a_wrong_share_is_caught(t):
    slot, card = t.deals[2].slot, final(t)[2]
    other = bl.KeyShare.generate()  # the dealer uses another scalar than its key share
    wrong = bl.decryption_share(slot, card, "mod", other)
    with pytest.raises(bl.BlindCheckError, match="^mod's share of card 2 of deck d1 \\(dealt to alice\\) does not check$"):
        bl.open_card(slot, card, t.dealers, [wrong, t.deals[2].shares[1]], t.table)
    # the right share point with a proof that was forged by changing one byte
    good = t.deals[2].shares[0]
    for i in range(0, 96, 7):
        data = bytearray(good.to_bytes())
        data[i] ^= 0x04
        try:
            forged = bl.Share.from_bytes("mod", bytes(data))
        except FormatError:
            continue  # not even a point: refused when read
        with pytest.raises(bl.BlindCheckError, match="mod's share of card 2"):
            bl.check_share(slot, card, t.dealers[0], forged)


def test_a_share_for_another_card_or_position_is_caught(t):
    slot2, slot3 = t.deals[2].slot, t.deals[3].slot
    card2, card3 = final(t)[2], final(t)[3]
    carl = t.dealers[1]
    # carl's true share of card 3, handed over as if it were of card 2
    share3 = t.deals[3].shares[1]
    with pytest.raises(bl.BlindCheckError, match="^carl's share of card 2 of deck d1 \\(dealt to alice\\) does not check$"):
        bl.check_share(slot2, card2, carl, share3)
    # a share computed on card 3's ciphertext but with a proof that claims position 2
    moved = bl.decryption_share(slot2, card3, "carl", t.keys["carl"])
    with pytest.raises(bl.BlindCheckError, match="carl's share of card 2"):
        bl.check_share(slot2, card2, carl, moved)
    with pytest.raises(bl.BlindCheckError, match="carl's share of card 3 of deck d1 \\(dealt to bob\\)"):
        bl.check_share(slot3, card3, carl, moved)


@pytest.mark.parametrize("where", [
    {"game_id": "another-game"}, {"position": 1}, {"deck_id": "d2"}, {"recipient": "bob"}])
def test_a_proof_replayed_elsewhere_is_caught(t, where):
    """Domain separation: a valid share and proof for alice's card 0 of this game, replayed for
    another game, position, deck or recipient (on the very same ciphertext), does not check."""
    deal = t.deals[0]
    elsewhere = dataclasses.replace(deal.slot, **where)
    bl.check_share(deal.slot, final(t)[0], t.dealers[0], deal.shares[0])
    with pytest.raises(bl.BlindCheckError, match="mod's share of .* does not check"):
        bl.check_share(elsewhere, final(t)[0], t.dealers[0], deal.shares[0])


def test_a_share_from_the_wrong_dealer_or_twice_is_caught(t):
    deal, card = t.deals[0], final(t)[0]
    mod, carl = deal.shares
    with pytest.raises(bl.BlindCheckError, match="has carl's share where mod's was expected"):
        bl.check_share(deal.slot, card, t.dealers[0], carl)
    with pytest.raises(bl.BlindCheckError, match="two shares from the same dealer"):
        bl.open_card(deal.slot, card, t.dealers, [mod, mod, carl], t.table)
    stranger = bl.decryption_share(deal.slot, card, "dave", bl.KeyShare.generate())
    with pytest.raises(bl.BlindCheckError, match="a share from dave, who is no dealer"):
        bl.open_card(deal.slot, card, t.dealers, [mod, carl, stranger], t.table)


def test_a_false_reveal_is_caught(t):
    reveal = t.reveals[0]
    lie = next(c for c in sorted(set(CARDS)) if c != reveal.card)
    with pytest.raises(bl.BlindCheckError, match=f"^card 0 of deck d1 \\(dealt to alice\\) is shown as {lie} but its shares open it to another card$"):
        bl.check_reveal(reveal.slot, final(t)[0], t.dealers, reveal.shares, t.table, lie)
    with pytest.raises(bl.BlindCheckError, match=f"is shown as {lie}"):
        t.audit(reveals=[dataclasses.replace(reveal, card=lie)])
    # another card's shares offered as the proof of this one
    with pytest.raises(bl.BlindCheckError, match="share of card 0 of deck d1"):
        bl.check_reveal(reveal.slot, final(t)[0], t.dealers, t.deals[2].shares, t.table, t.cards[("d1", 2)])


def test_the_audit_catches_a_reveal_of_a_card_not_dealt_to_the_revealer(t):
    bobs = dataclasses.replace(t.reveals[0], slot=dataclasses.replace(t.reveals[0].slot, recipient="bob"))
    with pytest.raises(bl.BlindCheckError, match="that card was not dealt to bob"):
        t.audit(reveals=[bobs])


def test_a_card_turned_up_in_public_opens_for_everybody_and_the_audit_checks_it_was_dealt_to_nobody_once(t):
    """A card of a deck dealt to nobody (deck d2's position 1) turned up for everybody: both
    shares bound to the recipient ``*``, which is no seat's name; anyone opens it. A share made
    for a player does not check there; the audit refuses a turn-up of a card dealt to a player, or
    of one card twice."""
    card = final(t, 1)[1]
    public = bl.Slot(GAME, "d2", 1, bl.PUBLIC)
    shares = t.shares(public, card)
    found = bl.open_card(public, card, t.dealers, shares, t.table)
    assert str(public) == "card 1 of deck d2 (turned up in public)"
    up = bl.Reveal(public, found, shares)
    assert t.audit(reveals=[*t.reveals, up]).decks["d2"][1] == found
    for_bob = t.shares(bl.Slot(GAME, "d2", 1, "bob"), card)
    with pytest.raises(bl.BlindCheckError, match=r"^mod's share of card 1 of deck d2 \(turned up in public\) does not check$"):
        bl.open_card(public, card, t.dealers, for_bob, t.table)
    with pytest.raises(bl.BlindCheckError, match=r"turned up in public\): that card was turned up before$"):
        t.audit(reveals=[*t.reveals, up, up])
    dealt = bl.Slot(GAME, "d2", 0, bl.PUBLIC)  # bob's card, turned up
    with pytest.raises(bl.BlindCheckError, match=r"^the reveal of card 0 of deck d2 \(turned up in public\): that card was dealt to bob$"):
        t.audit(reveals=[*t.reveals, bl.Reveal(dealt, t.cards[("d2", 0)], t.shares(dealt, final(t, 1)[0]))])


def test_the_audit_catches_a_card_dealt_twice(t):
    again = bl.Slot(GAME, "d1", 1, "alice")
    twice = [*t.deals, bl.Deal(again, t.shares(again, final(t)[1]))]
    with pytest.raises(bl.BlindCheckError, match="^card 1 of deck d1 is dealt twice \\(to bob and to alice\\)$"):
        t.audit(deals=twice)


def test_the_audit_of_deals_whose_shares_stayed_sealed(t):
    """verify sees the slots dealt but not the shares sealed to the players: the dealers'
    published key shares open every card, and a slot dealt twice is still caught."""
    slots_only = [bl.Deal(d.slot, ()) for d in t.deals]
    result = t.audit(deals=slots_only)
    assert all(result.decks[deck][pos] == card for (deck, pos), card in t.cards.items())
    with pytest.raises(bl.BlindCheckError, match="^card 0 of deck d1 is dealt twice \\(to alice and to carol\\)$"):
        t.audit(deals=[*slots_only, bl.Deal(bl.Slot(GAME, "d1", 0, "carol"), ())])


def test_the_audit_catches_a_share_that_does_not_check(t):
    deals = list(t.deals)
    wrong = bl.decryption_share(deals[1].slot, final(t)[1], "carl", bl.KeyShare.generate())
    deals[1] = dataclasses.replace(deals[1], shares=(deals[1].shares[0], wrong))
    with pytest.raises(bl.BlindCheckError, match="^carl's share of card 1 of deck d1 \\(dealt to bob\\) does not check$"):
        t.audit(deals=deals)


def _with_output(t: Table, dealer: int, output: bl.Deck) -> list[bl.DeckRecord]:
    outputs = list(t.decks[0].outputs)
    outputs[dealer] = output
    return [dataclasses.replace(t.decks[0], outputs=tuple(outputs)), *t.decks[1:]]


def test_the_audit_catches_a_shuffle_that_duplicates_or_drops_a_card(t):
    cards = t.audit().decks["d1"]
    out = list(final(t))
    i = cards.index("merchant")
    j = cards.index("omniscient")
    # carl (the last dealer) puts a second merchant where the omniscient was
    out[j] = out[i]
    with pytest.raises(bl.BlindCheckError, match="^carl's shuffle of deck d1 drops omniscient and adds merchant$"):
        t.audit(decks=_with_output(t, 1, tuple(out)))
    with pytest.raises(bl.BlindCheckError, match="^carl's shuffle of deck d1 drops omniscient$"):
        t.audit(decks=_with_output(t, 1, tuple(out[:j] + out[j + 1:])))
    # the moderator (first dealer) slips in a fresh encryption of a merchant for its spy
    first = list(t.decks[0].outputs[0])
    total = na.crypto_core_ed25519_scalar_add(t.keys["mod"].secret, t.keys["carl"].secret)
    spy = next(i for i, c in enumerate(first)
               if t.table.card(na.crypto_core_ed25519_sub(c.c2, na.crypto_scalarmult_ed25519_noclamp(total, c.c1))) == "spy")
    first[spy] = bl.encrypt_deck(["merchant"], t.joint)[0]
    with pytest.raises(bl.BlindCheckError, match="^mod's shuffle of deck d1 drops spy and adds merchant$"):
        t.audit(decks=_with_output(t, 0, tuple(first)))


def test_the_audit_catches_a_shuffle_that_does_not_follow_its_seed(t):
    """A dealer who grinds (publishes an order other than its seed's, same cards) is caught."""
    out = list(final(t))
    out[0], out[1] = out[1], out[0]
    with pytest.raises(bl.BlindCheckError, match="^carl's shuffle of deck d1 does not follow its published seed \\(position 0\\)$"):
        t.audit(decks=_with_output(t, 1, tuple(out)))
    secrets = [t.secrets[0], dataclasses.replace(t.secrets[1], seeds={**t.secrets[1].seeds, "d2": bl.new_shuffle_seed()})]
    with pytest.raises(bl.BlindCheckError, match="^carl's shuffle of deck d2 does not follow its published seed"):
        t.audit(secrets=secrets)
    secrets = [t.secrets[0], dataclasses.replace(t.secrets[1], seeds={"d1": t.secrets[1].seeds["d1"]})]
    with pytest.raises(bl.BlindCheckError, match="^carl did not publish its seed of deck d2$"):
        t.audit(secrets=secrets)


def test_the_audit_catches_published_key_shares_that_do_not_match(t):
    other = bl.KeyShare.generate().secret
    for i, name in enumerate(["mod", "carl"]):
        secrets = list(t.secrets)
        secrets[i] = dataclasses.replace(secrets[i], key=other)
        with pytest.raises(bl.BlindCheckError, match=f"^{name}'s published key share does not match its public key$"):
            t.audit(secrets=secrets)
    with pytest.raises(bl.BlindCheckError, match="^carl did not publish its key share$"):
        t.audit(secrets=t.secrets[:1])
    # The two shares swapped between dealers add up to the same joint key: still caught.
    swapped = [dataclasses.replace(t.secrets[0], key=t.secrets[1].key), dataclasses.replace(t.secrets[1], key=t.secrets[0].key)]
    with pytest.raises(bl.BlindCheckError, match="^mod's published key share does not match"):
        t.audit(secrets=swapped)


def test_the_audit_refuses_slots_of_another_game_or_deck(t):
    for where, reason in [({"game_id": "x"}, "belongs to another game"), ({"deck_id": "d9"}, "there is no such deck"),
                          ({"position": 99}, "the deck has no such position")]:
        deal = dataclasses.replace(t.deals[0], slot=dataclasses.replace(t.deals[0].slot, **where))
        with pytest.raises(bl.BlindCheckError, match=reason):
            t.audit(deals=[deal])


def test_the_audit_refuses_a_deck_that_starts_with_no_card(t):
    bogus = dataclasses.replace(t.decks[0], input=(bl.Ciphertext(t.decks[0].input[0].c1, t.joint), *t.decks[0].input[1:]))
    with pytest.raises(bl.BlindCheckError, match="^deck d1 starts with something that is no card$"):
        t.audit(decks=[bogus])


# ---------------------------------------------------------------- properties over random decks

IDS = ["merchant", "spy", "barbarian", "galleon-2", "blue-4", "admiral"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cards=st.lists(st.sampled_from(IDS), min_size=2, max_size=9), data=st.data())
def test_property_round_trip_and_audit_over_random_decks(cards, data):
    game = data.draw(st.text(min_size=1, max_size=8), label="game")
    keys = {"mod": bl.KeyShare.generate(), "carl": bl.KeyShare.generate()}
    dealers = tuple(bl.publish_key(game, n, k) for n, k in keys.items())
    joint = bl.joint_key(game, dealers)
    seeds = {n: bl.new_shuffle_seed() for n in keys}
    start = bl.encrypt_deck(cards, joint)
    outputs = []
    deck = start
    for n, seed in seeds.items():
        deck = bl.shuffle(deck, joint, seed, game_id=game, deck_id="d", dealer=n)
        outputs.append(deck)
    table = bl.CardTable(cards)
    positions = data.draw(st.lists(st.integers(0, len(cards) - 1), unique=True, min_size=1), label="dealt")
    deals, seen = [], []
    for p in positions:
        slot = bl.Slot(game, "d", p, data.draw(st.sampled_from(["alice", "bob"])))
        shares = tuple(bl.decryption_share(slot, deck[p], n, keys[n]) for n in keys)
        seen.append(bl.open_card(slot, deck[p], dealers, shares, table))
        deals.append(bl.Deal(slot, shares))
    result = bl.audit(game, dealers, table, [bl.DeckRecord("d", start, tuple(outputs))], deals, [],
                      [bl.DealerSecrets(n, keys[n].secret, {"d": s}) for n, s in seeds.items()])
    assert Counter(result.decks["d"]) == Counter(cards)
    assert [result.decks["d"][p] for p in positions] == seen
    # any flipped bit of any dealt share is caught, by the recipient and by the audit
    k = data.draw(st.integers(0, len(deals) - 1), label="deal")
    which = data.draw(st.integers(0, 1), label="dealer")
    bit = data.draw(st.integers(0, 8 * bl.SHARE_SIZE - 1), label="bit")
    raw = bytearray(deals[k].shares[which].to_bytes())
    raw[bit // 8] ^= 1 << (bit % 8)
    bad = bl.Share(deals[k].shares[which].dealer, bytes(raw[:32]), bytes(raw[32:]))
    shares = list(deals[k].shares)
    shares[which] = bad
    with pytest.raises(bl.BlindCheckError, match="share of card"):
        bl.open_card(deals[k].slot, deck[deals[k].slot.position], dealers, shares, table)
