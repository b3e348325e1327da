"""The blind table: dealing cards that no single party can see (mental poker, two dealers).

ElGamal over the prime-order group of Ed25519, every group operation from libsodium through
PyNaCl (``crypto_core_ed25519_*``, ``crypto_scalarmult_ed25519_*_noclamp``); no curve code here.
This module is pure cryptography: it knows no game and no file. See ``docs/blind-table.md``.

* Cards. A card id is a point of the group: ``from_uniform`` over a domain-separated SHA-512 of
  the id (:func:`card_point`); a :class:`CardTable` maps points back to ids.
* Keys. Each dealer holds a secret scalar (its key share) and publishes its public point with a
  Schnorr proof of knowledge bound to the game and its name (:func:`publish_key`); the joint key
  is the sum of the public points (:func:`joint_key`), refused unless every proof checks, so no
  dealer can choose its point to cancel another's (a rogue key).
* The deck. The cards are put in ElGamal form under the joint key with the public randomness 1
  (:func:`encrypt_deck`: anyone can recompute it); each dealer in turn permutes and
  re-randomises it (:func:`shuffle`), from a 32-byte seed that it keeps secret until the
  end-of-game audit (a game derives it, :func:`derived_seed`, bound to what is shuffled). Each
  shuffle is proven when it is made by :mod:`koryo_pbm.crypto.shuffle` (a zero-knowledge proof
  that it is a permutation and re-encryption of its input); the audit recomputes it from the
  published seed.
* Dealing. For the card at a position, each dealer computes its decryption share with a
  Chaum-Pedersen proof that it used its key share (:func:`decryption_share`), bound to the game,
  the deck, the position, the recipient and the ciphertext. The recipient checks every share and
  combines them (:func:`open_card`); one share alone leaves the card encrypted under the other
  dealer's key.
* Reveals. A card shown with all shares is checked by anyone (:func:`check_reveal`).
* The audit. At the end the dealers publish their key shares and shuffle seeds; :func:`audit`
  recomputes every deck, deal and reveal and names the first thing that does not check.

Every value is a fixed-size byte string: points and scalars 32 bytes, proofs 64 (challenge and
response), ciphertexts 64. Data from outside enters through the ``from_bytes`` parsers, which
refuse anything that is not a point of the prime-order group (identity and small-order points
included) or not a canonical scalar.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from nacl import bindings as _na
from nacl import exceptions as _nacl_exc

from koryo_pbm.errors import FormatError, TamperedError

POINT_SIZE = 32
SCALAR_SIZE = 32
PROOF_SIZE = 64
CIPHERTEXT_SIZE = 2 * POINT_SIZE
SHARE_SIZE = POINT_SIZE + PROOF_SIZE
SEED_SIZE = 32

_VERSION = b"koryo-pbm blind v1\x00"
_TAG_CARD = _VERSION + b"card\x00"
_TAG_KEY = _VERSION + b"key share proof\x00"
_TAG_SHARE = _VERSION + b"decryption share proof\x00"
_TAG_SHUFFLE = _VERSION + b"shuffle\x00"
_ONE = (1).to_bytes(SCALAR_SIZE, "little")
_BASE = _na.crypto_scalarmult_ed25519_base_noclamp(_ONE)


class BlindCheckError(TamperedError):
    """A key, share, proof, shuffle or reveal of a blind table that does not check.
    ``str(e)`` names it in one line."""


# ---------------------------------------------------------------- the group, through libsodium


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def _text(value: str) -> bytes:
    return _framed(value.encode("utf-8"))


def _hash_to_scalar(tag: bytes, *parts: bytes) -> bytes:
    digest = hashlib.sha512(tag + b"".join(_framed(p) for p in parts)).digest()
    return _na.crypto_core_ed25519_scalar_reduce(digest)


def _is_zero(scalar: bytes) -> bool:
    return scalar == bytes(SCALAR_SIZE)


def _random_scalar() -> bytes:
    """A uniform non-zero scalar from 64 bytes of the OS's randomness, reduced mod the group order."""
    while True:
        s = _na.crypto_core_ed25519_scalar_reduce(os.urandom(64))
        if not _is_zero(s):
            return s


