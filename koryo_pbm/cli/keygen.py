"""``koryo-pbm keygen``: create an identity (a key pair) in the keyring."""

from __future__ import annotations

import os
from pathlib import Path

import click

from koryo_pbm.cli.common import echo_json


@click.command("keygen")
@click.argument("name")
@click.option("--passphrase", "ask", is_flag=True,
              help="Protect the private key with a passphrase (prompted, or $KORYO_PBM_PASSPHRASE).")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              help="Keyring folder (default: $KORYO_PBM_HOME/keys or your user config folder).")
@click.option("--force", is_flag=True, help="Replace an existing key of this name (the old one is lost).")
@click.option("--upgrade", is_flag=True,
              help="Rewrite the existing passphrase-protected key NAME in the current format (scrypt at "
                   "the current cost), same keys, same passphrase.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(name: str, ask: bool, directory: Path | None, force: bool, upgrade: bool, as_json: bool) -> None:
    """Create the key pair NAME: NAME.key (private, mode 0600) and NAME.pub.

    Prints the public key as one line: send it to your moderator (players) or keep it
    (moderators). It is safe to share; the .key file is not. Its fingerprint is printed too:
    compare it with the other side out of band (phone, in person).
    """
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.store.keyring import keyring_dir, save_identity

    if upgrade:
        _upgrade(name, directory or keyring_dir(), as_json)
        return
    passphrase = None
    if ask:
        env = os.environ.get("KORYO_PBM_PASSPHRASE")
        if env:
            passphrase = env.encode("utf-8")
        else:
            from koryo_pbm.cli.common import can_ask_secret
            from koryo_pbm.errors import UsageError

            if not can_ask_secret():
                raise UsageError("keygen --passphrase asks for the passphrase on a terminal, and there is none: "
                                 "set $KORYO_PBM_PASSPHRASE")
            passphrase = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True,
                                      err=True).encode("utf-8")
    folder = directory or keyring_dir()
    identity = Identity.generate(name)
    key_path, pub_path = save_identity(identity, folder, passphrase, overwrite=force)
    line = identity.public.line()
    if as_json:
        echo_json({"name": name, "public": line, "fingerprint": identity.public.fingerprint(),
                   "key_file": str(key_path), "pub_file": str(pub_path)})
        return
    click.echo(f"created {key_path} (private: keep it) and {pub_path}", err=True)
    click.echo(f"fingerprint {identity.public.fingerprint()}: compare it with the other side out of band",
               err=True)
    click.echo(line)


def _scrypt_n(data: bytes) -> int:
    """The scrypt cost a v2 key file names (0 if it names none readable: the reader says why)."""
    for line in data.split(b"\n")[1:6]:
        if line.startswith(b"n: ") and line[3:].isdigit():
            return int(line[3:])
    return 0


def _upgrade(name: str, folder: Path, as_json: bool) -> None:
    """Open NAME.key with its passphrase and write it again as a v2 (scrypt) key file, at the
    current cost (a v2 file with a weaker scrypt cost is protected again too)."""
    from koryo_pbm.cli.common import _prompt_passphrase
    from koryo_pbm.crypto.keys import (
        KEY_FILE_LIMIT,
        PASSPHRASE_ENV,
        SCRYPT_N_MIN,
        key_file_version,
        parse_identity,
        validate_name,
    )
    from koryo_pbm.errors import KeyFileError, KoryoPbmError
    from koryo_pbm.store.atomic import read_limited_at
    from koryo_pbm.store.keyring import check_keyring, save_identity

    validate_name(name)
    check_keyring(folder)
    path = folder / f"{name}.key"
    try:
        data = read_limited_at(path, KEY_FILE_LIMIT, "key file")
    except KoryoPbmError as exc:
        raise KeyFileError(str(exc)) from None
    version, protected = key_file_version(data)
    if not protected:
        raise KeyFileError(f"key {path} has no passphrase: there is nothing to upgrade (it is read as it is)")
    if version >= 2 and _scrypt_n(data) >= SCRYPT_N_MIN:
        raise KeyFileError(f"key {path} is already in the current format (v2, scrypt): nothing to do")
    env = os.environ.get(PASSPHRASE_ENV)
    secret = env.encode("utf-8") if env else _prompt_passphrase()
    if not secret:
        raise KeyFileError(f"key {path} is protected by a passphrase and there is no terminal to ask for it: "
                           f"set ${PASSPHRASE_ENV}")
    identity = parse_identity(data, path, secret, weak_ok=True)
    save_identity(identity, folder, secret, overwrite=True)
    if as_json:
        echo_json({"name": name, "key_file": str(path), "format": 2, "fingerprint": identity.public.fingerprint()})
        return
    click.echo(f"upgraded {path} to key format v2 (scrypt); the keys and the passphrase are the same "
               f"(fingerprint {identity.public.fingerprint()})", err=True)
