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
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError

DEAL = "deal"  # the kind of every decision that waits for the co-dealer
KEYS, END = "keys", "end"
PUBLIC_KEY = "blind"  # the public part's table of the blind table's record
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

    ``secret``: the moderator's deal seed (``""`` in a state built from a view). ``keys``:
    dealer -> {point, proof}. ``decks``: {id, input (slots and card ids), outputs (one deck per
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
    options: dict[str, Any] = field(default_factory=dict)  # the game's options (Korsar's teams)
    shares: dict[str, str] = field(default_factory=dict)  # a player's co-dealer shares, opened (views only)
    bots: tuple[str, ...] = ()  # bot seats: the co-dealer seals their shares to the moderator
    # --missed bot: the pending request to open absent players' hands to the moderator (public:
    # {decision, players, deadline, grace, resolved}), the hands opened so far (public: {decision,
    # player, slots}), and the co-dealer's shares of them sealed to the moderator (its state only)
    opening: dict[str, Any] = field(default_factory=dict)
    opened: list[dict[str, Any]] = field(default_factory=list)
    peeks: dict[str, str] = field(default_factory=dict)

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


def co_dealer_secret(identity: Any) -> bytes:
    """The co-dealer's long-term secret its key share and seeds derive from: its signing key."""
    return bytes(identity.sign_key.private_bytes_raw())


def _dealer_keys(st: DealState) -> list[cb.DealerKey]:
    return [cb.DealerKey.from_bytes(d, base64.b64decode(st.keys[d]["point"]), base64.b64decode(st.keys[d]["proof"]))
            for d in st.dealers]


@lru_cache(maxsize=16)
def _joint_cached(game_id: str, keys: tuple[cb.DealerKey, ...]) -> bytes:
    return cb.joint_key(game_id, keys)


def _joint(st: DealState) -> bytes:
    return _joint_cached(st.game_id, tuple(_dealer_keys(st)))


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


def _first_player(seats: Sequence[str], points: Sequence[bytes]) -> str:
    """The first player, from both dealers' public key shares: the co-dealer's comes after the
    moderator's (derived from its committed seed), so neither chooses it alone."""
    import hashlib

    digest = hashlib.sha256(b"koryo-pbm blind first player\x00" + b"".join(points)).digest()
    return seats[int.from_bytes(digest, "big") % len(seats)]


def bot_seat_text(seat: str, mod: str, carl: str) -> str:
    """The public log line that says a bot seat's cards are open to the moderator."""
    return (f"{seat} is a bot seat: {mod} and {carl} seal its cards to the moderator, who runs its bot "
            "and sees its hand")


# -- each deck kept once: the co-dealer's kept answers refer to it by digest --------------------

_OUTPUT_LINE = re.compile(r'^output = "([A-Za-z0-9+/=]{64,})"$', re.MULTILINE)
_OUTPUT_REF = re.compile(r'^output = "sha256:([0-9a-f]{64})"$', re.MULTILINE)


def _digest_of(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("ascii")).hexdigest()


def refer_decks(orders_text: str) -> str:
    """The co-dealer's signed answer as the record keeps it: the deck it shuffled (``output``,
    kept once, in the public record) replaced by the SHA-256 of its base64 text."""
    return _OUTPUT_LINE.sub(lambda m: f'output = "sha256:{_digest_of(m[1])}"', orders_text)


def expand_decks(orders_text: str, public: Mapping[str, Any]) -> str:
    """:func:`refer_decks` undone from the public record's decks: the exact text the co-dealer
    signed, whose signature is then checked. ``FormatError`` for a digest of no deck there."""
    if "sha256:" not in orders_text:
        return orders_text
    rec = public.get(PUBLIC_KEY) if isinstance(public, Mapping) else None
    decks = rec.get("decks", []) if isinstance(rec, Mapping) else []
    known = {_digest_of(o): o for d in decks if isinstance(d, Mapping)
             for o in d.get("outputs", []) if isinstance(o, str) and o.isascii()}

    def back(m: re.Match[str]) -> str:
        if m[1] not in known:
            raise FormatError(f"the co-dealer's answer refers to a deck (sha256 {m[1][:16]}...) the public record "
                              "does not hold")
        return f'output = "{known[m[1]]}"'

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


ONE_DECK = cb.ONE_DECK  # the id of a game's one deck (Korsar's): its log line says "the deck"


def shuffled_text(mod: str, carl: str, deck_id: str, cards: int) -> str:
    """The public log line of a deck both dealers shuffled: "mod and carl shuffled deck round-2
    in turn (55 cards)" for a deck of Koryo's (one a round), "mod and carl shuffled the deck in
    turn (78 cards)" for a game's one deck (Korsar's, named ``deck``)."""
    return f"{mod} and {carl} shuffled {cb.deck_name(deck_id)} in turn ({cards} cards)"


SHUFFLED_NOTE = re.compile(r"(?P<mod>\S+) and (?P<carl>\S+) shuffled (?:the deck|deck (?P<deck>\S+)) in turn "
                           r"\((?P<cards>\d+) cards\)")


def shuffled_deck(text: str) -> str | None:
    """The deck a log line says both dealers shuffled, in either wording (the files written
    before "the deck" say "shuffled deck deck"), or ``None``."""
    m = SHUFFLED_NOTE.fullmatch(text)
    return None if m is None else m["deck"] or ONE_DECK


def in_todays_words(text: str) -> str:
    """A blind game's log line as this version writes it: "shuffled deck deck" (a Korsar file
    written before "the deck") reads "shuffled the deck"; any other line as it is."""
    m = SHUFFLED_NOTE.fullmatch(text)
    if m is None or m["deck"] != ONE_DECK:
        return text
    return shuffled_text(m["mod"], m["carl"], ONE_DECK, int(m["cards"]))


def _opened_slots(st: DealState, player: str) -> list[str]:
    return [x for o in st.opened if o.get("player") == player for x in o.get("slots", [])]