def _is_point(data: object) -> bool:
    return (isinstance(data, bytes) and len(data) == POINT_SIZE
            and _na.crypto_core_ed25519_is_valid_point(data))


def _is_scalar(data: object) -> bool:
    """A canonical encoding (less than the group order)."""
    return (isinstance(data, bytes) and len(data) == SCALAR_SIZE
            and _na.crypto_core_ed25519_scalar_reduce(data + bytes(32)) == data)


def _base(scalar: bytes) -> bytes:
    return _na.crypto_scalarmult_ed25519_base_noclamp(scalar)


def _mul(scalar: bytes, point: bytes) -> bytes:
    return _na.crypto_scalarmult_ed25519_noclamp(scalar, point)


def _add(p: bytes, q: bytes) -> bytes:
    return _na.crypto_core_ed25519_add(p, q)


def _sub(p: bytes, q: bytes) -> bytes:
    return _na.crypto_core_ed25519_sub(p, q)


@contextmanager
def _group_errors(reason: str, error: type[Exception] = FormatError) -> Iterator[None]:
    """libsodium refuses what is not a point of the group (or not 32 bytes): that is ``error``
    with ``reason``, never a traceback."""
    try:
        yield
    except (_nacl_exc.RuntimeError, _nacl_exc.TypeError, _nacl_exc.ValueError):
        raise error(reason) from None


def parse_point(data: bytes, what: str) -> bytes:
    """``data`` if it is a point of the prime-order group, else ``FormatError`` naming ``what``."""
    if not _is_point(data):
        raise FormatError(f"{what} is not a point of the group")
    return data


def parse_scalar(data: bytes, what: str) -> bytes:
    """``data`` if it is a canonical non-zero scalar, else ``FormatError`` naming ``what``."""
    if not _is_scalar(data) or _is_zero(data):
        raise FormatError(f"{what} is not a scalar of the group")
    return data


# ---------------------------------------------------------------- cards


def card_point(card: str) -> bytes:
    """The point that stands for the card id ``card`` (the same for every copy of it)."""
    if not isinstance(card, str) or not card:
        raise FormatError(f"invalid card id {card!r}")
    uniform = hashlib.sha512(_TAG_CARD + _text(card)).digest()[:32]
    return _na.crypto_core_ed25519_from_uniform(uniform)


class CardTable:
    """The card ids a deck may hold, and the way back from a point to its id."""

    def __init__(self, cards: Iterable[str]):
        self._by_point: dict[bytes, str] = {}
        for card in cards:
            point = card_point(card)
            other = self._by_point.setdefault(point, card)
            if other != card:  # pragma: no cover - a SHA-512 collision
                raise FormatError(f"cards {other!r} and {card!r} have the same point")

    def card(self, point: bytes) -> str | None:
        """The id of the card ``point`` stands for, or None when it is no card of this table."""
        return self._by_point.get(point)

    def __contains__(self, card: object) -> bool:
        return isinstance(card, str) and bool(card) and card_point(card) in self._by_point


# ---------------------------------------------------------------- keys


def _key_challenge(game_id: str, dealer: str, public: bytes, commitment: bytes) -> bytes:
    return _hash_to_scalar(_TAG_KEY, game_id.encode(), dealer.encode(), _BASE, public, commitment)


@dataclass(frozen=True)
class KeyShare:
    """A dealer's secret: a scalar. Never published before the end-of-game audit (nor in a repr)."""

    secret: bytes = field(repr=False)

    @classmethod
    def generate(cls) -> KeyShare:
        return cls(_random_scalar())

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "a key share") -> KeyShare:
        return cls(parse_scalar(data, what))

    @property
    def public(self) -> bytes:
        return _base(self.secret)


