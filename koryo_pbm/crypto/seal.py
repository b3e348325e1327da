"""Sealing to a public key: HPKE (RFC 9180) base mode, X25519 / HKDF-SHA256 / ChaCha20-Poly1305.

The blob is ``enc || ciphertext`` as the ``cryptography`` package returns it. Every caller passes
an ``info`` that names the purpose and binds what the plaintext belongs to (game, part, version,
recipient), so a blob cannot be moved to another place and still open.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.errors import KeyFileError, TamperedError


@lru_cache(maxsize=1)
def _suite() -> Any:
    from cryptography.hazmat.primitives import hpke  # imported here: not needed to read a game

    return hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)


def seal(recipient: PublicIdentity, plaintext: bytes, info: bytes) -> bytes:
    """Encrypt ``plaintext`` so that only ``recipient`` can open it, bound to ``info``."""
    try:
        return _suite().encrypt(bytes(plaintext), recipient.seal_key, info=bytes(info))
    except ValueError:  # a low-order X25519 point: the key line was crafted, not generated
        raise KeyFileError(
            f"the public key {recipient.fingerprint()} cannot be used for sealing (invalid X25519 key)"
        ) from None


def open_sealed(identity: Identity, blob: bytes, info: bytes, what: str = "sealed data") -> bytes:
    """Open a sealed blob; ``TamperedError`` when it does not open with this key and ``info``."""
    from cryptography.exceptions import InvalidTag

    try:
        return _suite().decrypt(bytes(blob), identity.open_key, info=bytes(info))
    except (InvalidTag, ValueError):
        raise TamperedError(f"{what} does not open: it was changed, moved, or sealed to another key") from None
