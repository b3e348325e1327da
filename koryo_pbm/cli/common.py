"""What several commands share: identity options, output, and the memory of games seen."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from koryo_pbm.errors import KoryoPbmError, NoSuchKey, StaleError, StorageError, UsageError
from koryo_pbm.printable import json_safe, printable

F = TypeVar("F", bound=Callable[..., Any])


class PathType(click.ParamType):
    """``click.Path(**options)``, made when an option of this type is first given or its help
    shown: ``click.Path`` asks gettext for a translation of its name (``file``, ``path``) as it
    is made, and the first such look-up imports ``locale`` (see ``cli.main.HELP``). An option
    that is not given (``--key`` when ``--as`` names the key) costs nothing; one that is given
    is converted, checked, described and completed by ``click.Path`` itself."""

    envvar_list_splitter = os.path.pathsep  # as click.Path's

    def __init__(self, **options: Any) -> None:
        self.options = options
        self._path: click.Path | None = None

    @property
    def path(self) -> click.Path:
        if self._path is None:
            self._path = click.Path(**self.options)
        return self._path

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.path.name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return self.path.convert(value, param, ctx)

    def get_metavar(self, *args: Any, **kwargs: Any) -> str | None:
        return self.path.get_metavar(*args, **kwargs)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        return self.path.shell_complete(ctx, param, incomplete)

    def to_info_dict(self) -> Any:
        return self.path.to_info_dict()


def identity_options(role: str = "player") -> Callable[[F], F]:
    """``--as NAME`` (a key in the keyring) and ``--key FILE`` (a key file)."""

    def decorate(f: F) -> F:
        f = click.option(
            "--key", "key_file", type=PathType(dir_okay=False, path_type=Path),
            help="Use this private key file instead of the keyring.",
        )(f)
        f = click.option(
            "--as", "as_name", metavar="NAME", shell_complete=complete_key_names,
            help=f"Act as NAME: the {role}'s key in the keyring ($KORYO_PBM_HOME/keys).",
        )(f)
        return f

    return decorate


def complete_key_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of ``--as``: the names of the keys in the keyring."""
    from koryo_pbm.crypto.keys import keyring_dir

    try:
        names = sorted(p.stem for p in keyring_dir().glob("*.key") if p.is_file())
    except OSError:
        return []
    return [n for n in names if n.startswith(incomplete)]


def load_identity(as_name: str | None, key_file: Path | None, *, required: bool = True, doc: Any = None):
    """The identity chosen by ``--as``/``--key``; ``None`` when neither is given and not required.

    With the game's ``doc``, a name missing from the keyring is explained against the game:
    creating a new key would not help, since the game's parts are sealed to the keys it has."""
    if as_name is None and key_file is None:
        if required:
            raise UsageError("say who you are: --as NAME (a key in the keyring) or --key FILE")
        return None
    from koryo_pbm.store.keyring import find_identity, keyring_dir  # only when a key is asked for

    if as_name is not None and key_file is not None:
        raise UsageError("give --as NAME or --key FILE, not both")
    try:
        return find_identity(as_name, key_file, passphrase=_prompt_passphrase)
    except NoSuchKey:
        if doc is None or as_name is None:
            raise
        where = keyring_dir()
        seat = doc.players.get(as_name)
        if seat is not None:
            raise NoSuchKey(
                f"no key for {as_name!r} in {where}: game {doc.game_id} seats {as_name} with key {seat.fingerprint()}; "
                f"if that is you, give your key file with --key FILE (or set $KORYO_PBM_HOME to the folder "
                f"that holds keys/{as_name}.key)"
            ) from None
        if as_name not in doc.players:
            raise NoSuchKey(
                f"no key for {as_name!r} in {where}, and {as_name} is not a player of game {doc.game_id} "
                f"({_seats_said(doc)})"
            ) from None
        raise


def _seats_said(doc: Any) -> str:
    """Who holds the seats of ``doc``: its players, and at a blind table its co-dealer apart."""
    seats = list(doc.players)
    if doc.deal == "blind":
        from koryo_pbm.blind import co_dealer_of
        from koryo_pbm.errors import KoryoPbmError

        try:
            dealer = co_dealer_of(doc)
        except KoryoPbmError:
            dealer = None
        if dealer is not None:
            return f"the players are {', '.join(s for s in seats if s != dealer)}; the co-dealer is {dealer}"
    return f"the players are {', '.join(seats)}"


