"""A proof that a dealer's shuffle is a permutation and re-encryption of its input.

The Terelius–Wikström proof of a shuffle, non-interactive by Fiat–Shamir, exactly as Haenni,
Locher, Koenig and Dubuis write it in "Pseudo-Code Algorithms for Verifiable Re-Encryption
Mix-Nets" (Financial Cryptography 2017 workshops, Voting, LNCS 10323): Algorithm 4.3
(GenProof), 4.4 (GenPermutationCommitment), 4.5 (GenCommitmentChain) and 4.6 (CheckProof). The
comments below follow those algorithms line by line and name them [HLKD17, Alg. 4.x].

The group is the one of :mod:`koryo_pbm.crypto.blind`: the prime-order subgroup of Ed25519, every
operation from libsodium through PyNaCl, no curve code here. The paper writes its group
multiplicatively; this module adds points. The translation, term by term:

=================================================  ==================================================
the paper (multiplicative, Z_p^*)                   here (additive, Ed25519's prime-order group)
=================================================  ==================================================
``g``                                               ``B``, the base point
``pk``                                              ``H``, the joint key
``x·y``, ``x/y``, ``x^k``, ``Π x_i``                ``X + Y``, ``X − Y``, ``k·X``, ``Σ X_i``
``e_i = (a_i, b_i) = (m·pk^r, g^r)``                ``Ciphertext(c1, c2) = (r·B, M + r·H)``:
                                                    ``a ↔ c2``, ``b ↔ c1``
the shuffled list ``e′`` and its randomness ``r′``  ``after`` and ``scalars``, written ``ẽ`` and ``r̃``
(GenProof(e, e′, r′, ψ, pk)), ``ψ = (j_1..j_N)``    below (``r'`` is the scalar Σ of Alg. 4.3):
                                                    ``after[i] = before[order[i]] + (s_i·B, s_i·H)``,
                                                    ``ψ = order``, ``s_i = scalars[i]`` re-encrypts
                                                    input ``j_i`` into output ``i``
``h``, ``h_1..h_N`` (independent generators)         :func:`_generators`: ``from_uniform`` of hashes
``Hash((e, ẽ, c), i)``, ``Hash(y, t)``               :func:`_challenges`, :func:`_challenge`
=================================================  ==================================================

(The paper counts from 1, Python from 0: ``h_i`` is ``gens[i]`` with ``gens[0] = h``, and the
``i``-th entry of the other vectors is at index ``i − 1``.) The algorithms reach the group and
the hashes through one object (:class:`_Ops`), so that the tests run them unchanged over the
small group of the CHVote proof of concept's hand-worked example and get every value of its proof
and of its check.

What it proves: that the prover knows a permutation ``ψ`` and scalars ``s_i`` with ``after[i] =
before[ψ(i)] + (s_i·B, s_i·H)`` for every ``i``; the output holds the same cards as the input,
none dropped, added or copied, and the proof tells nothing about ``ψ`` (zero-knowledge). It is
sound under the discrete logarithm assumption in the group, as long as nobody knows a relation
between ``B``, ``h`` and ``h_1..h_N``: they are points of ``from_uniform`` over domain-separated
hashes of their index, so nobody knows their logarithms.

Fiat–Shamir: the ``u_i`` of [HLKD17, Alg. 4.3 and 4.6] hash the statement (the caller's
``context``, ``B``, the joint key, both decks) with the permutation commitment ``c`` and the index
``i``; the challenge ``c`` hashes the same statement with ``c``, the commitment chain ``ĉ`` and
every t-value. ``context`` names the game, the deck and the dealer (:func:`shuffle_context`): a
proof holds for that shuffle only.

The proof is the paper's ``π = (t, s, c, ĉ)``, in that order, as fixed-size values (points and
scalars of 32 bytes): ``t = (t1, t2, t3, t4,1, t4,2, t̂_1..t̂_N)``, ``s = (s1, s2, s3, s4, ŝ_1..ŝ_N,
s'_1..s'_N)``, ``c = (c_1..c_N)``, ``ĉ = (ĉ_1..ĉ_N)``: :func:`proof_size` is ``32·(9 + 5N)``
bytes (9 088 for a deck of 55 cards, 12 768 for 78). It is parsed strictly: every point a
canonical encoding of a point of the prime-order group other than the identity, every scalar
canonical and non-zero (the prover draws again in the 2^-250 case that an honest value is not).

The prover's randomness comes from the OS (``os.urandom``): a proof is not deterministic, and
two proofs of one shuffle differ.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from nacl import bindings as _na

from koryo_pbm.crypto.blind import (
    _BASE,
    POINT_SIZE,
    SCALAR_SIZE,
    BlindCheckError,
    Ciphertext,
    Deck,
    _add,
    _base,
    _framed,
    _group_errors,
    _hash_to_scalar,
    _is_point,
    _is_scalar,
    _is_zero,
    _mul,
    _random_scalar,
    _sub,
    _text,
    deck_to_bytes,
)
from koryo_pbm.errors import FormatError

__all__ = ["MAX_CARDS", "check_shuffle", "proof_size", "prove_shuffle", "shuffle_context"]

_VERSION = b"koryo-pbm shuffle proof v1\x00"
#: the independent generators h (index 0) and h_1..h_N (index i)
_TAG_GENERATOR = _VERSION + b"generator\x00"
#: what a proof is bound to: game, deck, dealer
_TAG_CONTEXT = _VERSION + b"context\x00"
#: the statement: context, B, the joint key, the deck before and the deck after
_TAG_STATEMENT = _VERSION + b"statement\x00"
#: u_i = Hash((e, ẽ, c), i) [HLKD17, Alg. 4.3 and 4.6]: the digest of (e, ẽ, c), then each u_i
_TAG_U_TRANSCRIPT = _VERSION + b"challenges u transcript\x00"
_TAG_U = _VERSION + b"challenge u_i\x00"
#: c = Hash(y, t) [HLKD17, Alg. 4.3 and 4.6]
_TAG_CHALLENGE = _VERSION + b"challenge c\x00"

#: the largest deck a proof is made or checked for (a 4-byte index in the hashes; far above any game)
MAX_CARDS = 1 << 16


def proof_size(n: int) -> int:
    """The size in bytes of the proof of a shuffle of ``n`` cards: ``(5 + 3n)`` points (t1, t2,
    t3, t4,1, t4,2; t̂, c, ĉ) and ``(4 + 2n)`` scalars (s1..s4; ŝ, s'), 32 bytes each."""
    if not isinstance(n, int) or not 1 <= n <= MAX_CARDS:
        raise FormatError(f"a shuffle proof is for 1 to {MAX_CARDS} cards, not {n!r}")
    return POINT_SIZE * (5 + 3 * n) + SCALAR_SIZE * (4 + 2 * n)


def shuffle_context(game_id: str, deck_id: str, dealer: str) -> bytes:
    """What a proof is bound to: the shuffle of ``deck_id`` by ``dealer`` in ``game_id``. A proof
    checked under any other context (another game, deck or dealer) does not check."""
    for what, value in (("game id", game_id), ("deck id", deck_id), ("dealer", dealer)):
        if not isinstance(value, str) or not value:
            raise FormatError(f"a shuffle proof's context needs a {what}, not {value!r}")
    return _TAG_CONTEXT + _text(game_id) + _text(deck_id) + _text(dealer)


# ---------------------------------------------------------------- generators and challenges


@functools.lru_cache(maxsize=2048)
def _generator(index: int) -> bytes:
    """``h`` (index 0) or ``h_index``: ``from_uniform`` of a domain-separated SHA-512 of the
    index (and a counter, raised in the 2^-250 case that the point is the identity)."""
    counter = 0
    while True:
        digest = hashlib.sha512(_TAG_GENERATOR + index.to_bytes(4, "big") + counter.to_bytes(4, "big")).digest()
        point = _na.crypto_core_ed25519_from_uniform(digest[:32])
        if _is_point(point):
            return point
        counter += 1  # pragma: no cover - probability 2^-250


def _generators(n: int) -> tuple[bytes, ...]:
    """``(h, h_1, ..., h_n)``, the same for every proof of ``n`` cards (GetGenerators)."""
    return tuple(_generator(i) for i in range(n + 1))


def _statement(context: bytes, joint: bytes, before: Deck, after: Deck) -> bytes:
    """A digest of what is proven and for what: the caller's context, ``g = B``, ``pk = H``,
    ``e`` and ``ẽ``."""
    parts = (context, _BASE, joint, deck_to_bytes(before), deck_to_bytes(after))
    return hashlib.sha512(_TAG_STATEMENT + b"".join(_framed(p) for p in parts)).digest()


def _challenges(statement: bytes, commitment: Sequence[bytes]) -> list[bytes]:
    """``u_i ← Hash((e, ẽ, c), i)`` for ``i = 1..N`` [HLKD17, Alg. 4.3 and 4.6], the statement
    also binding ``pk`` and the context."""
    prefix = hashlib.sha512(_TAG_U_TRANSCRIPT + _framed(statement) + _framed(b"".join(commitment))).digest()
    return [_hash_to_scalar(_TAG_U, prefix, i.to_bytes(4, "big")) for i in range(1, len(commitment) + 1)]


def _challenge(statement: bytes, commitment: Sequence[bytes], chain: Sequence[bytes], t: Sequence[bytes]) -> bytes:
    """``c ← Hash(y, t)`` with ``y = (e, ẽ, c, ĉ, pk)`` [HLKD17, Alg. 4.3 and 4.6], the statement
    also binding the context; ``t = (t1, t2, t3, t4,1, t4,2, t̂_1..t̂_N)``."""
    return _hash_to_scalar(_TAG_CHALLENGE, statement, b"".join(commitment), b"".join(chain), b"".join(t))


# ---------------------------------------------------------------- the group and the hashes


class _Ops:
    """What the algorithms below do with group elements, scalars and hashes: here Ed25519 through
    libsodium, every call one libsodium function. (The tests run the same algorithms over the
    small multiplicative group of a published worked example, through a subclass, to compare
    them with it value by value.)"""

    one = (1).to_bytes(SCALAR_SIZE, "little")

    def add(self, p: bytes, q: bytes) -> bytes:  # x·y
        return _add(p, q)

    def sub(self, p: bytes, q: bytes) -> bytes:  # x/y
        return _sub(p, q)

    def mul(self, k: bytes, p: bytes) -> bytes:  # x^k
        return _mul(k, p)

    def base(self, k: bytes) -> bytes:  # g^k
        return _base(k)

    def sadd(self, x: bytes, y: bytes) -> bytes:  # x + y mod q
        return _na.crypto_core_ed25519_scalar_add(x, y)

    def smul(self, x: bytes, y: bytes) -> bytes:  # x·y mod q
        return _na.crypto_core_ed25519_scalar_mul(x, y)

    def random_scalar(self) -> bytes:  # ∈_R Z_q
        return _random_scalar()

    def generators(self, n: int) -> tuple[bytes, ...]:  # (h, h_1..h_N)
        return _generators(n)

    def statement(self, context: bytes, pk: bytes, e: Deck, e_tilde: Deck) -> bytes:
        return _statement(context, pk, e, e_tilde)

    def challenges(self, statement: bytes, c: Sequence[bytes]) -> list[bytes]:
        return _challenges(statement, c)

    def challenge(self, statement: bytes, c: Sequence[bytes], c_hat: Sequence[bytes], t: Sequence[bytes]) -> bytes:
        return _challenge(statement, c, c_hat, t)

    def total(self, points: Sequence[bytes]) -> bytes:
        """``Π x_i``: the sum of ``points`` (at least one)."""
        result = points[0]
        for point in points[1:]:
            result = self.add(result, point)
        return result

    def weighted(self, scalars: Sequence[bytes], points: Sequence[bytes]) -> bytes:
        """``Π x_i^{k_i}``: ``Σ k_i·X_i``."""
        return self.total([self.mul(k, p) for k, p in zip(scalars, points, strict=True)])

    def scalar_sum(self, scalars: Sequence[bytes]) -> bytes:
        """``Σ x_i mod q``."""
        result = scalars[0]
        for x in scalars[1:]:
            result = self.sadd(result, x)
        return result

    def scalar_dot(self, xs: Sequence[bytes], ys: Sequence[bytes]) -> bytes:
        """``Σ x_i·y_i mod q``."""
        return self.scalar_sum([self.smul(x, y) for x, y in zip(xs, ys, strict=True)])


_ED25519 = _Ops()


# ---------------------------------------------------------------- the proof as bytes


@dataclass(frozen=True)
class _Proof:
    """``π = (t, s, c, ĉ)`` [HLKD17, Alg. 4.3, last line]."""

    t1: bytes
    t2: bytes
    t3: bytes
    t41: bytes
    t42: bytes
    t_hat: tuple[bytes, ...]
    s1: bytes
    s2: bytes
    s3: bytes
    s4: bytes
    s_hat: tuple[bytes, ...]
    s_prime: tuple[bytes, ...]
    c: tuple[bytes, ...]
    c_hat: tuple[bytes, ...]

    def t(self) -> tuple[bytes, ...]:
        return (self.t1, self.t2, self.t3, self.t41, self.t42, *self.t_hat)

    def points(self) -> tuple[bytes, ...]:
        return (*self.t(), *self.c, *self.c_hat)

    def scalars(self) -> tuple[bytes, ...]:
        return (self.s1, self.s2, self.s3, self.s4, *self.s_hat, *self.s_prime)

    def to_bytes(self) -> bytes:
        return b"".join((*self.t(), self.s1, self.s2, self.s3, self.s4, *self.s_hat, *self.s_prime,
                         *self.c, *self.c_hat))

    def well_formed(self) -> bool:
        return (all(_is_point(p) for p in self.points())
                and all(_is_scalar(s) and not _is_zero(s) for s in self.scalars()))


def _parse(data: bytes, n: int) -> _Proof:
    """The proof of a shuffle of ``n`` cards in ``data``, or ``FormatError`` naming the first bad
    value: the exact size, every point in the prime-order group, every scalar canonical."""
    size = proof_size(n)
    if not isinstance(data, bytes) or len(data) != size:
        got = len(data) if isinstance(data, bytes) else type(data).__name__
        raise FormatError(f"a shuffle proof of {n} cards is {size} bytes, not {got}")
    values = [data[i:i + 32] for i in range(0, size, 32)]
    names = (["t1", "t2", "t3", "t4,1", "t4,2"] + [f"t̂_{i}" for i in range(1, n + 1)]
             + ["s1", "s2", "s3", "s4"] + [f"ŝ_{i}" for i in range(1, n + 1)] + [f"s'_{i}" for i in range(1, n + 1)]
             + [f"c_{i}" for i in range(1, n + 1)] + [f"ĉ_{i}" for i in range(1, n + 1)])
    points = set(range(5 + n)) | set(range(5 + 3 * n + 4, len(values)))
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        if i in points:
            if not _is_point(value):
                raise FormatError(f"the shuffle proof's {name} is not a point of the group")
        elif not _is_scalar(value) or _is_zero(value):
            raise FormatError(f"the shuffle proof's {name} is not a canonical non-zero scalar")
    t, rest = values[:5 + n], values[5 + n:]
    s, rest = rest[:4 + 2 * n], rest[4 + 2 * n:]
    return _Proof(t1=t[0], t2=t[1], t3=t[2], t41=t[3], t42=t[4], t_hat=tuple(t[5:]),
                  s1=s[0], s2=s[1], s3=s[2], s4=s[3], s_hat=tuple(s[4:4 + n]), s_prime=tuple(s[4 + n:]),
                  c=tuple(rest[:n]), c_hat=tuple(rest[n:]))


def _size(before: Deck, after: Deck) -> int:
    n = len(before)
    if not 1 <= n <= MAX_CARDS:
        raise FormatError(f"a shuffle proof is for 1 to {MAX_CARDS} cards, not {n}")
    if len(after) != n:
        raise BlindCheckError(f"the shuffled deck has {len(after)} cards where its input has {n}")
    for deck in (before, after):
        if not all(isinstance(card, Ciphertext) for card in deck):
            raise FormatError("a deck holds something that is not a ciphertext")
    return n


# ---------------------------------------------------------------- GenProof [HLKD17, Alg. 4.3]


def prove_shuffle(before: Deck, after: Deck, joint: bytes, order: Sequence[int], scalars: Sequence[bytes], *,
                  context: bytes) -> bytes:
    """The proof that ``after`` is ``before`` permuted by ``order`` and re-encrypted by
    ``scalars`` under ``joint``: ``after[i] == before[order[i]] + (scalars[i]·B, scalars[i]·H)``,
    the convention of :func:`koryo_pbm.crypto.blind.shuffle` and ``shuffle_plan``.

    Bound to ``context`` (:func:`shuffle_context`). The claim is not checked here (that would
    cost a shuffle): a false one gives a proof that does not check. ``FormatError`` when the
    inputs are not a shuffle plan of the deck's size."""
    n = _size(before, after)
    if not _is_point(joint):
        raise FormatError("the joint key is not a point of the group")
    if not isinstance(context, bytes):
        raise FormatError("a shuffle proof's context is bytes")
    psi = list(order)
    if len(psi) != n or not all(type(j) is int for j in psi) or sorted(psi) != list(range(n)):
        raise FormatError(f"the claimed order is not a permutation of {n} positions")
    r_tilde = list(scalars)
    if len(r_tilde) != n or not all(_is_scalar(r) for r in r_tilde):
        raise FormatError(f"the claimed re-encryption needs {n} canonical scalars")
    with _group_errors("a deck of the shuffle holds something that is not a point of the group"):
        for _ in range(8):  # a value that is the identity or zero: probability 2^-250 each time
            proof = _gen_proof(before, after, joint, psi, r_tilde, context)
            if proof.well_formed():
                return proof.to_bytes()
    raise FormatError("the shuffle proof could not be made")  # pragma: no cover


def _gen_proof(e: Deck, e_tilde: Deck, pk: bytes, psi: Sequence[int], r_tilde: Sequence[bytes],
               context: bytes, g: _Ops = _ED25519) -> _Proof:
    """[HLKD17, Alg. 4.3] GenProof(e, e′, r′, ψ, pk), line by line, with ``ẽ = e′`` and ``r̃ =
    r′`` (the module's docstring). ``r_tilde[i]`` re-encrypts input ``j_i`` into output ``i``
    (``blind.shuffle_plan``'s order); the weighted sum ``r'`` gives each the ``u`` of its input."""
    n = len(e)
    gens = g.generators(n)  # h ← GetGenerators(N)
    h, hs = gens[0], gens[1:]
    c, r = _gen_permutation_commitment(psi, hs, g)  # (c, r) ← GenPermutationCommitment(ψ, h)
    statement = g.statement(context, pk, e, e_tilde)
    u = g.challenges(statement, c)  # for i = 1..N: u_i ← Hash((e, ẽ, c), i)
    u_tilde = [u[psi[i]] for i in range(n)]  # ũ ← (u_{j_1}, ..., u_{j_N})
    c_hat, r_hat = _gen_commitment_chain(h, u_tilde, g)  # (ĉ, r̂) ← GenCommitmentChain(h, ũ)

    r_bar = g.scalar_sum(r)  # r̄ ← Σ r_i
    v = [g.one] * n  # v_N ← 1; for i = N−1..1: v_i ← ũ_{i+1} v_{i+1}
    for i in range(n - 2, -1, -1):
        v[i] = g.smul(u_tilde[i + 1], v[i + 1])
    r_hat_sum = g.scalar_dot(r_hat, v)  # r̂ ← Σ r̂_i v_i
    r_til = g.scalar_dot(r, u)  # r̃ ← Σ r_i u_i (the permutation commitment's randomness)
    r_prime = g.scalar_dot(r_tilde, u_tilde)  # r' ← Σ (randomness of input j)·u_j = Σ_i r̃_i ũ_i

    w1, w2, w3, w4 = (g.random_scalar() for _ in range(4))  # ω_1, ω_2, ω_3, ω_4 ∈_R Z_q
    w_hat: list[bytes] = []
    w_prime: list[bytes] = []
    for _ in range(n):  # for i = 1..N: ω̂_i ∈_R Z_q, ω'_i ∈_R Z_q
        w_hat.append(g.random_scalar())
        w_prime.append(g.random_scalar())
    t1 = g.base(w1)  # t_1 ← g^{ω_1}
    t2 = g.base(w2)  # t_2 ← g^{ω_2}
    t3 = g.add(g.base(w3), g.weighted(w_prime, hs))  # t_3 ← g^{ω_3} Π h_i^{ω'_i}
    # t_4,1 ← pk^{−ω_4} Π ã_i^{ω'_i};  t_4,2 ← g^{−ω_4} Π b̃_i^{ω'_i}   (a ↔ c2, b ↔ c1)
    t41 = g.sub(g.weighted(w_prime, [x.c2 for x in e_tilde]), g.mul(w4, pk))
    t42 = g.sub(g.weighted(w_prime, [x.c1 for x in e_tilde]), g.base(w4))
    chain = [h, *c_hat]  # ĉ_0 ← h
    # for i = 1..N: t̂_i ← g^{ω̂_i} ĉ_{i−1}^{ω'_i}
    t_hat = [g.add(g.base(w_hat[i]), g.mul(w_prime[i], chain[i])) for i in range(n)]

    t = [t1, t2, t3, t41, t42, *t_hat]
    ch = g.challenge(statement, c, c_hat, t)  # y ← (e, ẽ, c, ĉ, pk); c ← Hash(y, t)
    s1 = g.sadd(w1, g.smul(ch, r_bar))  # s_1 ← ω_1 + c·r̄
    s2 = g.sadd(w2, g.smul(ch, r_hat_sum))  # s_2 ← ω_2 + c·r̂
    s3 = g.sadd(w3, g.smul(ch, r_til))  # s_3 ← ω_3 + c·r̃
    s4 = g.sadd(w4, g.smul(ch, r_prime))  # s_4 ← ω_4 + c·r'
    s_hat = tuple(g.sadd(w_hat[i], g.smul(ch, r_hat[i])) for i in range(n))  # ŝ_i ← ω̂_i + c·r̂_i
    s_prime = tuple(g.sadd(w_prime[i], g.smul(ch, u_tilde[i])) for i in range(n))  # s'_i ← ω'_i + c·ũ_i
    # π ← (t, s, c, ĉ)
    return _Proof(t1, t2, t3, t41, t42, tuple(t_hat), s1, s2, s3, s4, s_hat, s_prime, tuple(c), tuple(c_hat))


def _gen_permutation_commitment(psi: Sequence[int], hs: Sequence[bytes], g: _Ops) -> tuple[list[bytes], list[bytes]]:
    """[HLKD17, Alg. 4.4] GenPermutationCommitment(ψ, h): for i = 1..N, r_{j_i} ∈_R Z_q and
    c_{j_i} ← g^{r_{j_i}} h_i (a Pedersen commitment to each column of ψ's matrix)."""
    n = len(psi)
    r = [b""] * n
    c = [b""] * n
    for i in range(n):
        j = psi[i]
        r[j] = g.random_scalar()
        c[j] = g.add(g.base(r[j]), hs[i])
    return c, r


def _gen_commitment_chain(c0: bytes, u_tilde: Sequence[bytes], g: _Ops) -> tuple[list[bytes], list[bytes]]:
    """[HLKD17, Alg. 4.5] GenCommitmentChain(ĉ_0, ũ): for i = 1..N, r̂_i ∈_R Z_q and
    ĉ_i ← g^{r̂_i} ĉ_{i−1}^{ũ_i}."""
    c_hat: list[bytes] = []
    r_hat: list[bytes] = []
    previous = c0
    for u in u_tilde:
        r_hat.append(g.random_scalar())
        previous = g.add(g.base(r_hat[-1]), g.mul(u, previous))
        c_hat.append(previous)
    return c_hat, r_hat


# ---------------------------------------------------------------- CheckProof [HLKD17, Alg. 4.6]


def check_shuffle(before: Deck, after: Deck, joint: bytes, proof: bytes, *, context: bytes) -> None:
    """``BlindCheckError`` (a one-line reason) unless ``proof`` shows that ``after`` is a
    permutation and re-encryption of ``before`` under ``joint``, for ``context``;
    ``FormatError`` when the proof is malformed (size, a point or a scalar)."""
    n = _size(before, after)
    if not _is_point(joint):
        raise FormatError("the joint key is not a point of the group")
    if not isinstance(context, bytes):
        raise FormatError("a shuffle proof's context is bytes")
    pi = _parse(proof, n)  # (t, s, c, ĉ) ← π
    with _group_errors("the shuffle proof does not check (a value is the identity or no point of the group)",
                       BlindCheckError):
        failed = _check_proof(pi, before, after, joint, context)
    if failed:
        raise BlindCheckError(f"the shuffle proof does not check ({failed}): the deck is not shown to be "
                              "a permutation and re-encryption of its input")


_T_NAMES = ("t1", "t2", "t3", "t4,1", "t4,2")


def _check_proof(pi: _Proof, e: Deck, e_tilde: Deck, pk: bytes, context: bytes, g: _Ops = _ED25519) -> str | None:
    """[HLKD17, Alg. 4.6] CheckProof(π, e, ẽ, pk): None when every ``t_i = t'_i``, else the
    name of the first that differs."""
    for i, (t, t_prime) in enumerate(zip(pi.t(), _t_prime(pi, e, e_tilde, pk, context, g), strict=True)):
        if t != t_prime:
            return _T_NAMES[i] if i < 5 else f"t̂_{i - 4}"
    return None


def _t_prime(pi: _Proof, e: Deck, e_tilde: Deck, pk: bytes, context: bytes, g: _Ops) -> list[bytes]:
    """[HLKD17, Alg. 4.6] CheckProof, line by line up to its last: the verifier's
    ``t' = (t'_1, t'_2, t'_3, t'_4,1, t'_4,2, t̂'_1..t̂'_N)``."""
    n = len(e)
    gens = g.generators(n)  # h ← GetGenerators(N)
    h, hs = gens[0], gens[1:]
    c, c_hat = pi.c, pi.c_hat
    statement = g.statement(context, pk, e, e_tilde)
    u = g.challenges(statement, c)  # for i = 1..N: u_i ← Hash((e, ẽ, c), i)
    ch = g.challenge(statement, c, c_hat, pi.t())  # y ← (e, ẽ, c, ĉ, pk); c ← Hash(y, t)

    c_bar = g.sub(g.total(c), g.total(hs))  # c̄ ← Π c_i / Π h_i
    u_prod = u[0]  # u ← Π u_i
    for ui in u[1:]:
        u_prod = g.smul(u_prod, ui)
    c_hat_bar = g.sub(c_hat[-1], g.mul(u_prod, h))  # ĉ ← ĉ_N / h^u
    c_til = g.weighted(u, c)  # c̃ ← Π c_i^{u_i}
    a_prime = g.weighted(u, [x.c2 for x in e])  # a' ← Π a_i^{u_i}
    b_prime = g.weighted(u, [x.c1 for x in e])  # b' ← Π b_i^{u_i}

    t1 = g.sub(g.base(pi.s1), g.mul(ch, c_bar))  # t'_1 ← c̄^{−c} g^{s_1}
    t2 = g.sub(g.base(pi.s2), g.mul(ch, c_hat_bar))  # t'_2 ← ĉ^{−c} g^{s_2}
    t3 = g.sub(g.add(g.base(pi.s3), g.weighted(pi.s_prime, hs)), g.mul(ch, c_til))  # t'_3 ← c̃^{−c} g^{s_3} Π h_i^{s'_i}
    # t'_4,1 ← a'^{−c} pk^{−s_4} Π ã_i^{s'_i}
    t41 = g.sub(g.sub(g.weighted(pi.s_prime, [x.c2 for x in e_tilde]), g.mul(pi.s4, pk)), g.mul(ch, a_prime))
    # t'_4,2 ← b'^{−c} g^{−s_4} Π b̃_i^{s'_i}
    t42 = g.sub(g.sub(g.weighted(pi.s_prime, [x.c1 for x in e_tilde]), g.base(pi.s4)), g.mul(ch, b_prime))
    chain = [h, *c_hat]  # ĉ_0 ← h
    # for i = 1..N: t̂'_i ← ĉ_i^{−c} g^{ŝ_i} ĉ_{i−1}^{s'_i}
    t_hat = [g.sub(g.add(g.base(pi.s_hat[i]), g.mul(pi.s_prime[i], chain[i])), g.mul(ch, chain[i + 1]))
             for i in range(n)]
    return [t1, t2, t3, t41, t42, *t_hat]
