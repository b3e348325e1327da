"""Identities: one Ed25519 key (signing) and one X25519 key (opening sealed parts) per person.

Public key line (one line, easy to paste into an email)::

    koryo-pbm-pub-v1:<base64url, no padding, of ed25519 public (32) || x25519 public (32)>

Anything after the token (``koryo-pbm-pub-v1:... alice``) is a comment and ignored.

Secret key file ``NAME.key`` (mode 0600), without a passphrase (format v1)::

    # koryo-pbm secret key v1: NAME
    -----BEGIN PRIVATE KEY-----   (Ed25519, PKCS#8)
    ...
    -----BEGIN PRIVATE KEY-----   (X25519, PKCS#8)
    ...

With a passphrase (format v2): the two raw private keys (Ed25519 then X25519, 64 bytes) sealed
with ChaCha20-Poly1305 under a key derived from the passphrase by scrypt (memory-hard: every
guess costs 128 MiB and about half a second), the lines before ``sealed`` as associated data
(so that no parameter can be changed)::

    # koryo-pbm secret key v2: NAME
    kdf: scrypt
    n: 131072
    r: 8
    p: 1
    salt: <base64, 16 bytes>
    nonce: <base64, 12 bytes>
    sealed: <base64, 80 bytes>

Older files whose v1 blocks are encrypted (PKCS#8 with PBKDF2, 2,048 iterations: cheap to
guess) still open; ``koryo-pbm keygen --upgrade NAME`` rewrites them as v2.
``NAME.pub`` holds the public line.

Public keys that are degenerate are refused: an Ed25519 key of small order (the identity point
among them: its owner could later deny anything signed with it, since one signature then
verifies for every message) and an X25519 key of small order (every seal to it is readable).

The keyring folder must belong to the user and not be writable by group or others: whoever can
write there can replace a key.
"""

from __future__ import annotations

import binascii
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.hashes import SHA256, Hash

from koryo_pbm.errors import KeyFileError, KoryoPbmError
from koryo_pbm.values import ALNUM, Spelling

if TYPE_CHECKING:  # the X25519 module is imported where a key is made or opened: status and verify
    # read public keys (their X25519 half is built on use) and open nothing
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

PUBLIC_PREFIX = "koryo-pbm-pub-v1:"
SECRET_HEADER = "# koryo-pbm secret key v1: "
SECRET_HEADER_V2 = "# koryo-pbm secret key v2: "
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1  # written; a file names its own (within the bounds below)
# The least scrypt cost read: a file with a lower n (one written by an older or foreign tool, or
# crafted to be cheap to guess) is refused with the command that protects it again
# (``keygen --upgrade``, which alone opens it). The page refuses the same files.
SCRYPT_N_MIN = 2**17
_SCRYPT_BOUNDS = {"n": (2**10, 2**18), "r": (1, 8), "p": (1, 4)}
_V2_INFO = b"koryo-pbm secret key v2\x00"

# Small-order points, as 32-byte encodings with the top bit (Ed25519: the sign of x) cleared:
# 0, 1, the two points of order 8, p - 1, p and p + 1 (the last two non-canonical).
_P_MINUS = bytes.fromhex("ec" + "ff" * 30 + "7f"), bytes.fromhex("ed" + "ff" * 30 + "7f"), \
    bytes.fromhex("ee" + "ff" * 30 + "7f")
_ED25519_SMALL_ORDER = frozenset({
    bytes(32), b"\x01" + bytes(31),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    *_P_MINUS,
})
_X25519_SMALL_ORDER = frozenset({
    bytes(32), b"\x01" + bytes(31),
    bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
    bytes.fromhex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
    *_P_MINUS,
})


def _top_cleared(raw: bytes) -> bytes:
    return raw[:31] + bytes([raw[31] & 0x7F])


def _ed25519_valid_point(raw: bytes) -> bool:
    """libsodium's ``crypto_core_ed25519_is_valid_point``: ``raw`` is the canonical encoding of a
    point of the prime-order subgroup, not of small order. ``cryptography`` (OpenSSL) accepts
    any point on the curve as a key and verifies without the cofactor, ZIP-215 verifiers (the
    page's library by default) with it: for a key with a component of order 8 they disagree
    (tests/vectors/ed25519-strict-v1.json); for a key of the subgroup they cannot."""
    from nacl.bindings import crypto_core_ed25519_is_valid_point

    return bool(crypto_core_ed25519_is_valid_point(raw))

