"""Players' mail addresses: :mod:`koryo_pbm.address` (below every layer that checks them: the
match checks them when a game is made), re-exported here for the transport's users."""

from __future__ import annotations

from koryo_pbm.address import MAX_ADDRESS, check_address, same_address

__all__ = ["MAX_ADDRESS", "check_address", "same_address"]
