"""What this machine submitted: per game, every envelope ``submit`` and ``play`` made here.

``$KORYO_PBM_HOME/submitted/<game_id>`` (beside ``seen/``) holds one JSON object a line::

    {"decision": "r3-orders", "player": "alice", "digest": "<64 hex>", "submitted": "<ISO time>"}

``digest`` is the envelope's digest as the game's log names it in ``accepted``; ``submitted``
its signed submission time (the later replaces the earlier). The record is written atomically,
read and written without following a link, and bounded: the latest ``MAX_ENTRIES`` envelopes
of a game are kept. ``show --as`` warns, and ``verify --as`` fails, when the log counted, for a
player and a decision, another envelope than the latest one recorded here (an older envelope
copied back into the inbox: the withdrawn-order attack).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from koryo_pbm.errors import FormatError, StorageError
from koryo_pbm.values import HEX64, ID, Frozen

MAX_ENTRIES = 4096
MAX_BYTES = MAX_ENTRIES * 256


class Submission(Frozen):
    _fields = ("decision", "player", "digest", "submitted")
    decision: str
    player: str
    digest: str
    submitted: str

    def __init__(self, decision: str, player: str, digest: str, submitted: str) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "submitted", submitted)


def record_dir() -> Path:
    from koryo_pbm.crypto.keys import keyring_dir

    return keyring_dir().parent / "submitted"


def record_path(game_id: str) -> Path:
    if not ID.fits(game_id):
        raise FormatError(f"{game_id[:40]!r} is not a game id")
    return record_dir() / game_id


def load(game_id: str) -> list[Submission]:
    """Every envelope recorded for ``game_id`` (oldest first); ``[]`` if none.
    ``FormatError``/``StorageError`` naming the file if it cannot be read."""
    from koryo_pbm.store.atomic import read_limited_at

    path = record_path(game_id)
    if not path.exists() and not path.is_symlink():
        return []
    data = read_limited_at(path, MAX_BYTES, "record of submitted envelopes")
    found = []
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        try:
            item = json.loads(line)
            sub = Submission(item["decision"], item["player"], item["digest"], item["submitted"])
            if not all(isinstance(v, str) for v in (sub.decision, sub.player, sub.submitted)):
                raise TypeError
            if not HEX64.fits(sub.digest):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            raise FormatError(f"the record of submitted envelopes {path} is damaged at line {n}") from None
        found.append(sub)
    return found


def add(game_id: str, submission: Submission) -> None:
    """Record one envelope made here (atomically; the oldest dropped beyond ``MAX_ENTRIES``)."""
    from koryo_pbm.store.atomic import write_atomic

    try:
        kept = load(game_id)
    except FormatError:
        kept = []  # a damaged record is started anew rather than blocking a submission
    kept = [*kept, submission][-MAX_ENTRIES:]
    path = record_path(game_id)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    lines = [json.dumps({"decision": s.decision, "player": s.player, "digest": s.digest,
                         "submitted": s.submitted}, separators=(",", ":")) for s in kept]
    write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"), mode=0o600)


def latest(records: Iterable[Submission], player: str) -> dict[str, Submission]:
    """``{decision: the latest envelope of player for it}`` (by signed submission time)."""
    out: dict[str, Submission] = {}
    for s in records:
        if s.player == player and (s.decision not in out or
                                   (s.submitted, s.digest) >= (out[s.decision].submitted, out[s.decision].digest)):
            out[s.decision] = s
    return out


def withdrawn(log: Sequence[Mapping[str, object]], records: Sequence[Submission], player: str) -> list[str]:
    """One sentence per log entry that counted, for ``player``, an envelope made here other
    than the latest one made here for that decision: an older envelope was counted instead."""
    mine = {s.digest for s in records if s.player == player}
    last = latest(records, player)
    problems = []
    for entry in log:
        decision = entry.get("decision")
        accepted = entry.get("accepted")
        if not isinstance(decision, str) or decision not in last or not isinstance(accepted, list):
            continue
        want = last[decision]
        if want.digest in accepted:
            continue
        if mine & set(accepted):
            problems.append(f"the log counted an older envelope of {player} for {decision} than the last one this "
                            f"machine submitted ({want.submitted}): your later orders were withdrawn")
    return problems
