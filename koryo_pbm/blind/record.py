"""The blind table's record in a game file, and what every part of :mod:`koryo_pbm.blind` reads of
it: the state (:class:`DealState`), the dealers' secrets and keys, decks by id, slots, the
co-dealer's signed record of whom each deck is dealt to, and the public log lines."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import RESERVED_PUBLIC_KEYS
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError

DEAL = "deal"  # the kind of every decision that waits for the co-dealer
KEYS, END = "keys", "end"
TURN_UP = "turn-up"  # the blind rules' kind of a turn-up: cards dealt to nobody shown to everybody
# the public part's tables the blind table writes, as the contract reserves them (its first is the
# join's): the blind table's record, and the blind rules' public state
_JOIN, PUBLIC_KEY, RULES_KEY = RESERVED_PUBLIC_KEYS
_SHARES_INFO = b"koryo-pbm blind shares v1\x00"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise OrderError(f"{what} must be base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise OrderError(f"{what} is not base64") from None


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A blind table's record comes from a file signed by the moderator: whatever shape it has,
    reading it gives a one-line ``FormatError``, never a traceback."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise FormatError(f"the blind table's record in the game file is malformed ({type(exc).__name__}: "
                              f"{str(exc)[:60]})") from None

    return wrapper


@lru_cache(maxsize=64)
def _deck(text: str) -> cb.Deck:
    return cb.deck_from_bytes(base64.b64decode(text))


@lru_cache(maxsize=8)
def _table_of(cards: tuple[str, ...]) -> cb.CardTable:
    """The card table of a catalogue, made once (78 hashes to the group) per process."""
    return cb.CardTable(cards)


def shares_info(game_id: str, deck_id: str, recipient: str) -> bytes:
    """HPKE info of the co-dealer's shares sealed to a player: bound to game, deck and recipient."""
    return _SHARES_INFO + b"\x00".join(x.encode() for x in (game_id, deck_id, recipient))


@dataclass
class DealState:
    """A blind game: the blind rules' state and the blind table's record.

    ``version``: 2 for a game dealt since issue 29 (secrets bound to their inputs, the co-dealer's
    own per-game secret sealed to itself), 1 for the games dealt before (audited as they were).
    ``secret``: the moderator's deal seed (``""`` in a state built from a view). ``keys``:
    dealer -> {point, proof} (the co-dealer's also {sealed, signature}: its per-game secret
    sealed to itself, and its signature over the four). ``decks``: {id, input (slots and card ids), outputs (one deck per
    dealer that has shuffled, base64)}. ``mod``: the moderator's shares of the hidden cards in
    hands (slot -> base64); ``carl``: deck -> recipient -> the co-dealer's shares sealed to them.
    ``reveals``: {slot, player, card, shares {dealer: base64}}. ``published``: the dealers'
    secrets once the game is over. ``cards``: a player's own cards, opened (views only)."""

    game_id: str
    seats: tuple[str, ...]
    dealers: tuple[str, str]
    signer: str = ""  # the co-dealer's public key line: it signs whom each deck is dealt to
    secret: str = ""
    first: str = ""
    keys: dict[str, dict[str, str]] = field(default_factory=dict)
    rules: Any = None
    decks: list[dict[str, Any]] = field(default_factory=list)
    mod: dict[str, str] = field(default_factory=dict)
    carl: dict[str, dict[str, str]] = field(default_factory=dict)
    reveals: list[dict[str, Any]] = field(default_factory=list)
    published: dict[str, dict[str, Any]] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # the game's options (teams, ...)
    shares: dict[str, str] = field(default_factory=dict)  # a player's co-dealer shares, opened (views only)
    bots: tuple[str, ...] = ()  # bot seats: the co-dealer seals their shares to the moderator
    # --missed bot: the pending request to open absent players' hands to the moderator (public:
    # {decision, players, deadline, grace, resolved}), the hands opened so far (public: {decision,
    # player, slots}), and the co-dealer's shares of them sealed to the moderator (its state only)
    opening: dict[str, Any] = field(default_factory=dict)
    opened: list[dict[str, Any]] = field(default_factory=list)
    peeks: dict[str, str] = field(default_factory=dict)
    version: int = 1
    # a pending reveal of a player's face-down cards: the player's own signed order that placed
    # them, published by the moderator (what the co-dealer checks before it gives a share)
    claim: dict[str, Any] = field(default_factory=dict)
    # verify's replay only: the moderator's published proof of each of its shuffles, checked and
    # kept instead of a new one (a proof draws fresh randomness: the replay must give the file)
    known: dict[str, str] = field(default_factory=dict)
    # a pending turn-up: every player's signed order so far, published by the moderator (what the
    # co-dealer replays the rules from before it turns a card up)
    signed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def co_dealer(self) -> str:
        return self.dealers[1]


