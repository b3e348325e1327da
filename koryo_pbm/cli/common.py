"""What several commands share: identity options, output, and the memory of games seen."""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from koryo_pbm.errors import KoryoPbmError, NoSuchKey, StaleError, StorageError, TamperedError, UsageError
from koryo_pbm.printable import json_safe, printable

F = TypeVar("F", bound=Callable[..., Any])


def identity_options(role: str = "player") -> Callable[[F], F]:
    """``--as NAME`` (a key in the keyring) and ``--key FILE`` (a key file)."""

    def decorate(f: F) -> F:
        f = click.option(
            "--key", "key_file", type=click.Path(dir_okay=False, path_type=Path),
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
    from koryo_pbm.store.keyring import find_identity, keyring_dir

    if as_name is None and key_file is None:
        if required:
            raise UsageError("say who you are: --as NAME (a key in the keyring) or --key FILE")
        return None
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
                f"(the players are {', '.join(doc.players)})"
            ) from None
        raise


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


def echo_json(data: Any) -> None:
    """``data`` as one line of JSON; what a terminal would obey (C1 controls, bidi overrides) is
    written as ``\\uXXXX`` escapes (JSON escapes C0 controls itself): the same value for a script."""
    click.echo(json_safe(json.dumps(data, sort_keys=True, ensure_ascii=False)))


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


# -- games seen: moderator key pinning and rollback detection ---------------------------------


def _seen_dir() -> Path:
    from koryo_pbm.crypto.keys import keyring_dir

    return keyring_dir().parent / "seen"


def _pinned_copy(game_id: str) -> Path:
    """Where the game file last pinned is kept: ``$KORYO_PBM_HOME/pinned/<game_id>.toml``."""
    return _seen_dir().parent / "pinned" / f"{game_id}.toml"


def _short(h: str) -> str:
    return h.removeprefix("sha256:")[:16]


def _file_digest(data: bytes | None) -> str | None:
    """SHA-256 of a game file's signed bytes, line endings as signed (a copy whose line endings
    a mail client turned into CRLF is the same file)."""
    from koryo_pbm.crypto.keys import sha256_hex

    return None if data is None else "sha256:" + sha256_hex(data.replace(b"\r\n", b"\n"))


def _check_history(doc: Any, seen: dict[str, Any], copy: Path, digest: str | None) -> None:
    """Refuse ``doc`` when its history does not extend the one pinned in ``seen`` (the head of
    the log at the version last seen here), or when it is another file of the version seen
    (``digest``: of its bytes): the moderator signed two different histories, or two files."""
    from koryo_pbm.store.gamefile import head

    last, pinned, length = seen.get("version"), seen.get("head"), seen.get("log_length")
    if not (isinstance(last, int) and isinstance(pinned, str) and isinstance(length, int)):
        return  # pinned before heads were (or nothing pinned yet)
    where = f"the copy you saw is {copy}" if copy.is_file() else f"you saw it on this machine ({copy} is gone)"
    keep = "keep both files: together they prove it (both carry the moderator's signature)"
    mine = head(doc)
    if doc.version == last and mine != pinned:
        raise TamperedError(
            f"the moderator signed two different histories of game {doc.game_id}: version {last} here has head "
            f"{_short(mine)}, but the version {last} you saw has head {_short(pinned)}; {where}; {keep}")
    seen_file = seen.get("file")
    if doc.version == last and isinstance(seen_file, str) and digest is not None and digest != seen_file:
        raise TamperedError(
            f"the moderator signed two different files of version {last} of game {doc.game_id}: the same history, "
            f"but another public state or other sealed parts (file {_short(digest)}, you saw {_short(seen_file)}); "
            f"{where}; {keep}")
    if doc.version < last and doc.log and copy.is_file():  # an older file: is it in the history seen?
        from koryo_pbm.store.gamefile import read_game

        try:
            later = read_game(copy, expected_moderator=doc.moderator)
        except KoryoPbmError:
            later = None
        n = len(doc.log)
        if later is not None and later.game_id == doc.game_id and (
                len(later.log) < n or later.log[n - 1].get("hash") != mine):
            raise TamperedError(
                f"the moderator signed two different histories of game {doc.game_id}: version {doc.version} here "
                f"has head {_short(mine)} at log entry {n}, which is not in the history of the version {last} "
                f"you saw; {where}; {keep}")
    if doc.version > last:
        if length == 0:
            extends = len(doc.log) > 0 or mine == pinned
        else:
            extends = len(doc.log) >= length and doc.log[length - 1].get("hash") == pinned
        if not extends:
            at = (f"its log entry {length} has hash {_short(str(doc.log[length - 1].get('hash')))}"
                  if len(doc.log) >= length > 0 else f"its log has {len(doc.log)} entries")
            raise TamperedError(
                f"the moderator rewrote the history of game {doc.game_id}: version {doc.version} here does not "
                f"extend the version {last} you saw ({at}, but the history you saw ends with "
                f"{_short(pinned)} at entry {length}); {where}; {keep}")


