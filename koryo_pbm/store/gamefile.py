"""The game file: one signed TOML document per game (``DIR/game.toml``), read, checked, signed and
written; it knows no game.

Layout (fixed key order; the moderator's Ed25519 signature, context ``game-file``, covers the
exact bytes of everything before the last line, which is ``signature = "<base64>"``, in their
*digested form*: see "Player copies" below)::

    format = "koryo-pbm-game/v4"       # the first line, always (v3, v2: see below)
    game_id = "..."
    game = "mygame"
    version = 12                       # state number, +1 at every write (set by the caller)
    moderator = "koryo-pbm-pub-v1:..."
    deal = "joined"                    # how the deal is made: "joined" (the moderator's secret and
                                       #   every player's contribution), "seed" (a seed the moderator
                                       #   chose, --seed) or "position" (--position): not fair-proof
    seed_commitment = "sha256:<hex>"   # SHA-256 of a domain tag, a random 32-byte salt and the seed
    seed = "..."                       # only once the game is over: the seed, published
    salt = "<64 hex>"                  #   with the salt of its commitment
    [players]                          # seat order
    [contributions]                    # deal "joined", once dealt: player -> 64 hex digits (seat order)
    [decision]                         # id, kind, waiting_for, received, deadline (optional, UTC
                                       #   "2026-11-27T18:00:00Z"); absent when over
    [service]                          # optional: the public deadline and absent-player policy
                                       #   (see koryo_pbm.deadlines)
    [public]                           # the game's public state (the game decides)
    [[log]]                            # hash-chained entries: seq, version, decision, prev, hash,
                                       #   accepted, events (the public events, one sentence each)
    [replay]                           # only once the game is over: what `verify` replays the game
                                       #   from: first, options, position (each if given) and
    [[replay.orders]]                  #   every accepted order: decision, player, what the player
                                       #   signed (answers, submitted, nonce: the envelope's header
                                       #   fields the file does not already say; orders, its text;
                                       #   inner, the player's signature of both, base64) and the
                                       #   envelope's digest, as the log counts it (v2: the whole
                                       #   armoured envelope in place of answers..digest)
    [sealed.NAME]                      # recipient (fingerprint), data (base64 HPKE blob, written
                                       #   as a literal string: 'AbC...'); the moderator's part
                                       #   last, and in a player copy: recipient, digest
    signature = "<base64>"

Player copies (v4, issue 18): the signature covers the file's *digested form*, so a copy without the
moderator's part verifies too (:mod:`koryo_pbm.store.playercopy`). The log's hash chain is
:mod:`koryo_pbm.store.gamelog`; sealing, opening and padding the parts, :mod:`koryo_pbm.store.gameparts`;
the document's values, :mod:`koryo_pbm.store.gamedoc`; writing the TOML, :mod:`koryo_pbm.store.tomltext`.

Reading checks the signature before parsing: the plain lines before the first table (the
*header*, at most 64 KiB) are parsed alone for the moderator's key, the signature over the body
is verified with it, and only then is the whole body parsed; a forged 16 MB file costs a hash.

Format v4 is format v3 with the signature over the digested form (v3's covers the bytes as they
are: a v3 file has no player copy). Format v3 (issue 19) is format v2 with smaller published
orders: v2 published each signed order as the player's whole sealed envelope (some 2 KB, its
padded ciphertext included, which nobody but the moderator can open); v3 publishes what
``verify`` checks, the orders and the header the player signed with them. A finished v2 file is
read (and written) as v2; a v3 file is read, and its next version written as v4; every other
file this koryo-pbm writes is v4.

Rule for unknown fields: format v4 has exactly these top-level keys (``decision`` while the game
goes on; ``seed``, ``salt`` and ``replay`` once it is over, never with ``decision``;
``contributions`` only for a joined game once dealt; ``service``
optional), and the ``decision``, ``log`` entries,
``replay`` and ``sealed`` parts exactly theirs; anything else is refused. A file of format v1
(before the fair deal) is refused with a message naming its format. A later format gets a new
first line.

Sealed parts, their HPKE ``info`` and their padding: see :mod:`koryo_pbm.store.gameparts`.
"""

