"""Write ``ed25519-strict-v1.json``: Ed25519 edge cases on which the command line and the player
page must give the same verdict (issue 29, item 5: one signature rule on both sides).

Each vector is a public key (32 bytes), a signature context and data (signed as the project
signs: ``koryo_pbm.crypto.sign.signed_message``) and a signature, with ``valid``: the verdict
of the strict rule both sides follow (the key a point of the prime-order subgroup, canonically
encoded, not of small order: libsodium's ``crypto_core_ed25519_is_valid_point``; S below the
group order; R canonical and torsion-free; ``[S]B = R + [k]A``). ``zip215`` and
``cofactorless`` say what a ZIP-215 verifier (the page's library by default) and a cofactorless
one (``cryptography``, without the key check) say of it: the vectors are the cases where they
disagree. ``tests/crypto/test_ed25519_strict.py`` and ``player-page/test/strict.test.mjs`` read
them.

The points are computed here with the curve's own formulas (no library), from fixed secrets:
the file is the same at every run (``python tests/vectors/make_ed25519_strict.py``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "ed25519-strict-v1.json"

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
DOMAIN = b"koryo-pbm/v1\x00"
CONTEXT = "game-file"
# a point of order 8 (libsodium's list of small-order encodings)
T8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def _recover_x(y: int, sign: int) -> int | None:
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    if (x * x - x2) % P:
        return None
    if x & 1 != sign:
        x = (P - x) % P
    return x


def decode(raw: bytes) -> tuple[int, int]:
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    x = _recover_x(y, raw[31] >> 7)
    assert y < P and x is not None
    return x, y


def encode(pt: tuple[int, int]) -> bytes:
    x, y = pt
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return (x1 * y2 + y1 * x2) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P


def times(n: int, pt: tuple[int, int]) -> tuple[int, int]:
    out = (0, 1)
    while n:
        if n & 1:
            out = add(out, pt)
        pt = add(pt, pt)
        n >>= 1
    return out


B = (_recover_x(4 * pow(5, P - 2, P) % P, 0) or 0, 4 * pow(5, P - 2, P) % P)


def h(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(b"".join(parts)).digest(), "little")


def secret(seed: bytes) -> tuple[int, bytes]:
    d = hashlib.sha512(seed).digest()
    a = int.from_bytes(d[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, d[32:]


def message(data: bytes) -> bytes:
    return DOMAIN + CONTEXT.encode() + b"\x00" + data


def signature(a: int, prefix: bytes, public: bytes, data: bytes, *, torsion: bool = False) -> bytes:
    """An Ed25519 signature by ``a`` of ``data`` under ``public`` (whatever that key is); its R
    moved by a point of order 8 if ``torsion``."""
    m = message(data)
    r = h(prefix, m) % L
    big_r = times(r, B)
    if torsion:
        big_r = add(big_r, decode(T8))
    r_bytes = encode(big_r)
    k = h(r_bytes, public, m) % L
    return r_bytes + ((r + k * a) % L).to_bytes(32, "little")


def zip215(public: bytes, data: bytes, sig: bytes) -> bool:
    """The cofactored check ``[8][S]B = [8]R + [8][k]A`` (ZIP-215, canonical encodings here)."""
    s = int.from_bytes(sig[32:], "little")
    if s >= L:
        return False
    k = h(sig[:32], public, message(data)) % L
    left = times(8 * s, B)
    right = times(8, add(decode(sig[:32]), times(k, decode(public))))
    return left == right


def cofactorless(public: bytes, data: bytes, sig: bytes) -> bool:
    """``[S]B = R + [k]A`` with R compared as bytes (what OpenSSL, under ``cryptography``, does)."""
    s = int.from_bytes(sig[32:], "little")
    if s >= L:
        return False
    k = h(sig[:32], public, message(data)) % L
    neg_ka = times(k, decode(public))
    neg_ka = ((P - neg_ka[0]) % P, neg_ka[1])
    return encode(add(times(s, B), neg_ka)) == sig[:32]


def vectors() -> list[dict[str, object]]:
    a, prefix = secret(bytes(range(32)))
    public = encode(times(a, B))
    out = []

    def vector(name: str, key: bytes, data: bytes, sig: bytes, valid: bool, why: str) -> None:
        out.append({"name": name, "public": key.hex(), "context": CONTEXT, "data": data.hex(),
                    "signature": sig.hex(), "valid": valid, "zip215": zip215(key, data, sig),
                    "cofactorless": cofactorless(key, data, sig), "why": why})

    data = b"version = 7\n"
    good = signature(a, prefix, public, data)
    vector("valid", public, data, good, True, "a signature by a key of the prime-order group")
    # a mixed-order key: A + T8, signed with a's secret; k chosen so that [k]T8 is not the identity
    mixed = encode(add(decode(public), decode(T8)))
    for i in range(64):
        d = b"version = %d\n" % (100 + i)
        sig = signature(a, prefix, mixed, d)
        if h(sig[:32], mixed, message(d)) % 8:
            break
    vector("mixed-order key", mixed, d, sig, False,
           "the key has a component of order 8: ZIP-215's cofactored check accepts, the strict rule refuses the key")
    # the identity point as a key: [S]B = R holds for every message
    ident = b"\x01" + bytes(31)
    r = h(prefix, b"any") % L
    forged = encode(times(r, B)) + r.to_bytes(32, "little")
    vector("small-order key", ident, data, forged, False,
           "the identity point as the key: one signature verifies for every message (cofactorless too)")
    # R with a torsion component
    sig = signature(a, prefix, public, data, torsion=True)
    vector("torsion R", public, data, sig, False,
           "R = rB + T8: ZIP-215 accepts, a cofactorless check (cryptography) and the strict rule refuse")
    # S + L: the same signature with a non-canonical S
    s = int.from_bytes(good[32:], "little") + L
    assert s < 2**256
    vector("non-canonical S", public, data, good[:32] + s.to_bytes(32, "little"), False,
           "S at or above the group order: refused by every rule (RFC 8032 and ZIP-215 alike)")
    return out


def main() -> None:
    v = vectors()
    for x in v:  # the cases are the disagreements they are named for
        assert x["valid"] == (x["name"] == "valid")
    assert [x["zip215"] for x in v] == [True, True, True, True, False]
    assert [x["cofactorless"] for x in v] == [True, False, True, False, False]
    OUT.write_text(json.dumps({"format": "koryo-pbm ed25519-strict v1", "vectors": v}, indent=1) + "\n",
                   encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