@dataclass(frozen=True)
class DealerKey:
    """What a dealer publishes at the start: its name, its public point and a Schnorr proof
    (challenge, response) that it knows the scalar behind it, bound to the game and the name."""

    name: str
    public: bytes
    proof: bytes

    @classmethod
    def from_bytes(cls, name: str, public: bytes, proof: bytes) -> DealerKey:
        if not isinstance(proof, bytes) or len(proof) != PROOF_SIZE:
            raise FormatError(f"{name}'s key proof is not {PROOF_SIZE} bytes")
        return cls(name, parse_point(public, f"{name}'s public key share"), proof)


_TAG_NONCE = _VERSION + b"nonce\x00"
_TAG_DERIVE = _VERSION + b"derived secret\x00"


def _nonce(nonce_key: bytes | None, counter: int, *parts: bytes) -> bytes:
    """A proof's nonce: fresh from the OS, or, given a dealer's ``nonce_key``, derived from it and
    what the proof is about as Ed25519 derives its nonces (RFC 8032: a hash of a secret prefix
    and the message), so that a dealer whose secrets derive from a committed seed can be replayed
    exactly."""
    if nonce_key is None:
        return _random_scalar()
    s = _hash_to_scalar(_TAG_NONCE, nonce_key, counter.to_bytes(4, "big"), *parts)
    return s if not _is_zero(s) else _random_scalar()


def derive_secret(secret: bytes, purpose: str, *parts: str) -> bytes:
    """64 bytes derived from a dealer's long-term ``secret`` with HKDF-SHA512 (``cryptography``),
    bound to ``purpose`` and ``parts`` (game id, deck id, dealer): a dealer that keeps no state
    derives its key share and shuffle seeds again on any machine holding its secret."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    info = _TAG_DERIVE + b"".join(_framed(_text(x)) for x in (purpose, *parts))
    return HKDF(algorithm=hashes.SHA512(), length=64, salt=None, info=info).derive(secret)


def derived_key_share(secret: bytes, game_id: str, dealer: str) -> KeyShare:
    return KeyShare(_na.crypto_core_ed25519_scalar_reduce(derive_secret(secret, "key share", game_id, dealer)))


def derived_seed(secret: bytes, game_id: str, deck_id: str, dealer: str, *bound: bytes) -> bytes:
    """A dealer's shuffle seed of ``deck_id``. ``bound``: digests of what the shuffle is made on
    (its input deck, and whatever else fixes it), so that the same secret and deck id on another
    input give an unrelated permutation: a dealer asked twice under one deck id (a second history
    of the game) gives nothing away. Without ``bound``: the first version's derivation, kept to
    audit the games it dealt."""
    if not bound:
        return derive_secret(secret, "shuffle seed", game_id, deck_id, dealer)[:SEED_SIZE]
    return derive_secret(secret, "bound shuffle seed", game_id, deck_id, dealer, *(b.hex() for b in bound))[:SEED_SIZE]


def deck_digest(deck: Deck) -> bytes:
    """SHA-256 of a deck's bytes: what a bound shuffle seed (:func:`derived_seed`) is derived from."""
    return hashlib.sha256(deck_to_bytes(deck)).digest()


def publish_key(game_id: str, dealer: str, share: KeyShare, *, nonce_key: bytes | None = None) -> DealerKey:
    """The public half of ``share`` with its proof of knowledge for ``game_id``."""
    public = share.public
    counter = 0
    while True:
        counter += 1
        nonce = _nonce(nonce_key, counter, share.secret, game_id.encode(), dealer.encode())
        commitment = _base(nonce)
        c = _key_challenge(game_id, dealer, public, commitment)
        z = _na.crypto_core_ed25519_scalar_add(nonce, _na.crypto_core_ed25519_scalar_mul(c, share.secret))
        if not _is_zero(c) and not _is_zero(z):  # else a 2^-252 accident: draw again
            return DealerKey(dealer, public, c + z)


