"""The one seeded random generator a game carries in its state.

A game never touches the global ``random`` module nor the clock: every shuffle and every
chance event draws from the :class:`Rng` stored in its state, so a game replays exactly from
its seed and its orders.

The generator is SHA-256 in counter mode: block *i* is ``SHA-256(seed || i)``. Its whole state
is two values (the seed and the number of blocks drawn), which serialise into a TOML table and
behave the same on every platform and every Python version (unlike ``random.Random``, whose
algorithms for ``shuffle`` and ``randrange`` are not promised to stay the same).
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from struct import Struct
from typing import TypeVar

# SHA-256 from the interpreter's own module when it has one: the same function as hashlib's, but
# without loading OpenSSL's library for hashlib (some milliseconds for every command that reads
# a game) and twice as fast on the 40-byte blocks drawn here.
try:
    from _sha2 import sha256 as _sha256  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # Python 3.11
    except ImportError:  # an interpreter built without its own hash modules
        from hashlib import sha256 as _sha256

T = TypeVar("T")

_BLOCK_BYTES = 32
_WORD_BYTES = 8
_WORDS_PER_BLOCK = _BLOCK_BYTES // _WORD_BYTES
_WORD_LIMIT = 1 << 64
_WORDS = Struct(">4Q").unpack  # a block as its four 64-bit words, big-endian


def seed_bytes(seed: str | bytes) -> bytes:
    """The 32-byte key derived from a user's seed text (any text, e.g. ``"friday-game"``)."""
    if isinstance(seed, str):
        seed = seed.encode("utf-8")
    return _sha256(b"koryo-pbm rng seed v1\x00" + seed).digest()


class Rng:
    """A deterministic generator whose state is ``(key, counter)``.

    >>> a, b = Rng.from_seed("x"), Rng.from_seed("x")
    >>> [a.below(10) for _ in range(5)] == [b.below(10) for _ in range(5)]
    True
    """

    __slots__ = ("_counter", "_key", "_words")

    def __init__(self, key: bytes, counter: int = 0) -> None:
        if len(key) != 32:
            raise ValueError("rng key must be 32 bytes")
        if counter < 0:
            raise ValueError("rng counter must not be negative")
        self._key = key
        self._counter = counter  # number of 64-bit words consumed so far
        self._words: list[int] = []  # the current block's words still to draw, the next one last
        if counter % _WORDS_PER_BLOCK:
            # Resume in the middle of a block: refill and drop the words already used.
            self._refill(counter // _WORDS_PER_BLOCK)
            del self._words[_WORDS_PER_BLOCK - counter % _WORDS_PER_BLOCK:]

    @classmethod
    def from_seed(cls, seed: str | bytes) -> Rng:
        return cls(seed_bytes(seed))

    # -- state --------------------------------------------------------------------------

    def state(self) -> dict[str, object]:
        """A TOML-safe snapshot; :meth:`from_state` restores it exactly."""
        return {"key": self._key.hex(), "counter": self._counter}

    @classmethod
    def from_state(cls, state: dict[str, object]) -> Rng:
        key, counter = state.get("key"), state.get("counter")
        if not isinstance(key, str) or not isinstance(counter, int) or isinstance(counter, bool):
            raise ValueError("rng state needs a hex 'key' and an integer 'counter'")
        try:
            raw = bytes.fromhex(key)
        except ValueError:
            raise ValueError("rng key is not hexadecimal") from None
        return cls(raw, counter)

    def copy(self) -> Rng:
        twin = Rng.__new__(Rng)
        twin._key = self._key
        twin._counter = self._counter
        twin._words = list(self._words)
        return twin

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and (self._key, self._counter) == (other._key, other._counter)

    def __repr__(self) -> str:
        return f"Rng(key={self._key.hex()[:8]}…, counter={self._counter})"

    # -- drawing ------------------------------------------------------------------------

    def _refill(self, block: int) -> None:
        words = list(_WORDS(_sha256(self._key + block.to_bytes(8, "big")).digest()))
        words.reverse()
        self._words = words

    def _word(self) -> int:
        if not self._words:
            self._refill(self._counter // _WORDS_PER_BLOCK)
        self._counter += 1
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        if n == 1:
            return 0
        limit = _WORD_LIMIT - (_WORD_LIMIT % n)
        while True:
            words = self._words
            if not words:
                self._refill(self._counter // _WORDS_PER_BLOCK)
                words = self._words
            self._counter += 1
            w = words.pop()
            if w < limit:
                return w % n

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