PASSPHRASE_ENV = "KORYO_PBM_PASSPHRASE"
HOME_ENV = "KORYO_PBM_HOME"
KEY_FILE_LIMIT = 64 * 1024

# checked with string methods, not compiled patterns (see koryo_pbm.values)
_NAME_RE = Spelling(ALNUM + "_.-", 0, 63, first=ALNUM)  # [A-Za-z0-9][A-Za-z0-9_.-]{0,63}
_B64_RE = Spelling(ALNUM + "_-", 86)  # [A-Za-z0-9_-]{86}


_PEM_BODY = Spelling(ALNUM + "+/=\n", 1, None)


def _pem_block_end(text: str, at: int) -> int | None:
    """Where the private key block that starts at ``at`` ends, if one does there: a match of
    ``-----BEGIN ((?:ENCRYPTED )?)PRIVATE KEY-----\\n[A-Za-z0-9+/=\\n]+?-----END \\1PRIVATE KEY-----\\n?``
    (read with string methods: compiling it cost every command that opens a key)."""
    start = at + len("-----BEGIN ")
    kind = "ENCRYPTED " if text.startswith("ENCRYPTED ", start) else ""
    head = kind + "PRIVATE KEY-----\n"
    if not text.startswith(head, start):
        return None
    body = start + len(head)
    end = text.find("-----END ", body)  # the body holds no "-": it ends at the first one
    if end <= body or not _PEM_BODY.fits(text[body:end]):
        return None
    tail = "-----END " + kind + "PRIVATE KEY-----"
    if not text.startswith(tail, end):
        return None
    end += len(tail)
    return end + 1 if text.startswith("\n", end) else end


def _pem_blocks(text: str) -> tuple[list[tuple[str, bool]], str]:
    """The private key blocks of ``text`` (each block's text and whether it is encrypted), and
    what is left of ``text`` without them: ``finditer`` and ``sub("")`` of the expression above."""
    blocks: list[tuple[str, bool]] = []
    left: list[str] = []
    done = search = 0
    while (at := text.find("-----BEGIN ", search)) >= 0:
        end = _pem_block_end(text, at)
        if end is None:
            search = at + 1
            continue
        left.append(text[done:at])
        blocks.append((text[at:end], text.startswith("ENCRYPTED ", at + len("-----BEGIN "))))
        done = search = end
    left.append(text[done:])
    return blocks, "".join(left)


Passphrase = Callable[[], "bytes | str | None"] | bytes | str | None


