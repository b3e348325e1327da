"""The proof of a shuffle (koryo_pbm.crypto.shuffle): an honest shuffle checks, and each way a
dealer could cheat with its output (or with the proof) is refused."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from koryo_pbm.crypto import blind as bl
from koryo_pbm.crypto import shuffle as sp
from koryo_pbm.errors import FormatError

GAME, DECK, DEALER = "koryo-7f3a", "round-1", "carl"
CONTEXT = sp.shuffle_context(GAME, DECK, DEALER)
CARDS = ["merchant", "merchant", "broadcaster", "spy", "barbarian", "omniscient", "lobbying"]
L = 2**252 + 27742317777372353535851937790883648493  # the order of the group
P = 2**255 - 19
IDENTITY = (1).to_bytes(32, "little")
# A point of order 8 (libsodium's published list of small-order points).
SMALL_ORDER = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")

_KEYS = [bl.KeyShare.generate(), bl.KeyShare.generate()]
JOINT = bl.joint_key(GAME, [bl.publish_key(GAME, "mod", _KEYS[0]), bl.publish_key(GAME, "carl", _KEYS[1])])


@dataclasses.dataclass
class Shuffled:
    before: bl.Deck
    after: bl.Deck
    order: tuple[int, ...]
    scalars: tuple[bytes, ...]

    def prove(self, **changes) -> bytes:
        parts = {"before": self.before, "after": self.after, "joint": JOINT, "order": self.order,
                 "scalars": self.scalars, "context": CONTEXT, **changes}
        context = parts.pop("context")
        return sp.prove_shuffle(*parts.values(), context=context)

    def check(self, proof: bytes, **changes) -> None:
        parts = {"before": self.before, "after": self.after, "joint": JOINT, "proof": proof, "context": CONTEXT,
                 **changes}
        context = parts.pop("context")
        sp.check_shuffle(*parts.values(), context=context)


def reencrypt(card: bl.Ciphertext, scalar: bytes) -> bl.Ciphertext:
    """``card`` plus ``(s·B, s·H)``: the same card under fresh randomness."""
    return bl.Ciphertext(na.crypto_core_ed25519_add(card.c1, na.crypto_scalarmult_ed25519_base_noclamp(scalar)),
                         na.crypto_core_ed25519_add(card.c2, na.crypto_scalarmult_ed25519_noclamp(scalar, JOINT)))


def fresh() -> bytes:
    return bl._random_scalar()


def shuffled(n: int = len(CARDS), cards: list[str] | None = None) -> Shuffled:
    """A deck of ``n`` cards (already shuffled once, so its randomness is not public) and a
    dealer's honest shuffle of it, with the plan it followed."""
    cards = cards or [CARDS[i % len(CARDS)] for i in range(n)]
    start = bl.encrypt_deck(cards, JOINT)
    before = bl.shuffle(start, JOINT, bl.new_shuffle_seed(), game_id=GAME, deck_id=DECK, dealer="mod")
    seed = bl.new_shuffle_seed()
    order, scalars = bl.shuffle_plan(seed, GAME, DECK, DEALER, len(cards))
    after = bl.shuffle(before, JOINT, seed, game_id=GAME, deck_id=DECK, dealer=DEALER)
    return Shuffled(before, after, order, scalars)


def refused(s: Shuffled, proof: bytes, **changes) -> str:
    with pytest.raises(bl.BlindCheckError) as e:
        s.check(proof, **changes)
    assert "\n" not in str(e.value)
    return str(e.value)


# ---------------------------------------------------------------- honest shuffles


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_an_honest_shuffle_checks(n):
    s = shuffled(n)
    proof = s.prove()
    assert len(proof) == sp.proof_size(n) == 32 * (9 + 5 * n)
    s.check(proof)


def test_an_honest_shuffle_of_koryos_55_cards_checks():
    s = shuffled(55)
    proof = s.prove()
    assert len(proof) == 9088
    s.check(proof)


