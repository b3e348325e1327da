"""The ``koryo-pbm`` group and the one error boundary of the command line.

Commands live one per module and are imported only when called, so that a quick command such
as ``status`` does not pay for the imports of ``resolve`` or ``simulate``.

Every :class:`~koryo_pbm.errors.KoryoPbmError` becomes a one-line ``koryo-pbm: error: …`` on
stderr and its exit code (1, or 2 for usage errors); click's own usage errors exit 2. A
traceback is a bug.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import NoReturn

import click

from koryo_pbm import __version__
from koryo_pbm.errors import KoryoPbmError

# command name -> module under koryo_pbm.cli; each module defines `command`.
COMMANDS: dict[str, str] = {
    "keygen": "keygen",
    "new": "new",
    "show": "show",
    "inspect": "inspect",
    "status": "status",
    "log": "log",
    "orders": "orders",
    "submit": "submit",
    "co-deal": "co_deal",
    "play": "play",
    "player-page": "player_page",
    "resolve": "resolve",
    "verify": "verify",
    "demo": "demo",
    "simulate": "simulate",
    "position": "position",
    "games": "games",
    "address": "address",
    "deadline": "deadline",
    "replace": "replace",
    "bot": "bot",
    "serve": "serve",
    "wait": "wait",
    "receipt": "receipt",
    "completion": "completion",
    "say": "say",
    "read": "read",
}

_HELP_LINES = {
    "keygen": "Create a key pair (identity) in the keyring.",
    "new": "Create a game folder (moderator).",
    "show": "Show a game: the public state, and your own cards with --as.",
    "inspect": "Everything your key (or anyone's) can open in a game file, opened.",
    "status": "The pending decision and who is still missing.",
    "log": "The public history of a game, round by round.",
    "orders": "Write an orders file for the pending decision.",
    "submit": "Sign and seal orders to the moderator.",
    "co-deal": "Answer what a blind game asks of its co-dealer.",
    "play": "Answer the pending decision from numbered menus, then submit.",
    "player-page": "Write (or check) the player page: play with only a browser and mail.",
    "resolve": "Verify envelopes and advance the game (moderator).",
    "verify": "Replay a finished game and check everything the moderator did.",
    "demo": "Play a complete game between bots through the real protocol.",
    "simulate": "Play many random games in-process and print statistics.",
    "position": "Check a position file, or write out a game's position.",
    "games": "List the installed games.",
    "completion": "Print the shell-completion script for bash, zsh or fish.",
    "address": "List or set the players' mail addresses (moderator).",
    "deadline": "Extend or set the pending decision's deadline (moderator).",
    "replace": "Give a player's seat to a substitute's key (moderator).",
    "bot": "Let a bot answer for a player, with that player's key.",
    "serve": "Run the judge: serve games by mail and shared folder (moderator).",
    "wait": "Wait until a player is waited for (for scripts).",
    "receipt": "Check a receipt from the judge.",
    "say": "Write press to other players, sealed to each of them.",
    "read": "Open press written to you.",
}


# The ``--help`` and ``--version`` options are made here as click makes them, with click's own
# words: click's decorators (and the help option it adds to each command) ask gettext for a
# translation of those words, which click does not ship, in every command, and the first such
# look-up imports ``locale``: about 2 ms of CPU per command with the look-ups themselves.
# (``click.Path`` names itself the same way, hence ``cli.common.PathType``.)
HELP_NAMES = ["-h", "--help"]
HELP = "Show this message and exit."


def _show_help(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """What click's help option does: print the help, and exit."""
    if value and not ctx.resilient_parsing:
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """What click's version option does, with this message."""
    if value and not ctx.resilient_parsing:
        click.echo(f"koryo-pbm, version {__version__}", color=ctx.color)
        ctx.exit()