def _prompt_passphrase() -> bytes | None:
    """The passphrase typed on the terminal; ``None`` when there is no terminal to ask on (the
    key's loader then says to set ``$KORYO_PBM_PASSPHRASE``)."""
    if not can_ask_secret():
        return None
    try:
        return click.prompt("Passphrase", hide_input=True, err=True).encode("utf-8")
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, EOFError):  # the input ended: nobody to ask
            return None
        raise


_HIDDEN_PROMPT = click.termui.hidden_prompt_func


def can_ask_secret() -> bool:
    """Whether a hidden prompt can ask someone: Python's getpass reads from the controlling
    terminal, and without one it falls back to standard input with a warning (and echo)."""
    if click.termui.hidden_prompt_func is not _HIDDEN_PROMPT:  # replaced (by a test)
        return True
    if os.name != "posix":
        return sys.stdin.isatty()
    import termios

    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    try:
        termios.tcgetattr(fd)  # what getpass needs to turn the echo off
    except termios.error:
        return False
    finally:
        os.close(fd)
    return True


def check_player_count(game: Any, n: int) -> None:
    """Refuse a number of players the game is not for, naming the number given."""
    from koryo_pbm.errors import SetupError

    counts = sorted(game.player_counts)
    if n in counts:
        return
    if counts == list(range(counts[0], counts[-1] + 1)):
        legal = f"{counts[0]} to {counts[-1]}"
    else:
        legal = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
    raise SetupError(f"{game.title} is for {legal} players, not {n}")


_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