def test_the_proof_is_not_deterministic_and_both_check():
    s = shuffled(4)
    first, second = s.prove(), s.prove()
    assert first != second
    s.check(first)
    s.check(second)


def test_the_identity_permutation_and_repeated_cards_check():
    """No special case: a dealer that leaves the order as it is, over a deck of one card id."""
    before = bl.encrypt_deck(["spy"] * 3, JOINT)
    scalars = tuple(fresh() for _ in range(3))
    after = tuple(reencrypt(c, k) for c, k in zip(before, scalars, strict=True))
    s = Shuffled(before, after, (0, 1, 2), scalars)
    s.check(s.prove())


def test_the_sizes_are_a_fixed_function_of_the_deck():
    assert [sp.proof_size(n) for n in (1, 2, 55, 78)] == [448, 608, 9088, 12768]
    for bad in (0, -1, sp.MAX_CARDS + 1):
        with pytest.raises(FormatError):
            sp.proof_size(bad)


# ---------------------------------------------------------------- bound to its context


@pytest.mark.parametrize("other", [("koryo-other", DECK, DEALER), (GAME, "round-2", DEALER), (GAME, DECK, "mod")])
def test_a_proof_checked_for_another_game_deck_or_dealer_fails(other):
    s = shuffled(3)
    proof = s.prove()
    refused(s, proof, context=sp.shuffle_context(*other))


def test_a_proof_checked_under_another_joint_key_fails():
    s = shuffled(3)
    other = bl.KeyShare.generate().public
    refused(s, s.prove(), joint=other)


def test_the_context_frames_its_parts():
    assert sp.shuffle_context("ab", "c", "d") != sp.shuffle_context("a", "bc", "d")
    assert sp.shuffle_context("a", "b", "cd") != sp.shuffle_context("a", "bc", "d")
    for parts in (("", "d", "x"), ("g", "", "x"), ("g", "d", "")):
        with pytest.raises(FormatError):
            sp.shuffle_context(*parts)


# ---------------------------------------------------------------- a dealer that cheats its output


def test_a_wrong_permutation_claimed_fails():
    s = shuffled()
    order, scalars = list(s.order), list(s.scalars)
    order[0], order[1] = order[1], order[0]
    refused(s, s.prove(order=tuple(order)))  # the order alone
    scalars[0], scalars[1] = scalars[1], scalars[0]
    refused(s, s.prove(order=tuple(order), scalars=tuple(scalars)))  # with the scalars that go with it


def test_wrong_re_encryption_scalars_claimed_fail():
    s = shuffled(3)
    refused(s, s.prove(scalars=(fresh(), *s.scalars[1:])))


def test_a_dropped_card_replaced_by_a_fresh_encryption_of_another_card_fails():
    s = shuffled()
    other = reencrypt(bl.encrypt_deck(["omniscient"], JOINT)[0], fresh())  # an extra copy of a real card
    after = (*s.after[:2], other, *s.after[3:])
    cheat = dataclasses.replace(s, after=after)
    refused(cheat, cheat.prove())
    refused(cheat, s.prove())  # nor does the honest output's proof cover it


def test_a_duplicated_card_fails():
    """Two re-randomised copies of one input card, another input missing (dave gets alice's card)."""
    s = shuffled()
    after = list(s.after)
    after[4] = reencrypt(s.before[s.order[3]], fresh())
    cheat = dataclasses.replace(s, after=tuple(after))
    refused(cheat, cheat.prove())
    order = list(s.order)
    order[4] = order[3]
    with pytest.raises(FormatError, match="not a permutation"):
        cheat.prove(order=tuple(order))