def give_help_option(command: click.Command, ctx: click.Context) -> click.Command:
    """``command`` with the help option click would add to it (the names it would give it, last
    of its options), made here (see :data:`HELP`); once per command."""
    if command.add_help_option:
        names = command.get_help_option_names(ctx)
        command.add_help_option = False
        if names:
            command.params.append(click.Option(names, is_flag=True, expose_value=False, is_eager=True,
                                               callback=_show_help, help=HELP))
    return command


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if self._available(name)]

    @staticmethod
    def _available(name: str) -> bool:
        import importlib.util  # for the list alone (help): a command is found by importing it

        return importlib.util.find_spec(f"koryo_pbm.cli.{COMMANDS[name]}") is not None

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = COMMANDS.get(name)
        if module is None:
            return None
        try:
            command: click.Command = importlib.import_module(f"koryo_pbm.cli.{module}").command
        except ModuleNotFoundError as exc:  # that command's module is not installed; not one it imports
            if exc.name == f"koryo_pbm.cli.{module}":
                return None
            raise
        return give_help_option(command, ctx)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help lists every command without importing them all.
        rows = [(name, _HELP_LINES.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": HELP_NAMES}, add_help_option=False)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and exit.")
@click.option(*HELP_NAMES, is_flag=True, expose_value=False, is_eager=True, callback=_show_help, help=HELP)
def cli() -> None:
    """Play card games by mail or through a shared folder.

    The whole game is one signed TOML file: public state in plain text, each player's hand
    sealed to that player, the moderator's secrets sealed to the moderator. Players submit
    signed, sealed orders; the moderator resolves them.

    \b
    Players:    keygen, show, log, status, orders, submit, play, player-page, wait, bot, receipt,
                say, read
    Moderator:  new, address, deadline, replace, resolve, serve, status
    Co-dealer:  co-deal (a blind game)
    Anyone:     verify (a finished game), inspect (what a key can open in a game file)
    Try it:     demo, simulate
    """


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the exit code. The one place where errors become messages."""
    try:
        code = cli.main(args=argv, prog_name="koryo-pbm", standalone_mode=False)
        if isinstance(code, int) and not isinstance(code, bool):  # a command's explicit exit status
            return code                                           # (click.exceptions.Exit)
    except KoryoPbmError as exc:
        click.echo(f"koryo-pbm: error: {_one_line(str(exc))}", err=True)
        return exc.exit_code
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            click.echo("koryo-pbm: interrupted", err=True)
            return 130
        click.echo("koryo-pbm: aborted", err=True)
        return 1
    except click.exceptions.NoArgsIsHelpError as exc:  # plain `koryo-pbm`: the help is the answer
        if exc.ctx is not None:
            click.echo(exc.ctx.get_help())
        return 0
    except click.UsageError as exc:
        click.echo(f"koryo-pbm: error: {_usage_line(exc, argv)}", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"koryo-pbm: error: {_one_line(exc.format_message())}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("koryo-pbm: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    return 0


def _one_line(text: str) -> str:
    from koryo_pbm.printable import printable

    return printable(" ".join(text.split())) or "unknown error"


def _usage_line(exc: click.UsageError, argv: list[str] | None) -> str:
    """click's usage error as one line that says where the help is (click prints three)."""
    message = _one_line(exc.format_message())
    message = message[:1].lower() + message[1:] if message[1:2].islower() else message
    if exc.ctx is not None:
        path = exc.ctx.command_path
    else:  # some parser errors carry no context: the command is the first word
        words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
        path = f"koryo-pbm {words[0]}" if words and words[0] in COMMANDS else "koryo-pbm"
    return f"{message.rstrip('.')} (see: {path} --help)"


# The cyclic garbage collector's first threshold for the command line (Python's default: 700).
# A command allocates some tens of thousands of objects that live as long as it does (its
# modules' functions, classes and tables, the game file's tables) and makes almost no cycles:
# at 700 it scans its young objects some twenty times in one ``resolve`` and finds nothing to
# free (about 3% of the command's CPU). A long run (``serve``, ``simulate``) still collects,
# every ``GC_THRESHOLD`` new objects.
GC_THRESHOLD = 20_000


def entry() -> None:  # pragma: no cover - the console script
    import gc

    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with ``code`` once the command is done, without the interpreter's
    teardown: Python frees every object and module one by one as it exits, some 20 ms of CPU
    for a command (14 ms for the bare imports of click and cryptography alone; issue 19), which
    is of no use to a process that is ending. What the teardown does that matters is done first:
    the standard output and error are flushed and the functions registered with :mod:`atexit`
    run (logging's flush, a temporary folder's removal). Every file the commands write is
    written, closed and synced before they return (:mod:`koryo_pbm.store.atomic`). When a flush
    fails (a closed pipe) or another thread still runs, Python exits as usual, as before."""
    import atexit
    import threading

    if not _flushed() or threading.active_count() > 1:
        sys.exit(code)  # Python's own exit says what it says of a broken pipe
    atexit._run_exitfuncs()
    if not _flushed():
        sys.exit(code)
    os._exit(code)


def _flushed() -> bool:
    """Standard output and error flushed (either may be closed: ``None``)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True