def shell_quote(text: str) -> str:
    """``shlex.quote(text)``, without importing ``shlex`` (and compiling its pattern) in the
    commands that print a command line to type next: a word of safe characters as it is, else in
    single quotes (a single quote inside written ``'"'"'``)."""
    if not text:
        return "''"
    if _SHELL_SAFE.issuperset(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def submit_command(orders: str, as_name: str | None, key_file: Path | None, target: str | None) -> str:
    """The submit command as the player would type it from where they stand."""
    who = f"--as {shell_quote(as_name)}" if as_name else f"--key {shell_quote(str(key_file))}"
    game = f" --game {shell_quote(target)}" if target else ""
    return f"koryo-pbm submit {shell_quote(orders) if orders != 'THIS_FILE' else orders} {who}{game}"


def echo_json(data: Any) -> None:
    """``data`` as one line of JSON; what a terminal would obey (C1 controls, bidi overrides) is
    written as ``\\uXXXX`` escapes (JSON escapes C0 controls itself): the same value for a script."""
    click.echo(json_safe(json.dumps(data, sort_keys=True, ensure_ascii=False, default=_toml_value)))


def _toml_value(value: Any) -> str:
    """A TOML date or time (a game file may hold one where a number was due: a signed file
    still says what it says) as JSON text, in its ISO form."""
    from datetime import date, time

    if isinstance(value, (date, time)):  # a datetime is a date
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def write_output(output: Path | None, text: str) -> bool:
    """Print ``text`` (no ``output``, or ``-``) or write it to a new file ``output``, never over
    an existing one. True when a file was written."""
    if output is None or str(output) == "-":
        click.echo(text, nl=False)
        return False
    if output.exists():
        raise StorageError(f"{output} exists already (nothing was written); choose another name")
    try:
        with open(output, "x", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise StorageError(f"cannot write {output}: {exc.strerror or exc}") from None
    return True


def write_armored(out: Path, armored: str) -> bool:
    """``--out`` of an envelope or of press, armoured for mail: printed for ``-``, else written to
    ``out`` atomically (a file of that name replaced; ``StorageError``, one line, if it cannot be).
    True when a file was written (the caller then says where to send it)."""
    if str(out) == "-":
        click.echo(armored, nl=False)
        return False
    from koryo_pbm.store.atomic import write_atomic

    write_atomic(out, armored.encode("ascii"))
    return True


def warn(message: str) -> None:
    click.echo(f"koryo-pbm: warning: {printable(message)}", err=True)


def warn_conflict_copies(folder: Path, path: Path) -> list[Path]:
    """Warn about each sync-conflict copy of the game file ``path`` in ``folder``; return them."""
    from koryo_pbm.store import inbox

    if path.name != inbox.GAME_FILE:
        return []
    from koryo_pbm.store.atomic import is_link

    copies = inbox.conflict_copies(folder)
    for copy in copies:
        if is_link(copy):
            warn(f"{printable(copy)} is a symbolic link named like a sync-conflict copy of the game file: "
                 "it is not followed (delete it)")
            continue
        warn(f"{printable(copy)} is a sync-conflict copy of the game file: it is ignored; {printable(path)} is the "
             "game (compare and delete the copy)")
    return copies


# -- games seen: the pin (koryo_pbm.pinning), said on the terminal ------------------------------


def remember(doc: Any, *, strict: bool = False, answering: bool = False) -> str | None:
    """Check ``doc`` against what this machine saw of its game and pin it (see
    :mod:`koryo_pbm.pinning`); say what was found. Returns the date (UTC, ``YYYY-MM-DD``) the
    moderator's key was first seen here, for players to compare out of band.

    Another moderator key, two histories and two files of one version are refused (proof the
    moderator signed both). An older file of the same history is said to be older, with both
    version numbers and where the newer copy is; ``answering`` (``orders``, ``submit``,
    ``play``, ``bot``) refuses it when its decision is resolved already; ``strict`` (the
    moderator's commands) refuses any older file: resolving from it would fork the game."""
    from koryo_pbm import pinning
    from koryo_pbm.store.gamefile import signed_bytes

    sight = pinning.pin(doc, signed_bytes(doc), strict=strict)
    for note in sight.notes:
        warn(note)
    if sight.older is not None:
        if answering and sight.older.resolved:
            raise StaleError(sight.older.refusal())
        warn(sight.older.sentence())
    return sight.first_seen


NOW_ENV = "KORYO_PBM_NOW"


def now_utc() -> Any:
    """The time now, UTC (a ``datetime``): the real clock, or ``KORYO_PBM_NOW``
    (``2026-11-27T18:00Z``) when set, which is for tests and for replaying a run."""
    from datetime import UTC, datetime

    fixed = os.environ.get(NOW_ENV)
    if fixed:
        from koryo_pbm.deadlines import parse_stamp

        return parse_stamp(fixed, what=NOW_ENV)
    return datetime.now(UTC)


def _untimed(doc: Any) -> bool:
    """No ``[service]`` and no deadline in ``doc``: the default policy (the game waits for every
    seat, no bot plays one), of which there is nothing to say, nor :mod:`koryo_pbm.deadlines` to
    import for it."""
    return doc.service is None and "deadline" not in (doc.decision or {})


def deadline_lines(doc: Any, now: Any) -> list[str]:
    """What ``status`` and ``show`` say of the deadline and the absent-player policy."""
    if _untimed(doc):
        return []
    from koryo_pbm import deadlines

    policy = deadlines.policy_of(doc.service, list(doc.players))
    lines = []
    decision = doc.decision or {}
    if "deadline" in decision:
        when = deadlines.parse_stamp(decision["deadline"])
        lines.append(f"deadline {deadlines.human(when)} ({deadlines.relative(when, now)})")
    return lines + policy.describe()


def deadline_json(doc: Any, now: Any) -> dict[str, Any]:
    """The deadline fields of ``status --json`` and ``show --json``."""
    if _untimed(doc):
        return {"deadline": None, "deadline_passed": False, "service": {}}
    from koryo_pbm import deadlines

    policy = deadlines.policy_of(doc.service, list(doc.players))
    decision = doc.decision or {}
    deadline = decision.get("deadline")
    return {
        "deadline": deadline,
        "deadline_passed": bool(deadline) and deadlines.parse_stamp(deadline) <= now,
        "service": policy.to_table(),
    }


def in_inbox(folder: Path, doc: Any) -> set[str]:
    """The players with a signed envelope for the pending decision in the inbox of ``folder``
    (verified against their key; a bad envelope is resolve's to report, skipped here)."""
    from koryo_pbm.store import inbox

    decision = doc.decision
    found: set[str] = set()
    if not decision or not inbox.inbox_dir(folder).is_dir():
        return found
    for item in inbox.list_inbox(folder):
        env = item.envelope
        if isinstance(env, KoryoPbmError) or env.decision != decision["id"] or env.player not in doc.players:
            continue
        try:
            env.verify(doc.players[env.player])
        except KoryoPbmError:
            continue
        found.add(env.player)
    return found


def waiting_line(folder: Path, doc: Any) -> str:
    """``waiting for carol (alice, bob answered)``: the orders received by the moderator or in the
    inbox count as answered (one wording for show, log and status)."""
    from koryo_pbm.waiting import waiting_words

    decision = doc.decision or {}
    return waiting_words(decision.get("waiting_for", []), answered(folder, doc))


def answered(folder: Path, doc: Any) -> list[str]:
    """The players the pending decision waits for whose orders are in (received, or in the inbox)."""
    decision = doc.decision or {}
    try:
        inbox_players = in_inbox(folder, doc)
    except KoryoPbmError:  # an unreadable inbox: what the file says
        inbox_players = set()
    done = set(decision.get("received", [])) | inbox_players
    return [p for p in decision.get("waiting_for", []) if p in done]
