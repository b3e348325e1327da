"""One signature rule on both sides (issue 29, item 5): the command line refuses Ed25519 keys
that are not points of the prime-order group (libsodium's ``is_valid_point``), so that its
cofactorless check (``cryptography``) and the page's cofactored one (noble, with torsion-free
key and R required) agree on every signature. The vectors
(``tests/vectors/ed25519-strict-v1.json``, made by ``make_ed25519_strict.py``) are read here and by
``player-page/test/strict.test.mjs``; each is a case where a ZIP-215 verifier and
``cryptography`` disagreed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.crypto.sign import signed_message, verify
from koryo_pbm.errors import KeyFileError, TamperedError

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
STRICT = json.loads((VECTORS / "ed25519-strict-v1.json").read_text(encoding="utf-8"))["vectors"]


def _verdict(v: dict) -> bool:
    """What the command line says of a vector: the key read as a key line is, then the signature."""
    x25519 = Identity.generate("x").public.raw[32:]
    try:
        public = PublicIdentity.from_raw(bytes.fromhex(v["public"]) + x25519)
    except KeyFileError:
        return False
    try:
        verify(public, v["context"], bytes.fromhex(v["data"]), bytes.fromhex(v["signature"]))
    except TamperedError:
        return False
    return True


@pytest.mark.parametrize("v", STRICT, ids=[v["name"] for v in STRICT])
def test_the_command_line_gives_the_strict_verdict_on_every_vector(v):
    assert _verdict(v) is v["valid"], v["why"]


@pytest.mark.parametrize("v", STRICT, ids=[v["name"] for v in STRICT])
def test_each_vector_is_a_case_where_the_libraries_disagree_or_refuse(v):
    """``cryptography`` on its own (no key check) says what the vector records as cofactorless:
    the mixed-order key and the torsion R are exactly what a ZIP-215 page accepted and the
    command line refused, and the small-order key what both accepted before the key check."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(v["public"]))
    try:
        key.verify(bytes.fromhex(v["signature"]), signed_message(v["context"], bytes.fromhex(v["data"])))
        said = True
    except Exception:
        said = False
    assert said is v["cofactorless"]
    assert v["zip215"] != v["valid"] or v["name"] in ("valid", "non-canonical S")


def test_a_mixed_order_key_is_refused_where_a_key_line_is_read():
    """``PublicIdentity.from_raw`` (every key line, every game file's keys) refuses the mixed-order key
    in one sentence; a real key passes."""
    mixed = next(v for v in STRICT if v["name"] == "mixed-order key")
    x25519 = Identity.generate("x").public.raw[32:]
    with pytest.raises(KeyFileError, match="not a point of the prime-order group"):
        PublicIdentity.from_raw(bytes.fromhex(mixed["public"]) + x25519)
    PublicIdentity.from_raw(bytes.fromhex(STRICT[0]["public"]) + x25519)


def test_the_vectors_are_what_the_script_makes():
    r = subprocess.run([sys.executable, "-c", "import json, make_ed25519_strict as m; "
                        "print(json.dumps({'format': 'koryo-pbm ed25519-strict v1', 'vectors': m.vectors()}, indent=1))"],
                       cwd=VECTORS, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (VECTORS / "ed25519-strict-v1.json").read_text(encoding="utf-8")
