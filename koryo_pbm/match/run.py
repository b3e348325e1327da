"""Resolve on disk, below every command line and service: lock the game folder, gather the
envelopes of the inbox (and whatever else the caller found, such as mail), resolve, write the
next state atomically, archive the inbox files. The ``resolve`` command, the judge and ``demo``
all resolve through :func:`run_resolve`.

Before a resolve, :func:`refuse_later_copies` refuses a folder whose sync tool kept an older
game file than one of its conflict copies (resolving would fork the game)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from koryo_pbm import match
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import KoryoPbmError, StaleError, StorageError
from koryo_pbm.match.candidates import Candidate, Resolution
from koryo_pbm.store import gamedoc, gamefile, gameparts, inbox
from koryo_pbm.store.gamedoc import GameDoc
from koryo_pbm.store.lock import game_lock

MAX_CONFLICT_COPIES = 8  # sync-conflict copies of the game file resolve looks at


def inbox_candidates(folder: Path) -> list[Candidate]:
    """Every envelope in the game folder's inbox, as resolve candidates (a symbolic link is a
    candidate that is skipped, never read)."""
    candidates = []
    if inbox.inbox_dir(folder).is_dir():
        for item in inbox.list_inbox(folder):
            env, err = (item.envelope, None) if not isinstance(item.envelope, Exception) else (None, item.envelope)
            candidates.append(Candidate(source=str(item.path), envelope=env, error=err,
                                        path=None if item.link else item.path,
                                        conflict=getattr(item, "conflict", False),
                                        sha256=getattr(item, "sha256", None), link=item.link))
    return candidates


def run_resolve(folder: Path, path: Path, identity: Identity, *, now: datetime | Callable[[], datetime],
                more: Callable[[list[str]], Iterable[Candidate]] | None = None,
                seen: Callable[[GameDoc], Any] | None = None) -> Resolution:
    """Lock, resolve, write the next state atomically, then archive the inbox files.

    The order makes a crash harmless: the game file is replaced in one step; an envelope is
    archived only after the state that counts it is written, and one found again is
    recognised as already counted. ``more`` (called under the lock, after the inbox is read)
    gives further candidates, such as those of mail files; it appends to the list it is given
    the sources that held no envelope (``Resolution.no_envelope``). ``seen`` (the memory of
    games seen) is called with the document read, under the lock, and with the one written.
    ``now``: the time of the run (UTC), or the clock to read it from once the envelopes are
    gathered, for deadlines.
    """
    with game_lock(folder):
        inbox.refuse_links(folder)  # before anything is read or written
        doc = match.load_doc(path)
        match.require_moderator(doc, identity)
        if seen is not None:
            seen(doc)
        empty: list[str] = []
        candidates = inbox_candidates(folder)
        if more is not None:
            candidates += more(empty)
        when = now() if callable(now) else now
        if not candidates and _nothing_to_do(doc, when):
            _check_unopened(doc, identity)
            result = Resolution(doc=doc)
        else:
            result = match.resolve(match.open_moderator(doc, identity), candidates, now=when)
        result.no_envelope = empty
        if result.written and result.doc is not None:
            gamefile.write_game(path, result.doc, identity)
            if seen is not None:
                seen(result.doc)
        inbox.archive_all(folder, [(c.path, c.status if c.status != "held" else "accepted", c.sha256)
                                   for c in result.candidates if c.path is not None])
    return result


def _nothing_to_do(doc: GameDoc, now: datetime | None) -> bool:
    """Whether a resolve of ``doc`` at ``now`` with no envelope leaves it as it is, told from
    its public part alone (the moderator's part is not opened, nor the game imported): the game
    is over, or its pending decision still waits for a player whom no bot answers for now
    (:func:`~koryo_pbm.match.policy.bot_due`: no bot seat or abandoned seat alone missing, no
    deadline of a ``missed = "bot"`` game passed). A blind table is always resolved in full
    (a hand opened for the bot is in the moderator's part)."""
    decision = doc.decision
    if decision is None:
        return True
    if doc.deal == "blind" or now is None:
        return False
    received = decision.get("received", [])
    if all(p in received for p in decision["waiting_for"]):
        return False  # (never written so: every order in is applied at once) the rules decide
    return not match.bot_due(doc, now)


def _check_unopened(doc: GameDoc, identity: Identity) -> None:
    """What opening the moderator's view refuses before it decrypts anything, when a resolve with
    nothing to do does not open it: a game that is not installed (:class:`UnknownGame`, checked
    against the registered names: the plug-in is not imported), a file without the moderator's
    part whole (a player copy) or with it sealed to another key."""
    from koryo_pbm.engine.registry import find_game, names

    if doc.game not in names():
        find_game(doc.game)  # raises UnknownGame, naming the games there are
    gameparts.sealed_part(doc, gamedoc.MODERATOR_PART, identity)


def refuse_later_copies(copies: list[Path], path: Path) -> None:
    """Refuse to resolve when a conflict copy holds a later state of the same game than ``path``
    (the sync tool kept the older file), or another state of the same version (two resolves on
    two machines): resolving would fork the game.

    A copy costs one signature check of its header (``gamefile.decode_header``), never a parse;
    a copy that is a link is not followed; more than ``MAX_CONFLICT_COPIES`` copies are refused
    (no sync tool makes that many; a player can)."""
    from koryo_pbm.printable import printable

    if not copies:
        return
    if len(copies) > MAX_CONFLICT_COPIES:
        raise StorageError(
            f"{len(copies)} sync-conflict copies of the game file in {printable(path.parent)} (resolve looks at "
            f"{MAX_CONFLICT_COPIES} at most): move them aside, then resolve again"
        )
    try:
        data = gamefile.read_game_bytes(path)
        doc = gamefile.decode_header(data)
    except KoryoPbmError:
        return  # the resolve itself reports what is wrong with the game file
    for copy in copies:
        try:
            other_data = gamefile.read_game_bytes(copy)
            other = gamefile.decode_header(other_data, expected_moderator=doc.moderator)
        except KoryoPbmError:
            continue  # not a valid game file of this moderator (or a link): only ignored
        if other.game_id != doc.game_id or other.version < doc.version:
            continue
        shown = printable(copy)
        if other.version > doc.version:
            raise StaleError(
                f"the sync-conflict copy {shown} holds version {other.version} of game {doc.game_id}, but "
                f"{printable(path)} holds version {doc.version}: the sync tool kept the older file; put the later "
                f"one in place as {path.name} (keep the other aside), then resolve again"
            )
        if other_data != data:
            raise StaleError(
                f"the sync-conflict copy {shown} and {printable(path)} both hold version {doc.version} of game "
                f"{doc.game_id}, with different contents: two resolves ran on two machines; keep one as "
                f"{path.name} (move the other aside; its envelopes are in archive/), then resolve again"
            )
