"""The game document: what a game file holds, as values (:class:`GameDoc`), and what every part
of the game file's code shares: the format's names and keys, the seed commitment, TOML-safe plain
copies of values, and the checks of base64 text and of exact keys. It reads and writes nothing;
:mod:`koryo_pbm.store.gamefile` reads, checks, signs and writes the file (its docstring describes
the format)."""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from datetime import date, datetime, time
from typing import Any

from koryo_pbm.crypto.keys import PublicIdentity
from koryo_pbm.errors import FormatError, KoryoPbmError
from koryo_pbm.values import BASE64, HEX, Spelling, Value

FORMAT = "koryo-pbm-game/v4"
FIRST_LINE = f'format = "{FORMAT}"\n'
# v3: the same but for the signature, which covers the file's bytes as they are (the moderator's
# part included), so that no copy without that part verifies (written until issue 18's player
# copies; read still)
FORMAT_V3 = "koryo-pbm-game/v3"
# v2: as v3 but for ``replay.orders``, where each signed order is the player's whole sealed
# envelope (written until issue 19; read still, and written again for such a finished game).
FORMAT_V2 = "koryo-pbm-game/v2"
READ_FORMATS = (FORMAT, FORMAT_V3, FORMAT_V2)
READS = f"{FORMAT}, {FORMAT_V3} and {FORMAT_V2}"
SIGN_CONTEXT = "game-file"
PART_INFO_PREFIX = b"koryo-pbm game part v1\x00"
MODERATOR_PART = "moderator"
MAX_GAME_FILE = 16 * 1024 * 1024
ZERO_HASH = "sha256:" + "0" * 64

TOP_KEYS = ("format", "game_id", "game", "version", "moderator", "deal", "seed_commitment", "seed", "salt",
            "players", "contributions", "decision", "service", "public", "log", "replay", "sealed")
OPTIONAL_KEYS = ("decision", "seed", "salt", "contributions", "service", "replay")
DEALS = ("joined", "seed", "position", "blind")
REPLAY_KEYS = ("first", "options", "position", "orders")
# a signed order: what the player signed (the envelope's header fields that the game does not
# already say, the orders text, the inner signature) and the envelope's digest, as the log counts
# it; ``key``: a former key of the seat that signed it (the envelope's format, the game and the
# moderator's fingerprint are the file's own; the signer's fingerprint is that of the key)
REPLAY_ORDER_KEYS = ("decision", "player", "answers", "submitted", "nonce", "digest", "orders", "inner", "key")
REPLAY_ORDER_OPTIONAL = ("key",)
REPLAY_ORDER_KEYS_V2 = ("decision", "player", "envelope", "orders", "inner", "key")  # v2: the whole envelope
REPLAY_BOT_ORDER_KEYS = ("decision", "player", "bot", "orders")  # one the moderator's bot played (level)
DECISION_KEYS = ("id", "kind", "waiting_for", "received", "deadline")
LOG_KEYS = ("seq", "version", "decision", "prev", "hash", "events", "accepted")
PART_KEYS = ("recipient", "data")
DIGEST_PART_KEYS = ("recipient", "digest")  # the moderator's part in a player copy (v4)

# checked with string methods, not compiled patterns (see koryo_pbm.values)
_HEX16 = Spelling(HEX, 16)
_BASE64 = Spelling(BASE64, 0, None)  # [A-Za-z0-9+/]*


def _is_b64(value: str) -> bool:
    """``[A-Za-z0-9+/]*={0,2}``"""
    bare = value.rstrip("=")
    return len(value) - len(bare) <= 2 and _BASE64.fits(bare)


class GameDoc(Value):
    """A game file's content. ``players`` keeps seat order; ``sealed`` maps a part name (a
    player, or ``"moderator"``) to ``{"recipient": fingerprint, "data": base64}``. A new version
    is made with :meth:`~koryo_pbm.values.Value.replace`."""

    _fields = ("game_id", "game", "version", "moderator", "seed_commitment", "players", "decision", "public", "log",
               "sealed", "seed", "service", "deal", "salt", "contributions", "replay")
    game_id: str
    game: str
    version: int
    moderator: PublicIdentity
    seed_commitment: str
    players: dict[str, PublicIdentity]
    decision: dict[str, Any] | None
    public: dict[str, Any]
    log: list[dict[str, Any]]
    sealed: dict[str, dict[str, str]]
    seed: str | None  # published once the game is over (decision is None)
    service: dict[str, Any] | None  # the deadline and absent-player policy (koryo_pbm.deadlines)
    deal: str  # "joined", "seed", "position" or "blind"
    salt: str | None  # published with the seed
    contributions: dict[str, str] | None  # deal "joined", once dealt
    replay: dict[str, Any] | None  # published once the game is over

    def __init__(self, game_id: str, game: str, version: int, moderator: PublicIdentity, seed_commitment: str,
                 players: dict[str, PublicIdentity], decision: dict[str, Any] | None = None,
                 public: dict[str, Any] | None = None, log: list[dict[str, Any]] | None = None,
                 sealed: dict[str, dict[str, str]] | None = None, seed: str | None = None,
                 service: dict[str, Any] | None = None, deal: str = "seed", salt: str | None = None,
                 contributions: dict[str, str] | None = None, replay: dict[str, Any] | None = None) -> None:
        self.game_id = game_id
        self.game = game
        self.version = version
        self.moderator = moderator
        self.seed_commitment = seed_commitment
        self.players = players
        self.decision = decision
        self.public = {} if public is None else public
        self.log = [] if log is None else log
        self.sealed = {} if sealed is None else sealed
        self.seed = seed
        self.service = service
        self.deal = deal
        self.salt = salt
        self.contributions = contributions
        self.replay = replay


