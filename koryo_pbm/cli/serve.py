"""``koryo-pbm serve``: the judge runs every game under ROOT by mail and shared folder."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import NOW_ENV, identity_options, load_identity, now_utc
from koryo_pbm.errors import UsageError

SERVE_LOCK = ".koryo-pbm-serve.lock"  # in ROOT: one judge per root
IMAP_PASSWORD_ENV = "KORYO_PBM_IMAP_PASSWORD"
SMTP_PASSWORD_ENV = "KORYO_PBM_SMTP_PASSWORD"


def _password(env: str, file: Path | None, what: str) -> str | None:
    if file is not None:
        from koryo_pbm.store.atomic import read_limited

        data = read_limited(file, 4096, f"{what} password file")
        try:
            return data.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise UsageError(f"the {what} password file {file} is not UTF-8 text") from None
    return os.environ.get(env)


def _plug_in(module: str, cls: str, option: str) -> Any:
    import importlib

    try:
        return getattr(importlib.import_module(f"koryo_pbm.transport.{module}"), cls)
    except (ImportError, AttributeError):
        raise UsageError(f"{option} is not available in this koryo-pbm (no koryo_pbm.transport.{module})") from None


def program_path(given: str) -> str:
    """The absolute path of the program at ``given`` (relative to the current folder: a path,
    never a name looked up on ``$PATH``), resolved once; refused when it cannot be run."""
    path = os.path.abspath(os.path.expanduser(given))
    if not os.path.exists(path):
        raise UsageError(f"--sendmail {given}: no such file {path}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(f"--sendmail {given}: {path} is not executable")
    return path


_log_file: list[Any] = []  # the open --log-file, if any


def _log(message: str) -> None:
    from koryo_pbm.printable import printable

    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    line = f"koryo-pbm serve: {stamp} {printable(' '.join(message.split()))}"
    if _log_file:
        try:
            _log_file[0].write(line + "\n")
            _log_file[0].flush()
            return
        except OSError as exc:  # a full disk: the log goes on on stderr, said once
            _log_file.clear()
            click.echo(f"koryo-pbm serve: {stamp} cannot write the log file ({exc.strerror or exc}); "
                       "logging to stderr", err=True)
    click.echo(line, err=True)


def _close_log() -> None:
    while _log_file:
        with contextlib.suppress(OSError):
            _log_file.pop().close()


def _open_log(path: Path) -> None:
    """Append to ``path`` (made if missing, mode 0600: the log names players' addresses)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        raise UsageError(f"cannot open the log file {path}: {exc.strerror or exc}") from None
    _log_file[:] = [os.fdopen(fd, "a", encoding="utf-8", errors="replace")]


def _moderates(root: Path, identity: Any) -> bool:
    """Whether ``identity`` is the moderator of a game under ``root``."""
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.judge.codealer import _folders
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.folder import GAME_FILE

    for folder in _folders(root):
        try:
            if gamefile.read_header(folder / GAME_FILE).moderator == identity.public:
                return True
        except KoryoPbmError:
            continue
    return False


def _serve_co_dealer(root: Path, identity: Any, once: bool, poll: float, mail: Any = None) -> None:
    """The co-dealer's side: by shared folder, or by mail (``mail``: a MailCoDealer)."""
    from koryo_pbm.judge import codealer

    clock = (lambda: now_utc().timestamp()) if os.environ.get(NOW_ENV) else None
    if mail is not None and clock is not None:
        mail.clock = clock
    if not once:
        if mail is None:
            _log(f"serving {root} as the co-dealer {identity.name} "
                 f"({len(codealer.co_dealt_games(root, identity))} blind games)")
        else:
            _log(f"serving as the co-dealer {identity.name} by mail (games kept in {root})"
                 + "".join(f"; reading {s.label}" for s in mail.sources) + f"; sending by {mail.sender.label}")
    stop: list[int] = []
    import signal

    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.append(signum))
    try:
        while True:
            if mail is None:
                codealer.serve_once(root, identity, _log, clock)
            else:
                mail.run_once()
            if once or stop:
                break
            if mail is None:
                time.sleep(poll)
            else:
                mail.wait(poll)
            if stop:
                break
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        if mail is not None:
            for s in [*mail.sources, mail.sender]:
                with contextlib.suppress(Exception):
                    s.close()
            if not once:
                _log("stopped")
        _close_log()


