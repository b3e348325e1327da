"""Keys under attack: guessing a passphrase, degenerate public keys, a keyring others can
write, a moderator key swapped behind ``status``'s back.

* a passphrase-protected key is a v2 file: scrypt (n = 2^17, r = 8, p = 1: each guess costs
  128 MiB and about half a second, see benchmarks/bench_hostile.py) and ChaCha20-Poly1305 with
  every parameter bound as associated data; an older PBKDF2 file still opens and
  ``keygen --upgrade`` rewrites it;
* the identity point as an Ed25519 key lets one signature verify for every message (shown
  below with the real library): such keys, and every other small-order Ed25519 or X25519 key,
  are refused wherever a key line is read (``new --player``, a game file);
* a keyring folder that another user owns or that group or others can write is refused;
* ``status`` honours the pinned moderator key like ``show`` does;
* ``keygen`` prints the fingerprint to compare out of band.
"""

from __future__ import annotations

import base64
import os
import stat

import pytest
from attack_kit import PLAYERS4, assert_refused, identity

from koryo_pbm.crypto import keys
from koryo_pbm.crypto.keys import PublicIdentity
from koryo_pbm.errors import KeyFileError

P = 2**255 - 19
D = (-121665 * pow(121666, P - 2, P)) % P


def _ed_decode(raw: bytes):
    """An Ed25519 point from its encoding (non-canonical y allowed), or None: the test's own
    arithmetic, to check the refused list independently of koryo-pbm."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    sign = raw[31] >> 7
    y %= P
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x2 = u * pow(v, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    if (x * x - x2) % P:
        return None
    if x & 1 != sign:
        x = (P - x) % P
    return x, y


def _ed_add(a, b):
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + y1 * x2) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def _ed_times8(pt):
    for _ in range(3):
        pt = _ed_add(pt, pt)
    return pt


def test_the_refused_lists_are_exactly_small_order_points():
    """Each listed Ed25519 encoding decodes to a point whose 8th multiple is the identity;
    each listed X25519 u-coordinate gives an all-zero shared secret (refused by the library)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

    for raw in keys._ED25519_SMALL_ORDER:
        for sign in (0, 0x80):
            pt = _ed_decode(raw[:31] + bytes([raw[31] | sign]))
            if pt is not None:
                assert _ed_times8(pt) == (0, 1), raw.hex()
    assert sum(_ed_decode(raw) is not None for raw in keys._ED25519_SMALL_ORDER) == 7
    me = X25519PrivateKey.generate()
    for raw in keys._X25519_SMALL_ORDER:
        with pytest.raises(ValueError):
            me.exchange(X25519PublicKey.from_public_bytes(raw))
    # a real key is of large order
    assert _ed_times8(_ed_decode(keys.Identity.generate("x").public.raw[:32])) != (0, 1)


def test_the_identity_point_signs_everything_and_is_refused(arena, world):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    identity_point = b"\x01" + bytes(31)
    forged = identity_point + bytes(32)  # R = identity, S = 0
    weak = Ed25519PublicKey.from_public_bytes(identity_point)
    for message in (b"I resign", b"I never said that"):
        weak.verify(forged, message)  # the library accepts it: one signature for every message
    good_x = identity(world, "alice").public.raw[32:]
    for ed in (identity_point, bytes(32), bytes.fromhex("ecff" + "ff" * 29 + "7f")):
        for raw in (ed + good_x, ed[:31] + bytes([ed[31] | 0x80]) + good_x):
            with pytest.raises(KeyFileError, match="small order"):
                PublicIdentity.from_raw(raw)
    line = "koryo-pbm-pub-v1:" + base64.urlsafe_b64encode(identity_point + good_x).decode().rstrip("=")
    args = ["new", "g", "--as", "mod", "--player", f"alice={line}"]
    for p in PLAYERS4[1:]:
        args += ["--player", f"{p}={world.lines[p]}"]
    err = assert_refused(arena(*args))
    assert "small order" in err
    assert not (arena.cwd / "g").exists()
    # a small-order sealing key: anything sealed to it is readable by all
    zero_x = identity(world, "alice").public.raw[:32] + bytes(32)
    line = "koryo-pbm-pub-v1:" + base64.urlsafe_b64encode(zero_x).decode().rstrip("=")
    assert "small order" in assert_refused(arena(*args[:4], "--player", f"alice={line}", *args[6:]))


