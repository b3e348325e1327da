"""The keyring: the folder of a user's keys (``keyring_dir``), checked to be the user's own and
not writable by others (``check_keyring``), keys saved into it (``save_identity``) and the
identity chosen by ``--as NAME`` or ``--key FILE`` (``find_identity``).

The key formats and the reading of one key file are :mod:`koryo_pbm.crypto.keys`; this module
adds the folder and the atomic writes of the store."""

from __future__ import annotations

import os
from pathlib import Path

from koryo_pbm.crypto.keys import (
    HOME_ENV,
    Identity,
    Passphrase,
    _encode_secret,
    keyring_dir,
    load_identity,
    validate_name,
)
from koryo_pbm.errors import KeyFileError, NoSuchKey, UsageError
from koryo_pbm.store.atomic import write_atomic

__all__ = ["HOME_ENV", "check_keyring", "find_identity", "keyring_dir", "save_identity"]


def save_identity(
    identity: Identity, directory: Path, passphrase: bytes | None = None, *, overwrite: bool = False
) -> tuple[Path, Path]:
    """Write ``NAME.key`` (mode 0600 from creation) and ``NAME.pub`` into ``directory``.

    ``passphrase=None`` stores the key unencrypted; an empty passphrase is refused.
    Refuses (``KeyFileError``) to replace an existing key unless ``overwrite``.
    """
    name = validate_name(identity.name)
    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    if passphrase is not None and len(passphrase) == 0:
        raise KeyFileError("an empty passphrase is not allowed; give none to store the key unencrypted")
    directory = Path(directory)
    key_path = directory / f"{name}.key"
    pub_path = directory / f"{name}.pub"
    check_keyring(directory)
    if not overwrite and (key_path.exists() or key_path.is_symlink()):
        raise KeyFileError(f"a key for {name!r} already exists at {key_path}; refusing to overwrite it")
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise KeyFileError(f"cannot create the key folder {directory}: {exc.strerror or exc}") from None
    secret = _encode_secret(identity, passphrase)
    write_atomic(key_path, secret, mode=0o600)
    write_atomic(pub_path, (identity.public.line() + "\n").encode("ascii"), mode=0o644)
    return key_path, pub_path


def check_keyring(directory: Path) -> None:
    """``KeyFileError`` if the keyring folder belongs to another user or can be written by
    group or others (whoever can write there can swap a key). A missing folder passes."""
    if os.name != "posix":  # pragma: no cover - Windows folders have ACLs, not modes
        return
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise KeyFileError(f"cannot read the keyring folder {directory}: {exc.strerror or exc}") from None
    if st.st_uid != os.getuid():
        raise KeyFileError(f"the keyring folder {directory} belongs to another user (uid {st.st_uid}); "
                           "keys are read only from a folder of your own")
    if st.st_mode & 0o022:
        raise KeyFileError(f"the keyring folder {directory} can be written by other users "
                           f"(mode {st.st_mode & 0o777:o}); run: chmod 700 {directory}")


def find_identity(
    name: str | None = None, key_file: Path | None = None, passphrase: Passphrase = None
) -> Identity:
    """The identity chosen by ``--as NAME`` (from ``keyring_dir()``) or ``--key FILE``: exactly one."""
    if (name is None) == (key_file is None):
        raise UsageError("say who you are with exactly one of --as NAME or --key FILE")
    if key_file is not None:
        return load_identity(Path(key_file), passphrase)
    assert name is not None
    validate_name(name)
    directory = keyring_dir()
    path = directory / f"{name}.key"
    check_keyring(directory)
    if not path.exists():
        raise NoSuchKey(f"no key for {name!r} in {directory} (create one with: koryo-pbm keygen {name})")
    return load_identity(path, passphrase)