def test_a_duplicated_card_proven_with_a_committed_non_permutation_fails_at_the_product_check(monkeypatch):
    """The strongest use of the algorithm for a copied card: the cheat commits to the matrix it
    really used (a column with two ones, one empty) and runs every other step of GenProof honestly.
    Then the sum checks (t1, t3, t4) hold and only the product of the u_i (the chain, t2) is
    wrong, as in the paper's argument."""
    s = shuffled()
    psi = list(s.order)
    psi[4] = psi[3]  # output 4 is a copy of input psi[3]; input s.order[4] is dropped
    scalars = list(s.scalars)
    scalars[4] = fresh()
    after = list(s.after)
    after[4] = reencrypt(s.before[psi[4]], scalars[4])

    def commit_to_matrix(psi, hs, g):
        r = [fresh() for _ in psi]
        columns: dict[int, list[bytes]] = {j: [] for j in range(len(psi))}
        for i, j in enumerate(psi):
            columns[j].append(hs[i])
        c = []
        for j in range(len(psi)):
            point = na.crypto_scalarmult_ed25519_base_noclamp(r[j])
            for h in columns[j]:
                point = na.crypto_core_ed25519_add(point, h)
            c.append(point)
        return c, r

    monkeypatch.setattr(sp, "_gen_permutation_commitment", commit_to_matrix)
    proof = sp._gen_proof(s.before, tuple(after), JOINT, psi, scalars, CONTEXT).to_bytes()
    cheat = dataclasses.replace(s, after=tuple(after))
    assert "(t2)" in refused(cheat, proof)


def test_a_card_changed_under_its_own_randomness_fails_at_the_first_component():
    """A spy turned into an omniscient by adding the difference of their points to c2 (c1 kept):
    only the check on the c2 components (the paper's t4,1, over ``a``) can see it."""
    s = shuffled()
    delta = na.crypto_core_ed25519_sub(bl.card_point("omniscient"), bl.card_point("spy"))
    after = list(s.after)
    after[2] = bl.Ciphertext(after[2].c1, na.crypto_core_ed25519_add(after[2].c2, delta))
    cheat = dataclasses.replace(s, after=tuple(after))
    assert "(t4,1)" in refused(cheat, cheat.prove())


def test_a_card_changed_through_its_randomness_fails_at_the_second_component():
    """c1 moved by d·B, c2 kept (the card opens to M − d·H, no card): only the check on the c1
    components (the paper's t4,2, over ``b``) can see it."""
    s = shuffled()
    after = list(s.after)
    after[2] = bl.Ciphertext(na.crypto_core_ed25519_add(after[2].c1, na.crypto_scalarmult_ed25519_base_noclamp(fresh())),
                             after[2].c2)
    cheat = dataclasses.replace(s, after=tuple(after))
    assert "(t4,2)" in refused(cheat, cheat.prove())


def test_an_output_that_re_encrypts_another_deck_fails():
    s = shuffled()
    other = shuffled(cards=["spy"] * len(CARDS))  # the same size, other cards
    cheat = dataclasses.replace(s, after=other.after)
    refused(cheat, other.prove())  # its own honest proof, checked against the real input
    refused(cheat, cheat.prove(order=other.order, scalars=other.scalars))


def test_swapping_two_outputs_after_proving_fails():
    s = shuffled()
    proof = s.prove()
    after = list(s.after)
    after[0], after[5] = after[5], after[0]
    refused(dataclasses.replace(s, after=tuple(after)), proof)


def test_the_input_changed_after_proving_fails():
    s = shuffled()
    proof = s.prove()
    before = list(s.before)
    before[2] = reencrypt(before[2], fresh())
    refused(dataclasses.replace(s, before=tuple(before)), proof)


# ---------------------------------------------------------------- a proof that is tampered or malformed

_TAMPER = shuffled(3)
_TAMPER_PROOF = _TAMPER.prove()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(_TAMPER_PROOF) - 1), flip=st.integers(1, 255))
def test_a_tampered_byte_anywhere_in_the_proof_is_refused(position, flip):
    tampered = bytearray(_TAMPER_PROOF)
    tampered[position] ^= flip
    with pytest.raises((bl.BlindCheckError, FormatError)):
        _TAMPER.check(bytes(tampered))


