"""Seed commitments and deal seeds (see :mod:`koryo_pbm.fair`): domain-separated SHA-256 from
``cryptography``, every part length-framed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives import hashes

from koryo_pbm.errors import FormatError
from koryo_pbm.values import HEX64

SALT_SIZE = 32
CONTRIBUTION_SIZE = 32
_COMMIT_TAG = b"koryo-pbm seed commitment v2\x00"
_DEAL_TAG = b"koryo-pbm deal seed v2\x00"


def _sha256(*parts: bytes) -> bytes:
    h = hashes.Hash(hashes.SHA256())
    for part in parts:
        h.update(part)
    return h.finalize()


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def new_salt() -> str:
    """32 random bytes, hex: the salt of a seed commitment."""
    return os.urandom(SALT_SIZE).hex()


def new_secret() -> str:
    """The moderator's secret seed of a joined game: 32 random bytes, hex."""
    return os.urandom(32).hex()


def new_contribution() -> str:
    """A player's contribution to the deal: 32 fresh random bytes, hex."""
    return os.urandom(CONTRIBUTION_SIZE).hex()


def commitment(seed: str, salt: str) -> str:
    """``sha256:<hex>`` of the domain tag, the salt's bytes and the seed's UTF-8 bytes."""
    if not HEX64.fits(salt):
        raise FormatError("a seed salt must be 64 hex digits")
    return "sha256:" + _sha256(_COMMIT_TAG, bytes.fromhex(salt), seed.encode("utf-8")).hex()


def check_commitment(committed: str, seed: str, salt: str) -> bool:
    """True if ``seed`` with ``salt`` is what ``committed`` commits to."""
    return commitment(seed, salt) == committed


def is_contribution(value: Any) -> bool:
    return HEX64.fits(value)


def deal_seed(seed: str, game_id: str, contributions: Sequence[tuple[str, str]] = ()) -> str:
    """The seed text the game's generator is seeded from: SHA-256 (hex) of a domain tag, the
    moderator's seed, the game id and each ``(player, contribution)`` in seat order, every
    part length-framed."""
    parts = [_DEAL_TAG, _framed(seed.encode("utf-8")), _framed(game_id.encode("utf-8")),
             len(contributions).to_bytes(4, "big")]
    for name, value in contributions:
        if not is_contribution(value):
            raise FormatError(f"{name}'s contribution must be 64 hex digits")
        parts += [_framed(name.encode("utf-8")), bytes.fromhex(value)]
    return _sha256(*parts).hex()
