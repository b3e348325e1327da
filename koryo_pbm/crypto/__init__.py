"""Keys, signatures (Ed25519), sealing (HPKE, RFC 9180) and signed, sealed envelopes.

Submodules are imported on demand (``from koryo_pbm.crypto.keys import ...``) to keep start-up
fast; this package imports nothing itself.
"""
