"""Sign-up by mail: a game that waits for its seats before it is made.

``koryo-pbm new DIR --invite alice=alice@example.org ...`` writes ``DIR/signup.toml`` instead of
``game.toml``: everything ``new`` needs to make the game, and for each invited seat its address
and an invitation code. The judge mails each invitee an invitation; a reply from the invited
address holding a public key line (and the invitation's code, which a reply keeps in its
subject) takes the seat. When every seat is taken the judge makes ``game.toml`` exactly as
``new`` does (the game begins with the join), and the sign-up file is renamed ``signup-done.toml``.

The file holds addresses, so it is kept as the game file keeps them: sealed to the moderator
(HPKE, ``info = b"koryo-pbm signup v1\\x00"`` + the moderator's fingerprint) and signed by the
moderator (context ``signup``): only the moderator reads it, nobody else can change it::

    format = "koryo-pbm-signup/v1"
    moderator = "koryo-pbm-pub-v1:..."
    sealed = "<base64>"
    signature = "<base64>"
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError, TamperedError

SIGNUP_FILE = "signup.toml"
DONE_FILE = "signup-done.toml"
FORMAT = "koryo-pbm-signup/v1"
CONTEXT = "signup"
SEAL_INFO = b"koryo-pbm signup v1\x00"
LIMIT = 256 * 1024
KEY_PREFIX = "koryo-pbm-pub-v1:"
_KEY_LINE = re.compile(KEY_PREFIX + r"[A-Za-z0-9_-]{86}")
_CODE = re.compile(r"\b([0-9a-f]{12})\b")


@dataclass
class Seat:
    name: str
    key: str | None = None  # the public key line, once taken (or given with --player)
    email: str | None = None
    code: str = ""  # the invitation code (empty: a seat given with --player or a bot seat)
    taken: str = ""  # when the seat was taken by mail (UTC)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "key": self.key, "email": self.email, "code": self.code, "taken": self.taken}


@dataclass
class Signup:
    game: str
    answer_by: str  # UTC, ISO 8601: the deadline to take a seat
    seats: list[Seat]
    make: dict[str, Any] = field(default_factory=dict)  # seed, first, options, service: as new takes them

    @property
    def open_seats(self) -> list[Seat]:
        return [s for s in self.seats if s.key is None and s.code]

    def seat_of(self, address: str) -> Seat | None:
        from koryo_pbm.address import same_address

        for s in self.seats:
            if s.code and s.email and same_address(s.email, address):
                return s
        return None


def _info(moderator: PublicIdentity) -> bytes:
    return SEAL_INFO + moderator.fingerprint().encode("ascii")


def _signed(moderator_line: str, sealed: str) -> bytes:
    return f"format = {FORMAT}\nmoderator = {moderator_line}\nsealed = {sealed}\n".encode("ascii")


def encode(signup: Signup, moderator: Identity) -> bytes:
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    payload = json.dumps({"game": signup.game, "answer_by": signup.answer_by, "make": signup.make,
                          "seats": [s.to_json() for s in signup.seats]}, sort_keys=True).encode("utf-8")
    sealed = base64.b64encode(seal(moderator.public, payload, _info(moderator.public))).decode("ascii")
    line = moderator.public.line()
    signature = base64.b64encode(sign(moderator, CONTEXT, _signed(line, sealed))).decode("ascii")
    return (f'format = "{FORMAT}"\nmoderator = "{line}"\nsealed = "{sealed}"\nsignature = "{signature}"\n'
            ).encode("ascii")


def decode(data: bytes, moderator: Identity, source: str) -> Signup:
    from koryo_pbm.crypto.seal import open_sealed
    from koryo_pbm.crypto.sign import verify
    from koryo_pbm.match import loads_toml

    try:
        top = loads_toml(data.decode("utf-8"), source)
    except UnicodeDecodeError:
        raise FormatError(f"{source} is not UTF-8 text") from None
    if top.get("format") != FORMAT or set(top) != {"format", "moderator", "sealed", "signature"}:
        raise FormatError(f"{source} is not a koryo-pbm sign-up file ({FORMAT})")
    if not all(isinstance(v, str) for v in top.values()):
        raise FormatError(f"{source}: its fields must be text")
    if top["moderator"] != moderator.public.line():
        raise TamperedError(f"{source} belongs to another moderator key")
    try:
        signature = base64.b64decode(top["signature"], validate=True)
        blob = base64.b64decode(top["sealed"], validate=True)
    except (binascii.Error, ValueError):
        raise FormatError(f"{source}: its sealed part or signature is not base64") from None
    verify(moderator.public, CONTEXT, _signed(top["moderator"], top["sealed"]), signature,
           what=f"the signature of {source} does not verify: it was changed")
    raw = json.loads(open_sealed(moderator, blob, _info(moderator.public), what=source))
    seats = [Seat(**s) for s in raw["seats"]]
    return Signup(raw["game"], raw["answer_by"], seats, raw.get("make", {}))


def read(folder: Path, moderator: Identity) -> Signup:
    from koryo_pbm.store.atomic import read_limited

    path = folder / SIGNUP_FILE
    return decode(read_limited(path, LIMIT, "sign-up file"), moderator, str(path))


def write(folder: Path, signup: Signup, moderator: Identity) -> None:
    from koryo_pbm.store.atomic import write_atomic

    write_atomic(folder / SIGNUP_FILE, encode(signup, moderator), mode=0o600)


def new_code() -> str:
    return os.urandom(6).hex()


def key_lines(text: str) -> list[str]:
    """Every distinct public key line in ``text`` (also in a quoted reply)."""
    out: list[str] = []
    for m in _KEY_LINE.findall(text):
        if m not in out:
            out.append(m)
    return out


def codes(text: str) -> set[str]:
    return set(_CODE.findall(text))


@dataclass
class Taken:
    status: str  # "taken" | "again" (the same key again) | "refused"
    reason: str = ""
    fingerprint: str = ""


def take_seat(signup: Signup, seat: Seat, lines: list[str], *, codes_seen: set[str], now: str) -> Taken:
    """What a reply from ``seat``'s invited address holding key ``lines`` does (``signup``
    changed only when the seat is taken)."""
    from koryo_pbm.crypto.keys import PublicIdentity

    if len(lines) != 1:
        return Taken("refused", f"the reply holds {len(lines)} key lines; send exactly one (the line keygen printed)")
    try:
        key = PublicIdentity.parse(lines[0])
    except KoryoPbmError as exc:
        return Taken("refused", f"the key line cannot be used ({exc})")
    if seat.key is not None:
        if seat.key == key.line():
            return Taken("again", "", key.fingerprint())
        return Taken("refused", f"seat {seat.name} is taken already (by key {PublicIdentity.parse(seat.key).fingerprint()}); "
                                "nothing was changed")
    if seat.code not in codes_seen:
        return Taken("refused", "the reply does not hold the invitation's code: answer the invitation mail itself "
                                "(its subject holds the code)")
    used = {PublicIdentity.parse(s.key) for s in signup.seats if s.key is not None}
    if key in used:
        return Taken("refused", "that key holds another seat of this game already; make a key of your own with keygen")
    seat.key, seat.taken = key.line(), now
    return Taken("taken", "", key.fingerprint())


def start(folder: Path, signup: Signup, moderator: Identity, now: datetime) -> Path:
    """Make the game of a sign-up whose seats are all taken, as ``new`` does; the sign-up file
    becomes ``signup-done.toml``. The game file's path."""
    from koryo_pbm import match
    from koryo_pbm.deadlines import policy_of
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile, inbox
    from koryo_pbm.store.folder import GAME_FILE

    game = find_game(signup.game)
    players = {s.name: moderator.public if s.key is None else PublicIdentity.parse(s.key) for s in signup.seats}
    emails = {s.name: s.email for s in signup.seats if s.email}
    policy = policy_of(signup.make.get("service"), list(players))
    doc, _ = match.create(game, moderator, players, seed=signup.make.get("seed"), first=signup.make.get("first"),
                          options=signup.make.get("options") or {}, emails=emails, policy=policy, now=now)
    path = folder / GAME_FILE
    try:
        inbox.inbox_dir(folder).mkdir(exist_ok=True)
        inbox.archive_dir(folder).mkdir(exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {folder}: {exc.strerror or exc}") from None
    if not path.exists():
        gamefile.write_game(path, doc, moderator)
    os.replace(folder / SIGNUP_FILE, folder / DONE_FILE)
    return path