from __future__ import annotations

import binascii
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from koryo_pbm.crypto.keys import Identity, PublicIdentity, sha256_hex, validate_name
from koryo_pbm.crypto.sign import SIGNATURE_SIZE, sign, verify
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, TamperedError
from koryo_pbm.printable import printable
from koryo_pbm.store.gamedoc import (
    DEALS,
    DECISION_KEYS,
    DIGEST_PART_KEYS,
    FIRST_LINE,
    FORMAT,
    FORMAT_V2,
    LOG_KEYS,
    MAX_GAME_FILE,
    MODERATOR_PART,
    OPTIONAL_KEYS,
    PART_KEYS,
    READ_FORMATS,
    READS,
    REPLAY_BOT_ORDER_KEYS,
    REPLAY_KEYS,
    REPLAY_ORDER_KEYS,
    REPLAY_ORDER_KEYS_V2,
    REPLAY_ORDER_OPTIONAL,
    SIGN_CONTEXT,
    TOP_KEYS,
    GameDoc,
    _b64,
    _canonical_b64,
    _exact_keys,
    _is_int,
    _plain,
    _public_key,
    check_seed,
    file_format,
)
from koryo_pbm.store.gamelog import (
    _check_entry,
    verify_log,
)
from koryo_pbm.store.playercopy import (
    _check_moderator_part,
    is_player_copy,
    player_copy_refusal,
    signed_message,
)
from koryo_pbm.store.tomltext import _toml_text
from koryo_pbm.values import BASE64, HEX64, ID, Frozen, Spelling, is_sha256, keep

_SIG_PREFIX = 'signature = "'
_SIG_B64 = Spelling(BASE64, 86)  # the signature line: signature = "([A-Za-z0-9+/]{86}==)"


def _signature_text(line: str) -> str | None:
    """The base64 signature of a game file's last line, ``signature = "<86 characters>=="``."""
    if not (line.startswith(_SIG_PREFIX) and line.endswith('=="') and len(line) == len(_SIG_PREFIX) + 89):
        return None
    text = line[len(_SIG_PREFIX):-1]
    return text if _SIG_B64.fits(text[:86]) else None



# --- validation --------------------------------------------------------------------------------


def _end_proof(doc: GameDoc, decision: Mapping[str, Any]) -> bool:
    """A blind game's seed and orders may be published while it waits for its co-dealer alone (the
    last seat): the proof of its end, which the co-dealer checks before it opens any card."""
    return doc.deal == "blind" and decision.get("waiting_for") == list(doc.players)[-1:]