# -- the dealers' secrets --------------------------------------------------------------------


def _mod_key(st: DealState) -> tuple[cb.KeyShare, bytes]:
    raw = st.secret.encode()
    if not raw:
        raise GameError("only the moderator's state holds the moderator's secrets")
    return (cb.derived_key_share(raw, st.game_id, st.dealers[0]),
            cb.derive_secret(raw, "proof nonces", st.game_id, st.dealers[0])[:32])


def _mod_seed(st: DealState, deck_id: str, input_deck: cb.Deck) -> bytes:
    """The moderator's shuffle seed of ``deck_id``, from its committed seed and (version 2) the
    digest of the deck it shuffles."""
    bound = (cb.deck_digest(input_deck),) if st.version >= 2 else ()
    return cb.derived_seed(st.secret.encode(), st.game_id, deck_id, st.dealers[0], *bound)


def co_dealer_secret(identity: Any) -> bytes:
    """The secret a version-1 co-dealer derived its key share and seeds from: its signing key.
    Only to audit those games; a version-2 co-dealer draws a per-game secret (:func:`co_dealer_key`)."""
    return bytes(identity.sign_key.private_bytes_raw())


_OWN_INFO = b"koryo-pbm blind own secret v1\x00"
_KEYS_CONTEXT = "koryo-pbm blind keys v1"


def own_info(game_id: str, carl: str) -> bytes:
    """HPKE info of the co-dealer's per-game secret, sealed to itself in its ``keys`` answer."""
    return _OWN_INFO + b"\x00".join(x.encode() for x in (game_id, carl))


def keys_bytes(game_id: str, carl: str, point: str, proof: str, sealed: str) -> bytes:
    """What the co-dealer signs in its ``keys`` answer: its public key share, its proof and its
    sealed secret, for this game: nobody else can put a secret of their choosing in its place."""
    return json.dumps([game_id, carl, point, proof, sealed], separators=(",", ":")).encode()


def check_keys_signature(st: DealState, rec: Mapping[str, Any]) -> None:
    """The co-dealer's signature over its ``keys`` record (version 2): ``TamperedError`` naming it."""
    from koryo_pbm.crypto.keys import PublicIdentity
    from koryo_pbm.crypto.sign import verify

    carl = st.co_dealer
    got = [rec.get(k) for k in ("point", "proof", "sealed", "signature")]
    fields = [f for f in got if isinstance(f, str)]
    if len(fields) != len(got):
        raise FormatError(f"{carl}'s key record lacks its sealed secret or its signature")
    verify(PublicIdentity.parse(st.signer), _KEYS_CONTEXT, keys_bytes(st.game_id, carl, *fields[:3]),
           base64.b64decode(fields[3]), what=f"{carl}'s signature of its key share in game {st.game_id}")


def new_co_dealer_keys(st: DealState, identity: Any) -> dict[str, str]:
    """The co-dealer's ``keys`` answer: a fresh per-game secret from the OS (not derived from its
    signing key: a game id used twice gives two unrelated key shares), its key share derived from
    it, the proof, the secret sealed to the co-dealer's own key and the co-dealer's signature."""
    import os

    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    carl = st.co_dealer
    secret = os.urandom(32)
    pub = cb.publish_key(st.game_id, carl, cb.derived_key_share(secret, st.game_id, carl))
    point, proof = _b64(pub.public), _b64(pub.proof)
    sealed = _b64(seal(identity.public, secret, own_info(st.game_id, carl)))
    signature = _b64(sign(identity, _KEYS_CONTEXT, keys_bytes(st.game_id, carl, point, proof, sealed)))
    return {"point": point, "proof": proof, "sealed": sealed, "signature": signature}