def test_every_value_of_the_proof_is_covered():
    """Replacing any one 32-byte value by a valid value of its kind (a random point, a random
    scalar) makes the proof fail its check: nothing in it is left unchecked."""
    n = len(_TAMPER.before)
    points = set(range(5 + n)) | set(range(5 + 3 * n + 4, 9 + 5 * n))
    for k in range(9 + 5 * n):
        value = bl.KeyShare.generate().public if k in points else fresh()
        proof = _TAMPER_PROOF[:32 * k] + value + _TAMPER_PROOF[32 * k + 32:]
        refused(_TAMPER, proof)


def test_a_proof_for_n_cards_given_n_plus_1_is_refused():
    small = shuffled(3)
    big = shuffled(4)
    with pytest.raises(FormatError, match="is 928 bytes, not 768"):
        big.check(small.prove())
    with pytest.raises(FormatError):
        small.check(small.prove() + bytes(32))
    with pytest.raises(FormatError):
        small.check(small.prove()[:-32])
    with pytest.raises(bl.BlindCheckError, match="4 cards where its input has 3"):
        small.check(small.prove(), after=big.after)


def test_non_canonical_scalars_are_refused():
    s = _TAMPER
    n = len(s.before)
    first_scalar = 5 + n  # s1
    for k in (first_scalar, first_scalar + 3, first_scalar + 4, 9 + 3 * n - 1):  # s1, s4, ŝ_1, s'_N
        value = int.from_bytes(_TAMPER_PROOF[32 * k:32 * k + 32], "little")
        for bad in (value + L, 0, L, 2**256 - 1):
            proof = _TAMPER_PROOF[:32 * k] + bad.to_bytes(32, "little") + _TAMPER_PROOF[32 * k + 32:]
            with pytest.raises(FormatError, match="not a canonical non-zero scalar"):
                s.check(proof)


def test_a_non_canonical_scalar_would_otherwise_pass_the_group_equations():
    """Why the parser refuses ``s + ℓ``: libsodium multiplies by the 255-bit value as given, so
    the same equations hold and one proof would have many encodings."""
    s = _TAMPER
    n = len(s.before)
    pi = sp._parse(_TAMPER_PROOF, n)
    malleated = dataclasses.replace(pi, s1=(int.from_bytes(pi.s1, "little") + L).to_bytes(32, "little"))
    assert sp._check_proof(malleated, s.before, s.after, JOINT, CONTEXT) is None
    with pytest.raises(FormatError):
        s.check(malleated.to_bytes())


def _torsioned(point: bytes) -> bytes:
    return na.crypto_core_ed25519_add(point, SMALL_ORDER)


def test_points_outside_the_prime_order_group_are_refused():
    s = _TAMPER
    n = len(s.before)
    for k in (0, 4, 5, 5 + 3 * n + 4, 8 + 5 * n):  # t1, t4,2, t̂_1, c_1, ĉ_N
        value = _TAMPER_PROOF[32 * k:32 * k + 32]
        non_canonical = (P + 1).to_bytes(32, "little")  # y = p + 1: a second encoding of y = 1
        for bad in (IDENTITY, SMALL_ORDER, _torsioned(value), non_canonical, bytes(32)):
            proof = _TAMPER_PROOF[:32 * k] + bad + _TAMPER_PROOF[32 * k + 32:]
            with pytest.raises(FormatError, match="not a point of the group"):
                s.check(proof)


def test_a_proof_that_is_not_bytes_is_refused():
    with pytest.raises(FormatError):
        _TAMPER.check(_TAMPER_PROOF.hex())  # type: ignore[arg-type]


# ---------------------------------------------------------------- the prover's inputs and the generators


def test_the_prover_refuses_a_plan_that_is_no_shuffle_plan():
    s = shuffled(3)
    for order in ((0, 1), (0, 1, 1), (0, 1, 3), (0, 1, 2, 3)):
        with pytest.raises(FormatError, match="not a permutation"):
            s.prove(order=order)
    with pytest.raises(FormatError, match="canonical scalars"):
        s.prove(scalars=(*s.scalars[:2], (L + 1).to_bytes(32, "little")))
    with pytest.raises(FormatError, match="canonical scalars"):
        s.prove(scalars=s.scalars[:2])
    with pytest.raises(FormatError, match="joint key"):
        s.prove(joint=SMALL_ORDER)