def validate_name(name: str) -> str:
    """Return ``name`` if it is a valid identity name, else ``KeyFileError``."""
    if not isinstance(name, str) or not _NAME_RE.fits(name):
        raise KeyFileError(
            f"invalid key name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256. Uses ``cryptography`` (already loaded for the keys) rather than ``hashlib``,
    which would load a second copy of OpenSSL at start-up."""
    h = Hash(SHA256())
    h.update(bytes(data))
    return h.finalize().hex()


_URLSAFE = bytes.maketrans(b"+/", b"-_")  # base64's URL-safe alphabet (binascii: no base64 module to load)
_URLSAFE_DECODE = bytes.maketrans(b"-_", b"+/")


def _b64url(raw: bytes) -> str:
    return binascii.b2a_base64(raw, newline=False).translate(_URLSAFE).decode("ascii").rstrip("=")


class PublicIdentity:
    """Somebody's public keys: ``verify_key`` checks their signatures, ``seal_key`` seals to them.

    Immutable; equal (and hashed) by the 64 raw bytes. ``seal_key`` is built on first use: the
    ``cryptography`` package loads its whole OpenSSL backend to make an X25519 key, which
    commands that only verify signatures (``status``) do not need.
    """

    __slots__ = ("_fingerprint", "_raw", "_seal_key", "verify_key")

    verify_key: Ed25519PublicKey
    _seal_key: X25519PublicKey | None
    _fingerprint: str | None
    _raw: bytes

    def __init__(self, verify_key: Ed25519PublicKey, seal_key: X25519PublicKey) -> None:
        raw = verify_key.public_bytes_raw() + seal_key.public_bytes_raw()
        object.__setattr__(self, "verify_key", verify_key)
        object.__setattr__(self, "_seal_key", seal_key)
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_fingerprint", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"PublicIdentity is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"PublicIdentity is immutable (cannot delete {name!r})")

    @property
    def seal_key(self) -> X25519PublicKey:
        key = self._seal_key
        if key is None:
            key = _x25519_public(self._raw[32:])
            object.__setattr__(self, "_seal_key", key)
        return key

    @property
    def raw(self) -> bytes:
        """The 64 raw bytes: Ed25519 public key then X25519 public key."""
        return self._raw

    @classmethod
    def from_raw(cls, raw: bytes) -> PublicIdentity:
        if not isinstance(raw, (bytes, bytearray)) or len(raw) != 64:
            raise KeyFileError("not a koryo-pbm public key: wrong length")
        ed = bytes(raw[:32])
        if _top_cleared(ed) in _ED25519_SMALL_ORDER:
            raise KeyFileError("not a usable public key: its signing key is a degenerate point of small order "
                               "(a signature by it would verify for any message)")
        if _top_cleared(bytes(raw[32:])) in _X25519_SMALL_ORDER:
            raise KeyFileError("not a usable public key: its sealing key is a degenerate point of small order "
                               "(anything sealed to it could be read by anyone)")
        if not _ed25519_valid_point(ed):
            raise KeyFileError("not a usable public key: its signing key is not a point of the prime-order group "
                               "(a mixed-order or non-canonical point: signatures by it would verify for some "
                               "checkers and not others)")
        try:
            verify_key = Ed25519PublicKey.from_public_bytes(ed)
        except ValueError:
            raise KeyFileError("not a koryo-pbm public key: invalid key bytes") from None
        self = object.__new__(cls)
        object.__setattr__(self, "verify_key", verify_key)
        object.__setattr__(self, "_seal_key", None)  # any 32 bytes are an X25519 key: built on use
        object.__setattr__(self, "_raw", bytes(raw))
        object.__setattr__(self, "_fingerprint", None)
        return self

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (PublicIdentity.from_raw, (self._raw,))

    def line(self) -> str:
        """The one-line text form, ``koryo-pbm-pub-v1:...``."""
        return PUBLIC_PREFIX + _b64url(self._raw)

    def fingerprint(self) -> str:
        """A short id: the first 16 hex digits of SHA-256 over the 64 raw bytes (computed once:
        verify asks it of every published order)."""
        found = self._fingerprint
        if found is None:
            found = sha256_hex(self._raw)[:16]
            object.__setattr__(self, "_fingerprint", found)
        return found

    @classmethod
    def parse(cls, text: str | bytes) -> PublicIdentity:
        """Read a public key line (surrounding whitespace and a trailing comment are ignored)."""
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise KeyFileError("not a koryo-pbm public key: not UTF-8 text") from None
        if not isinstance(text, str):
            raise KeyFileError("not a koryo-pbm public key: not text")
        stripped = text.strip()
        if "koryo-pbm secret key" in stripped or "PRIVATE KEY-----" in stripped:
            raise KeyFileError(
                "not a koryo-pbm public key: this is a SECRET key, keep it private "
                "and share the .pub file (koryo-pbm-pub-v1:...) instead"
            )
        token = stripped.split(None, 1)[0] if stripped else ""
        if not token.startswith(PUBLIC_PREFIX):
            shown = token[:24] + ("..." if len(token) > 24 else "")
            raise KeyFileError(f"not a koryo-pbm public key: expected '{PUBLIC_PREFIX}...', got {shown!r}")
        body = token[len(PUBLIC_PREFIX):]
        if not _B64_RE.fits(body):
            raise KeyFileError("not a koryo-pbm public key: the key text is damaged (wrong length or characters)")
        raw = binascii.a2b_base64((body + "==").encode("ascii").translate(_URLSAFE_DECODE))
        if _b64url(raw) != body:  # non-canonical trailing bits: refuse, one key has one spelling
            raise KeyFileError("not a koryo-pbm public key: the key text is damaged")
        return cls.from_raw(raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PublicIdentity):
            return NotImplemented
        return self._raw == other._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __repr__(self) -> str:
        return f"PublicIdentity({self.fingerprint()})"

    def __str__(self) -> str:
        return self.line()


class Identity:
    """A person's secret keys. ``repr`` never shows them."""

    __slots__ = ("_public", "name", "open_key", "sign_key")

    def __init__(self, name: str, sign_key: Ed25519PrivateKey, open_key: X25519PrivateKey) -> None:
        self.name = validate_name(name)
        self.sign_key = sign_key
        self.open_key = open_key
        self._public: PublicIdentity | None = None

    @classmethod
    def generate(cls, name: str) -> Identity:
        validate_name(name)
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

        return cls(name, Ed25519PrivateKey.generate(), X25519PrivateKey.generate())

    @property
    def public(self) -> PublicIdentity:
        if self._public is None:
            self._public = PublicIdentity(self.sign_key.public_key(), self.open_key.public_key())
        return self._public

    def fingerprint(self) -> str:
        return self.public.fingerprint()

    def __repr__(self) -> str:
        return f"Identity({self.name!r}, {self.public.fingerprint()})"


# --- where keys live -------------------------------------------------------------------------


def keyring_dir() -> Path:
    """``$KORYO_PBM_HOME/keys``, else the platform's user configuration folder + ``koryo-pbm/keys``."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser() / "keys"
    if sys.platform == "win32":  # pragma: no cover - platform specific
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else Path.home() / "AppData" / "Roaming"
    elif sys.platform == "darwin":  # pragma: no cover - platform specific
        base = Path.home() / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    return base / "koryo-pbm" / "keys"



# X25519 keys from their raw bytes through ``cryptography``'s public class methods (which apply
# the package's own checks and policy; an earlier version called the private constructor they end
# in, to skip the import of the OpenSSL backend: issue 29 asked for the public API).
def _x25519_private(raw: bytes) -> X25519PrivateKey:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    return X25519PrivateKey.from_private_bytes(raw)


def _x25519_public(raw: bytes) -> X25519PublicKey:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

    return X25519PublicKey.from_public_bytes(raw)


# --- secret key files ------------------------------------------------------------------------


def _scrypt_key(passphrase: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase)


def _encode_secret(identity: Identity, passphrase: bytes | None) -> bytes:
    from cryptography.hazmat.primitives import serialization as ser

    if passphrase is None:
        blocks = [
            key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
            for key in (identity.sign_key, identity.open_key)
        ]
        return (SECRET_HEADER + identity.name + "\n").encode("ascii") + b"".join(blocks)
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    salt, nonce = os.urandom(16), os.urandom(12)
    head = (
        f"{SECRET_HEADER_V2}{identity.name}\nkdf: scrypt\nn: {SCRYPT_N}\nr: {SCRYPT_R}\np: {SCRYPT_P}\n"
        f"salt: {binascii.b2a_base64(salt, newline=False).decode()}\n"
        f"nonce: {binascii.b2a_base64(nonce, newline=False).decode()}\n"
    ).encode("ascii")
    raw = identity.sign_key.private_bytes_raw() + identity.open_key.private_bytes_raw()
    key = _scrypt_key(passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    sealed = ChaCha20Poly1305(key).encrypt(nonce, raw, _V2_INFO + head)
    return head + b"sealed: " + binascii.b2a_base64(sealed, newline=False) + b"\n"


def _parse_v2(text: str, path: Path | str, passphrase: Passphrase, *, weak_ok: bool = False) -> Identity:
    """A v2 key file (see the module docstring). A file whose scrypt cost is below
    :data:`SCRYPT_N_MIN` is refused unless ``weak_ok`` (``keygen --upgrade``, which protects it
    again)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    keys = ("kdf", "n", "r", "p", "salt", "nonce", "sealed")
    if len(lines) != 1 + len(keys):
        raise KeyFileError(f"key {path} is damaged: a v2 key has {1 + len(keys)} lines")
    name = lines[0][len(SECRET_HEADER_V2):].strip()
    if not _NAME_RE.fits(name):
        raise KeyFileError(f"key {path} is damaged: invalid name on its first line")
    values = {}
    for key, line in zip(keys, lines[1:], strict=True):
        if not line.startswith(f"{key}: "):
            raise KeyFileError(f"key {path} is damaged: expected '{key}: ...'")
        values[key] = line[len(key) + 2:]
    if values["kdf"] != "scrypt":
        raise KeyFileError(f"key {path} uses an unknown key derivation {values['kdf'][:20]!r}")
    params = {}
    for key, (low, high) in _SCRYPT_BOUNDS.items():
        v = values[key]
        if not v.isdigit() or not low <= int(v) <= high or (key == "n" and int(v) & (int(v) - 1)):
            raise KeyFileError(f"key {path} is damaged: scrypt '{key}' must be between {low} and {high}")
        params[key] = int(v)
    if params["n"] < SCRYPT_N_MIN and not weak_ok:
        raise KeyFileError(f"key {path} is protected by a weak passphrase stretch (scrypt n = {params['n']}, below "
                           f"{SCRYPT_N_MIN}): protect it again with: koryo-pbm keygen --upgrade {name} "
                           f"(--dir FOLDER for a key outside your keyring)")
    try:
        salt, nonce, sealed = (binascii.a2b_base64(values[k], strict_mode=True) for k in ("salt", "nonce", "sealed"))
    except (binascii.Error, ValueError):
        raise KeyFileError(f"key {path} is damaged: invalid base64") from None
    if len(salt) != 16 or len(nonce) != 12 or len(sealed) != 64 + 16:
        raise KeyFileError(f"key {path} is damaged: wrong sizes")
    password = _resolve_passphrase(passphrase, Path(path))
    head = ("\n".join(lines[:-1]) + "\n").encode("ascii")
    derived = _scrypt_key(password, salt, params["n"], params["r"], params["p"])
    try:
        raw = ChaCha20Poly1305(derived).decrypt(nonce, sealed, _V2_INFO + head)
    except InvalidTag:
        raise KeyFileError(f"wrong passphrase for key {path}") from None
    return Identity(name, Ed25519PrivateKey.from_private_bytes(raw[:32]), _x25519_private(raw[32:]))


def key_file_version(data: bytes) -> tuple[int, bool]:
    """``(format version, protected by a passphrase)`` of the bytes of a secret key file."""
    if data.startswith(SECRET_HEADER_V2.encode("ascii")):
        return 2, True
    return 1, b"ENCRYPTED PRIVATE KEY" in data


def _resolve_passphrase(passphrase: Passphrase, path: Path) -> bytes:
    value: bytes | str | None
    if isinstance(passphrase, (bytes, str)):
        value = passphrase
    elif os.environ.get(PASSPHRASE_ENV) is not None:
        value = os.environ[PASSPHRASE_ENV]
    elif callable(passphrase):
        value = passphrase()
    else:
        value = None
    if value is None:
        raise KeyFileError(
            f"key {path} is protected by a passphrase and there is no terminal to ask for it: set ${PASSPHRASE_ENV}"
        )
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not value:
        raise KeyFileError(f"an empty passphrase cannot open key {path}")
    return value


def _check_mode(path: Path, st: os.stat_result) -> None:
    if os.name == "posix" and st.st_mode & 0o077:
        raise KeyFileError(
            f"key {path} can be read by other users (mode {st.st_mode & 0o777:o}); run: chmod 600 {path}"
        )


def load_identity(path: Path, passphrase: Passphrase = None) -> Identity:
    """Read a secret key file. See the module docstring for the format and the passphrase rules."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise KeyFileError(f"no key file at {path}") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read key {path}: {exc.strerror or exc}") from None
    if not os.path.isfile(path):
        raise KeyFileError(f"key {path} is not a file")
    if st.st_size > KEY_FILE_LIMIT:
        raise KeyFileError(f"key {path} is larger than {KEY_FILE_LIMIT} bytes: not a koryo-pbm key")
    try:
        with open(path, "rb") as f:
            data = f.read(KEY_FILE_LIMIT + 1)
    except OSError as exc:
        raise KeyFileError(f"cannot read key {path}: {exc.strerror or exc}") from None
    if len(data) > KEY_FILE_LIMIT:
        raise KeyFileError(f"key {path} is larger than {KEY_FILE_LIMIT} bytes: not a koryo-pbm key")
    _refuse_public(data, path)  # first: the permissions of a public key do not matter
    _check_mode(path, st)
    return parse_identity(data, path, passphrase)


def _refuse_public(data: bytes, path: Path | str) -> None:
    if data.lstrip().startswith(PUBLIC_PREFIX.encode("ascii")):
        secret = Path(path).with_suffix(".key") if str(path).endswith(".pub") else None
        hint = f" (keygen wrote the secret one beside it: {secret})" if secret else ""
        raise KeyFileError(f"{path} is a public key; --key needs your secret key file{hint}")


# The unencrypted PKCS #8 form (RFC 8410) that keygen writes, for an Ed25519 then an X25519 key:
# these 16 bytes of DER, then the 32 bytes of the private key.
_RFC8410 = (bytes.fromhex("302e020100300506032b657004220420"), bytes.fromhex("302e020100300506032b656e04220420"))


def _rfc8410_raw(block: str, prefix: bytes) -> bytes | None:
    """The 32 private bytes of an unencrypted PEM block holding exactly ``prefix`` and 32 bytes;
    None for any other block (encrypted, or another encoding of a key), which the ``cryptography``
    package's own PEM reader then reads. Reading the one form keygen writes here spares every
    command that opens a key the import of that reader (all of ``serialization``: RSA, DSA, EC,
    SSH, bcrypt), some 20 ms."""
    lines = block.strip().split("\n")
    try:
        der = binascii.a2b_base64("".join(lines[1:-1]), strict_mode=True)
    except ValueError:  # binascii.Error
        return None
    return der[len(prefix):] if len(der) == len(prefix) + 32 and der.startswith(prefix) else None


def parse_identity(data: bytes, path: Path | str, passphrase: Passphrase = None, *, weak_ok: bool = False) -> Identity:
    """Parse the bytes of a secret key file; ``path`` is only used in messages. ``weak_ok``: read
    a v2 file whose scrypt cost is below :data:`SCRYPT_N_MIN` (to protect it again)."""
    try:
        text = data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise KeyFileError(f"key {path} is not a koryo-pbm secret key (not UTF-8 text)") from None
    first, _, rest = text.partition("\n")
    _refuse_public(data, path)
    if first.startswith(SECRET_HEADER_V2):
        return _parse_v2(text, path, passphrase, weak_ok=weak_ok)
    if not first.startswith(SECRET_HEADER):
        raise KeyFileError(f"key {path} is not a koryo-pbm secret key (first line must be '{SECRET_HEADER}NAME')")
    name = first[len(SECRET_HEADER):].strip()
    if not _NAME_RE.fits(name):
        raise KeyFileError(f"key {path} is damaged: invalid name on its first line")
    blocks, leftover = _pem_blocks(rest)
    if len(blocks) != 2 or leftover.strip():
        raise KeyFileError(f"key {path} is damaged: expected two private key blocks")
    encrypted = {sealed for _, sealed in blocks}
    if len(encrypted) != 1:
        raise KeyFileError(f"key {path} is damaged: one block is encrypted, the other is not")
    password = _resolve_passphrase(passphrase, Path(path)) if encrypted.pop() else None

    if password is None:
        sign_raw, open_raw = (_rfc8410_raw(block, prefix) for (block, _), prefix in zip(blocks, _RFC8410, strict=True))
        if sign_raw is not None and open_raw is not None:
            return Identity(name, Ed25519PrivateKey.from_private_bytes(sign_raw),
                            _x25519_private(open_raw))

    from cryptography.hazmat.primitives import serialization as ser

    keys = []
    for i, (block, _) in enumerate(blocks):
        try:
            keys.append(ser.load_pem_private_key(block.encode("ascii"), password=password))
        except (ValueError, TypeError):
            if password is not None and i == 0:
                raise KeyFileError(f"wrong passphrase for key {path}") from None
            raise KeyFileError(f"key {path} is damaged: a private key block cannot be read") from None
        except KoryoPbmError:
            raise
        except Exception:  # the backend's unsupported-algorithm errors and the like
            raise KeyFileError(f"key {path} is damaged: a private key block cannot be read") from None
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    sign_key, open_key = keys
    if not isinstance(sign_key, Ed25519PrivateKey) or not isinstance(open_key, X25519PrivateKey):
        raise KeyFileError(f"key {path} is damaged: expected an Ed25519 key then an X25519 key")
    return Identity(name, sign_key, open_key)


def load_public(text_or_path: str | Path) -> PublicIdentity:
    """A public key from a key line, or from the path of a ``.pub`` file."""
    if isinstance(text_or_path, str) and text_or_path.strip().startswith(PUBLIC_PREFIX):
        return PublicIdentity.parse(text_or_path)
    path = Path(text_or_path)
    try:
        is_file = path.is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        shown = str(text_or_path)
        shown = shown[:40] + ("..." if len(shown) > 40 else "")
        raise KeyFileError(f"not a koryo-pbm public key line and no such file: {shown!r}")
    try:
        if path.stat().st_size > KEY_FILE_LIMIT:
            raise KeyFileError(f"{path} is larger than {KEY_FILE_LIMIT} bytes: not a public key file")
        with open(path, "rb") as f:
            data = f.read(KEY_FILE_LIMIT + 1)
    except OSError as exc:
        raise KeyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return PublicIdentity.parse(data)
    except KeyFileError as exc:
        raise KeyFileError(f"{path}: {exc}") from None