def seed_commitment(seed: str, salt: str) -> str:
    """The public commitment to a seed (see :mod:`koryo_pbm.crypto.commit`)."""
    from koryo_pbm.crypto.commit import commitment  # imported where used: a game in progress needs none

    return commitment(seed, salt)


def check_seed(committed: str, seed: str, salt: str) -> bool:
    """True if ``seed`` with ``salt`` is the one committed to."""
    from koryo_pbm.crypto.commit import check_commitment

    return check_commitment(committed, seed, salt)


def describe_deal(doc: GameDoc) -> str:
    """One line for ``show`` and ``status``: how the game's deal is made."""
    deal, dealt = doc.deal, doc.contributions is not None or doc.deal != "joined"
    if deal == "joined":
        if not dealt:
            return ("deal: not dealt yet; every player joins first, and the deal comes from the moderator's "
                    "committed secret and every player's contribution")
        return "deal: fair, from the moderator's committed secret and every player's contribution"
    if deal == "position":
        return "deal: a position the moderator chose (--position): not fair-proof"
    if deal == "blind":
        record = doc.public.get("blind") if isinstance(doc.public, dict) else None
        dealers = record.get("dealers") if isinstance(record, dict) else None
        names = " and ".join(map(str, dealers)) if isinstance(dealers, list) else "?"
        return (f"blind table: dealers {names} (the cards are shuffled and dealt by both; neither alone "
                "sees any hidden card)")
    return "deal: chosen by the moderator (a seed given at `new`): not fair-proof"


# --- TOML-safe values and canonical JSON -------------------------------------------------------


class _Slow(Exception):
    """Raised by the fast paths below for anything but the plain cases: the general code runs."""


def _plain_fast(value: Any) -> Any:
    """:func:`_plain` for plain dicts, lists, text and numbers, without building the ``where`` of
    every node (what costs most when a whole state is copied); ``_Slow`` for anything else."""
    t = type(value)
    if t is str:
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _Slow from None
        return value
    if t is int or t is bool or t is float:
        return value
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _Slow
            out[k] = _plain_fast(v)
        return out
    if t is list or t is tuple:
        return [_plain_fast(v) for v in value]
    raise _Slow


def _plain(value: Any, where: str) -> Any:
    """A deep copy of ``value`` as plain TOML-safe data (dict/list/str/int/float/bool/datetime)."""
    try:
        return _plain_fast(value)
    except _Slow:  # something else somewhere: the general code, which names where a bad value is
        pass
    return _plain_slow(value, where)


def _plain_slow(value: Any, where: str) -> Any:
    if isinstance(value, (str, bool, int, float, datetime, date, time)):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise FormatError(f"{where} holds text that is not valid Unicode") from None
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise FormatError(f"{where} has a non-text key {k!r}")
            out[k] = _plain_slow(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain_slow(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise FormatError(f"{where} holds a value TOML cannot store ({type(value).__name__})")


def _json_default(value: Any) -> str:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    raise TypeError(type(value).__name__)


def _canonical_b64(value: Any) -> bool:
    """True if ``value`` is text that :func:`_b64` accepts (base64 that ``a2b_base64`` reads in
    strict mode and ``b2a_base64`` writes back the same), told without decoding it: groups of
    four letters of the alphabet, the last one ``xx==`` or ``xxx=`` with the bits the padding
    leaves out zero. ``binascii`` decodes a game's moderator part (some 40 kB) in about 0.1 ms;
    this takes a few microseconds."""
    if not isinstance(value, str) or len(value) % 4:
        return False
    bare = value.rstrip("=")
    pad = len(value) - len(bare)
    if pad > 2 or not _BASE64.fits(bare):
        return False
    # the last letter before the padding carries 2 bits (``==``) or 4 bits (``=``) of data, the
    # rest of its 6 zero
    return not pad or not _B64_VALUE[bare[-1]] & (0b1111 if pad == 2 else 0b11)


_B64_VALUE = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _b64(value: Any, where: str) -> bytes:
    if _canonical_b64(value):  # then decoding it is all there is to do (strict or not: the same)
        return binascii.a2b_base64(value)
    if not isinstance(value, str):
        raise FormatError(f"{where}: data must be base64 text")
    try:
        raw = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError):
        raise FormatError(f"{where}: data is not valid base64") from None
    if binascii.b2a_base64(raw, newline=False).decode("ascii") != value:
        raise FormatError(f"{where}: data is not canonical base64")
    return raw



def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _exact_keys(table: Mapping[str, Any], allowed: tuple[str, ...], where: str,
                optional: tuple[str, ...] = ()) -> None:
    for key in table:
        if key not in allowed:
            raise FormatError(f"{where} has an unknown field {key[:40]!r} (the format allows no others)")
    for key in allowed:
        if key not in table and key not in optional:
            raise FormatError(f"{where} has no '{key}'")


def _public_key(value: Any, where: str) -> PublicIdentity:
    if isinstance(value, PublicIdentity):
        return value
    if not isinstance(value, str):
        raise FormatError(f"{where} must be a public key line")
    try:
        return PublicIdentity.parse(value)
    except KoryoPbmError as exc:
        raise FormatError(f"{where}: {exc}") from None



def file_format(doc: GameDoc) -> str:
    """The format ``doc`` is written in: v4, or v2 for a game finished before v3 (its published
    orders are whole envelopes)."""
    orders = doc.replay.get("orders") if isinstance(doc.replay, dict) else None
    if isinstance(orders, list) and any(isinstance(o, dict) and "envelope" in o for o in orders):
        return FORMAT_V2
    return FORMAT