def test_the_generators_are_fixed_distinct_points_of_the_group_with_no_known_relation():
    gens = sp._generators(78)
    assert sp._generators(2) == gens[:3]
    assert len(set(gens)) == 79
    assert all(na.crypto_core_ed25519_is_valid_point(g) for g in gens)
    assert bl._BASE not in gens and JOINT not in gens
    assert not set(gens) & {bl.card_point(c) for c in CARDS}


# ---------------------------------------------------------------- a published worked example


class _WorkedExampleGroup(sp._Ops):
    """The group of the CHVote proof of concept's hand-worked shuffle proof (the subgroup of order
    q = 5 of Z_11^*, g = 3, h = 4; republique-et-canton-de-geneve/chvote-protocol-poc,
    src/test/groovy/ch/ge/ve/protopoc/service/algorithm/MixingAuthorityAlgorithmsTest.groovy and
    MixingAuthorityTests.md), its generators, challenges and random draws fixed as there. Every
    value is an int; the algorithms of the module run on it unchanged."""

    one = 1

    def __init__(self, draws):
        self.draws = list(draws)

    def add(self, x, y):
        return x * y % 11

    def sub(self, x, y):
        return x * pow(y, -1, 11) % 11

    def mul(self, k, x):
        return pow(x, k, 11)

    def base(self, k):
        return pow(3, k, 11)

    def sadd(self, x, y):
        return (x + y) % 5

    def smul(self, x, y):
        return x * y % 5

    def random_scalar(self):
        return self.draws.pop(0)

    def generators(self, n):
        assert n == 3
        return (4, 4, 3, 5)  # h, then bold_h = (4, 3, 5)

    def statement(self, context, pk, e, e_tilde):
        return b""

    def challenges(self, statement, c):
        assert list(c) == [9, 3, 3]
        return [2, 4, 3]

    def challenge(self, statement, c, c_hat, t):
        return 4


# Their encryptions are (a, b) = (m·pk^r, g^r): ours (c1, c2) = (b, a).
_EXAMPLE_E = tuple(bl.Ciphertext(b, a) for a, b in [(5, 1), (3, 4), (5, 9)])
_EXAMPLE_E_TILDE = tuple(bl.Ciphertext(b, a) for a, b in [(1, 5), (4, 3), (1, 4)])
_EXAMPLE_PSI = [1, 0, 2]
_EXAMPLE_PK = 3
# Their bold_r' = (1, 4, 2) is indexed by input (r'_j re-encrypts e_j); ours by output: r'_{ψ(i)}.
_EXAMPLE_R_TILDE = [4, 1, 2]
# Their draws, in the order of the paper's loops (the proof of concept draws the commitment's r_j
# in the order of j, "for performance reasons": r_1 = 2 comes first here, as i = 1 commits to j = 1).
_EXAMPLE_DRAWS = [2, 1, 3,  # r_{j_i} of GenPermutationCommitment, i = 1..3: r_1, r_0, r_2
                  4, 0, 1,  # r̂_i of GenCommitmentChain
                  1, 2, 3, 4,  # ω_1..ω_4
                  2, 3, 4, 0, 1, 1]  # (ω̂_i, ω'_i), i = 1..3
_EXAMPLE_PROOF = sp._Proof(t1=3, t2=9, t3=5, t41=3, t42=4, t_hat=(4, 4, 3), s1=0, s2=2, s3=4, s4=0,
                           s_hat=(3, 4, 0), s_prime=(4, 3, 3), c=(9, 3, 3), c_hat=(1, 1, 3))


def test_gen_proof_gives_the_published_worked_example_value_by_value():
    """GenProof and its two sub-algorithms, run on the worked example's group, inputs, challenges
    and draws, give every value of its proof as computed by hand there."""
    group = _WorkedExampleGroup(_EXAMPLE_DRAWS)
    proof = sp._gen_proof(_EXAMPLE_E, _EXAMPLE_E_TILDE, _EXAMPLE_PK, _EXAMPLE_PSI, _EXAMPLE_R_TILDE, b"", group)
    assert proof == _EXAMPLE_PROOF
    assert group.draws == []