def _validate(doc: GameDoc) -> None:
    """Check every field of ``doc``; ``FormatError`` naming the field."""
    if not isinstance(doc.game_id, str) or not ID.fits(doc.game_id):
        raise FormatError("'game_id' must be an id (letters, digits, '_.:+-', at most 64)")
    if not isinstance(doc.game, str) or not ID.fits(doc.game):
        raise FormatError("'game' must be a game name")
    if not _is_int(doc.version) or not 0 <= doc.version < 2**63:
        raise FormatError("'version' must be a non-negative integer")
    if not isinstance(doc.moderator, PublicIdentity):
        raise FormatError("'moderator' must be a public key")
    if not is_sha256(doc.seed_commitment):
        raise FormatError("'seed_commitment' must be 'sha256:' and 64 hex digits")
    if not isinstance(doc.players, dict):
        raise FormatError("'players' must be a table")
    for name, key in doc.players.items():
        try:
            validate_name(name)
        except KoryoPbmError:
            raise FormatError(f"'players' has an invalid player name {name[:40]!r}") from None
        if name == MODERATOR_PART:
            raise FormatError(f"'players': {MODERATOR_PART!r} cannot be a player's name")
        if not isinstance(key, PublicIdentity):
            raise FormatError(f"'players.{name}' must be a public key")
    d = doc.decision
    if d is not None:
        if not isinstance(d, dict):
            raise FormatError("'decision' must be a table")
        _exact_keys(d, DECISION_KEYS, "'decision'", optional=("deadline",))
        if not isinstance(d["id"], str) or not ID.fits(d["id"]):
            raise FormatError("'decision.id' must be a decision id")
        if not isinstance(d["kind"], str) or not d["kind"]:
            raise FormatError("'decision.kind' must be text")
        for field_name in ("waiting_for", "received"):
            listed = d[field_name]
            if not isinstance(listed, list) or not all(isinstance(n, str) and n in doc.players for n in listed):
                raise FormatError(f"'decision.{field_name}' must be a list of players of this game")
            if len(set(listed)) != len(listed):
                raise FormatError(f"'decision.{field_name}' names a player twice")
        if not set(d["received"]) <= set(d["waiting_for"]):
            raise FormatError("'decision.received' names a player the decision does not wait for")
        if "deadline" in d:
            from koryo_pbm.deadlines import DeadlineError, parse_stamp

            try:
                parse_stamp(d["deadline"], what="'decision.deadline'")
            except DeadlineError as exc:
                raise FormatError(str(exc)) from None
    if doc.service is not None:
        from koryo_pbm.deadlines import policy_of

        policy_of(doc.service, list(doc.players))
    if doc.deal not in DEALS:
        raise FormatError(f"'deal' must be one of {', '.join(DEALS)}")
    if (doc.seed is None) != (doc.salt is None):
        raise FormatError("'seed' and 'salt' are published together")
    if doc.seed is not None:
        if not isinstance(doc.seed, str):
            raise FormatError("'seed' must be text")
        if not isinstance(doc.salt, str) or not HEX64.fits(doc.salt):
            raise FormatError("'salt' must be 64 hex digits")
        if d is not None and not _end_proof(doc, d):
            raise FormatError("'seed' is published only once the game is over (no 'decision')")
        if not check_seed(doc.seed_commitment, doc.seed, doc.salt):
            raise TamperedError("the published seed does not match the seed commitment made at the start")
    if doc.contributions is not None:
        if doc.deal != "joined":
            raise FormatError(f"'contributions' belong to a joined game, not to a deal by {doc.deal}")
        if not isinstance(doc.contributions, dict) or list(doc.contributions) != list(doc.players):
            raise FormatError("'contributions' must name every player, in seat order")
        if not all(HEX64.fits(v) for v in doc.contributions.values()):
            raise FormatError("'contributions' must each be 64 hex digits")
    if doc.replay is not None:
        if d is not None and not _end_proof(doc, d):
            raise FormatError("'replay' is published only once the game is over (no 'decision')")
        _check_replay(doc.replay, doc.players, file_format(doc))
    if not isinstance(doc.public, dict):
        raise FormatError("'public' must be a table")
    if not isinstance(doc.log, list):
        raise FormatError("'log' must be a list of tables")
    for i, entry in enumerate(doc.log):
        _check_entry(entry, i)
    if not isinstance(doc.sealed, dict):
        raise FormatError("'sealed' must be a table")
    for name, part in doc.sealed.items():
        where = f"'sealed.{name}'"
        if name == MODERATOR_PART:
            owner = doc.moderator
        elif name in doc.players:
            owner = doc.players[name]
        else:
            raise FormatError(f"{where} is not a player of this game nor the moderator")
        if not isinstance(part, dict):
            raise FormatError(f"{where} must be a table")
        if name == MODERATOR_PART and "digest" in part:  # a player copy (v4): the part's digest alone
            _exact_keys(part, DIGEST_PART_KEYS, where)
            if not is_sha256(part["digest"]):
                raise FormatError(f"{where}: 'digest' must be 'sha256:' and 64 hex digits")
        else:
            _exact_keys(part, PART_KEYS, where)
        if part["recipient"] != owner.fingerprint():
            raise FormatError(f"{where} is sealed to {str(part['recipient'])[:20]!r}, not to the key of {name!r}")
        if "data" in part:
            if not _canonical_b64(part["data"]):
                _b64(part["data"], where)  # the decoding check, which says what is wrong
            if not part["data"]:
                raise FormatError(f"{where}: data is empty")


