"""Keys, signatures (Ed25519), sealing (HPKE, RFC 9180), signed, sealed envelopes, and the blind
table's dealing that no single party can see (:mod:`koryo_pbm.crypto.blind`, libsodium through PyNaCl).

Submodules are imported on demand (``from koryo_pbm.crypto.keys import ...``) to keep start-up
fast; this package imports nothing itself.
"""