@click.command("serve")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@identity_options(role="moderator")
@click.option("--maildir", "maildirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Read orders from this local Maildir (handled mail moves to its subfolder .koryo-pbm.done). "
                   "Repeatable.")
@click.option("--imap", "imap_url", metavar="URL",
              help="Read orders from an IMAP folder: imaps://USER@HOST[:PORT]/FOLDER (imap:// uses STARTTLS). "
                   f"Password from ${IMAP_PASSWORD_ENV} or --imap-password-file.")
@click.option("--imap-password-file", type=click.Path(dir_okay=False, path_type=Path), help="File holding the IMAP password.")
@click.option("--done-folder", default="koryo-pbm/done", show_default=True,
              help="IMAP folder where handled mail is moved (never deleted).")
@click.option("--smtp", "smtp_url", metavar="URL",
              help=f"Send mail by SMTP: smtps://USER@HOST[:PORT] (smtp:// uses STARTTLS). Password from ${SMTP_PASSWORD_ENV} "
                   "or --smtp-password-file.")
@click.option("--smtp-password-file", type=click.Path(dir_okay=False, path_type=Path), help="File holding the SMTP password.")
@click.option("--sendmail", "sendmail", metavar="PATH",
              help="Send mail with the sendmail-compatible program at this path (e.g. /usr/sbin/sendmail; "
                   "a relative path is from the current folder, never looked up on $PATH).")
@click.option("--ca-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Trust this CA certificate for the IMAP and SMTP servers' TLS (a private server).")
@click.option("--from", "from_header", metavar='"NAME <ADDRESS>"', help="The judge's From address (needed to send mail).")
@click.option("--once", is_flag=True, help="One pass over everything, then exit (for cron).")
@click.option("--poll", default=10.0, show_default=True, type=click.FloatRange(0.05, 3600),
              help="Seconds between passes (IMAP IDLE wakes the judge sooner).")
@click.option("--retry", "retry_base", default=60.0, show_default=True, type=click.FloatRange(0.01, 3600),
              help="Seconds before the first retry of a mail that could not be sent (doubling, up to an hour).")
@click.option("--remind", default="1d", show_default=True, metavar="DURATION",
              help="Remind missing players this long before a deadline (a game's own --remind wins).")
@click.option("--moderator", "moderator", metavar="ADDRESS",
              help="The moderator's own address: a player's plain mail to the judge without an envelope is "
                   "forwarded there (at most 5 per game and player an hour) as well as answered, and a notice when "
                   "a player mails a secret key (a game's new --moderator-email is used when this is not given).")
@click.option("--judge", "judges", metavar="ADDRESS", multiple=True,
              help="A co-dealer by mail: the address of a moderator's judge it answers (repeatable). Each game is "
                   "answered at one address only, the first of these that mails it the game (without --judge: "
                   "whichever address does).")
@click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Append the judge's log to this file (default: standard error).")
@click.option("--shard", "shard", metavar="K/N",
              help="Serve only the games of shard K of N (a stable hash of each game id): one of N judges, each "
                   "with its own ROOT and IMAP folder shard-K (see --sieve); mail for another shard's game is moved "
                   "to its folder, unanswered.")
@click.option("--sieve", "sieve", type=int, metavar="N",
              help="Print the Sieve rules (dovecot Pigeonhole) filing the mail of each game under ROOT into its "
                   "shard's IMAP folder shard-K, for N shards, and exit.")
@click.option("--co-dealer", "co_dealer", is_flag=True,
              help="Serve as the co-dealer of blind games (the key given by --as): answer what they ask of it, "
                   "by mail with mail options (ROOT keeps a copy of each game), else in the shared folders under "
                   "ROOT. Implied when ROOT holds blind games of which the key is the co-dealer.")