def check_dealer_key(game_id: str, key: DealerKey) -> None:
    """``BlindCheckError`` unless ``key``'s proof shows its dealer knows its key share, for this game."""
    reason = f"{key.name}'s public key share has no valid proof of knowledge for this game"
    if not _is_point(key.public) or not isinstance(key.proof, bytes) or len(key.proof) != PROOF_SIZE:
        raise BlindCheckError(reason)
    c, z = key.proof[:32], key.proof[32:]
    if not _is_scalar(c) or not _is_scalar(z) or _is_zero(c) or _is_zero(z):
        raise BlindCheckError(reason)
    with _group_errors(reason, BlindCheckError):
        commitment = _sub(_base(z), _mul(c, key.public))
    if _key_challenge(game_id, key.name, key.public, commitment) != c:
        raise BlindCheckError(reason)


def joint_key(game_id: str, dealers: Sequence[DealerKey]) -> bytes:
    """The joint public key: the sum of the dealers' points, once every proof checks."""
    if len(dealers) < 2:
        raise BlindCheckError("a blind table needs at least two dealers")
    names = [d.name for d in dealers]
    if len(set(names)) != len(names):
        raise BlindCheckError("two dealers have the same name")
    if len({d.public for d in dealers}) != len(dealers):
        raise BlindCheckError("two dealers have the same public key share")
    total = None
    for dealer in dealers:
        check_dealer_key(game_id, dealer)
        total = dealer.public if total is None else _add(total, dealer.public)
    assert total is not None
    if not _is_point(total):  # the shares cancel out: only possible for someone who knows both
        raise BlindCheckError("the dealers' key shares add up to no usable key")
    return total


# ---------------------------------------------------------------- the deck


@dataclass(frozen=True)
class Ciphertext:
    """An ElGamal ciphertext ``(r·B, M + r·H)`` of a card point ``M`` under the joint key ``H``."""

    c1: bytes
    c2: bytes

    def to_bytes(self) -> bytes:
        return self.c1 + self.c2

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "a ciphertext") -> Ciphertext:
        if not isinstance(data, bytes) or len(data) != CIPHERTEXT_SIZE:
            raise FormatError(f"{what} is not {CIPHERTEXT_SIZE} bytes")
        return cls(parse_point(data[:32], what), parse_point(data[32:], what))


Deck = tuple[Ciphertext, ...]


def deck_to_bytes(deck: Deck) -> bytes:
    """A deck as one byte string: its ciphertexts in order, 64 bytes each."""
    return b"".join(card.to_bytes() for card in deck)


def deck_from_bytes(data: bytes, what: str = "a deck") -> Deck:
    """The inverse of :func:`deck_to_bytes`; ``FormatError`` naming the first bad card."""
    if not isinstance(data, bytes) or not data or len(data) % CIPHERTEXT_SIZE:
        raise FormatError(f"{what} is not a whole number of {CIPHERTEXT_SIZE}-byte ciphertexts")
    return tuple(Ciphertext.from_bytes(data[i:i + CIPHERTEXT_SIZE], f"card {i // CIPHERTEXT_SIZE} of {what}")
                 for i in range(0, len(data), CIPHERTEXT_SIZE))


def encrypt_deck(cards: Sequence[str], joint: bytes) -> Deck:
    """The cards in the given order, in ElGamal form with the public randomness 1: ``(B, M + H)``.
    Anyone can recompute it; the dealers' shuffles make it secret."""
    parse_point(joint, "the joint key")
    return tuple(Ciphertext(_BASE, _add(card_point(card), joint)) for card in cards)


def new_shuffle_seed() -> bytes:
    """A dealer's secret for one shuffle: 32 bytes from the OS."""
    return os.urandom(SEED_SIZE)