def _check_replay(replay: Any, players: Mapping[str, Any], version: str = FORMAT) -> None:
    if not isinstance(replay, dict):
        raise FormatError("'replay' must be a table")
    _exact_keys(replay, REPLAY_KEYS, "'replay'", optional=("first", "options", "position"))
    if "first" in replay and replay["first"] not in players:
        raise FormatError("'replay.first' must be a player of this game")
    for key in ("options", "position"):
        if key in replay and not isinstance(replay[key], dict):
            raise FormatError(f"'replay.{key}' must be a table")
    orders = replay["orders"]
    if not isinstance(orders, list):
        raise FormatError("'replay.orders' must be a list of tables")
    for i, item in enumerate(orders):
        where = f"'replay.orders' item {i + 1}"
        if not isinstance(item, dict):
            raise FormatError(f"{where} is not a table")
        if "bot" in item:
            _exact_keys(item, REPLAY_BOT_ORDER_KEYS, where)
        elif version == FORMAT_V2:
            _exact_keys(item, REPLAY_ORDER_KEYS_V2, where, optional=("key",))
        else:
            _exact_keys(item, REPLAY_ORDER_KEYS, where, optional=REPLAY_ORDER_OPTIONAL)
        if not all(isinstance(item[k], str) for k in item):
            raise FormatError(f"{where}: every field must be text")
        if item["player"] not in players:
            raise FormatError(f"{where}: {item['player'][:40]!r} is not a player of this game")


# --- encode / decode ---------------------------------------------------------------------------


def _to_toml(doc: GameDoc) -> dict[str, Any]:
    top: dict[str, Any] = {
        "format": file_format(doc),
        "game_id": doc.game_id,
        "game": doc.game,
        "version": doc.version,
        "moderator": doc.moderator.line(),
        "deal": doc.deal,
        "seed_commitment": doc.seed_commitment,
    }
    if doc.seed is not None:
        top["seed"] = doc.seed
        top["salt"] = doc.salt
    top["players"] = {name: key.line() for name, key in doc.players.items()}
    if doc.contributions is not None:
        top["contributions"] = dict(doc.contributions)
    if doc.decision is not None:
        top["decision"] = {k: doc.decision[k] for k in DECISION_KEYS if k in doc.decision}
    if doc.service is not None:
        top["service"] = _plain(doc.service, "service")
    top["public"] = _plain(doc.public, "public")
    top["log"] = [{k: e[k] for k in LOG_KEYS} for e in doc.log]
    if doc.replay is not None:
        top["replay"] = _plain(doc.replay, "replay")
    # the moderator's part last: a player copy is the file with that part's last line swapped
    # for its digest (see signed_message)
    names = [n for n in doc.sealed if n != MODERATOR_PART] + [n for n in doc.sealed if n == MODERATOR_PART]
    top["sealed"] = {name: {k: doc.sealed[name][k] for k in PART_KEYS} for name in names}
    return top


def encode(doc: GameDoc, moderator: Identity) -> bytes:
    """The signed bytes of ``doc``. Refuses (``NotForYou``) a key other than ``doc.moderator``."""
    if moderator.public != doc.moderator:
        raise NotForYou(
            f"key {moderator.name!r} ({moderator.public.fingerprint()}) is not the moderator of game "
            f"{doc.game_id} (moderator key {doc.moderator.fingerprint()})"
        )
    if is_player_copy(doc):
        raise FormatError(player_copy_refusal(doc))
    _validate(doc)
    verify_log(doc, checked=True)
    top = _to_toml(doc)
    text = _toml_text(doc, top)
    body = text.encode("utf-8")
    first = top["format"]
    assert body.startswith(f'format = "{first}"\n'.encode()) and body.endswith(b"\n")
    signature = sign(moderator, SIGN_CONTEXT, signed_message(body))
    return body + f'signature = "{binascii.b2a_base64(signature, newline=False).decode("ascii")}"\n'.encode("ascii")


