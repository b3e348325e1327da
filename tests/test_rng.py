"""The seeded generator: deterministic, resumable, unbiased enough, and independent of the
global ``random`` module."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from koryo_pbm.engine.rng import Rng


def test_same_seed_same_draws_different_seed_different_draws():
    a, b, c = Rng.from_seed("s"), Rng.from_seed("s"), Rng.from_seed("t")
    da = [a.below(1000) for _ in range(50)]
    assert da == [b.below(1000) for _ in range(50)]
    assert da != [c.below(1000) for _ in range(50)]


def _reference_draws(seed: bytes, n: int, count: int) -> list[int]:
    """The algorithm written out independently: SHA-256 counter blocks, 64-bit words,
    rejection sampling. Stored games depend on it never changing."""
    import hashlib

    key = hashlib.sha256(b"koryo-pbm rng seed v1\x00" + seed).digest()
    limit = (1 << 64) - ((1 << 64) % n)
    out, block = [], 0
    while len(out) < count:
        digest = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
        out += [w % n for w in (int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)) if w < limit]
        block += 1
    return out[:count]


def test_draws_follow_the_documented_algorithm():
    r = Rng.from_seed("koryo")
    assert [r.below(55) for _ in range(12)] == _reference_draws(b"koryo", 55, 12)


@pytest.mark.parametrize("split", [0, 1, 3, 4, 5, 9])
def test_state_round_trip_resumes_exactly(split):
    r = Rng.from_seed("resume")
    for _ in range(split):
        r.below(7)
    copy = Rng.from_state(r.state())
    assert [copy.below(100) for _ in range(20)] == [r.below(100) for _ in range(20)]


def test_shuffle_is_a_permutation_and_roughly_uniform():
    r = Rng.from_seed("uniform")
    firsts = Counter()
    for _ in range(6000):
        items = list(range(6))
        r.shuffle(items)
        assert sorted(items) == list(range(6))
        firsts[items[0]] += 1
    assert all(800 < firsts[i] < 1200 for i in range(6)), firsts


def test_does_not_touch_the_global_random_generator():
    random.seed(1)
    before = random.getstate()
    r = Rng.from_seed("x")
    r.shuffle(list(range(55)))
    assert random.getstate() == before


@pytest.mark.parametrize("bad", [{}, {"key": "zz", "counter": 0}, {"key": "00" * 32, "counter": -1},
                                 {"key": "00" * 31, "counter": 0}, {"key": "00" * 32, "counter": "1"}])
def test_bad_state_is_refused(bad):
    with pytest.raises(ValueError):
        Rng.from_state(bad)


def test_a_derived_generator_is_sha256_over_length_framed_values():
    """A bot's generator: its key written out independently (label and values length-framed);
    the draws a bot makes (random, getrandbits, sample) are this module's own, not Python's."""
    import hashlib

    from koryo_pbm.engine.rng import derived_key

    framed = b"".join(len(x).to_bytes(4, "big") + x for x in (b"bot order", b"g1", b"r1-orders", b"carol"))
    key = hashlib.sha256(b"koryo-pbm rng derived v1\x00" + framed).digest()
    assert derived_key("bot order", "g1", "r1-orders", "carol") == key
    assert Rng.derived("bot order", "g1", "r1-orders", "carol") == Rng(key)
    assert derived_key("bot order", "g1:r1", "x") != derived_key("bot order", "g1", "r1:x")

    words = [int.from_bytes(hashlib.sha256(key + (0).to_bytes(8, "big")).digest()[i:i + 8], "big")
             for i in range(0, 32, 8)]
    r = Rng(key)
    assert r.random() == (words[0] >> 11) / 2**53
    assert r.getrandbits(100) == ((words[1] << 64) | words[2]) >> 28
    assert r.getrandbits(0) == 0 and r.state()["counter"] == 3


def test_sample_draws_distinct_items_and_every_item_can_come_first():
    r = Rng.from_seed("sample")
    firsts = Counter()
    for _ in range(300):
        s = r.sample(range(5), 3)
        assert len(set(s)) == 3 and set(s) <= set(range(5))
        firsts[s[0]] += 1
    assert set(firsts) == set(range(5))
    with pytest.raises(ValueError):
        r.sample([1, 2], 3)
