"""The blind table in a game (``new --blind``, see ``docs/blind-table.md``). It knows no game.

:class:`Dealing` is a game seen through its blind rules (:meth:`Game.blind_rules`) with the two
dealers' steps put in as decisions of kind ``deal`` that wait for the co-dealer, as
:class:`koryo_pbm.fair.Joining` puts the join in front of a game: resolve, status, deadlines and
the judge treat the co-dealer like an awaited player (it holds a seat of the game file, after
the players', with no cards). The co-dealer's answers are envelopes like any player's.

* The moderator's secrets (its ElGamal key share, the seed of each of its shuffles, the nonces
  of its proofs) are derived from the game's committed deal seed, so its steps are computed in
  :meth:`Dealing.apply` itself and ``verify`` replays them exactly once the seed is published.
* The co-dealer's secrets are derived from its own private key and the game id
  (:func:`co_dealer_secret`): it keeps no state, and ``co-deal`` works on any machine holding
  its key. It publishes them when the game is over (the decision ``end``).
* Decisions: ``keys`` (the co-dealer's public key share and proof); ``rN-deal`` (the moderator
  has shuffled the deck the rules put together; the co-dealer shuffles it again, and seals its
  decryption shares of the positions dealt to each player to that player); ``rN-reveal-P``
  (the co-dealer's shares of P's face-down cards at P's action turn, public: everyone opens
  them with the moderator's); ``end`` (the co-dealer's key share and seeds).

What each party holds: a player's sealed part has the moderator's shares of the player's own
hidden cards and the co-dealer's, sealed by the co-dealer to the player (the moderator cannot
open them); :func:`open_hand` checks every share and opens the cards. The moderator's part
holds the blind rules' state (slots, never a hidden card id) and its derived secrets.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import BlindRules, BotRandom, Decision, Event, Game, Order, Outcome, State
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, KoryoPbmError, OrderError, PositionError

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


class Dealing(Game):
    """``game`` at a blind table (see the module docstring)."""

    def __init__(self, game: Game, rules: BlindRules | None = None) -> None:
        self.inner = game
        found = rules or game.blind_rules()
        if found is None:
            raise GameError(f"{game.title} cannot be played at a blind table (it has no blind rules)")
        self.rules: BlindRules = found

    def __getattr__(self, name: str) -> Any:  # name, title, player_counts, options, ...
        return getattr(self.inner, name)

    @property
    def decision_kinds(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*self.inner.decision_kinds, DEAL)

    # -- a new blind game ------------------------------------------------------------------

    def start(self, game_id: str, seats: Sequence[str], dealers: tuple[str, str], signer: str, secret: str,
              first: str | None = None, options: Mapping[str, Any] | None = None,
              bots: Sequence[str] = ()) -> DealState:
        """The first state: the moderator's public key share published, the co-dealer's awaited.
        ``bots``: the bot seats (the moderator runs their bots, and opens their cards)."""
        # the blind rules check the seats, the first player and the options (Korsar's teams)
        self.rules.setup(list(seats), first or seats[0], *([dict(options)] if options else []))
        st = DealState(game_id, tuple(seats), dealers, signer, secret, first or "", options=dict(options or {}),
                       bots=tuple(bots))
        key, nonces = _mod_key(st)
        pub = cb.publish_key(game_id, dealers[0], key, nonce_key=nonces)
        st.keys = {dealers[0]: {"point": _b64(pub.public), "proof": _b64(pub.proof)}}
        return st

    def setup(self, players: Sequence[str], seed: str, *, first: str | None = None,
              options: Mapping[str, Any] | None = None) -> State:
        raise GameError("a blind game is started by koryo_pbm.blind.Dealing.start")

    # -- the contract ---------------------------------------------------------------------

    def pending(self, state: DealState) -> Decision | None:
        st = state
        carl = st.co_dealer
        if carl not in st.keys:
            return Decision(KEYS, DEAL, (carl,))
        if st.opening:
            return Decision(f"{st.opening['decision']}-open", DEAL, (carl,))
        d = self.rules.pending(st.rules)
        if d is None:
            return None if carl in st.published else Decision(END, DEAL, (carl,))
        if d.kind in ("deal", "reveal", "give"):
            return Decision(d.id, DEAL, (carl,))
        return d

    @_guarded
    def check(self, state: DealState, player: str, order: Order) -> None:
        d = self.pending(state)
        if d is not None and d.kind == DEAL:
            if player != state.co_dealer:
                raise IllegalOrder(f"illegal order: {d.id} waits for the co-dealer {state.co_dealer}, not {player}")
            self._dealer_answer(state, d, order)
            return
        if player == state.co_dealer:
            raise IllegalOrder(f"illegal order: the co-dealer {player} is not asked now")
        self.rules.check(state.rules, player, order)
        self._claimed(state, player, order)

    def _dealer_answer(self, st: DealState, d: Decision, order: Order) -> dict[str, Any]:
        """The co-dealer's answer to ``d``, checked as far as public information allows; parsed."""
        if not isinstance(order, Mapping):
            raise OrderError("a co-dealer's answer must be a table")
        carl = st.co_dealer

        def keys_only(*names: str) -> None:
            if set(order) != set(names):
                raise OrderError(f"the co-dealer's answer to {d.id} holds exactly {', '.join(names)}")

        if d.id == KEYS:
            keys_only("point", "proof")
            try:
                key = cb.DealerKey.from_bytes(carl, _unb64(order["point"], "point"), _unb64(order["proof"], "proof"))
                cb.joint_key(st.game_id, [*_dealer_keys_partial(st), key])
            except (FormatError, cb.BlindCheckError) as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            return {"key": key}
        rd = self.rules.pending(st.rules) if st.rules is not None else None
        if st.opening:  # the co-dealer's shares of absent players' hands, sealed to the moderator
            keys_only("shares")
            shares = order["shares"]
            if not isinstance(shares, Mapping) or set(shares) != set(st.opening["players"]):
                raise IllegalOrder(f"illegal order: {carl}'s answer to {d.id} opens the hand of each of "
                                   f"{', '.join(st.opening['players'])}, once")
            for r in shares:
                _unb64(shares[r], f"{carl}'s shares of {r}'s hand")
            return {"peeks": dict(shares)}
        if d.id == END:
            keys_only("key", "seeds")
            raw = _unb64(order["key"], "key")
            if not isinstance(order["seeds"], Mapping) or set(order["seeds"]) != {r["id"] for r in st.decks}:
                raise OrderError("the co-dealer's 'seeds' name every deck of the game, once")
            try:
                secret_key = cb.KeyShare.from_bytes(raw, "the co-dealer's key share")
            except FormatError:
                secret_key = None
            if secret_key is None or _b64(secret_key.public) != st.keys[carl]["point"]:
                raise IllegalOrder(f"illegal order: {carl}'s published key share does not match its public key")
            return {"key": raw, "seeds": {k: _unb64(v, f"seed of {k}") for k, v in order["seeds"].items()}}
        assert rd is not None
        if rd.kind == "deal":
            keys_only("deck", "output", "recipients", "shares", "signature")
            deck_id, feed = self.rules.deck_input(st.rules)
            if order["deck"] != deck_id:
                raise IllegalOrder(f"illegal order: the dealers shuffle {cb.deck_name(deck_id)} now, not {str(order['deck'])[:40]!r}")
            try:
                output = cb.deck_from_bytes(_unb64(order["output"], "output"), f"{carl}'s shuffle of {cb.deck_name(deck_id)}")
            except FormatError as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            if len(output) != len(feed):
                raise IllegalOrder(f"illegal order: {carl}'s shuffle of {cb.deck_name(deck_id)} has {len(output)} cards, "
                                   f"not {len(feed)}")
            dealt = self._dealt_now(st)
            if order["recipients"] != dealt:
                raise IllegalOrder(f"illegal order: {carl}'s list of whom {cb.deck_name(deck_id)} is dealt to is not the rules'")
            try:
                _check_dealt_signature(st, deck_id, output, dealt, _unb64(order["signature"], "signature"))
            except KoryoPbmError as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            _check_sealed_to(order["shares"], {v for r in dealt if r for v in self._viewers(st, r)},
                             f"{carl}'s shares of {cb.deck_name(deck_id)}", carl)
            return {"output": output}
        if rd.kind == "give":  # cards drawn: the co-dealer's shares sealed to those who see them
            keys_only("deck", "shares", "signature")  # it signs the rules' list of recipients, public
            slots = self.rules.giving(st.rules)  # type: ignore[attr-defined]
            deck_id = slots[0].rpartition(":")[0]
            dealt = list(self.rules.dealt(st.rules)[deck_id])
            if order["deck"] != deck_id:
                raise IllegalOrder(f"illegal order: the dealers give cards of {cb.deck_name(deck_id)} now, not "
                                   f"{str(order['deck'])[:40]!r}")
            try:
                _check_dealt_signature(st, deck_id, _final(st, deck_id), dealt, _unb64(order["signature"], "signature"))
            except KoryoPbmError as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            _check_sealed_to(order["shares"], {v for x in slots for v in self._viewers(st, self._recipient(st, x))},
                             f"{carl}'s shares of {', '.join(slots)}", carl)
            return {"give": slots}
        # a reveal: the co-dealer's shares of the face-down slots, public, checked here
        keys_only("shares")
        slots = self.rules.revealing(st.rules)
        shares = order["shares"]
        if not isinstance(shares, Mapping) or set(shares) != set(slots):
            raise IllegalOrder(f"illegal order: {carl}'s reveal gives a share for each of {', '.join(slots)}")
        keys = _dealer_keys(st)
        parsed = {}
        for s in slots:
            try:
                theirs = cb.Share.from_bytes(carl, _unb64(shares[s], f"share of {s}"))
                cb.check_share(_slot(st, s, self._recipient(st, s)), _card_at(st, s), keys[1], theirs)
            except (FormatError, cb.BlindCheckError) as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            parsed[s] = theirs
        return {"shares": parsed}

    def _revealer(self, st: DealState) -> str:
        d = self.rules.pending(st.rules)
        if d is None or d.kind != "reveal":
            raise GameError("no card is to be revealed now")
        return d.players[0] if d.players else ""

    # -- what Korsar's blind rules add: draws given one by one, partners, cards claimed when played

    def _recipient(self, st: DealState, slot: str) -> str:
        """Whom ``slot`` was dealt to, by the public rules."""
        deck_id, _, pos = slot.rpartition(":")
        who = self.rules.dealt(st.rules).get(deck_id, ())
        if not pos.isdigit() or int(pos) >= len(who) or not who[int(pos)]:
            raise IllegalOrder(f"illegal order: {slot[:40]} was dealt to nobody")
        return who[int(pos)]

    def _viewers(self, st: DealState, player: str) -> tuple[str, ...]:
        """Who sees ``player``'s cards (a Korsar partner too): the co-dealer seals shares to each."""
        viewers = getattr(self.rules, "viewers", None)
        return tuple(viewers(st.rules, player)) if viewers is not None else (player,)

    def _claimed(self, st: DealState, player: str, order: Order) -> list[dict[str, Any]]:
        """The cards a player's order shows (Korsar's plays), each checked at once: the co-dealer's
        share given in the order and the moderator's (its own, or the player's copy) must open the
        slot to the card claimed. Returns the reveals to publish (both shares)."""
        claims = getattr(self.rules, "claims", None)
        if claims is None:
            return []
        mod, carl = st.dealers
        keys = _dealer_keys(st)
        out = []
        for s, card, share in claims(st.rules, player, order):
            at = _slot(st, s, self._recipient(st, s))
            if not isinstance(share, str):
                raise OrderError(f"playing {s} needs its share (share = \"...\", listed by koryo-pbm orders)")
            try:
                theirs = cb.Share.from_bytes(carl, _unb64(share, f"share of {s}"))
                cb.check_share(at, _card_at(st, s), keys[1], theirs)
            except (FormatError, cb.BlindCheckError) as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            if not st.secret:  # a player's own check: the card is the one their shares opened
                if st.cards and st.cards.get(s, card) != card:
                    raise IllegalOrder(f"illegal order: {s} is {st.cards[s]}, not {card}")
                continue
            key, nonces = _mod_key(st)
            mine = cb.decryption_share(at, _card_at(st, s), mod, key, nonce_key=nonces)
            try:
                found = cb.open_card(at, _card_at(st, s), keys, [mine, theirs], _table_of(tuple(self._catalogue(st))))
            except cb.BlindCheckError as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            if found != card:
                raise IllegalOrder(f"illegal order: {s} is not {card[:40]} (the dealers' shares open it to another card)")
            out.append({"slot": s, "player": at.recipient, "card": card,
                        "shares": {mod: _b64(mine.to_bytes()), carl: _b64(theirs.to_bytes())}})
        return out

    def _dealt_now(self, st: DealState) -> list[str]:
        """For a pending deal: the recipient of each position of the new deck, by the public rules."""
        deck_id, _ = self.rules.deck_input(st.rules)
        after, _ = self.rules.apply(st.rules, {})
        return list(self.rules.dealt(after)[deck_id])

    @_guarded
    def apply(self, state: DealState, orders: Mapping[str, Order], *, log: bool = True
              ) -> tuple[DealState, list[Event]]:
        st = state
        d = self.pending(st)
        if d is None:
            raise IllegalOrder("illegal order: the game is over")
        if d.kind != DEAL:
            for name in d.players:
                if name not in orders:
                    raise OrderError(f"{d.id} waits for orders from: {name}")
            new = dataclasses.replace(st)
            shown = [r for name in d.players for r in self._claimed(st, name, orders[name])]
            new.rules, moved = self.rules.apply(st.rules, orders)
            if shown:
                new.reveals = [*st.reveals, *shown]
            self._after(new, moved)
            return new, moved
        carl = st.co_dealer
        if carl not in orders:
            raise OrderError(f"{d.id} waits for the co-dealer {carl}")
        order = orders[carl]
        answer = self._dealer_answer(st, d, order)
        new = dataclasses.replace(st, keys=dict(st.keys), decks=list(st.decks), mod=dict(st.mod),
                                  carl=dict(st.carl), reveals=list(st.reveals), published=dict(st.published),
                                  opened=list(st.opened), peeks=dict(st.peeks))
        mod = st.dealers[0]
        events: list[Event] = []
        if "peeks" in answer:
            new.opened, new.peeks = list(st.opened), dict(st.peeks)
            for p in st.opening["players"]:
                slots = self._hidden_slots(st, p)
                new.opened.append({"decision": st.opening["decision"], "player": p, "slots": slots,
                                   "deadline": st.opening["deadline"]})
                new.peeks[p] = answer["peeks"][p]
                events.append(Event("blind", opened_text(p, len(slots), mod, carl), {"player": p}))
            new.opening = {}
        elif d.id == KEYS:
            key = answer["key"]
            new.keys[carl] = {"point": _b64(key.public), "proof": _b64(key.proof)}
            first = st.first or _first_player(st.seats, [base64.b64decode(new.keys[x]["point"]) for x in st.dealers])
            new.rules = self.rules.setup(list(st.seats), first, *([dict(st.options)] if st.options else []))
            how = "as the moderator set it" if st.first else "from both key shares"
            events.append(Event("blind", f"the blind table is set: dealers {mod} and {carl} (each published a key "
                                         f"share with its proof); {first} is first player ({how})",
                                {"dealers": [mod, carl], "first": first}))
            events += [Event("blind", bot_seat_text(b, mod, carl), {"bot": b}) for b in st.bots]
            self._after(new, events)
        elif d.id == END:
            new.published[carl] = {"key": _b64(answer["key"]),
                                   "seeds": {k: _b64(v) for k, v in answer["seeds"].items()}}
            if new.secret:
                key, _ = _mod_key(new)
                new.published[mod] = {"key": _b64(key.secret), "seeds": {
                    r["id"]: _b64(cb.derived_seed(new.secret.encode(), new.game_id, r["id"], mod)) for r in new.decks}}
            events.append(Event("blind", f"{mod} and {carl} published their key shares and shuffle seeds: every "
                                         f"card of the game can be audited (koryo-pbm verify)", {}))
        elif "output" in answer:
            deck_id, _ = self.rules.deck_input(st.rules)
            old = _record(new, deck_id)
            assert old is not None  # checked by _dealer_answer
            new.decks[new.decks.index(old)] = {**old, "outputs": [*old["outputs"], _b64(cb.deck_to_bytes(
                answer["output"]))], "recipients": list(order["recipients"]), "signature": order["signature"]}
            new.carl[deck_id] = dict(order["shares"])
            dealt = self._dealt_now(st)
            new.rules, ev = self.rules.apply(st.rules, {})
            events.append(Event("blind", shuffled_text(mod, carl, deck_id, len(dealt)), {"deck": deck_id}))
            events += ev
            if new.secret:  # the moderator's shares of the cards dealt (the moderator's state only)
                key, nonces = _mod_key(new)
                final = answer["output"]
                for pos, recipient in enumerate(dealt):
                    if recipient:
                        slot = f"{deck_id}:{pos}"
                        share = cb.decryption_share(cb.Slot(new.game_id, deck_id, pos, recipient), final[pos], mod,
                                                    key, nonce_key=nonces)
                        new.mod[slot] = _b64(share.to_bytes())
            self._after(new, events)
        elif "give" in answer:  # cards drawn: the co-dealer's shares sealed, the moderator's kept
            slots = answer["give"]
            deck_id = slots[0].rpartition(":")[0]
            old = _record(new, deck_id)
            assert old is not None
            new.decks[new.decks.index(old)] = {**old, "recipients": list(self.rules.dealt(st.rules)[deck_id]),
                                               "signature": order["signature"]}
            new.carl[f"{deck_id}@{d.id}"] = {**order["shares"], "": " ".join(slots)}  # "": the slots, to prune
            new.rules, events = self.rules.apply(st.rules, {})
            if new.secret:
                key, nonces = _mod_key(new)
                for x in slots:
                    share = cb.decryption_share(_slot(st, x, self._recipient(st, x)), _card_at(st, x), mod, key,
                                                nonce_key=nonces)
                    new.mod[x] = _b64(share.to_bytes())
            self._after(new, events)
        else:  # a reveal
            player = self._revealer(st)
            slots = self.rules.revealing(st.rules)
            keys = _dealer_keys(st)
            table = _table_of(tuple(self._catalogue(st)))
            cards = []
            key, nonces = _mod_key(new) if new.secret else (None, b"")
            for s in slots:
                at = _slot(st, s, player or self._recipient(st, s))
                card = _card_at(st, s)
                if key is None:
                    raise GameError("a reveal needs the moderator's secret")
                mine = cb.decryption_share(at, card, mod, key, nonce_key=nonces)
                theirs = answer["shares"][s]
                cid = cb.open_card(at, card, keys, [mine, theirs], table)
                cards.append(cid)
                new.reveals.append({"slot": s, "player": at.recipient, "card": cid,
                                    "shares": {mod: _b64(mine.to_bytes()), carl: _b64(theirs.to_bytes())}})
            new.rules, events = self.rules.apply(st.rules, {player: {"cards": cards}})
            self._after(new, events)
        return new, events

    def _catalogue(self, st: DealState) -> list[str]:
        first = _record(st, st.decks[0]["id"]) if st.decks else None
        return list(first["input"]) if first else []

    def _after(self, st: DealState, events: list[Event]) -> None:
        """The moderator's own steps once the rules moved on: its shuffle of a deck the rules
        put together (the co-dealer's comes next), and its shares kept only for hidden cards."""
        d = self.rules.pending(st.rules)
        if d is not None and d.kind == "deal":
            deck_id, feed = self.rules.deck_input(st.rules)
            if _record(st, deck_id) is None and st.secret:
                mod = st.dealers[0]
                seed = cb.derived_seed(st.secret.encode(), st.game_id, deck_id, mod)
                out = cb.shuffle(_input_deck(st, feed), _joint(st), seed, game_id=st.game_id, deck_id=deck_id,
                                 dealer=mod)
                st.decks = [*st.decks, {"id": deck_id, "input": list(feed), "outputs": [_b64(cb.deck_to_bytes(out))]}]
        hidden = set(self._hidden_slots(st))
        st.mod = {s: v for s, v in st.mod.items() if s in hidden}
        decks = {s.rpartition(":")[0] for s in hidden}
        st.carl = {k: v for k, v in st.carl.items() if k.partition("@")[0] in decks
                   and ("" not in v or hidden.intersection(v[""].split()))}
        st.peeks = {p: v for p, v in st.peeks.items() if set(self._hidden_slots(st, p)) & set(_opened_slots(st, p))}

    def _hidden_slots(self, st: DealState, player: str | None = None) -> list[str]:
        hidden = getattr(self.rules, "hidden", None)
        if hidden is not None:  # Korsar's: a partner's slots are seen too
            return list(hidden(st.rules, player)) if st.rules is not None else []
        data = self.rules.dump_state(st.rules) if st.rules is not None else {}
        seats = list(st.seats)
        out: list[str] = []
        for i, (hand, fd) in enumerate(zip(data.get("hands", []), data.get("facedown", []), strict=False)):
            if player is None or seats[i] == player:
                out += [*hand, *fd]
        return out

    def outcome(self, state: DealState) -> Outcome | None:
        if self.pending(state) is not None or state.rules is None:
            return None
        return self.rules.outcome(state.rules)

    # -- players ---------------------------------------------------------------------------

    def random_order(self, state: DealState, player: str, rng: BotRandom) -> dict[str, Any]:
        """A random legal order from the player's own view (the demo's bots); the dealers'
        decisions are answered by :func:`co_deal` and the moderator, never by a bot."""
        d = self.pending(state)
        chooser = getattr(self.rules, "random_order", None)
        if d is None or d.kind == DEAL or chooser is None:
            raise GameError("a blind game has no bots for this decision")
        order: dict[str, Any] = chooser(state.rules, player, rng, state.cards)
        return self._with_share(state, order)

    @staticmethod
    def _with_share(state: DealState, order: dict[str, Any]) -> dict[str, Any]:
        """A Korsar play with the co-dealer's share of its slot, from the player's opened hand."""
        slot = order.get("slot")
        if isinstance(slot, str) and slot in state.shares:
            return {**order, "share": state.shares[slot]}
        return order

    def describe_choices(self, state: DealState, player: str) -> tuple[dict[str, Any], list[str]]:
        d = self.pending(state)
        if d is not None and d.kind == DEAL and player in d.players:
            raise GameError(f"{player} is the co-dealer: its answer is computed, not written (koryo-pbm co-deal)")
        if d is None or player not in d.players:
            raise GameError(f"{player} is not asked now")
        describe = getattr(self.rules, "describe_choices", None)
        if describe is None:
            raise GameError(f"{self.inner.title} has no orders files at a blind table")
        example, comments = describe(state.rules, player, state.cards)
        if getattr(self.rules, "claims", None) is not None and state.shares:
            comments = [*comments, "The share of each card you see (a play or discard gives its card's):",
                        *(f"  {s} = {v}" for s, v in sorted(state.shares.items()))]
        return self._with_share(state, example), comments

    # -- storage and views ---------------------------------------------------------------

    def dump_state(self, state: DealState) -> dict[str, Any]:
        """The moderator's state: its secrets and the shares it keeps. The public record and the
        rules' state are the public part's (:meth:`public`), not repeated here: the moderator's
        part is read with them (:func:`with_public`), as the same file signed by the moderator."""
        st = state
        return {"secret": st.secret, "first": st.first, "mod": dict(st.mod),
                "carl": {k: dict(v) for k, v in st.carl.items()}, **({"peeks": dict(st.peeks)} if st.peeks else {})}

    def _record_public(self, st: DealState) -> dict[str, Any]:
        return {"game_id": st.game_id, "seats": list(st.seats), "dealers": list(st.dealers), "signer": st.signer,
                "keys": {k: dict(v) for k, v in st.keys.items()}, "decks": [dict(d) for d in st.decks],
                "reveals": [dict(r) for r in st.reveals], "published": {k: dict(v) for k, v in st.published.items()},
                **({"options": dict(st.options)} if st.options else {}),
                **({"bots": list(st.bots)} if st.bots else {}),
                **({"opening": dict(st.opening)} if st.opening else {}),
                **({"opened": [dict(o) for o in st.opened]} if st.opened else {})}

    def _from_record(self, rec: Mapping[str, Any], rules: Mapping[str, Any] | None) -> DealState:
        try:
            dealers = tuple(rec["dealers"])
            if len(dealers) != 2 or not all(isinstance(x, str) for x in dealers):
                raise TypeError
            st = DealState(str(rec["game_id"]), tuple(str(x) for x in rec["seats"]), (dealers[0], dealers[1]),
                           signer=str(rec["signer"]), keys={str(k): dict(v) for k, v in rec["keys"].items()},
                           decks=[dict(d) for d in rec["decks"]], reveals=[dict(r) for r in rec["reveals"]],
                           published={str(k): dict(v) for k, v in rec["published"].items()},
                           options=dict(rec.get("options", {})),
                           bots=tuple(str(x) for x in rec.get("bots", ())),
                           opening=dict(rec.get("opening", {})), opened=[dict(o) for o in rec.get("opened", [])])
            if not isinstance(rec.get("bots", []), list) or not set(st.bots) <= set(st.seats):
                raise TypeError
            op = st.opening
            if op and not (isinstance(op.get("decision"), str) and isinstance(op.get("players"), list)
                           and all(isinstance(p, str) and p in st.seats for p in op["players"])
                           and all(isinstance(op.get(k), str) for k in ("deadline", "grace", "resolved"))):
                raise TypeError
            if not all(isinstance(o.get("player"), str) and isinstance(o.get("decision"), str)
                       and isinstance(o.get("slots"), list) for o in st.opened):
                raise TypeError
        except (KeyError, TypeError, AttributeError, ValueError):
            raise FormatError("the blind table's record is malformed") from None
        st.rules = self.rules.load_state(rules) if rules else None
        return st

    def load_state(self, data: Mapping[str, Any]) -> DealState:
        rec = data.get(PUBLIC_KEY)
        if not isinstance(rec, Mapping):
            raise FormatError("the state of a blind game has no blind table")
        st = self._from_record(rec, data.get("rules"))
        try:
            st.secret, st.first = str(data["secret"]), str(data["first"])
            st.mod = {str(k): str(v) for k, v in data["mod"].items()}
            st.carl = {str(k): {str(r): str(b) for r, b in v.items()} for k, v in data["carl"].items()}
            st.peeks = {str(k): str(v) for k, v in data.get("peeks", {}).items()}
        except (KeyError, TypeError, AttributeError):
            raise FormatError("the state of a blind game is malformed") from None
        return st

    def public(self, state: DealState) -> dict[str, Any]:
        out: dict[str, Any] = {PUBLIC_KEY: self._record_public(state)}
        if state.rules is not None:
            out["rules"] = self.rules.dump_state(state.rules)
        return out

    def private(self, state: DealState, player: str) -> dict[str, Any]:
        if player not in state.seats:
            return {}
        slots = self._hidden_slots(state, player)
        decks = {s.rpartition(":")[0] for s in slots}
        return {"player": player, PUBLIC_KEY: {"mod": {s: state.mod[s] for s in slots if s in state.mod},
                             "carl": {k: v[player] for k, v in sorted(state.carl.items())
                                      if k.partition("@")[0] in decks and player in v}}}

    @_guarded
    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> DealState:
        rec = public.get(PUBLIC_KEY)
        if not isinstance(rec, Mapping):
            raise FormatError("the public part of a blind game has no blind table")
        st = self._from_record(rec, public.get("rules"))
        cards = private.get("cards") if isinstance(private, Mapping) else None
        st.cards = dict(cards) if isinstance(cards, Mapping) else {}
        shares = private.get("shares") if isinstance(private, Mapping) else None
        st.shares = dict(shares) if isinstance(shares, Mapping) else {}
        return st

    @_guarded
    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        rec = public.get(PUBLIC_KEY, {})
        cards = (private or {}).get("cards", {})
        out: dict[str, Any] = {"blind": True, "dealers": list(rec.get("dealers", [])),
                               "rules": dict(public.get("rules", {})),
                               "cards": dict(cards) if isinstance(cards, Mapping) else {},
                               "revealed": {r["slot"]: r["card"] for r in rec.get("reveals", [])}}
        me = (private or {}).get("player")
        if isinstance(me, str) and me:
            out["player"] = me  # a view with the player's hidden cards (pictures are kept private)
        rules = public.get("rules")
        if isinstance(rules, Mapping) and rules and rec.get("published"):  # over, the secrets published
            outcome = self.rules.outcome(self.rules.load_state(rules))
            if outcome is not None:
                out["scores"], out["winners"] = dict(outcome.scores), list(outcome.winners)
        return out

    @_guarded
    def render(self, view: Mapping[str, Any]) -> str:
        dealers = " and ".join(view.get("dealers", []))
        head = f"{self.inner.title} at a blind table: dealers {dealers}"
        rules = view.get("rules") or {}
        if not rules:
            return f"{head}\nnot dealt yet: the co-dealer's key share is awaited"
        render = getattr(self.rules, "render", None)
        body = render(rules, view.get("cards", {}), view.get("me") or view.get("player")) if render else ""
        return f"{head}\n{body}" if body else head

    def load_position(self, doc: Mapping[str, Any], seed: str) -> State:
        raise PositionError("a blind game has no position (a position shows the hands)")

    def dump_position(self, state: State) -> dict[str, Any]:
        raise PositionError("a blind game has no position (a position shows the hands)")

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        if decision == KEYS:
            return "the blind table" if event is None else None
        return self.inner.log_section(decision, event, players)

    def menu(self, state: State, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Any:
        raise GameError(f"{self.inner.title} has no menus at a blind table yet: write an orders file")

    def bot_levels(self) -> tuple[str, ...]:
        return self.inner.bot_levels() if hasattr(self.rules, "bot_order") else ()

    def bot_order(self, state: State, player: str, level: str, rng: BotRandom,
                  limit: float, clock: Callable[[], float]) -> dict[str, Any]:
        """The game's bot of ``level`` on what ``player`` knows: the public table and the cards
        opened for them (``state.cards``: a bot seat's, opened by the moderator who runs it)."""
        assert isinstance(state, DealState)
        d = self.pending(state)
        chooser = getattr(self.rules, "bot_order", None)
        if d is None or d.kind == DEAL or chooser is None:
            raise GameError("a blind game has no bots for this decision")
        order: dict[str, Any] = chooser(state.rules, player, level, rng, limit, clock, state.cards)
        return self._with_share(state, order)  # a Korsar play: the co-dealer's share opened for the seat


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


# -- the co-dealer ---------------------------------------------------------------------------


@_guarded
def co_deal(game: Game, doc_public: Mapping[str, Any], players: Mapping[str, Any], identity: Any,
            decision_id: str, log: Sequence[Mapping[str, Any]] = (), *, moderator: Any = None,
            bot_policy: Collection[str] = (), service: Mapping[str, Any] | None = None,
            now: Any = None) -> dict[str, Any]:
    """The co-dealer's answer to the pending decision, computed from the public game file and
    its own signed record in it: the cards it gives shares of are those the public rules deal
    now (a deck never dealt before, by the record and the ``log``) or reveal now (slots its
    signed record dealt to the player whose action turn it is, never revealed before); its
    secrets only once the public rules say the game is over. Which of a player's slots are
    face down is the moderator's word until ``verify`` (docs/blind-table.md, "Not built yet").
    ``players``: seat -> public key (the co-dealer seals each player's shares to it).
    ``moderator``: the moderator's key; a seat holding it is a bot seat, whose shares go to the
    moderator only if the public record (``bots``) and the public policy (``bot_policy``, the
    file's ``[service]``) both say the seat is a bot (:func:`check_bot_seats`)."""
    from koryo_pbm.crypto.seal import seal

    assert isinstance(game, Dealing)
    st = game.from_view(doc_public, {}, identity.name)
    carl = st.co_dealer
    d = game.pending(st)
    if d is None or d.kind != DEAL or d.players != (carl,):
        waits = "nobody (the game is over)" if d is None else ", ".join(d.players)
        raise GameError(f"game {st.game_id} does not wait for the co-dealer {carl} (it waits for {waits})")
    if d.id != decision_id:
        raise GameError(f"the game file's decision is {decision_id}, but its public state is at {d.id}")
    secret = co_dealer_secret(identity)
    key = cb.derived_key_share(secret, st.game_id, carl)
    if d.id == KEYS:
        pub = cb.publish_key(st.game_id, carl, key)
        return {"point": _b64(pub.public), "proof": _b64(pub.proof)}
    if _b64(key.public) != st.keys[carl]["point"]:
        raise GameError(f"this key is not the one {carl} dealt game {st.game_id} with")
    if st.opening:
        return _open_answer(game, st, key, players, moderator, service, now, log)
    if d.id == END:
        if game.rules.pending(st.rules) is not None:
            raise GameError("the game is not over: the co-dealer's secrets stay secret")
        return {"key": _b64(key.secret),
                "seeds": {r["id"]: _b64(cb.derived_seed(secret, st.game_id, r["id"], carl)) for r in st.decks}}
    rd = game.rules.pending(st.rules)
    if rd is not None and rd.kind == "deal":
        deck_id, feed = game.rules.deck_input(st.rules)
        rec = _record(st, deck_id)
        if rec is None or len(rec["outputs"]) != 1 or rec["input"] != feed:
            raise GameError(f"{cb.deck_name(deck_id)} is not as the rules put it together, shuffled once by {st.dealers[0]}")
        if deck_id in game.rules.dealt(st.rules) or any(
                shuffled_deck(str(e)) == deck_id for entry in log for e in entry.get("events", ())):
            raise GameError(f"{cb.deck_name(deck_id)} was dealt before: no share is given twice")
        # the moderator's shuffle is redone on the input the co-dealer computes itself
        mine = _input_deck(st, feed)
        if len(_deck(rec["outputs"][0])) != len(mine):
            raise GameError(f"{st.dealers[0]}'s shuffle of {cb.deck_name(deck_id)} has the wrong size")
        output = cb.shuffle(_deck(rec["outputs"][0]), _joint(st), cb.derived_seed(secret, st.game_id, deck_id, carl),
                            game_id=st.game_id, deck_id=deck_id, dealer=carl)
        dealt = game._dealt_now(st)
        check_bot_seats(st, players, {r for r in dealt if r}, moderator, bot_policy)
        shares: dict[str, dict[str, str]] = {}
        for pos, recipient in enumerate(dealt):
            if recipient:
                share = cb.decryption_share(cb.Slot(st.game_id, deck_id, pos, recipient), output[pos], carl, key)
                for viewer in game._viewers(st, recipient):  # a Korsar partner sees the cards too
                    shares.setdefault(viewer, {})[f"{deck_id}:{pos}"] = _b64(share.to_bytes())
        sealed = {r: _b64(seal(players[r], json.dumps(v, sort_keys=True).encode(), shares_info(st.game_id, deck_id, r)))
                  for r, v in shares.items()}
        from koryo_pbm.crypto.sign import sign

        signature = sign(identity, _DEALT_CONTEXT, _dealt_bytes(st.game_id, deck_id, output, dealt))
        return {"deck": deck_id, "output": _b64(cb.deck_to_bytes(output)), "recipients": dealt,
                "shares": sealed, "signature": _b64(signature)}
    if rd is not None and rd.kind == "give":
        return _co_give(game, st, players, identity, key, decision_id, moderator, bot_policy)
    # a reveal: only face-down slots of the player whose action turn it is, dealt to them by
    # the co-dealer's own signed record (not the moderator's word), never revealed before (a
    # Korsar game's end: the slots left in hands, each dealt by that record to somebody)
    player = game._revealer(st)
    shown = {r["slot"] for r in st.reveals}
    out = {}
    for s in game.rules.revealing(st.rules):
        owner = _dealt_to(st, s, carl)
        if (player and owner != player) or not owner:
            raise GameError(f"{s} was not dealt to {player or 'anybody'}: no share of it")
        if s in shown:
            raise GameError(f"{s} was revealed before: no share of it is given twice")
        share = cb.decryption_share(_slot(st, s, owner), _card_at(st, s), carl, key)
        out[s] = _b64(share.to_bytes())
    return {"shares": out}


def _co_give(game: Dealing, st: DealState, players: Mapping[str, Any], identity: Any, key: cb.KeyShare,
             decision_id: str, moderator: Any = None, bot_policy: Collection[str] = ()) -> dict[str, Any]:
    """The co-dealer's answer to a ``give`` (Korsar's draws): its shares of the slots drawn,
    sealed to the drawer and a partner (a bot seat's to the moderator, when the public record and
    policy say it is one: :func:`check_bot_seats`). It checks that its own signed record had dealt
    none of them, and that the rules' record changes by exactly those slots."""
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    carl = st.co_dealer
    slots = game.rules.giving(st.rules)  # type: ignore[attr-defined]
    deck_id = slots[0].rpartition(":")[0]
    rec = _record(st, deck_id)
    if rec is None or len(rec["outputs"]) != 2 or "recipients" not in rec:
        raise GameError(f"{cb.deck_name(deck_id)} was not dealt by {carl}")
    final = _deck(rec["outputs"][1])
    _check_dealt_signature(st, deck_id, final, rec["recipients"], base64.b64decode(rec["signature"]))
    dealt = list(game.rules.dealt(st.rules)[deck_id])
    check_bot_seats(st, players, {dealt[int(s.rpartition(":")[2])] for s in slots
                                  if s.rpartition(":")[2].isdigit() and int(s.rpartition(":")[2]) < len(dealt)}
                    - {""}, moderator, bot_policy)
    shares: dict[str, dict[str, str]] = {}
    for s in slots:
        sd, _, at = s.rpartition(":")
        if sd != deck_id or rec["recipients"][int(at)] or not dealt[int(at)]:
            raise GameError(f"{s} was given before, or is not drawn: no share of it is given twice")
        recipient = dealt[int(at)]
        share = cb.decryption_share(_slot(st, s, recipient), final[int(at)], carl, key)
        for viewer in game._viewers(st, recipient):
            shares.setdefault(viewer, {})[s] = _b64(share.to_bytes())
    changed = [i for i, (a, b) in enumerate(zip(rec["recipients"], dealt, strict=True)) if a != b]
    if changed != sorted(int(s.rpartition(":")[2]) for s in slots):
        raise GameError(f"the rules' list of whom {cb.deck_name(deck_id)} is dealt to changes more than the cards drawn")
    box = f"{deck_id}@{decision_id}"
    sealed = {r: _b64(seal(players[r], json.dumps(v, sort_keys=True).encode(), shares_info(st.game_id, box, r)))
              for r, v in shares.items()}
    signature = sign(identity, _DEALT_CONTEXT, _dealt_bytes(st.game_id, deck_id, final, dealt))
    return {"deck": deck_id, "shares": sealed, "signature": _b64(signature)}


def open_hand(public: Mapping[str, Any], private: Mapping[str, Any], game_id: str, player: str,
              identity: Any) -> dict[str, str]:
    """A player's hidden cards, opened: every share checked (the moderator's in the player's
    part, the co-dealer's sealed to the player by the co-dealer). ``BlindCheckError`` names the
    dealer and the slot of the first share that does not check."""
    return open_hand_shares(public, private, game_id, player, identity)[0]


@_guarded
def open_hand_shares(public: Mapping[str, Any], private: Mapping[str, Any], game_id: str, player: str,
                     identity: Any) -> tuple[dict[str, str], dict[str, str]]:
    """:func:`open_hand`, and the co-dealer's share of each card (what a Korsar play shows).
    A Korsar partner's cards are opened too: each share is bound to the slot's recipient."""
    from koryo_pbm.crypto.seal import open_sealed

    part = private.get(PUBLIC_KEY)
    rec = public.get(PUBLIC_KEY)
    if not isinstance(part, Mapping) or not isinstance(rec, Mapping) or not part.get("mod"):
        return {}, {}
    st = DealState(game_id, tuple(rec["seats"]), (rec["dealers"][0], rec["dealers"][1]), keys=dict(rec["keys"]),
                   decks=list(rec["decks"]))
    keys = _dealer_keys(st)
    mod, carl = st.dealers
    theirs: dict[str, str] = {}
    for deck_id, blob in part.get("carl", {}).items():
        raw = open_sealed(identity, base64.b64decode(blob), shares_info(game_id, deck_id, player),
                          f"{carl}'s shares of {cb.deck_name(deck_id)}")
        try:
            theirs.update(json.loads(raw))
        except ValueError:
            raise cb.BlindCheckError(f"{carl}'s shares of {cb.deck_name(deck_id)} for {player} are malformed") from None
    table = _table_of(tuple(next((d["input"] for d in st.decks), [])))
    cards = {}
    for s, mine in part.get("mod", {}).items():
        if s not in theirs:
            raise cb.BlindCheckError(f"{carl} gave no share of {s} (dealt to {player})")
        deck_id, _, pos = s.rpartition(":")
        dealt = (_record(st, deck_id) or {}).get("recipients") or []
        slot = _slot(st, s, dealt[int(pos)] if int(pos) < len(dealt) and dealt[int(pos)] else player)
        try:
            shares = [cb.Share.from_bytes(mod, base64.b64decode(mine)), cb.Share.from_bytes(carl, base64.b64decode(theirs[s]))]
        except (FormatError, ValueError) as exc:
            raise cb.BlindCheckError(f"a share of {s} is malformed ({exc})") from None
        cards[s] = cb.open_card(slot, _card_at(st, s), keys, shares, table)
    return cards, {s: theirs[s] for s in cards}


__all__ = ["DEAL", "END", "KEYS", "DealState", "Dealing", "KoryoPbmError", "co_deal", "open_hand", "open_hand_shares"]


# -- the audit at the end (verify) -------------------------------------------------------------


def start_replay(game: Game, public: Mapping[str, Any], seats: Sequence[str], deal_seed: str,
                 first: str | None) -> DealState:
    """The first state of a finished blind game, for ``verify``'s replay: the moderator's
    secrets derived again from the published seed."""
    assert isinstance(game, Dealing)
    rec = public.get(PUBLIC_KEY)
    if not isinstance(rec, Mapping) or not isinstance(rec.get("dealers"), list) or len(rec["dealers"]) != 2:
        raise FormatError("the public part of this blind game has no blind table")
    options = rec.get("options") or None
    return game.start(str(rec["game_id"]), list(seats), (str(rec["dealers"][0]), str(rec["dealers"][1])),
                      str(rec.get("signer", "")), deal_seed, first, options if isinstance(options, Mapping) else None,
                      bots=[str(b) for b in rec.get("bots", ())])


@_guarded
def audit_decks(game: Game, public: Mapping[str, Any]) -> tuple[Any, ...]:
    """The cryptographic part of :func:`audit_game`: every deck, deal and reveal of the public
    record recomputed from the dealers' published secrets (``BlindCheckError`` names the first
    thing that does not check). What :func:`audited_cards` and :func:`audit_game` read."""
    assert isinstance(game, Dealing)
    st = game.from_view(public, {}, "")
    gid = st.game_id
    missing = [d for d in st.dealers if d not in st.published]
    if missing:
        raise cb.BlindCheckError(f"{missing[0]} did not publish its key share")
    try:
        secrets = [cb.DealerSecrets(d, base64.b64decode(st.published[d]["key"]),
                                    {k: base64.b64decode(v) for k, v in st.published[d]["seeds"].items()})
                   for d in st.dealers]
        keys = _dealer_keys(st)
        opts = [dict(st.options)] if st.options else []
        first_feed = game.rules.deck_input(game.rules.setup(list(st.seats), st.seats[0], *opts))[1]
        if not st.decks or st.decks[0]["input"] != first_feed:
            raise cb.BlindCheckError("the first deck is not the game's cards in catalogue order")
        records = []
        for rec in st.decks:
            if len(rec["outputs"]) != len(st.dealers):
                raise cb.BlindCheckError(f"{cb.deck_name(rec['id'])} has {len(rec['outputs'])} shuffles, not one per dealer")
            records.append(cb.DeckRecord(rec["id"], _input_deck(st, rec["input"]),
                                         tuple(_deck(o) for o in rec["outputs"])))
        deals = [cb.Deal(cb.Slot(gid, rec["id"], pos, r), ()) for rec in st.decks
                 for pos, r in enumerate(rec.get("recipients", [])) if r]
        reveals = [cb.Reveal(_slot(st, r["slot"], r["player"]), r["card"],
                             tuple(cb.Share.from_bytes(d, base64.b64decode(r["shares"][d])) for d in st.dealers))
                   for r in st.reveals]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"the blind table's record is malformed ({exc})") from None
    result = cb.audit(gid, keys, cb.CardTable(first_feed), records, deals, reveals, secrets)
    return st, result, records, deals, reveals, first_feed