def remember(doc: Any, *, strict: bool = False) -> str | None:
    """Pin the moderator's key of a game on first sight; warn when a game file is older than
    one verified before (a rollback), refuse when the moderator's key changed. Returns the date
    (UTC, ``YYYY-MM-DD``) the key was first seen here, for players to compare out of band.

    The head of the history (the hash of the last log entry) is pinned with the version, and a
    copy of the game file is kept (``pinned/<game_id>.toml``, one per game): a
    file of the same version with another head, or a later one whose log does not hold the
    pinned head at its place, is refused as proof that the moderator signed two histories; so is
    another file of the same version (its digest is pinned too: another hand dealt to you).

    ``strict`` (the moderator's resolve) refuses a rollback too: resolving from an older state
    would fork the game and let envelopes already counted count again."""
    from koryo_pbm.store.atomic import write_atomic
    from koryo_pbm.store.gamefile import head, signed_bytes

    path = _seen_dir() / f"{doc.game_id}.toml"
    copy = _pinned_copy(doc.game_id)
    fingerprint = doc.moderator.fingerprint()
    try:
        seen = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        seen = {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        warn(f"the memory of games seen ({path}) is unreadable; starting it anew")
        seen = {}
    pinned = seen.get("moderator")
    first_seen = seen.get("first_seen")
    if not isinstance(first_seen, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", first_seen):
        from datetime import UTC, datetime

        first_seen = datetime.now(UTC).strftime("%Y-%m-%d")
    if isinstance(pinned, str) and pinned != fingerprint:
        raise TamperedError(
            f"game {doc.game_id} is now signed by moderator key {fingerprint}, but it was signed by "
            f"{pinned} before: this file is not from your moderator (delete {path} if the key really changed)"
        )
    data = signed_bytes(doc)
    digest = _file_digest(data)
    _check_history(doc, seen, copy, digest)
    last = seen.get("version")
    if isinstance(last, int) and doc.version < last:
        if strict:
            raise StaleError(
                f"game {doc.game_id}: this file is version {doc.version}, but you have seen version {last}: "
                f"it was rolled back to an earlier state; refusing to resolve from it (put the latest game "
                f"file back, or delete {path} if you really mean to go on from this one)"
            )
        warn(
            f"game {doc.game_id}: this file is version {doc.version}, but you have seen version {last}: "
            "it was rolled back to an earlier state"
        )
        return first_seen
    mine = head(doc)
    if (last == doc.version and seen.get("moderator") == fingerprint and seen.get("first_seen") == first_seen
            and seen.get("head") == mine and (copy.is_file() or data is None)
            and (digest is None or seen.get("file") == digest)):
        return first_seen
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is not None and (last != doc.version or not copy.is_file()):
            copy.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(copy, data)
        if digest is None and last == doc.version and isinstance(seen.get("file"), str):
            digest = seen["file"]  # this file was not read from disk here: keep the digest pinned
        body = (f'game_id = "{doc.game_id}"\nmoderator = "{fingerprint}"\nversion = {doc.version}\n'
                f'head = "{mine}"\nlog_length = {len(doc.log)}\nfirst_seen = "{first_seen}"\n'
                + (f'file = "{digest}"\n' if digest is not None else ""))
        write_atomic(path, body.encode("utf-8"))
    except (OSError, StorageError) as exc:  # remembering is a help, not a condition
        warn(f"cannot record game {doc.game_id} as seen ({getattr(exc, 'strerror', None) or exc})")
    return first_seen


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


def deadline_lines(doc: Any, now: Any) -> list[str]:
    """What ``status`` and ``show`` say of the deadline and the absent-player policy."""
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