class _Stream:
    """The SHAKE-256 output of one input, read in order (longer outputs extend shorter ones)."""

    def __init__(self, data: bytes, expected: int):
        self._xof = hashlib.shake_256(data)
        self._length = max(expected, 64)
        self._buffer = self._xof.digest(self._length)
        self._offset = 0

    def read(self, size: int) -> bytes:
        while self._offset + size > self._length:
            self._length *= 2
            self._buffer = self._xof.digest(self._length)
        out = self._buffer[self._offset:self._offset + size]
        self._offset += size
        return out


#: the id of a game's deck when the game shuffles only once: messages and the log call it "the deck"
ONE_DECK = "deck"


def deck_name(deck_id: str) -> str:
    """A deck as a message names it: "deck round-3", and "the deck" for the one deck of a game
    that shuffles once, whose id is the word itself (never "deck deck")."""
    return "the deck" if deck_id == ONE_DECK else f"deck {deck_id}"


def shuffle_plan(seed: bytes, game_id: str, deck_id: str, dealer: str, size: int) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
    """The permutation and the re-randomisation scalars a seed stands for (SHAKE-256 of the
    seed and what it shuffles; a Fisher–Yates shuffle with rejection sampling, so uniform)."""
    if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
        raise FormatError(f"{dealer}'s shuffle seed of {deck_name(deck_id)} is not {SEED_SIZE} bytes")
    stream = _Stream(_TAG_SHUFFLE + b"".join(_framed(p) for p in (
        game_id.encode(), deck_id.encode(), dealer.encode(), size.to_bytes(4, "big"), seed)), size * 72)
    scalars = []
    for _ in range(size):
        s = _na.crypto_core_ed25519_scalar_reduce(stream.read(64))
        while _is_zero(s):  # pragma: no cover - probability 2^-252
            s = _na.crypto_core_ed25519_scalar_reduce(stream.read(64))
        scalars.append(s)
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            u = int.from_bytes(stream.read(4), "big")
            if u < limit:
                break
        j = u % bound
        order[i], order[j] = order[j], order[i]
    return tuple(order), tuple(scalars)


def shuffle(deck: Deck, joint: bytes, seed: bytes, *, game_id: str, deck_id: str, dealer: str) -> Deck:
    """``deck`` permuted and re-randomised as ``seed`` says: output ``i`` is input ``order[i]``
    plus ``(s_i·B, s_i·H)``, the same card under fresh randomness.

    ``deck`` comes from :func:`encrypt_deck`, :func:`shuffle` or :func:`deck_from_bytes` (which
    checks every point: not checked again here, it would cost more than the shuffle)."""
    parse_point(joint, "the joint key")
    order, scalars = shuffle_plan(seed, game_id, deck_id, dealer, len(deck))
    out = []
    with _group_errors(f"{deck_name(deck_id)} holds something that is not a point of the group"):
        for i, s in zip(order, scalars, strict=True):
            card = deck[i]
            out.append(Ciphertext(_add(card.c1, _base(s)), _add(card.c2, _mul(s, joint))))
    return tuple(out)


# ---------------------------------------------------------------- dealing


#: the recipient of a card turned up in public (dealt to nobody, shown to everybody): no seat's
#: name (a name begins with a letter or digit), so a share bound to it opens no player's card
PUBLIC = "*"


@dataclass(frozen=True)
class Slot:
    """Where a card is and whom it was dealt to (:data:`PUBLIC` for a card turned up for
    everybody): what every share proof is bound to."""

    game_id: str
    deck_id: str
    position: int
    recipient: str

    def __str__(self) -> str:
        whom = "turned up in public" if self.recipient == PUBLIC else f"dealt to {self.recipient}"
        return f"card {self.position} of {deck_name(self.deck_id)} ({whom})"

    def transcript(self) -> tuple[bytes, ...]:
        if not isinstance(self.position, int) or not 0 <= self.position < 1 << 32:
            raise FormatError(f"invalid card position {self.position!r}")
        return (self.game_id.encode(), self.deck_id.encode(), self.position.to_bytes(4, "big"), self.recipient.encode())


