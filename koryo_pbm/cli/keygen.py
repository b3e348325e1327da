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
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(name: str, ask: bool, directory: Path | None, force: bool, as_json: bool) -> None:
    """Create the key pair NAME: NAME.key (private, mode 0600) and NAME.pub.

    Prints the public key as one line: send it to your moderator (players) or keep it
    (moderators). It is safe to share; the .key file is not.
    """
    from koryo_pbm.crypto.keys import Identity, keyring_dir, save_identity

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
    click.echo(line)