def co_dealer_key(st: DealState, identity: Any) -> tuple[bytes, cb.KeyShare]:
    """The co-dealer's per-game secret and key share, from its own signed record in the game
    (any machine holding its key recovers them; nothing kept elsewhere): its signature checked,
    the secret opened with its key, the key share it gives checked against the public one."""
    from koryo_pbm.crypto.seal import open_sealed

    carl = st.co_dealer
    if st.version < 2:
        raise GameError(f"game {st.game_id} was dealt by an earlier koryo-pbm (its co-dealer's secrets derive from "
                        "its signing key): this co-dealer does not answer it; finish it with that version")
    rec = st.keys.get(carl, {})
    check_keys_signature(st, rec)
    secret = open_sealed(identity, base64.b64decode(rec["sealed"]), own_info(st.game_id, carl),
                         f"{carl}'s secret of game {st.game_id}")
    key = cb.derived_key_share(secret, st.game_id, carl)
    if _b64(key.public) != rec["point"]:
        raise GameError(f"this key is not the one {carl} dealt game {st.game_id} with")
    return secret, key


def dealt_digest(recipients: Sequence[str]) -> bytes:
    import hashlib

    return hashlib.sha256(json.dumps(list(recipients), separators=(",", ":")).encode()).digest()


def carl_seed(st: DealState, secret: bytes, deck_id: str, input_deck: cb.Deck, before: cb.Deck,
              recipients: Sequence[str]) -> bytes:
    """The co-dealer's shuffle seed of ``deck_id``: from its per-game secret, the digests of the
    deck the rules put together, of the moderator's shuffle of it and of whom the rules deal it
    to. Asked again under the same deck id with anything else (a second history of the game, by
    a moderator that forks its file), it shuffles with an unrelated permutation."""
    return cb.derived_seed(secret, st.game_id, deck_id, st.co_dealer, cb.deck_digest(input_deck),
                           cb.deck_digest(before), dealt_digest(recipients))


def _dealer_keys(st: DealState) -> list[cb.DealerKey]:
    return [cb.DealerKey.from_bytes(d, base64.b64decode(st.keys[d]["point"]), base64.b64decode(st.keys[d]["proof"]))
            for d in st.dealers]


@lru_cache(maxsize=16)
def _joint_cached(game_id: str, keys: tuple[cb.DealerKey, ...]) -> bytes:
    return cb.joint_key(game_id, keys)


def _joint(st: DealState) -> bytes:
    return _joint_cached(st.game_id, tuple(_dealer_keys(st)))


def shuffle_proof(st: DealState, deck_id: str, dealer: str, before: cb.Deck, after: cb.Deck, seed: bytes) -> str:
    """The proof (Terelius-Wikström, :mod:`koryo_pbm.crypto.shuffle`) that ``after`` is ``dealer``'s
    shuffle of ``before`` by ``seed``, bound to the game, the deck and the dealer; base64."""
    from koryo_pbm.crypto import shuffle as sp

    order, scalars = cb.shuffle_plan(seed, st.game_id, deck_id, dealer, len(before))
    return _b64(sp.prove_shuffle(before, after, _joint(st), order, scalars,
                                 context=sp.shuffle_context(st.game_id, deck_id, dealer)))


@lru_cache(maxsize=64)
def _proof_checked(joint: bytes, game_id: str, deck_id: str, dealer: str, before: cb.Deck, after: cb.Deck,
                   proof: str) -> None:
    from koryo_pbm.crypto import shuffle as sp

    sp.check_shuffle(before, after, joint, base64.b64decode(proof, validate=True),
                     context=sp.shuffle_context(game_id, deck_id, dealer))