@dataclass(frozen=True)
class Share:
    """A dealer's decryption share ``x_j·C1`` of one card, with its Chaum-Pedersen proof
    (challenge, response) that the same ``x_j`` is behind the dealer's public point."""

    dealer: str
    point: bytes
    proof: bytes

    def to_bytes(self) -> bytes:
        return self.point + self.proof

    @classmethod
    def from_bytes(cls, dealer: str, data: bytes) -> Share:
        if not isinstance(data, bytes) or len(data) != SHARE_SIZE:
            raise FormatError(f"{dealer}'s decryption share is not {SHARE_SIZE} bytes")
        return cls(dealer, parse_point(data[:32], f"{dealer}'s decryption share"), data[32:])


def _share_challenge(slot: Slot, dealer: str, public: bytes, card: Ciphertext, share: bytes,
                     a1: bytes, a2: bytes) -> bytes:
    return _hash_to_scalar(_TAG_SHARE, *slot.transcript(), dealer.encode(), _BASE, public,
                           card.c1, card.c2, share, a1, a2)


def decryption_share(slot: Slot, card: Ciphertext, dealer: str, key: KeyShare, *,
                     nonce_key: bytes | None = None) -> Share:
    """Dealer ``dealer``'s share of ``card`` (at ``slot``) with its proof (nonces: see :func:`_nonce`)."""
    with _group_errors(f"{slot} is not a ciphertext of the group"):
        point = _mul(key.secret, card.c1)
    public = key.public
    counter = 0
    while True:
        counter += 1
        nonce = _nonce(nonce_key, counter, key.secret, *slot.transcript(), card.c1, card.c2)
        c = _share_challenge(slot, dealer, public, card, point, _base(nonce), _mul(nonce, card.c1))
        z = _na.crypto_core_ed25519_scalar_add(nonce, _na.crypto_core_ed25519_scalar_mul(c, key.secret))
        if not _is_zero(c) and not _is_zero(z):  # else a 2^-252 accident: draw again
            return Share(dealer, point, c + z)


def check_share(slot: Slot, card: Ciphertext, dealer: DealerKey, share: Share) -> None:
    """``BlindCheckError`` unless ``share`` is ``dealer``'s correct share of ``card`` at ``slot``."""
    reason = f"{dealer.name}'s share of {slot} does not check"
    if share.dealer != dealer.name:
        raise BlindCheckError(f"{slot} has {share.dealer}'s share where {dealer.name}'s was expected")
    if not _is_point(share.point) or not isinstance(share.proof, bytes) or len(share.proof) != PROOF_SIZE:
        raise BlindCheckError(reason)
    c, z = share.proof[:32], share.proof[32:]
    if not _is_scalar(c) or not _is_scalar(z) or _is_zero(c) or _is_zero(z):
        raise BlindCheckError(reason)
    with _group_errors(reason, BlindCheckError):
        a1 = _sub(_base(z), _mul(c, dealer.public))
        a2 = _sub(_mul(z, card.c1), _mul(c, share.point))
    if _share_challenge(slot, dealer.name, dealer.public, card, share.point, a1, a2) != c:
        raise BlindCheckError(reason)


def _combine(card: Ciphertext, points: Iterable[bytes]) -> bytes:
    m = card.c2
    for point in points:
        m = _sub(m, point)
    return m