def test_a_game_file_naming_a_degenerate_key_is_refused(arena, world):
    """A moderator (or a forger) cannot slip a degenerate key into a game file either."""
    from attack_kit import body_of, sign_game

    body = body_of(world.g4_v1).decode()
    alice_line = world.lines["alice"].split()[0]
    weak = "koryo-pbm-pub-v1:" + base64.urlsafe_b64encode(b"\x01" + bytes(31) +
                                                          PublicIdentity.parse(alice_line).raw[32:]).decode().rstrip("=")
    data = sign_game(body.replace(alice_line, weak).encode(), identity(world, "mod"))
    folder = arena.game(data)
    assert "small order" in assert_refused(arena("status", folder))


@pytest.mark.real_scrypt
def test_a_passphrase_key_is_scrypt_and_an_old_one_opens_and_upgrades(arena, world):
    from cryptography.hazmat.primitives import serialization as ser

    env = {"KORYO_PBM_PASSPHRASE": "correct horse battery"}
    r = arena("keygen", "zoe", "--passphrase", env=env)
    assert r.code == 0, r.err
    text = arena.key("zoe").read_text()
    assert text.splitlines()[1:5] == ["kdf: scrypt", "n: 131072", "r: 8", "p: 1"]
    assert "PRIVATE KEY" not in text and "correct horse" not in text
    assert stat.S_IMODE(arena.key("zoe").stat().st_mode) == 0o600
    # every parameter is bound: another r written into the file does not open it, and a weaker n
    # is refused before any guess, with the command that protects the key again
    arena.key("zoe").write_text(text.replace("r: 8", "r: 4"))
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        keys.load_identity(arena.key("zoe"), b"correct horse battery")
    arena.key("zoe").write_text(text.replace("n: 131072", "n: 1024"))
    with pytest.raises(KeyFileError, match=r"weak passphrase stretch \(scrypt n = 1024.*keygen --upgrade zoe"):
        keys.load_identity(arena.key("zoe"), b"correct horse battery")
    arena.key("zoe").write_text(text)
    assert keys.load_identity(arena.key("zoe"), b"correct horse battery").name == "zoe"
    # an old v1 file, encrypted the old way (PKCS#8 + PBKDF2), still opens ...
    alice = identity(world, "alice")
    old = (keys.SECRET_HEADER + "alice\n").encode() + b"".join(
        k.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.BestAvailableEncryption(b"old pass"))
        for k in (alice.sign_key, alice.open_key))
    path = arena.key("alice")
    path.write_bytes(old)
    os.chmod(path, 0o600)
    old_env = {"KORYO_PBM_PASSPHRASE": "old pass"}
    folder = arena.game(world.g4_v1)
    assert arena("show", folder, "--as", "alice", env=old_env).code == 0
    # ... a wrong passphrase is refused and the file left alone ...
    assert "wrong passphrase" in assert_refused(arena("keygen", "alice", "--upgrade",
                                                      env={"KORYO_PBM_PASSPHRASE": "guess"}))
    assert path.read_bytes() == old
    # ... and --upgrade rewrites it as v2, same keys, same passphrase
    r = arena("keygen", "alice", "--upgrade", env=old_env)
    assert r.code == 0, r.err
    assert "upgraded" in r.err and alice.public.fingerprint() in r.err
    assert path.read_text().startswith("# koryo-pbm secret key v2: alice\nkdf: scrypt\nn: 131072\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert keys.load_identity(path, b"old pass").public == alice.public
    assert "already in the current format" in assert_refused(arena("keygen", "alice", "--upgrade", env=old_env))
    assert "no passphrase" in assert_refused(arena("keygen", "bob", "--upgrade"))


@pytest.mark.real_scrypt
def test_a_key_file_with_a_weak_scrypt_cost_is_refused_until_protected_again(arena, world, monkeypatch):
    """Issue 29: a v2 file whose scrypt n is below 2^17 (2^10 here: 128 times cheaper to guess)
    was read and re-stored as it was. It is refused in one line naming the command that protects
    it again; ``keygen --upgrade`` does, same keys, same passphrase, at the current cost."""
    from koryo_pbm.store.keyring import save_identity

    alice = identity(world, "alice")
    monkeypatch.setattr(keys, "SCRYPT_N", 2**10)
    save_identity(alice, arena.home / "keys", b"weak pass", overwrite=True)
    monkeypatch.setattr(keys, "SCRYPT_N", 2**17)
    path = arena.key("alice")
    assert "\nn: 1024\n" in path.read_text()
    env = {"KORYO_PBM_PASSPHRASE": "weak pass"}
    folder = arena.game(world.g4_v1)
    err = assert_refused(arena("show", folder, "--as", "alice", env=env))
    assert "weak passphrase stretch (scrypt n = 1024, below 131072)" in err and "keygen --upgrade alice" in err
    r = arena("keygen", "alice", "--upgrade", env=env)
    assert r.code == 0, r.err
    assert path.read_text().startswith("# koryo-pbm secret key v2: alice\nkdf: scrypt\nn: 131072\n")
    assert keys.load_identity(path, b"weak pass").public == alice.public
    assert arena("show", folder, "--as", "alice", env=env).code == 0


def test_a_keyring_that_others_can_write_is_refused(arena, world, monkeypatch):
    folder = arena.game(world.g4_v1)
    ring = arena.home / "keys"
    os.chmod(ring, 0o777)
    err = assert_refused(arena("show", folder, "--as", "alice"))
    assert "can be written by other users" in err and "chmod 700" in err
    assert "can be written by other users" in assert_refused(arena("keygen", "newbie"))
    assert not (ring / "newbie.key").exists()
    os.chmod(ring, 0o700)
    assert arena("show", folder, "--as", "alice").code == 0
    # a keyring that belongs to someone else
    monkeypatch.setattr(os, "getuid", lambda: os.stat(ring).st_uid + 1)
    assert "belongs to another user" in assert_refused(arena("show", folder, "--as", "alice"))


def test_status_honours_the_pinned_moderator_key(arena, world):
    """eve makes a game file with the same id, signed by her own key: show refused it before,
    status now does too."""
    from attack_kit import game_id_of

    from koryo_pbm import match
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile

    folder = arena.game(world.g4_v1)
    assert arena("status", folder).code == 0  # pins mod's key for this game
    eve = identity(world, "eve")
    players = {p: identity(world, p).public for p in PLAYERS4}
    doc, _ = match.create(find_game("koryo"), eve, players, seed="eve's", game_id=game_id_of(world.g4_v1))
    (folder / "game.toml").write_bytes(gamefile.encode(doc, eve))
    err = assert_refused(arena("status", folder))
    assert "signed by moderator key" in err and eve.public.fingerprint() in err
    assert "signed by moderator key" in assert_refused(arena("status", folder, "--json"))


def test_keygen_prints_the_fingerprint(arena):
    r = arena("keygen", "finn")
    assert r.code == 0, r.err
    fpr = PublicIdentity.parse(r.out).fingerprint()
    assert f"fingerprint {fpr}" in r.err
    assert arena("keygen", "finn2", "--json").json["fingerprint"]


def test_show_prints_the_moderators_fingerprint_and_when_it_was_first_seen(arena, world):
    import re

    folder = arena.game(world.g4_v1)
    fpr = identity(world, "mod").public.fingerprint()
    shown = arena.ok("show", folder, "--as", "alice", "--json").json["moderator"]
    assert shown["fingerprint"] == fpr and re.fullmatch(r"\d{4}-\d{2}-\d{2}", shown["first_seen"])
    seen = arena.home / "seen"
    record = next(seen.iterdir())
    # the date is the first one, kept from then on
    record.write_text(record.read_text().replace(shown["first_seen"], "2026-01-02"))
    text = arena.ok("show", folder).out
    assert f"signed by moderator {fpr} (key first seen here 2026-01-02)" in text