def check_proof(st: DealState, deck_id: str, dealer: str, before: cb.Deck, after: cb.Deck, proof: Any) -> None:
    """``BlindCheckError`` naming the dealer and the deck unless ``proof`` (base64) shows that
    ``after`` is a permutation and re-encryption of ``before``: what the next dealer, each player's
    tools and ``verify`` check before they use a deck (each proof once per process)."""
    what = f"{dealer}'s shuffle of {cb.deck_name(deck_id)}"
    if not isinstance(proof, str):
        raise cb.BlindCheckError(f"{what} has no proof")
    try:
        _proof_checked(_joint(st), st.game_id, deck_id, dealer, before, after, proof)
    except (FormatError, ValueError) as exc:
        raise cb.BlindCheckError(f"{what}: its proof is malformed ({str(exc)[:80]})") from None
    except cb.BlindCheckError as exc:
        raise cb.BlindCheckError(f"{what}: {exc}") from None


def check_proofs(st: DealState, rec: Mapping[str, Any]) -> None:
    """Every dealer's proof of the deck record ``rec`` (version 2), from the input anyone
    recomputes (the first deck: the public catalogue under the joint key, ``encrypt_deck``)."""
    if st.version < 2:
        return
    proofs = rec.get("proofs")
    if not isinstance(proofs, list) or len(proofs) != len(rec["outputs"]):
        raise cb.BlindCheckError(f"{cb.deck_name(rec['id'])} has {len(rec['outputs'])} shuffles but "
                                 f"{len(proofs) if isinstance(proofs, list) else 'no'} proofs")
    before = _input_deck(st, rec["input"])
    for dealer, out, proof in zip(st.dealers, rec["outputs"], proofs, strict=False):
        after = _deck(out)
        check_proof(st, rec["id"], dealer, before, after, proof)
        before = after


def _record(st: DealState, deck_id: str) -> dict[str, Any] | None:
    return next((d for d in st.decks if d["id"] == deck_id), None)


def _final(st: DealState, deck_id: str) -> cb.Deck:
    rec = _record(st, deck_id)
    if rec is None or len(rec["outputs"]) != 2:
        raise GameError(f"{cb.deck_name(deck_id)} is not shuffled by both dealers")
    return _deck(rec["outputs"][-1])


def _input_deck(st: DealState, items: Sequence[str]) -> cb.Deck:
    """The ciphertexts the rules put into a new deck: a slot's from its dealt deck, a known card's
    in the open form ``(B, M + H)`` anyone recomputes."""
    joint = _joint(st)
    out = []
    for item in items:
        if ":" in item:
            deck_id, _, pos = item.rpartition(":")
            out.append(_final(st, deck_id)[int(pos)])
        else:
            out.append(cb.encrypt_deck([item], joint)[0])
    return tuple(out)


def _slot(st: DealState, slot: str, recipient: str) -> cb.Slot:
    deck_id, _, pos = slot.rpartition(":")
    return cb.Slot(st.game_id, deck_id, int(pos), recipient)


def _card_at(st: DealState, slot: str) -> cb.Ciphertext:
    deck_id, _, pos = slot.rpartition(":")
    return _final(st, deck_id)[int(pos)]


def _dealt_to(st: DealState, slot: str, carl: str) -> str:
    """Whom the co-dealer dealt ``slot`` to, by the record it signed itself (its signature checked
    again here), not by the moderator's state: what it checks before it gives a share."""
    deck_id, _, at = slot.rpartition(":")
    rec = _record(st, deck_id)
    if rec is None or len(rec["outputs"]) != 2 or "recipients" not in rec:
        raise GameError(f"{slot}: {cb.deck_name(deck_id)} was not dealt by {carl}")
    _check_dealt_signature(st, deck_id, _deck(rec["outputs"][1]), rec["recipients"], base64.b64decode(rec["signature"]))
    return str(rec["recipients"][int(at)])