def audited_cards(audited: tuple[Any, ...]) -> dict[str, str]:
    """Slot -> card id of every card of the game, from :func:`audit_decks`."""
    return {f"{deck}:{pos}": card for deck, cards in audited[1].decks.items() for pos, card in enumerate(cards)}


@_guarded
def audit_game(game: Game, public: Mapping[str, Any], answers: Sequence[tuple[Decision, Mapping[str, Order]]],
               events: Sequence[Event], audited: tuple[Any, ...] | None = None) -> str:
    """The blind table of a finished game audited from its public record: every deck recomputed
    from the dealers' published key shares and seeds, every deal and reveal checked
    (:func:`koryo_pbm.crypto.blind.audit`), then the game's ordinary rules run on the real cards
    must give the events the blind rules gave (``answers``: the players' decisions and orders,
    ``events``: every event of the replay). ``BlindCheckError``/``GameError`` name the first
    thing that does not check; returns what was checked, in one line."""
    assert isinstance(game, Dealing)
    st, result, records, deals, reveals, _ = audited or audit_decks(game, public)
    dealt = dict(game.rules.dealt(st.rules))
    for rec in st.decks:
        if rec.get("recipients") != list(dealt.get(rec["id"], ())):
            raise cb.BlindCheckError(f"{cb.deck_name(rec['id'])} is dealt to other players than the rules deal it to")
    first = next((e.data.get("first") for e in events if e.kind == "blind" and "first" in e.data), None)
    played = [e for e in events if e.kind != "blind"]
    what = (f"{len(records)} deck{'s' if len(records) != 1 else ''} shuffled by {' and '.join(st.dealers)}, {len(deals)} cards dealt and "
            f"{len(reveals)} revealed: every one recomputed from the dealers' published key shares and seeds")
    if any(e.kind == "void" for e in played):
        return what + "; a face-down play broke the orders rule (discarded, see the rules' Blind table)"
    try:
        open_events, outcome = game.rules.replay_open(list(st.seats), str(first), result.decks, answers,
                                                      *([dict(st.options)] if st.options else []))
    except KoryoPbmError as exc:
        raise GameError(f"the ordinary rules cannot be played on the real cards: {exc}") from None
    text = getattr(game.rules, "event_text", lambda t: t)  # Korsar: a move forced by a hidden hand is asked
    said = [text(e.text) for e in played]
    rules = [text(e.text) for e in open_events]
    if said != rules:
        at = next((i for i, (a, b) in enumerate(zip(said, rules, strict=False)) if a != b), min(len(said), len(rules)))
        raise GameError(f"the game says {said[at] if at < len(said) else '(nothing)'!r} where the ordinary rules on "
                        f"the real cards give {rules[at] if at < len(rules) else '(nothing)'!r}")
    if outcome != game.rules.outcome(st.rules):
        raise GameError("the ordinary rules on the real cards give other scores")
    return what + f"; the ordinary rules on the real cards give the same {len(rules)} events and scores"