def open_card(slot: Slot, card: Ciphertext, dealers: Sequence[DealerKey], shares: Sequence[Share],
              table: CardTable) -> str:
    """The card id at ``slot``: every dealer's share checked, then combined. ``BlindCheckError``
    naming the first share that does not check, or when the result is no card of ``table``."""
    if not _is_point(card.c1) or not _is_point(card.c2):
        raise BlindCheckError(f"{slot} is not a ciphertext of the group")
    by_dealer = {s.dealer: s for s in shares}
    if len(by_dealer) != len(shares):
        raise BlindCheckError(f"{slot} has two shares from the same dealer")
    for dealer in dealers:
        if dealer.name not in by_dealer:
            raise BlindCheckError(f"{slot} lacks {dealer.name}'s share")
        check_share(slot, card, dealer, by_dealer[dealer.name])
    extra = set(by_dealer) - {d.name for d in dealers}
    if extra:
        raise BlindCheckError(f"{slot} has a share from {sorted(extra)[0]}, who is no dealer")
    with _group_errors(f"{slot} is not a ciphertext of the group", BlindCheckError):
        found = table.card(_combine(card, (by_dealer[d.name].point for d in dealers)))
    if found is None:
        raise BlindCheckError(f"{slot} is no card of the deck: the dealers' shuffles are at fault")
    return found


def check_reveal(slot: Slot, card: Ciphertext, dealers: Sequence[DealerKey], shares: Sequence[Share],
                 table: CardTable, claimed: str) -> None:
    """``BlindCheckError`` unless the shares check and open ``card`` to ``claimed``: a public
    check, no secret needed."""
    found = open_card(slot, card, dealers, shares, table)
    if found != claimed:
        raise BlindCheckError(f"{slot} is shown as {claimed} but its shares open it to another card")


# ---------------------------------------------------------------- the end-of-game audit


@dataclass(frozen=True)
class DeckRecord:
    """A shuffle as the game file keeps it: the deck it started from and each dealer's output,
    in the dealers' order."""

    deck_id: str
    input: Deck
    outputs: tuple[Deck, ...]

    @property
    def final(self) -> Deck:
        return self.outputs[-1] if self.outputs else self.input


@dataclass(frozen=True)
class Deal:
    """The shares that gave the card at ``slot`` to its recipient. The audit checks them when
    they are given; with none (they were sealed to the recipient) it checks that the slot was
    dealt once, and the published key shares tell the card."""

    slot: Slot
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class Reveal:
    """A card shown: the claimed id and the shares that prove it."""

    slot: Slot
    card: str
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class DealerSecrets:
    """What a dealer publishes when the game ends: its key share and its seed for every deck."""

    name: str
    key: bytes = field(repr=False)
    seeds: Mapping[str, bytes] = field(repr=False)


@dataclass(frozen=True)
class AuditResult:
    """Every deck in the clear: for each deck id, the card ids of its final order."""

    decks: dict[str, tuple[str, ...]]


def _counted(cards: Iterable[str | None]) -> Counter[str]:
    return Counter("something that is no card" if c is None else c for c in cards)


def _difference(before: Counter[str], after: Counter[str]) -> str:
    dropped = sorted((before - after).elements())
    added = sorted((after - before).elements())
    parts = []
    if dropped:
        parts.append("drops " + ", ".join(dropped))
    if added:
        parts.append("adds " + ", ".join(added))
    return " and ".join(parts)