def _check_sealed_to(shares: Any, recipients: set[str], what: str, carl: str) -> None:
    """The co-dealer's sealed shares in an answer: one box for each of ``recipients``, in base64."""
    if not isinstance(shares, Mapping) or set(shares) != recipients:
        raise IllegalOrder(f"illegal order: {what} must be sealed to each of {', '.join(sorted(recipients))}, once")
    for r in recipients:
        _unb64(shares[r], f"{carl}'s shares for {r}")


def _dealer_keys_partial(st: DealState) -> list[cb.DealerKey]:
    return [cb.DealerKey.from_bytes(d, base64.b64decode(st.keys[d]["point"]), base64.b64decode(st.keys[d]["proof"]))
            for d in st.dealers if d in st.keys]


_DEALT_CONTEXT = "koryo-pbm blind dealt v1"


def _dealt_bytes(game_id: str, deck_id: str, output: cb.Deck, recipients: Sequence[str]) -> bytes:
    import hashlib

    return json.dumps([game_id, deck_id, hashlib.sha256(cb.deck_to_bytes(output)).hexdigest(), list(recipients)],
                      separators=(",", ":")).encode()


def _check_dealt_signature(st: DealState, deck_id: str, output: cb.Deck, recipients: Sequence[str],
                           signature: bytes) -> None:
    """The co-dealer's signature over whom each position of its deck is dealt to: what it checks
    again before it gives a share of a card at a reveal, whatever the moderator's state says."""
    from koryo_pbm.crypto.keys import PublicIdentity
    from koryo_pbm.crypto.sign import verify

    verify(PublicIdentity.parse(st.signer), _DEALT_CONTEXT, _dealt_bytes(st.game_id, deck_id, output, recipients),
           signature, what=f"{st.co_dealer}'s signature of whom {cb.deck_name(deck_id)} is dealt to")


def _first_player(st: DealState) -> str:
    """The first player. Version 2: from the moderator's public key share alone (a function of
    the seed it committed to in the first file, before the co-dealer's share exists), so the
    co-dealer cannot choose it; the moderator could, as it can name one at ``new``. Version 1:
    from both dealers' public key shares (the co-dealer's, drawn after it saw the moderator's,
    could choose it: issue 29)."""
    import hashlib

    seats = st.seats
    if st.version >= 2:
        digest = hashlib.sha256(b"koryo-pbm blind first player v2\x00" + st.game_id.encode() + b"\x00"
                                + base64.b64decode(st.keys[st.dealers[0]]["point"])).digest()
    else:
        points = [base64.b64decode(st.keys[x]["point"]) for x in st.dealers]
        digest = hashlib.sha256(b"koryo-pbm blind first player\x00" + b"".join(points)).digest()
    return seats[int.from_bytes(digest, "big") % len(seats)]


def bot_seat_text(seat: str, mod: str, carl: str) -> str:
    """The public log line that says a bot seat's cards are open to the moderator."""
    return (f"{seat} is a bot seat: {mod} and {carl} seal its cards to the moderator, who runs its bot "
            "and sees its hand")


# -- each deck kept once: the co-dealer's kept answers refer to it by digest --------------------

# a deck (64 bytes a card), or a shuffle's proof (at least 448 bytes: not a key's 64-byte proof)
_OUTPUT_LINE = re.compile(r'^(output(?= = "[A-Za-z0-9+/=]{64,}"$)|proof(?= = "[A-Za-z0-9+/=]{400,}"$)) = "([A-Za-z0-9+/=]+)"$',
                          re.MULTILINE)
_OUTPUT_REF = re.compile(r'^(output|proof) = "sha256:([0-9a-f]{64})"$', re.MULTILINE)


def _digest_of(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("ascii")).hexdigest()


def refer_decks(orders_text: str) -> str:
    """The co-dealer's signed answer as the record keeps it: the deck it shuffled (``output``) and
    the proof of its shuffle (``proof``), kept once, in the public record, replaced by the SHA-256
    of their base64 text."""
    return _OUTPUT_LINE.sub(lambda m: f'{m[1]} = "sha256:{_digest_of(m[2])}"', orders_text)