# -- the co-dealer's step on a game file (co-deal, serve --as the co-dealer) -------------------


@dataclass
class CoDealt:
    """What the co-dealer did with a game file: ``envelope`` is its answer (``None``: nothing to
    do, and ``why`` says so)."""

    co_dealer: str
    decision: str | None
    envelope: Any = None
    why: str = ""


def co_dealer_of(doc: Any) -> str:
    """The co-dealer's seat of a blind game file (``GameError`` for any other game)."""
    if doc.deal != "blind":
        raise GameError(f"game {doc.game_id} is not a blind game: it has no co-dealer")
    record = doc.public.get(PUBLIC_KEY) if isinstance(doc.public, Mapping) else None
    dealers = record.get("dealers") if isinstance(record, Mapping) else None
    if not isinstance(dealers, list) or len(dealers) != 2 or dealers[1] not in doc.players:
        raise FormatError(f"game {doc.game_id} names no co-dealer seat")
    return str(dealers[1])


# -- bots at a blind table (new --blind --bot) ---------------------------------------------------


def bot_seat_text(seat: str, mod: str, carl: str) -> str:
    """The public log line that says a bot seat's cards are open to the moderator."""
    return (f"{seat} is a bot seat: {mod} and {carl} seal its cards to the moderator, who runs its bot "
            "and sees its hand")


