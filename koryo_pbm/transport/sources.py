"""Where the judge's incoming mail comes from: the :class:`Source` interface, and a local Maildir.

A source hands the judge raw messages one at a time and, once a message is handled (answered,
its envelopes counted), marks it so that it is never handed out again: moved to a "done" folder,
never deleted. The judge is idempotent on top of that (each envelope's digest is recorded), so a
judge killed between handling a mail and marking it handles it again harmlessly.

Implementations:

* :class:`MaildirSource` (here): a local Maildir (fetchmail, mbsync, procmail, the local MTA);
  handled mail moves to a Maildir++ subfolder (``DIR/.koryo-pbm.done`` by default).
* ``koryo_pbm.transport.imap.ImapSource``: an IMAP folder; handled mail moves to the IMAP folder
  ``koryo-pbm/done``. Made by ``ImapSource.from_url(url, password=..., done_folder=...)``.

Contract for every source (what ``koryo-pbm serve`` relies on):

* ``fetch()`` yields the messages not yet marked handled, oldest first, each at most
  :data:`MAIL_LIMIT` bytes read (a larger one comes with ``truncated=True`` and only its first
  :data:`HEAD_LIMIT` bytes, enough to answer its sender). It may yield a message it yielded before
  if it was not marked meanwhile.
* ``mark_handled(mail)`` is idempotent: a message already moved (by another judge, by a
  previous run killed half-way) is no error.
* A source that cannot be reached right now raises :class:`SourceError`; the judge logs it and
  tries again later with back-off, serving everything else meanwhile. Any other
  :class:`~koryo_pbm.errors.KoryoPbmError` is a set-up problem reported once to the moderator.
* ``wait(timeout)`` blocks until new mail may have arrived (IMAP IDLE) or ``timeout`` seconds
  have passed (polling); it returns early rather than late.
* ``close()`` releases connections; the source is not used afterwards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from koryo_pbm.errors import StorageError

MAIL_LIMIT = 32 * 1024 * 1024  # bytes of one message the judge reads (as resolve --mail does)
HEAD_LIMIT = 64 * 1024  # bytes kept of a message larger than MAIL_LIMIT: its header, to answer it
DONE_FOLDER = "koryo-pbm/done"  # where handled mail goes (IMAP folder; '.koryo-pbm.done' in a Maildir)


class SourceError(StorageError):
    """The source cannot be reached or read right now (network, server, permissions): retried."""


@dataclass(frozen=True)
class IncomingMail:
    """One message as received.

    ``key`` identifies it within its source (a Maildir file name, an IMAP ``UIDVALIDITY:UID``);
    ``label`` names it for people and logs (``Maildir ~/Mail/games new/1700000000.M1.host``);
    ``data`` is the raw RFC 5322 message (``truncated``: only its first :data:`HEAD_LIMIT` bytes,
    the whole being ``size`` bytes, over :data:`MAIL_LIMIT`)."""

    key: str
    label: str
    data: bytes
    size: int
    truncated: bool = False


@runtime_checkable
class Source(Protocol):
    """A mailbox the judge reads orders from (see the module docstring for the contract)."""

    label: str

    def fetch(self) -> Iterator[IncomingMail]: ...

    def mark_handled(self, mail: IncomingMail) -> None: ...

    def wait(self, timeout: float) -> None: ...

    def close(self) -> None: ...


class MaildirSource:
    """A local Maildir: new mail is ``DIR/new/*`` and ``DIR/cur/*``; handled mail moves (one
    ``rename``, never a copy, never a delete) to ``cur/`` of the Maildir ``done`` (by default
    the Maildir++ subfolder ``DIR/.koryo-pbm.done``, which mail clients show as a folder)."""

    def __init__(self, folder: Path, done: Path | None = None, *, poll: float = 5.0) -> None:
        self.folder = Path(folder)
        self.done = Path(done) if done is not None else self.folder / ".koryo-pbm.done"
        self.poll = poll
        self.label = f"Maildir {self.folder}"
        if not (self.folder / "new").is_dir() and not (self.folder / "cur").is_dir():
            raise StorageError(f"{self.folder} is not a Maildir (it has no new/ or cur/ folder)")
        for sub in ("cur", "new", "tmp"):
            try:
                (self.done / sub).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot create the Maildir {self.done}: {exc.strerror or exc}") from None

    def _names(self) -> list[tuple[float, str, str]]:
        found = []
        for sub in ("new", "cur"):
            try:
                names = os.listdir(self.folder / sub)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise SourceError(f"cannot list {self.folder / sub}: {exc.strerror or exc}") from None
            for name in names:
                if name.startswith("."):
                    continue
                try:
                    st = os.lstat(self.folder / sub / name)
                except OSError:
                    continue  # moved meanwhile
                if not _is_regular(st.st_mode):
                    continue  # a symlink or a folder is never read
                found.append((st.st_mtime, f"{sub}/{name}", name))
        found.sort()
        return found

    def fetch(self) -> Iterator[IncomingMail]:
        for _, key, _name in self._names():
            path = self.folder / key
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except FileNotFoundError:
                continue  # handled by somebody else meanwhile
            except OSError as exc:
                raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
            with os.fdopen(fd, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > MAIL_LIMIT:
                    data, truncated = f.read(HEAD_LIMIT), True
                else:
                    data = f.read(MAIL_LIMIT + 1)
                    truncated = len(data) > MAIL_LIMIT
                    if truncated:
                        size, data = len(data), data[:HEAD_LIMIT]
            yield IncomingMail(key=key, label=f"{self.label}, {key}", data=data, size=size, truncated=truncated)

    def mark_handled(self, mail: IncomingMail) -> None:
        src = self.folder / mail.key
        base = mail.key.split("/", 1)[-1].split(":", 1)[0]
        target = self.done / "cur" / f"{base}:2,S"
        try:
            os.rename(src, target)
        except FileNotFoundError:
            return  # already moved: marking is idempotent
        except OSError as exc:
            raise SourceError(f"cannot move {src} to {target}: {exc.strerror or exc}") from None

    def wait(self, timeout: float) -> None:
        time.sleep(max(0.0, min(timeout, self.poll)))

    def close(self) -> None:
        pass


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)