def expand_decks(orders_text: str, public: Mapping[str, Any]) -> str:
    """:func:`refer_decks` undone from the public record's decks: the exact text the co-dealer
    signed, whose signature is then checked. ``FormatError`` for a digest of no deck there."""
    if "sha256:" not in orders_text:
        return orders_text
    rec = public.get(PUBLIC_KEY) if isinstance(public, Mapping) else None
    decks = rec.get("decks", []) if isinstance(rec, Mapping) else []
    known = {_digest_of(o): o for d in decks if isinstance(d, Mapping)
             for o in [*d.get("outputs", []), *d.get("proofs", [])] if isinstance(o, str) and o.isascii()}

    def back(m: re.Match[str]) -> str:
        if m[2] not in known:
            raise FormatError(f"the co-dealer's answer refers to a deck or proof (sha256 {m[2][:16]}...) the public "
                              "record does not hold")
        return f'{m[1]} = "{known[m[2]]}"'

    return _OUTPUT_REF.sub(back, orders_text)


# -- --missed bot: an absent player's hand opened to the moderator, only when the policy says so ---

_OPEN_INFO = b"koryo-pbm blind open v1\x00"


def open_info(game_id: str, decision_id: str, player: str) -> bytes:
    """HPKE info of the co-dealer's shares of ``player``'s hand sealed to the moderator."""
    return _OPEN_INFO + b"\x00".join(x.encode() for x in (game_id, decision_id, player))


def open_note(player: str, decision_id: str, deadline: str, grace: str, resolved: str) -> str:
    """The public log line of a request to open ``player``'s hand (matched by ``OPEN_NOTE``)."""
    return (f"{player} missed the deadline of {decision_id}: the dealers open {player}'s hand to the moderator "
            f"for the bot (deadline {deadline}, grace {grace}, resolved at {resolved})")


OPEN_NOTE = re.compile(r"(?P<seat>\S+) missed the deadline of (?P<decision>\S+): the dealers open (?P=seat)'s hand "
                       r"to the moderator for the bot \(deadline (?P<deadline>\S+), grace (?P<grace>[^,()]+), "
                       r"resolved at (?P<resolved>\S+)\)")


def opened_text(player: str, cards: int, mod: str, carl: str) -> str:
    return (f"{player}'s hand opened to the moderator for the bot: {carl} sealed its shares of {player}'s "
            f"{cards} hidden card{'s' if cards != 1 else ''} to {mod}")


ONE_DECK = cb.ONE_DECK  # the id of the deck of a game that shuffles once: its log line says "the deck"


def shuffled_text(mod: str, carl: str, deck_id: str, cards: int) -> str:
    """The public log line of a deck both dealers shuffled: "mod and carl shuffled deck round-2
    in turn (55 cards)" for one of several decks of a game, "mod and carl shuffled the deck in
    turn (78 cards)" for the one deck (named ``deck``) of a game that shuffles once."""
    return f"{mod} and {carl} shuffled {cb.deck_name(deck_id)} in turn ({cards} cards)"


SHUFFLED_NOTE = re.compile(r"(?P<mod>\S+) and (?P<carl>\S+) shuffled (?:the deck|deck (?P<deck>\S+)) in turn "
                           r"\((?P<cards>\d+) cards\)")


def shuffled_deck(text: str) -> str | None:
    """The deck a log line says both dealers shuffled, in either wording (the files written
    before "the deck" say "shuffled deck deck"), or ``None``."""
    m = SHUFFLED_NOTE.fullmatch(text)
    return None if m is None else m["deck"] or ONE_DECK


def in_todays_words(text: str) -> str:
    """A blind game's log line as this version writes it: "shuffled deck deck" (a file
    written before "the deck") reads "shuffled the deck"; any other line as it is."""
    m = SHUFFLED_NOTE.fullmatch(text)
    if m is None or m["deck"] != ONE_DECK:
        return text
    return shuffled_text(m["mod"], m["carl"], ONE_DECK, int(m["cards"]))


def _opened_slots(st: DealState, player: str) -> list[str]:
    return [x for o in st.opened if o.get("player") == player for x in o.get("slots", [])]