MAX_HEADER = 64 * 1024  # the plain lines before the first table: format .. seed


class Header(Frozen):
    """What a game file says of itself before its first table, read without parsing the rest:
    enough to know whose signature to check and which game and version it claims to be."""

    _fields = ("game_id", "game", "version", "moderator")
    game_id: str
    game: str
    version: int
    moderator: PublicIdentity

    def __init__(self, game_id: str, game: str, version: int, moderator: PublicIdentity) -> None:
        object.__setattr__(self, "game_id", game_id)
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "moderator", moderator)


def _split(data: bytes, source: str) -> tuple[bytes, bytes]:
    """``(signed body, signature)`` of a game file's bytes; ``FormatError`` if it has neither."""
    if len(data) > MAX_GAME_FILE:
        raise FormatError(f"{source} is larger than {MAX_GAME_FILE} bytes")
    if not any(data.startswith(f'format = "{f}"\n'.encode("ascii")) for f in READ_FORMATS):
        if data.startswith(b'format = "koryo-pbm-game/'):
            first = data[: data.find(b"\n", 0, 80)].decode("ascii", "replace")
            which = first[len('format = "'):].rstrip('"')
            if which == "koryo-pbm-game/v1":
                raise FormatError(f"{source} has format koryo-pbm-game/v1 (made before the fair deal); this "
                                  f"koryo-pbm reads {READS} only: finish that game with the "
                                  "koryo-pbm that began it")
            raise FormatError(f"{source} has an unsupported format (this koryo-pbm reads {READS}; "
                              "a later format needs a later koryo-pbm)")
        raise FormatError(f"{source} is not a koryo-pbm game file (its first line must be {FIRST_LINE.strip()})")
    if not data.endswith(b"\n"):
        raise FormatError(f"{source} is cut short: it does not end with its signature line")
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    body, last = data[:cut], data[cut:-1]
    text = _signature_text(last.decode("ascii", errors="replace"))
    if text is None:
        raise FormatError(f"{source} has no valid signature line at its end")
    signature = binascii.a2b_base64(text)
    if len(signature) != SIGNATURE_SIZE or binascii.b2a_base64(signature, newline=False).decode("ascii") != text:
        raise FormatError(f"{source} has a damaged signature line")
    return body, signature


