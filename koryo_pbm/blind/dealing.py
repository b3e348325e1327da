"""The blind table as a game (:class:`Dealing`): the dealers' steps put in as decisions of kind
``deal`` that wait for the co-dealer, the moderator's own steps computed in :meth:`Dealing.apply`
(see :mod:`koryo_pbm.blind`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import BlindRules, BotRandom, Decision, Event, Game, Order, Outcome, State, blind_hook
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, KoryoPbmError, OrderError, PositionError, TamperedError

from .record import (
    DEAL,
    END,
    KEYS,
    PUBLIC_KEY,
    RULES_KEY,
    TURN_UP,
    DealState,
    _b64,
    _card_at,
    _check_dealt_signature,
    _check_sealed_to,
    _dealer_keys,
    _dealer_keys_partial,
    _deck,
    _final,
    _first_player,
    _guarded,
    _input_deck,
    _joint,
    _mod_key,
    _mod_seed,
    _opened_slots,
    _record,
    _slot,
    _table_of,
    _unb64,
    bot_seat_text,
    check_keys_signature,
    check_proof,
    opened_text,
    shuffle_proof,
    shuffled_text,
)


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
              bots: Sequence[str] = (), version: int = 2) -> DealState:
        """The first state: the moderator's public key share published, the co-dealer's awaited.
        ``bots``: the bot seats (the moderator runs their bots, and opens their cards).
        ``version``: 1 only to replay a game dealt before issue 29 (:class:`DealState`)."""
        # the blind rules check the seats, the first player and the options (teams, ...)
        self.rules.setup(list(seats), first or seats[0], *([dict(options)] if options else []))
        st = DealState(game_id, tuple(seats), dealers, signer, secret, first or "", options=dict(options or {}),
                       bots=tuple(bots), version=version)
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
        if d.kind in ("deal", "reveal", "give", TURN_UP):
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
            keys_only("point", "proof", *(("sealed", "signature") if st.version >= 2 else ()))
            try:
                key = cb.DealerKey.from_bytes(carl, _unb64(order["point"], "point"), _unb64(order["proof"], "proof"))
                cb.joint_key(st.game_id, [*_dealer_keys_partial(st), key])
                if st.version >= 2:  # its per-game secret, sealed to itself, under its signature
                    _unb64(order["sealed"], "sealed")
                    check_keys_signature(st, order)
            except (FormatError, cb.BlindCheckError, TamperedError) as exc:
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
            keys_only("deck", "output", *(("proof",) if st.version >= 2 else ()), "recipients", "shares", "signature")
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
            if st.version >= 2:  # its proof, checked before the deck is used
                old = _record(st, deck_id)
                try:
                    check_proof(st, deck_id, carl, _deck(old["outputs"][0]) if old else (), output, order["proof"])
                except cb.BlindCheckError as exc:
                    raise IllegalOrder(f"illegal order: {exc}") from None
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
        # a reveal (or a turn-up): the co-dealer's shares of the slots, public, checked here
        keys_only("shares")
        slots = self.rules.revealing(st.rules)
        if rd.kind == TURN_UP:
            self._turned_up(st, slots)
        shares = order["shares"]
        if not isinstance(shares, Mapping) or set(shares) != set(slots):
            raise IllegalOrder(f"illegal order: {carl}'s reveal gives a share for each of {', '.join(slots)}")
        keys = _dealer_keys(st)
        parsed = {}
        for s in slots:
            try:
                theirs = cb.Share.from_bytes(carl, _unb64(shares[s], f"share of {s}"))
                whom = cb.PUBLIC if rd.kind == TURN_UP else self._recipient(st, s)
                cb.check_share(_slot(st, s, whom), _card_at(st, s), keys[1], theirs)
            except (FormatError, cb.BlindCheckError) as exc:
                raise IllegalOrder(f"illegal order: {exc}") from None
            parsed[s] = theirs
        return {"shares": parsed}

    def _turned_up(self, st: DealState, slots: Sequence[str]) -> None:
        """The slots of a turn-up: dealt to nobody by the public rules, never shown before."""
        shown = {r["slot"] for r in st.reveals}
        for s in slots:
            deck_id, _, pos = s.rpartition(":")
            who = self.rules.dealt(st.rules).get(deck_id, ())
            if not pos.isdigit() or int(pos) >= len(who) or who[int(pos)] or s in shown:
                raise IllegalOrder(f"illegal order: {s[:40]} is not a card of a deck dealt to nobody, never shown: "
                                   "it is not turned up")

    def _revealer(self, st: DealState) -> str:
        d = self.rules.pending(st.rules)
        if d is None or d.kind == TURN_UP:
            return ""
        if d.kind != "reveal":
            raise GameError("no card is to be revealed now")
        return d.players[0] if d.players else ""

    # -- what some blind rules add: draws given one by one, partners, cards claimed when played

    def _recipient(self, st: DealState, slot: str) -> str:
        """Whom ``slot`` was dealt to, by the public rules."""
        deck_id, _, pos = slot.rpartition(":")
        who = self.rules.dealt(st.rules).get(deck_id, ())
        if not pos.isdigit() or int(pos) >= len(who) or not who[int(pos)]:
            raise IllegalOrder(f"illegal order: {slot[:40]} was dealt to nobody")
        return who[int(pos)]

    def _viewers(self, st: DealState, player: str) -> tuple[str, ...]:
        """Who sees ``player``'s cards (a team partner too, in rules that say so): the co-dealer seals
        shares to each."""
        viewers = blind_hook(self.rules, "viewers")
        return tuple(viewers(st.rules, player)) if viewers is not None else (player,)

    def _claimed(self, st: DealState, player: str, order: Order) -> list[dict[str, Any]]:
        """The cards a player's order shows (rules whose plays name a hidden card), each checked at
        once: the co-dealer's share given in the order and the moderator's (its own, or the
        player's copy) must open the slot to the card claimed. Returns the reveals to publish
        (both shares)."""
        claims = blind_hook(self.rules, "claims")
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
                                  opened=list(st.opened), peeks=dict(st.peeks), claim={}, signed=[])
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
            new.keys[carl] = {"point": _b64(key.public), "proof": _b64(key.proof),
                              **({k: str(order[k]) for k in ("sealed", "signature")} if st.version >= 2 else {})}
            first = st.first or _first_player(new)
            new.rules = self.rules.setup(list(st.seats), first, *([dict(st.options)] if st.options else []))
            how = ("as the moderator set it" if st.first else "from the moderator's committed key share"
                   if st.version >= 2 else "from both key shares")
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
                    r["id"]: _b64(_mod_seed(new, r["id"], _input_deck(new, r["input"]))) for r in new.decks}}
            events.append(Event("blind", f"{mod} and {carl} published their key shares and shuffle seeds: every "
                                         f"card of the game can be audited (koryo-pbm verify)", {}))
        elif "output" in answer:
            deck_id, _ = self.rules.deck_input(st.rules)
            old = _record(new, deck_id)
            assert old is not None  # checked by _dealer_answer
            new.decks[new.decks.index(old)] = {**old, "outputs": [*old["outputs"], _b64(cb.deck_to_bytes(
                answer["output"]))], **({"proofs": [*old["proofs"], order["proof"]]} if st.version >= 2 else {}),
                "recipients": list(order["recipients"]), "signature": order["signature"]}
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
            # version 2 keeps whom the deck was dealt to at first, which the co-dealer's seed is bound to
            kept = {"dealt": old["recipients"]} if st.version >= 2 and "dealt" not in old else {}
            new.decks[new.decks.index(old)] = {**old, **kept, "recipients": list(self.rules.dealt(st.rules)[deck_id]),
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
        else:  # a reveal, or a turn-up (cards dealt to nobody, shown to everybody)
            player = self._revealer(st)
            turn_up = self.rules.pending(st.rules).kind == TURN_UP  # type: ignore[union-attr]
            slots = self.rules.revealing(st.rules)
            keys = _dealer_keys(st)
            table = _table_of(tuple(self._catalogue(st)))
            cards = []
            key, nonces = _mod_key(new) if new.secret else (None, b"")
            for s in slots:
                at = _slot(st, s, cb.PUBLIC if turn_up else player or self._recipient(st, s))
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
                deck = _input_deck(st, feed)
                seed = _mod_seed(st, deck_id, deck)
                out = cb.shuffle(deck, _joint(st), seed, game_id=st.game_id, deck_id=deck_id, dealer=mod)
                made: dict[str, Any] = {"id": deck_id, "input": list(feed), "outputs": [_b64(cb.deck_to_bytes(out))]}
                if st.version >= 2:  # its proof, published with its output (the replay checks the one published)
                    proof = st.known.get(deck_id)
                    if proof is None:
                        proof = shuffle_proof(st, deck_id, mod, deck, out, seed)
                    else:
                        check_proof(st, deck_id, mod, deck, out, proof)
                    made["proofs"] = [proof]
                st.decks = [*st.decks, made]
        hidden = set(self._hidden_slots(st))
        st.mod = {s: v for s, v in st.mod.items() if s in hidden}
        decks = {s.rpartition(":")[0] for s in hidden}
        st.carl = {k: v for k, v in st.carl.items() if k.partition("@")[0] in decks
                   and ("" not in v or hidden.intersection(v[""].split()))}
        st.peeks = {p: v for p, v in st.peeks.items() if set(self._hidden_slots(st, p)) & set(_opened_slots(st, p))}

    def _hidden_slots(self, st: DealState, player: str | None = None) -> list[str]:
        hidden = blind_hook(self.rules, "hidden")
        if hidden is not None:  # rules that say which slots each player sees (a partner's too)
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
        chooser = blind_hook(self.rules, "random_order")
        if d is None or d.kind == DEAL or chooser is None:
            raise GameError("a blind game has no bots for this decision")
        order: dict[str, Any] = chooser(state.rules, player, rng, state.cards)
        return self._with_share(state, order)

    @staticmethod
    def _with_share(state: DealState, order: dict[str, Any]) -> dict[str, Any]:
        """A play that shows its card, with the co-dealer's share of its slot, from the player's
        opened hand."""
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
        describe = blind_hook(self.rules, "describe_choices")
        if describe is None:
            raise GameError(f"{self.inner.title} has no orders files at a blind table")
        example, comments = describe(state.rules, player, state.cards)
        if blind_hook(self.rules, "claims") is not None and state.shares:
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
        return {**({"version": st.version} if st.version >= 2 else {}), "game_id": st.game_id, "seats": list(st.seats), "dealers": list(st.dealers), "signer": st.signer,
                "keys": {k: dict(v) for k, v in st.keys.items()}, "decks": [dict(d) for d in st.decks],
                "reveals": [dict(r) for r in st.reveals], "published": {k: dict(v) for k, v in st.published.items()},
                **({"options": dict(st.options)} if st.options else {}),
                **({"bots": list(st.bots)} if st.bots else {}),
                **({"opening": dict(st.opening)} if st.opening else {}),
                **({"opened": [dict(o) for o in st.opened]} if st.opened else {}),
                **({"claim": dict(st.claim)} if st.claim else {}),
                **({"signed": [dict(o) for o in st.signed]} if st.signed else {})}

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
                           opening=dict(rec.get("opening", {})), opened=[dict(o) for o in rec.get("opened", [])],
                           version=rec.get("version", 1), claim=dict(rec.get("claim", {})),
                           signed=[dict(o) for o in rec.get("signed", [])])
            if st.version not in (1, 2) or isinstance(st.version, bool):
                raise TypeError
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
        st = self._from_record(rec, data.get(RULES_KEY))
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
            out[RULES_KEY] = self.rules.dump_state(state.rules)
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
        st = self._from_record(rec, public.get(RULES_KEY))
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
                               "rules": dict(public.get(RULES_KEY, {})),
                               "cards": dict(cards) if isinstance(cards, Mapping) else {},
                               "revealed": {r["slot"]: r["card"] for r in rec.get("reveals", [])}}
        me = (private or {}).get("player")
        if isinstance(me, str) and me:
            out["player"] = me  # a view with the player's hidden cards (pictures are kept private)
        rules = public.get(RULES_KEY)
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
        render = blind_hook(self.rules, "render")
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
        chooser = blind_hook(self.rules, "bot_order")
        if d is None or d.kind == DEAL or chooser is None:
            raise GameError("a blind game has no bots for this decision")
        order: dict[str, Any] = chooser(state.rules, player, level, rng, limit, clock, state.cards)
        return self._with_share(state, order)  # a play showing its card: the co-dealer's share opened for the seat


def first_feed(game: Dealing, st: DealState) -> list[str]:
    """The cards of the game's first deck, in catalogue order, from the rules' setup (public and
    deterministic, not the record's word): the input whose encryption the first dealer's proof
    must start from."""
    opts = [dict(st.options)] if st.options else []
    return list(game.rules.deck_input(game.rules.setup(list(st.seats), st.seats[0], *opts))[1])


def proves_end(game: Game, state: Any) -> bool:
    """Whether the pending decision asks the co-dealer to open cards because the game is over (its
    key share and seeds; a last reveal that names no player, of the cards left in hands): the
    moderator publishes its seed, salt and every signed order with that version first."""
    if not isinstance(game, Dealing) or not isinstance(state, DealState) or state.opening:
        return False
    d = game.pending(state)
    if d is None or d.kind != DEAL or d.id == KEYS:
        return False
    rd = game.rules.pending(state.rules) if state.rules is not None else None
    return d.id == END or (rd is not None and rd.kind == "reveal" and not rd.players)


def claim_wanted(game: Game, state: Any) -> tuple[str, str] | None:
    """For a pending reveal of a player's face-down cards: (the decision whose order placed them,
    the player), whose signed order the moderator publishes with the version that asks the
    co-dealer; ``None`` when no order is wanted (no such reveal, or the rules placed the cards
    without one, or the seat is a bot seat whose cards the moderator sees anyway)."""
    if not isinstance(game, Dealing) or not isinstance(state, DealState) or state.rules is None or state.opening:
        return None
    rd = game.rules.pending(state.rules)
    placing = blind_hook(game.rules, "placing")
    if rd is None or rd.kind != "reveal" or not rd.players or placing is None or rd.players[0] in state.bots:
        return None
    decision = placing(state.rules, rd.players[0])
    return (decision, rd.players[0]) if decision else None


def with_claim(game: Game, state: Any, published: Mapping[str, Any]) -> Any:
    """``state`` with the player's signed order (as published at the end, :func:`claim_wanted`)."""
    return dataclasses.replace(state, claim=dict(published))


def turn_up_wanted(game: Game, state: Any) -> bool:
    """Whether the pending decision asks the co-dealer to turn up cards for everybody: the moderator
    publishes every player's signed order so far with the version that asks (:func:`with_signed`),
    from which the co-dealer replays the rules (:func:`koryo_pbm.blind.codealer.check_turn_up`)."""
    if not isinstance(game, Dealing) or not isinstance(state, DealState) or state.rules is None or state.opening:
        return False
    rd = game.rules.pending(state.rules)
    return rd is not None and rd.kind == TURN_UP


def with_signed(state: Any, published: Sequence[Mapping[str, Any]]) -> Any:
    """``state`` with every player's signed order so far (as published at the end)."""
    return dataclasses.replace(state, signed=[dict(o) for o in published])