def command(root: Path, as_name: str | None, key_file: Path | None, maildirs: tuple[Path, ...],
            imap_url: str | None, imap_password_file: Path | None, done_folder: str, smtp_url: str | None,
            smtp_password_file: Path | None, sendmail: str | None, ca_file: Path | None, from_header: str | None, once: bool,
            poll: float, retry_base: float, remind: str, moderator: str | None, judges: tuple[str, ...],
            log_file: Path | None, shard: str | None, sieve: int | None, co_dealer: bool) -> None:
    """Serve every game folder under ROOT (or ROOT itself): the judge.

    \b
    It reads orders from mail (--imap, --maildir) and from each game's inbox/ folder, answers
    every mail with receipts or reasons, resolves each game as soon as its orders are in, and
    mails every player the new game.toml with what happened and what to do next. Without mail
    options it serves shared folders only, writing report-PLAYER.txt next to each game file.
    Runs until stopped (Ctrl-C, SIGTERM), or once with --once. One judge serves a ROOT at a
    time (lock ROOT/.koryo-pbm-serve.lock): a --once run that finds another one running stops
    at once, touching nothing (exit status 0, for cron).

    \b
    With the key of a blind game's co-dealer (--co-dealer), it answers the moderator's judge
    instead: each game file mailed to it (or found under ROOT, without mail options) that waits
    for the co-dealer gets its signed answer, and nothing else is sent.

    \b
    Examples:
      koryo-pbm serve games --as mod --once
      koryo-pbm serve games --as mod --maildir ~/Maildir/games --sendmail /usr/sbin/sendmail \\
          --from "Games judge <judge@example.org>"
      koryo-pbm serve games --as mod --sieve 2 > games.sieve
      koryo-pbm serve games --as mod --shard 1/2 --imap imaps://judge@mail.example.org/shard-1 \\
          --smtp smtps://judge@mail.example.org --from "Games judge <judge@example.org>"
      koryo-pbm serve dealt --as carl --co-dealer --maildir ~/Maildir/deals --sendmail /usr/sbin/sendmail \\
          --from "Carl (co-dealer) <carl@example.org>"
    """
    import signal

    from koryo_pbm.deadlines import parse_duration
    from koryo_pbm.judge import shards
    from koryo_pbm.judge.service import Judge
    from koryo_pbm.transport.address import check_address
    from koryo_pbm.transport.senders import SendmailSender
    from koryo_pbm.transport.sources import MaildirSource

    if sieve is not None:
        click.echo(shards.sieve(root, sieve), nl=False)
        return
    shard_of = shards.parse(shard) if shard is not None else None
    remind_before = parse_duration(remind, what="--remind")
    for address in judges:
        check_address(address, who="--judge address")
    if moderator is not None:
        check_address(moderator, who="--moderator address")
        if not from_header:
            raise UsageError("--moderator needs mail: give --from, and --smtp or --sendmail")
    identity = load_identity(as_name, key_file)
    if smtp_url and sendmail:
        raise UsageError("give --smtp or --sendmail, not both")
    if (maildirs or imap_url or smtp_url or sendmail) and not from_header:
        raise UsageError('mail needs the judge\'s address: --from "Judge <judge@example.org>"')
    if (maildirs or imap_url) and not (smtp_url or sendmail):
        raise UsageError("reading mail needs a way to answer it: --smtp URL or --sendmail PATH")
    if from_header is not None:
        from email.utils import parseaddr

        check_address(parseaddr(from_header)[1], who="--from address")
        if any(ch in from_header for ch in "\r\n"):
            raise UsageError("--from must be one line")
    sources: list[Any] = [MaildirSource(d) for d in maildirs]
    if imap_url:
        from koryo_pbm.transport.imap import parse_url

        parse_url(imap_url, {"imaps": 993, "imap": 143}, "IMAP")  # a password in the URL: refused first
        password = _password(IMAP_PASSWORD_ENV, imap_password_file, "IMAP")
        if password is None:
            raise UsageError(f"--imap needs a password: set ${IMAP_PASSWORD_ENV} or give --imap-password-file")
        sources.append(_plug_in("imap", "ImapSource", "--imap").from_url(imap_url, password=password,
                                                                         done_folder=done_folder, ca_file=ca_file,
                                                                         poll=poll))
    sender: Any = None
    if sendmail:
        sender = SendmailSender(program_path(sendmail))
    elif smtp_url:
        sender = _plug_in("smtp", "SmtpSender", "--smtp").from_url(
            smtp_url, password=_password(SMTP_PASSWORD_ENV, smtp_password_file, "SMTP") or "", ca_file=ca_file)
    elif from_header:
        raise UsageError("--from needs a way to send: --smtp URL or --sendmail PATH")
    _close_log()
    if log_file is not None:
        _open_log(log_file)
    from koryo_pbm.judge import codealer

    # (the headers first: a moderator's judge reads no whole game file more than before)
    if co_dealer and _moderates(root, identity):
        raise UsageError(f"{identity.name} is the moderator of a game under {root}: a co-dealer serves a root of its own")
    if co_dealer or (not _moderates(root, identity) and codealer.co_dealt_games(root, identity)):
        # the co-dealer of blind games: it answers what they ask of it
        mail = None
        if sources or sender:
            if not sources or sender is None or from_header is None:
                raise UsageError("a co-dealer by mail reads mail and answers it: give --imap or --maildir, "
                                 "--smtp or --sendmail, and --from")
            if moderator is not None:
                raise UsageError("--moderator is the moderator's judge's option, not the co-dealer's")
            mail = codealer.MailCoDealer(root=root, identity=identity, sources=sources, sender=sender,
                                         from_header=from_header, log=_log, retry_base=retry_base,
                                         judges=list(judges))
            from koryo_pbm.errors import LockedError
            from koryo_pbm.store.lock import game_lock

            try:  # one co-dealer per root of its own, as one judge per root
                with game_lock(root, wait=0, name=SERVE_LOCK,
                               busy="another judge is serving {directory} (it holds " + SERVE_LOCK + ")"):
                    return _serve_co_dealer(root, identity, once, poll, mail)
            except LockedError as exc:
                for s in [*sources, sender]:
                    with contextlib.suppress(Exception):
                        s.close()
                if once:
                    _log(f"{exc}; this run stops")
                    _close_log()
                    return None
                _close_log()
                raise
        if judges:
            raise UsageError("--judge names the judges a co-dealer answers by mail: give mail options too")
        return _serve_co_dealer(root, identity, once, poll, mail)
    if judges:
        raise UsageError("--judge is the co-dealer's option (the moderators' judges it answers), not the judge's")
    judge = Judge(root=root, identity=identity, sources=sources, sender=sender, from_header=from_header,
                  log=_log, retry_base=retry_base, remind=remind_before, moderator=moderator, shard=shard_of,
                  watch=not once)  # (a judge run once reads no change as it happens)
    if os.environ.get(NOW_ENV):  # a fixed time, for tests (see now_utc)
        fixed = now_utc().timestamp()
        judge.clock = lambda: fixed
    stop = []

    def _stop(signum: int, frame: Any) -> None:
        stop.append(signum)

    from koryo_pbm.errors import LockedError
    from koryo_pbm.store.lock import game_lock

    # One judge per root: a cron run that overlaps the one before it (or a second judge started
    # by mistake) would handle the same mails and send the same outboxes twice.
    judge_lock = game_lock(root, wait=0, name=SERVE_LOCK,
                           busy="another judge is serving {directory} (it holds " + SERVE_LOCK + ")")
    try:
        judge_lock.__enter__()
    except LockedError as exc:
        judge.close()
        for s in [*sources, *([sender] if sender else [])]:
            with contextlib.suppress(Exception):
                s.close()
        if once:  # cron: the running judge does the work; this run has nothing to do
            _log(f"{exc}; this run stops")
            _close_log()
            return
        _close_log()
        raise
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        if not once:
            _log(f"serving {root} ({len(judge.discover(False))} games)"
                 + "".join(f"; reading {s.label}" for s in sources) + (f"; sending by {sender.label}" if sender else ""))
        while True:
            judge.run_once()
            if once or stop:
                break
            judge.wait(poll)
            if stop:
                break
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        judge.close()
        for s in [*sources, *([sender] if sender else [])]:
            try:
                s.close()
            except Exception as exc:  # closing is best effort: nothing is lost by a connection left open
                _log(f"closing {s.label}: {exc}")
        judge_lock.__exit__(None, None, None)
    if not once:
        _log("stopped")
    _close_log()
