"""``serve ROOT --as carl``: the co-dealer's side of the judge, by shared folder.

Each game folder under ROOT (or ROOT itself) whose file is a blind game with this key as its
co-dealer is looked at on every pass: when its pending decision waits for the co-dealer, the
answer (:func:`koryo_pbm.blind.answer`, which checks everything against the public file first)
is signed, sealed to the moderator and dropped into the game's inbox, where the moderator's
judge or ``resolve`` counts it. Games of which the key is not the co-dealer are left alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from koryo_pbm.errors import KoryoPbmError, NotForYou, StorageError
from koryo_pbm.store.folder import GAME_FILE


def _folders(root: Path) -> list[Path]:
    if (root / GAME_FILE).is_file():
        return [root]
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise StorageError(f"cannot list {root}: {exc.strerror or exc}") from None
    return [root / n for n in names if not n.startswith(".") and (root / n / GAME_FILE).is_file()]


def co_dealt_games(root: Path, identity: Any) -> list[Path]:
    """The game folders under ``root`` whose co-dealer is ``identity``."""
    from koryo_pbm import blind
    from koryo_pbm.store import gamefile

    found = []
    for folder in _folders(Path(root)):
        try:
            doc = gamefile.read_game(folder / GAME_FILE)
            if doc.deal == "blind" and doc.players.get(blind.co_dealer_of(doc)) == identity.public:
                found.append(folder)
        except KoryoPbmError:
            continue
    return found


def serve_once(root: Path, identity: Any, log: Callable[[str], None],
               clock: Callable[[], float] | None = None) -> int:
    """One pass over ``root``: every game waiting for this co-dealer answered. Returns how many."""
    from koryo_pbm import blind
    from koryo_pbm.store import gamefile, inbox

    answered = 0
    for folder in co_dealt_games(Path(root), identity):
        try:
            doc = gamefile.read_game(folder / GAME_FILE)
            now = datetime.fromtimestamp(clock(), UTC) if clock else datetime.now(UTC)
            done = blind.answer(doc, folder, identity, submitted=now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
            if done.envelope is None:
                continue
            inbox.drop(folder, done.envelope)
        except NotForYou:
            continue
        except KoryoPbmError as exc:
            log(f"co-dealer {identity.name}: game {folder.name}: {exc}")
            continue
        answered += 1
        log(f"co-dealer {done.co_dealer}: answered {done.decision} of game {doc.game_id} ({folder.name})")
    return answered