def test_check_proof_accepts_the_published_worked_example_and_recomputes_its_t_values():
    group = _WorkedExampleGroup([])
    assert sp._t_prime(_EXAMPLE_PROOF, _EXAMPLE_E, _EXAMPLE_E_TILDE, _EXAMPLE_PK, b"", group) == [3, 9, 5, 3, 4, 4, 4, 3]
    assert sp._check_proof(_EXAMPLE_PROOF, _EXAMPLE_E, _EXAMPLE_E_TILDE, _EXAMPLE_PK, b"", group) is None
    changed = dataclasses.replace(_EXAMPLE_PROOF, s4=1)
    assert sp._check_proof(changed, _EXAMPLE_E, _EXAMPLE_E_TILDE, _EXAMPLE_PK, b"", group) == "t4,1"


# ---------------------------------------------------------------- the test vector (tests/vectors/shuffle-proof-v1.toml)


def _vector() -> dict:
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "vectors" / "shuffle-proof-v1.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_the_vector_checks_and_every_value_in_it_is_todays():
    v = _vector()
    assert v["format"] == "koryo-pbm shuffle proof v1"
    context = sp.shuffle_context(v["game_id"], v["deck_id"], v["dealer"])
    assert context.hex() == v["context"]
    joint = bytes.fromhex(v["joint"])
    assert na.crypto_core_ed25519_add(bl.KeyShare(bytes.fromhex(v["mod_key_share"])).public,
                                      bl.KeyShare(bytes.fromhex(v["carl_key_share"])).public) == joint
    before = bl.deck_from_bytes(bytes.fromhex(v["before"]))
    assert before == bl.encrypt_deck(v["cards"], joint)
    after = bl.deck_from_bytes(bytes.fromhex(v["after"]))
    seed = bytes.fromhex(v["shuffle_seed"])
    assert after == bl.shuffle(before, joint, seed, game_id=v["game_id"], deck_id=v["deck_id"], dealer=v["dealer"])
    order, scalars = bl.shuffle_plan(seed, v["game_id"], v["deck_id"], v["dealer"], len(before))
    assert list(order) == v["order"] and [s.hex() for s in scalars] == v["scalars"]
    proof = bytes.fromhex(v["proof"])
    assert len(proof) == v["proof_size"] == sp.proof_size(len(before))
    sp.check_shuffle(before, after, joint, proof, context=context)

    assert [g.hex() for g in sp._generators(len(before))] == v["generators"]
    statement = sp._statement(context, joint, before, after)
    assert statement.hex() == v["statement"]
    pi = sp._parse(proof, len(before))
    assert [u.hex() for u in sp._challenges(statement, pi.c)] == v["u"]
    assert sp._challenge(statement, pi.c, pi.c_hat, pi.t()).hex() == v["challenge"]


def test_the_vector_s_proof_is_remade_byte_for_byte_from_its_draws():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "vectors" / "make_shuffle_vector.py"
    spec = importlib.util.spec_from_file_location("make_shuffle_vector", path)
    assert spec and spec.loader
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    v = _vector()
    joint = bytes.fromhex(v["joint"])
    before = bl.deck_from_bytes(bytes.fromhex(v["before"]))
    after = bl.deck_from_bytes(bytes.fromhex(v["after"]))
    ops = maker.fixed_ops(bytes.fromhex(v["draw_seed"]))
    proof = sp._gen_proof(before, after, joint, v["order"], [bytes.fromhex(s) for s in v["scalars"]],
                          bytes.fromhex(v["context"]), ops)
    assert proof.to_bytes().hex() == v["proof"]
    assert ops.draw.count == v["draws"] == 4 + 4 * len(before)  # r, r̂, ω_1..ω_4, ω̂, ω'
