"""Ed25519 signatures with domain separation.

The signed message is ``b"koryo-pbm/v1\\x00" + context + b"\\x00" + data``: a signature made for
one purpose (``"game-file"``, ``"envelope"``, ...) never verifies for another.
"""

from __future__ import annotations

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.errors import TamperedError

DOMAIN = b"koryo-pbm/v1\x00"
SIGNATURE_SIZE = 64


def signed_message(context: str, data: bytes) -> bytes:
    """The exact bytes a signature covers."""
    if not context or "\x00" in context:
        raise ValueError(f"invalid signature context {context!r}")  # a programming error
    return DOMAIN + context.encode("utf-8") + b"\x00" + bytes(data)


def sign(identity: Identity, context: str, data: bytes) -> bytes:
    """Sign ``data`` for the purpose ``context``; returns the 64-byte signature."""
    return identity.sign_key.sign(signed_message(context, data))


def verify(public: PublicIdentity, context: str, data: bytes, signature: bytes, what: str | None = None) -> None:
    """Check a signature; ``TamperedError(what)`` when it does not verify."""
    message = what or f"the {context} signature does not verify"
    if not isinstance(signature, (bytes, bytearray)) or len(signature) != SIGNATURE_SIZE:
        raise TamperedError(message)
    try:
        public.verify_key.verify(bytes(signature), signed_message(context, data))
    except Exception as exc:
        # the class is imported when a signature fails: every command verifies one, few see it fail
        from cryptography.exceptions import InvalidSignature

        if isinstance(exc, InvalidSignature):
            raise TamperedError(message) from None
        raise
