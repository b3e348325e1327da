"""Signatures (domain separated) and HPKE sealing."""

from __future__ import annotations

import pytest

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.crypto.seal import open_sealed, seal
from koryo_pbm.crypto.sign import sign, signed_message, verify
from koryo_pbm.errors import KeyFileError, TamperedError


@pytest.fixture(scope="module")
def alice() -> Identity:
    return Identity.generate("alice")


@pytest.fixture(scope="module")
def bob() -> Identity:
    return Identity.generate("bob")


def test_sign_verify(alice, bob):
    sig = sign(alice, "game-file", b"data")
    assert len(sig) == 64
    verify(alice.public, "game-file", b"data", sig)
    with pytest.raises(TamperedError, match="the game-file signature does not verify"):
        verify(alice.public, "game-file", b"datA", sig)
    with pytest.raises(TamperedError, match="game file x"):
        verify(alice.public, "envelope", b"data", sig, what="game file x does not verify")
    with pytest.raises(TamperedError):
        verify(bob.public, "game-file", b"data", sig)
    with pytest.raises(TamperedError):
        verify(alice.public, "game-file", b"data", sig[:-1])
    with pytest.raises(TamperedError):
        verify(alice.public, "game-file", b"data", b"")
    for i in range(64):
        bad = bytearray(sig)
        bad[i] ^= 0x01
        with pytest.raises(TamperedError):
            verify(alice.public, "game-file", b"data", bytes(bad))


def test_signed_message_layout():
    assert signed_message("ctx", b"abc") == b"koryo-pbm/v1\x00ctx\x00abc"
    # the context/data boundary cannot be shifted
    assert signed_message("a", b"bc") != signed_message("ab", b"c")
    with pytest.raises(ValueError):
        signed_message("a\x00b", b"")


def test_seal_open(alice, bob):
    blob = seal(alice.public, b"secret hand", b"info-1")
    assert open_sealed(alice, blob, b"info-1") == b"secret hand"
    assert b"secret hand" not in blob
    assert seal(alice.public, b"secret hand", b"info-1") != blob  # fresh ephemeral key each time
    with pytest.raises(TamperedError, match="my part does not open"):
        open_sealed(bob, blob, b"info-1", what="my part")
    with pytest.raises(TamperedError):
        open_sealed(alice, blob, b"info-2")
    for i in range(len(blob)):
        bad = bytearray(blob)
        bad[i] ^= 0x80
        with pytest.raises(TamperedError):
            open_sealed(alice, bytes(bad), b"info-1")
    for cut in (0, 1, 31, 32, 47, len(blob) - 1):
        with pytest.raises(TamperedError):
            open_sealed(alice, blob[:cut], b"info-1")


def test_seal_to_low_order_key_refused(alice, monkeypatch):
    from koryo_pbm.crypto import keys

    raw = alice.public.raw[:32] + b"\x00" * 32
    with pytest.raises(KeyFileError, match="small order"):  # refused as a key already
        PublicIdentity.from_raw(raw)
    monkeypatch.setattr(keys, "_X25519_SMALL_ORDER", frozenset())  # and sealing refuses it too
    bad = PublicIdentity.from_raw(raw)
    with pytest.raises(KeyFileError, match="cannot be used for sealing"):
        seal(bad, b"x", b"i")


def test_sha256_hex_matches_hashlib():
    import hashlib

    from koryo_pbm.crypto.keys import sha256_hex

    for data in (b"", b"abc", bytes(range(256)) * 10):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