def bot_policy(doc: Any) -> list[str]:
    """The bot seats the file's public policy (``[service]``) names."""
    from koryo_pbm import deadlines

    return list(deadlines.policy_of(doc.service, list(doc.players)).bots)


def check_bot_seats(st: DealState, players: Mapping[str, Any], recipients: Collection[str], moderator: Any,
                    policy_bots: Collection[str]) -> None:
    """The co-dealer's check before it seals shares: a recipient whose seat holds the
    moderator's key gets its shares (so the moderator sees those cards) only when the game's
    public record and its public policy both say the seat is a bot. ``GameError`` otherwise."""
    for r in sorted(recipients):
        key = players.get(r)
        if moderator is not None and key == moderator and not (r in st.bots and r in policy_bots):
            raise GameError(f"{r}'s seat holds the moderator's key, but the game's public record does not say it "
                            f"is a bot seat: no share of {r}'s cards is sealed to the moderator")


def bot_cards(game: Game, state: Any, player: str, identity: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The hidden cards of ``player`` the key ``identity`` opens (the moderator: a bot seat's,
    whose shares both dealers sealed to it), every share checked; and the co-dealer's share of
    each (what a Korsar play shows; none for an absent player's hand opened for the bot)."""
    assert isinstance(game, Dealing)
    if player not in state.bots and player in state.peeks:  # an absent player's hand, opened for the bot
        return open_peek(game, state, player, identity), {}
    cards, shares = open_hand_shares(game.public(state), game.private(state, player), state.game_id, player, identity)
    return dict(cards), dict(shares)


def revealed_shares(public: Mapping[str, Any]) -> dict[str, str]:
    """Slot -> the co-dealer's share published with each card revealed (a Korsar play shows the
    one its order gave): what ``verify`` gives a bot seat's replayed choice."""
    rec = public.get(PUBLIC_KEY) if isinstance(public, Mapping) else None
    if not isinstance(rec, Mapping) or not isinstance(rec.get("dealers"), list) or len(rec["dealers"]) != 2:
        return {}
    carl = rec["dealers"][1]
    return {str(r["slot"]): str(r["shares"][carl]) for r in rec.get("reveals", [])
            if isinstance(r, Mapping) and isinstance(r.get("shares"), Mapping) and carl in r["shares"]}


def choose_bot(game: Game, state: Any, player: str, level: str, cards: Mapping[str, str], *, seed: Any,
               limit: float | None = None, shares: Mapping[str, str] | None = None) -> Any:
    """The bot's choice for ``player`` from the public table and ``cards`` (the player's hidden
    cards, opened): what the moderator's bot plays, and what ``verify`` chooses again from the
    audited cards (``limit`` ``None``: no time limit). ``shares``: the co-dealer's share of each
    card (a Korsar play gives its card's)."""
    import math

    from koryo_pbm.engine import bots

    private = {**game.private(state, player), "cards": dict(cards), **({"shares": dict(shares)} if shares else {})}
    return bots.choose_from_view(game, game.public(state), private, player, level, seed=seed,
                                 limit=math.inf if limit is None else limit)


def hidden_slots(game: Game, state: Any, player: str) -> list[str]:
    """The slots of ``player``'s hidden cards (hand and face down) in ``state``."""
    assert isinstance(game, Dealing)
    return game._hidden_slots(state, player)


def with_public(raw_state: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """The moderator's state of a blind game as :meth:`Dealing.load_state` reads it: its own part
    with the public record and rules' state of the same file (a file written before the state
    left them out holds them itself)."""
    if PUBLIC_KEY in raw_state or not isinstance(public, Mapping):
        return dict(raw_state)
    return {**raw_state, **{k: public[k] for k in (PUBLIC_KEY, "rules") if k in public}}


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


def needs_opening(game: Game, state: Any, player: str) -> bool:
    """Whether the moderator's bot needs ``player``'s hand opened first: the seat holds hidden
    cards that are neither a bot seat's nor opened to the moderator already."""
    assert isinstance(game, Dealing)
    if player in state.bots:
        return False
    return bool(set(game._hidden_slots(state, player)) - set(_opened_slots(state, player)))


def opened_for(state: Any, decision_id: str) -> dict[str, str]:
    """Player -> the deadline their hand was opened at, for the bot to play ``decision_id``."""
    return {str(o["player"]): str(o.get("deadline", "")) for o in getattr(state, "opened", ())
            if o.get("decision") == decision_id}


def request_open(game: Game, state: Any, decision_id: str, players: Sequence[str], deadline: str, grace: str,
                 resolved: str) -> tuple[Any, list[str]]:
    """The moderator's request to open the hands of ``players``, absent at ``decision_id`` past
    its deadline and grace under a ``--missed bot`` policy: the new state (the co-dealer's
    answer is awaited, decision ``<decision>-open``) and the public log lines."""
    assert isinstance(game, Dealing)
    d = game.pending(state)
    if d is None or d.id != decision_id or d.kind == DEAL or not set(players) <= set(d.players):
        raise GameError(f"no hand is opened at {decision_id} now")
    new = dataclasses.replace(state, opening={"decision": decision_id, "players": list(players),
                                              "deadline": deadline, "grace": grace, "resolved": resolved})
    return new, [open_note(p, decision_id, deadline, grace, resolved) for p in players]


def check_open_claim(game: Game, state: Any, policy: Any, decision_id: str, player: str, deadline: Any,
                     resolved: Any, moderator: Any = None, key: Any = None) -> None:
    """What anyone can check of a request to open ``player``'s hand at ``decision_id`` (the
    co-dealer before it answers, ``verify`` after): the public policy lets the bot play missed
    orders of that decision's kind, the deadline and its grace had passed when it was resolved,
    the player is asked by the decision, holds a seat of their own (not a bot seat) and hidden
    cards not opened before. ``GameError`` naming what does not hold."""
    assert isinstance(game, Dealing)
    rd = game.rules.pending(state.rules) if state.rules is not None else None
    said = f"{player}'s hand may not be opened to the moderator at {decision_id}:"
    if policy.missed != "bot":
        raise GameError(f"{said} the game's public policy is not --missed bot")
    if rd is None or rd.id != decision_id or player not in rd.players:
        raise GameError(f"{said} the decision does not wait for {player}")
    if policy.duration(rd.kind) is None:
        raise GameError(f"{said} the policy gives its {rd.kind} decisions no deadline")
    if player in state.bots or player in policy.bots or (moderator is not None and key == moderator):
        raise GameError(f"{said} it is a bot seat")
    if deadline is None or resolved is None or resolved < deadline + policy.grace_period():
        raise GameError(f"{said} its deadline and grace ({policy.grace or 'none'}) had not passed")
    if not needs_opening(game, state, player):
        raise GameError(f"{said} it holds no hidden card that is not open to the moderator already")


def _open_answer(game: Dealing, st: DealState, key: cb.KeyShare, players: Mapping[str, Any], moderator: Any,
                 service: Mapping[str, Any] | None, now: Any, log: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The co-dealer's shares of each absent player's hidden cards, sealed to the moderator,
    after it checked the request against the public policy, its own clock and its own signed
    record of whom each card was dealt to."""
    from koryo_pbm import deadlines
    from koryo_pbm.crypto.seal import seal

    if moderator is None or now is None:
        raise GameError("opening a hand needs the moderator's key and the co-dealer's clock")
    policy = deadlines.policy_of(service, [*players, st.co_dealer])
    op = st.opening
    deadline = deadlines.parse_stamp(op.get("deadline"), what="the claimed deadline")
    resolved = deadlines.parse_stamp(op.get("resolved"), what="the claimed time of the resolve")
    if now < deadline + policy.grace_period():
        raise GameError(f"the deadline of {op['decision']} and its grace have not passed by the co-dealer's clock "
                        f"({deadlines.stamp(now)}): no hand is opened")
    from koryo_pbm.match.notes import MOVED_NOTE

    moved = [m["when"] for entry in log for m in (MOVED_NOTE.fullmatch(str(e)) for e in entry.get("events", ()))
             if m and m["decision"] == op["decision"]]
    if moved and moved[-1] != deadlines.human(deadline):
        raise GameError(f"the claimed deadline of {op['decision']} is not the one the log last set ({moved[-1]}): "
                        "no hand is opened")
    if op.get("grace") != (policy.grace or "0m"):
        raise GameError(f"the claimed grace of {op['decision']} is not the policy's: no hand is opened")
    carl = st.co_dealer
    shown = {r["slot"] for r in st.reveals}
    out = {}
    for p in op["players"]:
        check_open_claim(game, st, policy, op["decision"], p, deadline, resolved, moderator, players.get(p))
        mine = {}
        for s in game._hidden_slots(st, p):
            if _dealt_to(st, s, carl) != p or s in shown:
                raise GameError(f"{s} is not a hidden card {carl} dealt to {p}: no share of it")
            share = cb.decryption_share(_slot(st, s, p), _card_at(st, s), carl, key)
            mine[s] = _b64(share.to_bytes())
        out[p] = _b64(seal(moderator, json.dumps(mine, sort_keys=True).encode(),
                           open_info(st.game_id, op["decision"], p)))
    return {"shares": out}


def open_peek(game: Game, state: Any, player: str, identity: Any) -> dict[str, str]:
    """The hidden cards of absent ``player`` opened to the moderator (``identity``) for the bot:
    the co-dealer's shares sealed to it, and its own; every share checked."""
    from koryo_pbm.crypto.seal import open_sealed

    assert isinstance(game, Dealing)
    st = state
    mod, carl = st.dealers
    last = next((o for o in reversed(st.opened) if o.get("player") == player), None)
    if last is None or player not in st.peeks:
        raise GameError(f"{player}'s hand is not opened to the moderator")
    raw = open_sealed(identity, base64.b64decode(st.peeks[player]), open_info(st.game_id, last["decision"], player),
                      f"{carl}'s shares of {player}'s hand")
    try:
        theirs = json.loads(raw)
    except ValueError:
        raise cb.BlindCheckError(f"{carl}'s shares of {player}'s hand are malformed") from None
    keys = _dealer_keys(st)
    table = cb.CardTable(game._catalogue(st))
    key, nonces = _mod_key(st)
    cards = {}
    for s in game._hidden_slots(st, player):
        if s not in theirs:
            raise cb.BlindCheckError(f"{carl} gave no share of {s} (dealt to {player})")
        slot = _slot(st, s, player)
        mine = cb.decryption_share(slot, _card_at(st, s), mod, key, nonce_key=nonces)
        cards[s] = cb.open_card(slot, _card_at(st, s), keys, [mine, cb.Share.from_bytes(carl, base64.b64decode(theirs[s]))],
                                table)
    return cards