def _header_table(data: bytes, source: str) -> dict[str, Any]:
    """The plain ``key = value`` lines at the top of a game file (up to its first table),
    parsed alone: at most ``MAX_HEADER`` bytes, whatever the size of the file."""
    end = data.find(b"\n[", 0, MAX_HEADER)
    if end < 0:
        raise FormatError(f"{source} has no header of at most {MAX_HEADER} bytes before its first table")
    try:
        return tomllib.loads(data[: end + 1].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        raise FormatError(f"{source} has a malformed header (the lines before its first table)") from None


def _header(top: Mapping[str, Any], source: str) -> Header:
    game_id, game, version = top.get("game_id"), top.get("game"), top.get("version")
    if not isinstance(game_id, str) or not ID.fits(game_id):
        raise FormatError(f"{source}: 'game_id' must be an id (letters, digits, '_.:+-', at most 64)")
    if not isinstance(game, str) or not ID.fits(game):
        raise FormatError(f"{source}: 'game' must be a game name")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < 2**63:
        raise FormatError(f"{source}: 'version' must be a non-negative integer")
    moderator = _public_key(top.get("moderator"), f"{source}: 'moderator'")
    return Header(game_id, game, version, moderator)


def _check_signed(body: bytes, signature: bytes, header: Header, source: str,
                  expected_moderator: PublicIdentity | None) -> None:
    if expected_moderator is not None and header.moderator != expected_moderator:
        raise TamperedError(
            f"{source} is signed by a different moderator key ({header.moderator.fingerprint()}, "
            f"expected {expected_moderator.fingerprint()})"
        )
    verify(header.moderator, SIGN_CONTEXT, signed_message(body), signature,
           what=f"the signature of {source} does not verify: it was changed after the moderator signed it")


def decode_header(data: bytes, *, expected_moderator: PublicIdentity | None = None,
                  source: str = "game file") -> Header:
    """The header of the game file ``data``, its signature checked, the rest not parsed.

    Costs one signature check (a hash of the bytes), however large or deeply nested the rest
    is: what ``resolve`` uses to look at sync-conflict copies."""
    data = bytes(data)
    body, signature = _split(data, source)
    header = _header(_header_table(body, source), source)
    _check_signed(body, signature, header, source, expected_moderator)
    return header


def decode(data: bytes, *, expected_moderator: PublicIdentity | None = None, source: str = "game file") -> GameDoc:
    """Check and read the bytes of a game file (see the module docstring for every check).

    The signature is checked before the file is parsed: the moderator's key comes from the
    header alone (``decode_header``), so a forged file costs a hash, not a parse."""
    data = bytes(data)
    if b"\r" in data and len(data) <= MAX_GAME_FILE:  # a signed file never holds a CR: converted line endings?
        return _decode_crlf(data, expected_moderator, source)
    body, signature = _split(data, source)
    header = _header(_header_table(body, source), source)
    _check_signed(body, signature, header, source, expected_moderator)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{source} is not UTF-8 text") from None
    try:
        top = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:
        raise FormatError(f"{source} is not valid TOML: nested too deeply") from None
    if _header(top, source) != header:  # cannot differ (same bytes), but say so if it does
        raise FormatError(f"{source}: its header and its body disagree")
    moderator = header.moderator
    try:
        doc = _from_toml(top, moderator)
        _validate(doc)
        verify_log(doc, checked=True)
        _check_moderator_part(top, body)
    except KoryoPbmError as exc:
        raise type(exc)(f"{source}: {exc}") from None
    except RecursionError:  # only a signed file can get here: the moderator's program is broken
        raise FormatError(f"{source}: a value is nested too deeply") from None
    return doc


def _decode_crlf(data: bytes, expected_moderator: PublicIdentity | None, source: str) -> GameDoc:
    """A game file whose line endings a mail client or an editor turned into CRLF is the
    signed file it was when the signature verifies over its LF form (the writer never puts a CR
    in a game file); otherwise it is named for what it is."""
    plain = data.replace(b"\r\n", b"\n")
    if b"\r" in plain:
        raise FormatError(f"{source} holds a carriage return that is not part of a line ending: "
                          "it is not the file the moderator signed")
    try:
        return decode(plain, expected_moderator=expected_moderator, source=source)
    except KoryoPbmError as exc:
        raise type(exc)(f"{source} has Windows line endings (CRLF), and with plain line endings it is still "
                        f"not a valid game file: {exc}") from None


def _from_toml(top: dict[str, Any], moderator: PublicIdentity) -> GameDoc:
    _exact_keys(top, TOP_KEYS, "the game file", optional=OPTIONAL_KEYS)
    if top["format"] not in READ_FORMATS:
        raise FormatError(f"unsupported format (this koryo-pbm reads {READS})")
    players = top["players"]
    if not isinstance(players, dict):
        raise FormatError("'players' must be a table")
    if not isinstance(top["sealed"], dict) or not all(isinstance(p, dict) for p in top["sealed"].values()):
        raise FormatError("'sealed' must be a table of tables")
    doc = GameDoc(
        game_id=top["game_id"],
        game=top["game"],
        version=top["version"],
        moderator=moderator,
        seed_commitment=top["seed_commitment"],
        players={name: _public_key(line, f"'players.{name}'") for name, line in players.items()},
        decision=top.get("decision"),
        public=top["public"],
        log=top["log"],
        sealed=top["sealed"],
        seed=top.get("seed"),
        service=top.get("service"),
        deal=top["deal"],
        salt=top.get("salt"),
        contributions=top.get("contributions"),
        replay=top.get("replay"),
    )
    signed = [o for o in (doc.replay or {}).get("orders", ()) if isinstance(o, dict) and "bot" not in o]
    if any(("envelope" in o) != (top["format"] == FORMAT_V2) for o in signed):
        raise FormatError(f"the file says format {top['format']} but its published orders are not of that format")
    return doc


_recent: dict[str, tuple[GameDoc, bytes]] = {}  # SHA-256 of a game file's bytes -> (document, bytes)
_RECENT = 4


def _keep(data: bytes, doc: GameDoc, digest: str | None = None) -> None:
    keep(_recent, digest or sha256_hex(data), (doc, data), _RECENT)


_written: list[tuple[GameDoc, bytes]] = []  # the last few documents this process signed and wrote


def signed_bytes(doc: GameDoc) -> bytes | None:
    """The signed bytes this process read ``doc`` from (one of the last few game files read)
    or wrote it as (:func:`write_game`), or ``None``: what a player keeps as a copy of the
    version they saw, and the moderator of the version it wrote."""
    for seen, data in [*reversed(list(_recent.values())), *reversed(_written)]:
        # every field: two files of one version may differ in their log alone (a rewritten history)
        if seen == doc:
            return data
    return None


def _fresh(doc: GameDoc) -> GameDoc:
    # Fresh top-level containers; what is nested inside is shared and must not be changed in
    # place (nothing does: a new version gets new public and decision tables).
    return doc.replace(
        players=dict(doc.players),
        decision=dict(doc.decision) if doc.decision is not None else None,
        service=dict(doc.service) if doc.service is not None else None,
        contributions=dict(doc.contributions) if doc.contributions is not None else None,
        public=dict(doc.public),
        log=list(doc.log),
        sealed=dict(doc.sealed),
    )


def read_game_bytes(path: Path) -> bytes:
    """The bytes of the game file ``path``, never through a symbolic link."""
    from koryo_pbm.store.atomic import read_limited_at

    return read_limited_at(Path(path), MAX_GAME_FILE, "game file")


def read_header(path: Path, *, expected_moderator: PublicIdentity | None = None,
                source: str | None = None) -> Header:
    """The signed header of the game file ``path`` (see :func:`decode_header`)."""
    return decode_header(read_game_bytes(path), expected_moderator=expected_moderator,
                         source=source or f"game file {printable(path)}")


def read_game(path: Path, *, expected_moderator: PublicIdentity | None = None, source: str | None = None) -> GameDoc:
    """Read and check ``path`` (see :func:`decode`; ``expected_moderator`` pins the key).

    The same bytes always decode to the same document, so the last few game files this process
    read are remembered by the SHA-256 of their bytes: a process that reads one file several
    times (``resolve`` checks conflict copies against it first; ``demo``'s players share one
    copy of each version) parses and verifies it once. Each call gets its own top-level tables;
    the values inside them are shared, and read-only.
    """
    return decode_remembered(read_game_bytes(path), expected_moderator=expected_moderator,
                             source=source or f"game file {printable(path)}")


def decode_remembered(data: bytes, *, expected_moderator: PublicIdentity | None = None,
                      source: str = "game file") -> GameDoc:
    """:func:`decode`, remembered as :func:`read_game` remembers: the same bytes decoded again
    (the judge reads a version it has just resolved twice) are parsed once."""
    digest = sha256_hex(data)
    kept = _recent.get(digest)
    if kept is None:
        doc = decode(data, expected_moderator=expected_moderator, source=source)
        _keep(data, doc, digest)
    else:
        doc = kept[0]
        if expected_moderator is not None and doc.moderator != expected_moderator:
            raise TamperedError(
                f"{source} is signed by a different moderator key ({doc.moderator.fingerprint()}, "
                f"expected {expected_moderator.fingerprint()})"
            )
    return _fresh(doc)


def write_game(path: Path, doc: GameDoc, moderator: Identity) -> None:
    """Sign and write ``doc`` to ``path`` atomically."""
    from koryo_pbm.store.atomic import write_atomic

    data = encode(doc, moderator)
    write_atomic(Path(path), data)
    _written.append((_fresh(doc), data))  # a copy: a document changed after it was written is not this file
    del _written[:-_RECENT]
