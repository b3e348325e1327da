"""``koryo-pbm completion SHELL``: the shell-completion script for bash, zsh or fish.

Completion is click's: the script calls ``koryo-pbm`` back with ``_KORYO_PBM_COMPLETE`` set,
and the program answers with the commands, options and values that fit (``--as`` offers the
names of the keys in your keyring)."""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_KORYO_PBM_COMPLETE"


def completion_script(shell: str) -> str:
    from click.shell_completion import get_completion_class

    from koryo_pbm.cli.main import cli

    cls = get_completion_class(shell)
    assert cls is not None, shell
    return cls(cli, {}, "koryo-pbm", COMPLETE_VAR).source()


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS), metavar="SHELL")
def command(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    bash:  add to ~/.bashrc           eval "$(koryo-pbm completion bash)"
    zsh:   add to ~/.zshrc            eval "$(koryo-pbm completion zsh)"
           (after compinit)
    fish:  koryo-pbm completion fish > ~/.config/fish/completions/koryo-pbm.fish
    """
    click.echo(completion_script(shell), nl=False)
