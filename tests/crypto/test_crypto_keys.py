"""Keys: public lines, secret key files, passphrases, permissions, the keyring."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.crypto.keys import (
    PUBLIC_PREFIX,
    Identity,
    PublicIdentity,
    load_identity,
    load_public,
    parse_identity,
    validate_name,
)
from koryo_pbm.errors import KeyFileError, KoryoPbmError, UsageError
from koryo_pbm.store.keyring import find_identity, keyring_dir, save_identity

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture(scope="module")
def alice() -> Identity:
    return Identity.generate("alice")


def test_public_line_round_trip(alice):
    line = alice.public.line()
    assert line.startswith(PUBLIC_PREFIX)
    assert len(line) == len(PUBLIC_PREFIX) + 86
    assert "\n" not in line
    assert PublicIdentity.parse(line) == alice.public
    assert PublicIdentity.parse(f"  {line}  alice@example.org\n") == alice.public
    assert PublicIdentity.parse(line).fingerprint() == alice.public.fingerprint()
    assert len(alice.public.fingerprint()) == 16
    assert hash(PublicIdentity.parse(line)) == hash(alice.public)
    assert alice.public != Identity.generate("bob").public
    assert "PRIVATE" not in repr(alice)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hello",
        "age1qqqq",
        PUBLIC_PREFIX,
        PUBLIC_PREFIX + "A" * 85,
        PUBLIC_PREFIX + "A" * 87,
        PUBLIC_PREFIX + "+" * 86,
        PUBLIC_PREFIX + "A" * 85 + "B",  # non-canonical trailing bits
        "koryo-pbm-pub-v2:" + "A" * 86,
    ],
)
def test_public_line_parse_errors(text):
    with pytest.raises(KeyFileError, match="not a koryo-pbm public key"):
        PublicIdentity.parse(text)


def test_secret_key_pasted_as_public(tmp_path, alice):
    key, _ = save_identity(alice, tmp_path)
    with pytest.raises(KeyFileError, match="SECRET key"):
        PublicIdentity.parse(key.read_text())
    with pytest.raises(KeyFileError, match="SECRET key"):
        load_public(str(key))


def test_load_public_line_and_file(tmp_path, alice):
    _, pub = save_identity(alice, tmp_path)
    assert pub.read_text() == alice.public.line() + "\n"
    assert load_public(str(pub)) == alice.public
    assert load_public(pub) == alice.public
    assert load_public(alice.public.line()) == alice.public
    with pytest.raises(KeyFileError, match="no such file"):
        load_public(str(tmp_path / "nobody.pub"))
    (tmp_path / "junk.pub").write_text("nonsense\n")
    with pytest.raises(KeyFileError, match="junk.pub"):
        load_public(str(tmp_path / "junk.pub"))


def test_round_trip_without_passphrase(tmp_path, alice):
    key, pub = save_identity(alice, tmp_path)
    assert key.name == "alice.key" and pub.name == "alice.pub"
    text = key.read_text()
    assert text.startswith("# koryo-pbm secret key v1: alice\n")
    assert text.count("-----BEGIN PRIVATE KEY-----") == 2
    loaded = load_identity(key)
    assert loaded.name == "alice"
    assert loaded.public == alice.public


def test_round_trip_with_passphrase(tmp_path, alice, monkeypatch):
    monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
    key, _ = save_identity(alice, tmp_path, b"correct horse")
    text = key.read_text()
    assert text.startswith("# koryo-pbm secret key v2: alice\nkdf: scrypt\n") and "PRIVATE KEY" not in text
    assert load_identity(key, b"correct horse").public == alice.public
    assert load_identity(key, "correct horse").public == alice.public
    # a callable (the CLI's prompt)
    calls = []
    assert load_identity(key, lambda: calls.append(1) or b"correct horse").public == alice.public
    assert calls == [1]
    # the environment variable wins over the prompt
    monkeypatch.setenv("KORYO_PBM_PASSPHRASE", "correct horse")
    assert load_identity(key, lambda: pytest.fail("prompted")).public == alice.public
    assert load_identity(key).public == alice.public


def test_passphrase_missing_and_wrong(tmp_path, alice, monkeypatch):
    monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
    key, _ = save_identity(alice, tmp_path, b"secret")
    with pytest.raises(KeyFileError, match=r"protected by a passphrase and there is no terminal to ask for it: "
                                           r"set \$KORYO_PBM_PASSPHRASE"):
        load_identity(key)
    with pytest.raises(KeyFileError, match="protected by a passphrase and there is no terminal"):
        load_identity(key, lambda: None)  # the prompt found no terminal
    with pytest.raises(KeyFileError, match="wrong passphrase for key"):
        load_identity(key, b"Secret")
    with pytest.raises(KeyFileError, match="an empty passphrase cannot open key"):
        load_identity(key, lambda: "")
    monkeypatch.setenv("KORYO_PBM_PASSPHRASE", "nope")
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        load_identity(key)


def test_empty_passphrase_refused_on_save(tmp_path, alice):
    with pytest.raises(KeyFileError, match="empty passphrase"):
        save_identity(alice, tmp_path, b"")


@posix_only
def test_key_created_0600_and_no_overwrite(tmp_path, alice, monkeypatch):
    created_modes = []
    real_open = os.open

    def spy_open(path, flags, mode=0o777, *a, **kw):
        if flags & os.O_CREAT:
            created_modes.append((str(path), flags, mode))
        return real_open(path, flags, mode, *a, **kw)

    monkeypatch.setattr(os, "open", spy_open)
    key, _ = save_identity(alice, tmp_path / "keys")
    monkeypatch.undo()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    key_creations = [c for c in created_modes if "alice.key" in c[0]]
    assert key_creations and all(m == 0o600 and f & os.O_EXCL for _, f, m in key_creations)
    with pytest.raises(KeyFileError, match="already exists"):
        save_identity(Identity.generate("alice"), tmp_path / "keys")
    assert load_identity(key).public == alice.public
    other = Identity.generate("alice")
    save_identity(other, tmp_path / "keys", overwrite=True)
    assert load_identity(key).public == other.public


@posix_only
@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o660])
def test_group_or_world_readable_refused(tmp_path, alice, mode):
    key, _ = save_identity(alice, tmp_path)
    key.chmod(mode)
    with pytest.raises(KeyFileError, match=f"chmod 600 {key}"):
        load_identity(key)


@pytest.mark.parametrize(
    "name", ["", "-x", ".hidden", "a/b", "a b", "x" * 65, "é", "../evil", "a\n"]
)
def test_invalid_names(name):
    with pytest.raises(KeyFileError, match="invalid key name"):
        validate_name(name)
    with pytest.raises(KeyFileError):
        Identity.generate(name)


def test_valid_names():
    for name in ["a", "Alice_2", "bob.smith", "x" * 64, "9-lives"]:
        assert validate_name(name) == name


def test_malformed_key_files(tmp_path, alice):
    key, pub = save_identity(alice, tmp_path)
    good = key.read_text()

    def write(text: str | bytes):
        if isinstance(text, str):
            text = text.encode()
        key.write_bytes(text)
        key.chmod(0o600)

    cases = [
        b"\xff\xfe",
        "",
        "hello\n",
        good.replace("v1: alice", "v1: ../x"),
        good.replace("v1:", "v2:"),
        good.split("-----END PRIVATE KEY-----")[0],
        good + good.split("\n", 1)[1],  # four blocks
        good.replace("MC4CAQ", "MC4CAZ", 1),
        good + "trailing junk\n",
    ]
    for case in cases:
        write(case)
        with pytest.raises(KeyFileError, match="alice.key"):
            load_identity(key)
    write(pub.read_text())
    with pytest.raises(KeyFileError, match="is a public key"):
        load_identity(key)
    # swapped blocks: right formats, wrong order
    lines = good.split("-----END PRIVATE KEY-----\n")
    head, b1 = lines[0].split("\n", 1)
    swapped = head + "\n" + lines[1] + "-----END PRIVATE KEY-----\n" + b1 + "-----END PRIVATE KEY-----\n"
    write(swapped)
    with pytest.raises(KeyFileError, match="Ed25519 key then an X25519"):
        load_identity(key)
    write("x" * 70000)
    with pytest.raises(KeyFileError, match="larger than"):
        load_identity(key)


def test_crlf_key_file_accepted(tmp_path, alice):
    key, _ = save_identity(alice, tmp_path)
    key.write_bytes(key.read_bytes().replace(b"\n", b"\r\n"))
    key.chmod(0o600)
    assert load_identity(key).public == alice.public


def test_keyring_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path / "home"))
    assert keyring_dir() == tmp_path / "home" / "keys"
    monkeypatch.delenv("KORYO_PBM_HOME")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
        assert keyring_dir() == tmp_path / "xdg" / "koryo-pbm" / "keys"
        monkeypatch.delenv("XDG_CONFIG_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "h"))
        assert keyring_dir() == tmp_path / "h" / ".config" / "koryo-pbm" / "keys"


def test_find_identity(monkeypatch, tmp_path, alice):
    monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path))
    with pytest.raises(UsageError):
        find_identity()
    with pytest.raises(UsageError):
        find_identity("alice", tmp_path / "x.key")
    with pytest.raises(KeyFileError, match=r"no key for 'bob' in .* \(create one with: koryo-pbm keygen bob\)"):
        find_identity("bob")
    key, _ = save_identity(alice, keyring_dir())
    assert find_identity("alice").public == alice.public
    assert find_identity(key_file=key).public == alice.public
    with pytest.raises(KeyFileError, match="no key file at"):
        find_identity(key_file=tmp_path / "missing.key")


@settings(max_examples=150)
@given(st.text(max_size=200))
def test_fuzz_public_parse_text(text):
    with contextlib.suppress(KoryoPbmError):
        PublicIdentity.parse(text)


@settings(max_examples=100)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", min_size=80, max_size=90))
def test_fuzz_public_parse_body(body):
    with contextlib.suppress(KoryoPbmError):
        PublicIdentity.parse(PUBLIC_PREFIX + body)


@settings(max_examples=150)
@given(st.binary(max_size=600))
def test_fuzz_key_file_bytes(data):
    with contextlib.suppress(KoryoPbmError):
        parse_identity(data, "fuzz.key", b"pw")


@settings(max_examples=150)
@given(st.text(max_size=400))
def test_fuzz_key_file_after_header(text):
    with contextlib.suppress(KoryoPbmError):
        parse_identity(("# koryo-pbm secret key v1: x\n" + text).encode(), "fuzz.key", b"pw")


def test_key_files_read_without_the_pem_reader_hold_the_same_keys(tmp_path, alice):
    """A key file as keygen writes it is read without the ``cryptography`` package's PEM reader
    (a fast path, issue 19): the keys it gives are those the PEM reader gives, and a block in any
    other form still goes to that reader (here: the Ed25519 block in place of the X25519 one)."""
    from cryptography.hazmat.primitives import serialization as ser

    path = tmp_path / "alice.key"
    save_identity(alice, tmp_path)
    data = path.read_bytes()
    fast = parse_identity(data, path)
    pem = data.decode().split("\n", 1)[1]
    blocks = ["-----BEGIN" + b for b in pem.split("-----BEGIN")[1:]]
    slow = [ser.load_pem_private_key(b.encode(), password=None) for b in blocks]
    raw = lambda key: key.private_bytes_raw()  # noqa: E731
    assert (raw(fast.sign_key), raw(fast.open_key)) == (raw(slow[0]), raw(slow[1])) == (
        raw(alice.sign_key), raw(alice.open_key))
    swapped = data.decode().split("\n", 1)[0] + "\n" + blocks[0] + blocks[0]
    with pytest.raises(KeyFileError, match="expected an Ed25519 key then an X25519 key"):
        parse_identity(swapped.encode(), path)


def test_x25519_keys_are_made_with_the_public_api():
    """keys.py makes X25519 keys with cryptography's public class methods (issue 29: an earlier
    version called the private constructor they end in): the public classes' keys, and no use of
    the package's private modules."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

    from koryo_pbm.crypto import keys
    from koryo_pbm.crypto.keys import _x25519_private, _x25519_public

    assert "_rust" not in Path(keys.__file__).read_text(encoding="utf-8")
    for raw in (os.urandom(32), bytes(32), b"\xff" * 32):
        mine = _x25519_private(raw)
        assert isinstance(mine, X25519PrivateKey)
        assert mine.private_bytes_raw() == raw
        assert mine.public_key().public_bytes_raw() == X25519PrivateKey.from_private_bytes(raw).public_key().public_bytes_raw()
        pub = _x25519_public(raw)
        assert isinstance(pub, X25519PublicKey) and pub.public_bytes_raw() == raw