def audit(game_id: str, dealers: Sequence[DealerKey], table: CardTable, decks: Sequence[DeckRecord],
          deals: Sequence[Deal], reveals: Sequence[Reveal], secrets: Sequence[DealerSecrets]) -> AuditResult:
    """Recompute the whole blind table from the dealers' published secrets, in order: the keys,
    every deck's shuffles, every deal, every reveal. ``BlindCheckError`` names the first thing
    that does not check; else the cards of every deck."""
    joint = joint_key(game_id, dealers)
    published = {s.name: s for s in secrets}
    total = None
    for dealer in dealers:
        if dealer.name not in published:
            raise BlindCheckError(f"{dealer.name} did not publish its key share")
        key = published[dealer.name].key
        if not _is_scalar(key) or _is_zero(key) or _base(key) != dealer.public:
            raise BlindCheckError(f"{dealer.name}'s published key share does not match its public key")
        total = key if total is None else _na.crypto_core_ed25519_scalar_add(total, key)
    assert total is not None

    def clear(card: Ciphertext) -> str | None:
        try:
            return table.card(_sub(card.c2, _mul(total, card.c1)))
        except (_nacl_exc.RuntimeError, _nacl_exc.TypeError):
            return None

    opened: dict[str, Deck] = {}
    result: dict[str, tuple[str, ...]] = {}
    for record in decks:
        if record.deck_id in opened:
            raise BlindCheckError(f"{deck_name(record.deck_id)} is shuffled twice")
        if len(record.outputs) != len(dealers):
            raise BlindCheckError(f"{deck_name(record.deck_id)} has {len(record.outputs)} shuffles, not one per dealer")
        current = record.input
        before = _counted(clear(c) for c in current)
        if "something that is no card" in before:
            raise BlindCheckError(f"{deck_name(record.deck_id)} starts with something that is no card")
        for dealer, output in zip(dealers, record.outputs, strict=True):
            what = f"{dealer.name}'s shuffle of {deck_name(record.deck_id)}"
            seed = published[dealer.name].seeds.get(record.deck_id)
            if seed is None:
                raise BlindCheckError(f"{dealer.name} did not publish its seed of {deck_name(record.deck_id)}")
            after = _counted(clear(c) for c in output)
            if after != before:
                raise BlindCheckError(f"{what} {_difference(before, after)}")
            expected = shuffle(current, joint, seed, game_id=game_id, deck_id=record.deck_id, dealer=dealer.name)
            for i, (got, want) in enumerate(zip(output, expected, strict=True)):
                if got != want:
                    raise BlindCheckError(f"{what} does not follow its published seed (position {i})")
            current = output
        opened[record.deck_id] = current
        cards = tuple(clear(c) for c in current)
        result[record.deck_id] = tuple(c or "" for c in cards)

    def located(slot: Slot, what: str) -> Ciphertext:
        if slot.game_id != game_id:
            raise BlindCheckError(f"{what} {slot} belongs to another game")
        deck = opened.get(slot.deck_id)
        if deck is None:
            raise BlindCheckError(f"{what} {slot}: there is no such deck")
        if not isinstance(slot.position, int) or not 0 <= slot.position < len(deck):
            raise BlindCheckError(f"{what} {slot}: the deck has no such position")
        return deck[slot.position]

    dealt: dict[tuple[str, int], str] = {}
    for deal in deals:
        card = located(deal.slot, "the deal of")
        where = (deal.slot.deck_id, deal.slot.position)
        if where in dealt:
            raise BlindCheckError(f"card {deal.slot.position} of {deck_name(deal.slot.deck_id)} is dealt twice "
                                  f"(to {dealt[where]} and to {deal.slot.recipient})")
        dealt[where] = deal.slot.recipient
        if deal.shares:  # else only the slot: the published key shares open the card anyway
            open_card(deal.slot, card, dealers, deal.shares, table)
    turned: set[tuple[str, int]] = set()
    for reveal in reveals:
        card = located(reveal.slot, "the reveal of")
        where = (reveal.slot.deck_id, reveal.slot.position)
        if reveal.slot.recipient == PUBLIC:  # a card turned up for everybody: dealt to nobody, turned up once
            if where in dealt or where in turned:
                raise BlindCheckError(f"the reveal of {reveal.slot}: that card was "
                                      + (f"dealt to {dealt[where]}" if where in dealt else "turned up before"))
            turned.add(where)
        elif dealt.get(where) != reveal.slot.recipient:
            raise BlindCheckError(f"the reveal of {reveal.slot}: that card was not dealt to {reveal.slot.recipient}")
        check_reveal(reveal.slot, card, dealers, reveal.shares, table, reveal.card)
    return AuditResult(result)
