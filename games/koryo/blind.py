"""Koryo at a blind table (spec, "Blind table"): the rules from public information and checked
reveals. Pure: no cryptography, no I/O, no hidden card.

A hidden card is a *slot* ``"round-3:12"`` (deck id and position); it becomes its id when it is
revealed. The state (:class:`BlindKoryoState`) holds a :class:`~.state.KoryoState` of what is
public (tables, tokens, bank, round, phase, turn, the ids of cards revealed and of known cards
in the discard pile) beside the slots of hands, face-down cards, deck and discard pile. Every
rule on public cards is the ordinary one (:mod:`.rules`), called on that public state, so the
events are the ordinary events word for word. What differs:

* Distribution deals slots (the next positions of the dealt deck, top last as in the open deck);
  the deck's order is the dealers' (decision ``deal``), not the seeded generator's.
* An orders-phase order names slots of the hand (``{facedown = ["round-3:12"]}``): the moderator
  checks only what it can see (the slots are the player's, at least one).
* At a player's action turn their face-down slots are revealed (decision ``reveal``, answered
  with the ids the dealers' shares proved). Revealed cards that break the orders rule (not all
  of one id, and not two different ids with the Ship Owner power held at the order phase) are
  all discarded without effect, logged; the turn goes on as if nothing had been placed.
* The reshuffle at the end of a round puts the deck's remaining slots, the hand discards'
  slots and the known discarded cards (by id) into the next deck (decision ``deal``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import BlindRules, Decision, Event, Game, Order, Outcome, asked
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError, SetupError

from . import orders as O
from . import rules
from .cards import BROADCASTER, CARD_IDS, INDEX, NCARDS, ROUNDS, SHIPOWNER, deal_size, full_deck
from .state import ACTIONS, END, ORDERS, OVER, PHASES, KoryoState

#: the id of the first deck, dealt from the catalogue
FIRST_DECK = "round-1"


class BlindKoryoState:
    """A blind Koryo match: ``k`` the public state, plus slots.

    * ``hands[p]``, ``facedown[p]``: slots (face-down slots leave at the reveal);
    * ``deck``: slots, top last; ``discard``: the slots of cards discarded unseen (hands);
      known discarded cards are counted in ``k.discard``;
    * ``need``: the id of the deck the dealers must shuffle now (``""``: none), from ``feed``;
    * ``shipowner[p]``: whether seat p held the Ship Owner power at this round's order phase;
    * ``dealt``: deck id -> the recipient of each position (``""``: not dealt).
    """

    __slots__ = ("dealt", "deck", "discard", "facedown", "feed", "hands", "k", "need", "shipowner")

    k: KoryoState
    hands: list[list[str]]
    facedown: list[list[str]]
    deck: list[str]
    discard: list[str]
    need: str
    feed: list[str]
    shipowner: list[bool]
    dealt: dict[str, list[str]]

    def copy(self) -> BlindKoryoState:
        b = BlindKoryoState.__new__(BlindKoryoState)
        b.k = self.k.copy()
        b.hands = [h[:] for h in self.hands]
        b.facedown = [f[:] for f in self.facedown]
        b.deck = self.deck[:]
        b.discard = self.discard[:]
        b.need = self.need
        b.feed = self.feed[:]
        b.shipowner = self.shipowner[:]
        b.dealt = {d: r[:] for d, r in self.dealt.items()}
        return b


def slot_of(deck_id: str, position: int) -> str:
    return f"{deck_id}:{position}"


def parse_slot(slot: str) -> tuple[str, int]:
    """``"round-3:12"`` -> ``("round-3", 12)``; FormatError for anything else."""
    deck, sep, pos = slot.rpartition(":") if isinstance(slot, str) else ("", "", "")
    if not sep or not deck or not pos.isdigit() or (pos != "0" and pos.startswith("0")):
        raise FormatError(f"not a card slot: {slot!r} (expected deck:position, e.g. round-1:12)")
    return deck, int(pos)


def is_slot(item: str) -> bool:
    return ":" in item


def _orders_rule(cards: list[int], shipowner: bool) -> str:
    """Why the revealed ``cards`` break the orders rule, or ``""``."""
    kinds = set(cards)
    if len(kinds) <= 1:
        return ""
    if len(cards) == 2 and shipowner:
        return ""
    if len(cards) == 2:
        return "two different ids without the Ship Owner power at the order phase"
    return "cards of different ids"


class BlindKoryo(BlindRules):
    """Koryo's blind rules (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game  # the open game (KoryoGame), whose rules these play on the real cards

    # -- a match -------------------------------------------------------------------------

    def setup(self, players: Sequence[str], first: str,
              options: Mapping[str, Any] | None = None) -> BlindKoryoState:
        from .positions import check_players

        names = check_players(list(players), SetupError)
        if options:
            raise SetupError(f"Koryo has no options (got {', '.join(sorted(map(str, options)))})")
        if first not in names:
            raise SetupError(f"first player {first!r} is not one of the players")
        n = len(names)
        k = rules.before_the_deal(names, names.index(first), [], None)
        b = BlindKoryoState.__new__(BlindKoryoState)
        b.k = k
        b.hands = [[] for _ in range(n)]
        b.facedown = [[] for _ in range(n)]
        b.deck = []
        b.discard = []
        b.need = FIRST_DECK
        b.feed = [CARD_IDS[c] for c in full_deck()]
        b.shipowner = [False] * n
        b.dealt = {}
        return b

    def pending(self, state: BlindKoryoState) -> Decision | None:
        b = state
        k = b.k
        r = k.round
        if b.need:
            return Decision(f"r{r}-deal", "deal", ())
        ph = k.phase
        if ph == ORDERS:
            return Decision(f"r{r}-orders", "orders",
                            tuple(name for name, h in zip(k.players, b.hands, strict=True) if len(h) > 1))
        if ph == ACTIONS:
            p = k.current()
            name = k.players[p]
            if b.facedown[p]:
                return Decision(f"r{r}-reveal-{name}", "reveal", (name,))
            return Decision(f"r{r}-action-{name}", "action", (name,))
        if ph == END:
            name = k.players[k.current()]
            return Decision(f"r{r}-discard-{name}", "discard", (name,))
        return None

    def deck_input(self, state: BlindKoryoState) -> tuple[str, list[str]]:
        if not state.need:
            raise GameError("no deck is to be shuffled now")
        return state.need, state.feed[:]

    def dealt(self, state: BlindKoryoState) -> Mapping[str, Sequence[str]]:
        return state.dealt

    def revealing(self, state: BlindKoryoState) -> list[str]:
        d = self.pending(state)
        if d is None or d.kind != "reveal":
            raise GameError("no card is to be revealed now")
        return state.facedown[state.k.players.index(d.players[0])][:]

    def placing(self, state: BlindKoryoState, player: str) -> str:
        """The decision whose order placed ``player``'s face-down slots (this round's orders): the
        co-dealer gives its shares of them only with that order, signed by the player."""
        return f"r{state.k.round}-orders"

    @staticmethod
    def placed_alone(dealt: Mapping[str, Sequence[str]], player: str, slots: Sequence[str]) -> bool:
        """Whether the rules placed ``player``'s one face-down card without an order (a hand of
        one: the only legal move), from ``dealt`` alone (whom each position of each deck was
        dealt to, the co-dealer's signed record): a hand at the orders phase is exactly what the
        round's deck dealt the player (hands are empty between rounds), so it was one card when
        that card is the only position of its deck dealt to the player."""
        if len(slots) != 1:
            return False
        try:
            deck_id, pos = parse_slot(slots[0])
        except FormatError:
            return False
        return [i for i, r in enumerate(dealt.get(deck_id, ())) if r == player] == [pos]

    def hand(self, state: BlindKoryoState, player: str) -> list[str]:
        return state.hands[state.k.players.index(player)][:]

    # -- orders --------------------------------------------------------------------------

    def _asked(self, b: BlindKoryoState, player: str) -> tuple[int, Decision]:
        d = asked(self.pending(b), b.k.players, player)
        return b.k.players.index(player), d

    @staticmethod
    def _facedown_order(b: BlindKoryoState, p: int, order: Order) -> list[str]:
        if not isinstance(order, Mapping) or set(order) != {"facedown"}:
            raise OrderError("an order at a blind table must be a table with the one key 'facedown' "
                             "(the slots of the cards placed face down)")
        slots = order["facedown"]
        if not isinstance(slots, list) or not all(isinstance(x, str) for x in slots):
            raise OrderError("'facedown' must be a list of slots such as \"round-1:12\"")
        if not slots:
            raise IllegalOrder("illegal order: at least one card must be played when the hand is not empty")
        if len(set(slots)) != len(slots):
            raise IllegalOrder("illegal order: a slot is placed face down twice")
        hand = b.hands[p]
        for x in slots:
            if x not in hand:
                raise IllegalOrder(f"illegal order: {x} is not a card of your hand")
        return slots

    @staticmethod
    def _reveal_order(b: BlindKoryoState, p: int, order: Order) -> list[int]:
        if not isinstance(order, Mapping) or set(order) != {"cards"} or not isinstance(order["cards"], list):
            raise OrderError("a reveal is a table with the one key 'cards' (a card id per face-down slot)")
        cards = order["cards"]
        if len(cards) != len(b.facedown[p]):
            raise OrderError(f"a reveal names {len(b.facedown[p])} card(s), one per face-down slot")
        out = []
        for x in cards:
            c = INDEX.get(x) if isinstance(x, str) else None
            if c is None:
                raise OrderError(f"unknown card id {x!r} (card ids: {', '.join(CARD_IDS)})")
            out.append(c)
        return out

    def check(self, state: BlindKoryoState, player: str, order: Order) -> None:
        b = state
        p, d = self._asked(b, player)
        if d.kind == "orders":
            self._facedown_order(b, p, order)
        elif d.kind == "reveal":
            self._reveal_order(b, p, order)
        elif d.kind == "action":
            rules.run_steps(b.k.copy(), p, O.parse_action(b.k, order), None)
        else:
            O.check_discard(b.k, p, O.parse_discard(order))

    def apply(self, state: BlindKoryoState, orders: Mapping[str, Order]) -> tuple[BlindKoryoState, list[Event]]:
        d = self.pending(state)
        if d is None:
            raise IllegalOrder("illegal order: the game is over")
        d.check_answers(orders)
        b = state.copy()
        k = b.k
        events: list[Event] = []
        if d.kind == "deal":
            self._deal(b, events)
        elif d.kind == "orders":
            plays = {}
            for name in d.players:
                p = k.players.index(name)
                plays[p] = self._facedown_order(b, p, orders[name])
            forced = [p for p, h in enumerate(b.hands) if p not in plays and len(h) == 1]
            for p in forced:
                plays[p] = b.hands[p][:]
            self._resolve_orders(b, plays, events, forced)
        elif d.kind == "reveal":
            p = k.players.index(d.players[0])
            cards = self._reveal_order(b, p, orders[d.players[0]])
            b.facedown[p] = []
            why = _orders_rule(cards, b.shipowner[p])
            if why:
                for c in cards:
                    k.discard[c] += 1
                said = ", ".join(CARD_IDS[c] for c in cards)
                events.append(Event("void", f"{d.players[0]}'s face-down cards ({said}) break the orders rule "
                                    f"({why}): all discarded without effect",
                                    {"player": d.players[0], "cards": [CARD_IDS[c] for c in cards]}))
            else:
                fd = k.facedown[p]
                for c in cards:
                    fd[c] += 1
        else:
            O.play_turn(k, d.kind, orders[d.players[0]], events)
        self._advance(b, events)
        return b, events

    def outcome(self, state: BlindKoryoState) -> Outcome | None:
        return self.game.outcome(state.k)  # the open game's scoring, on the same Koryo state

    # -- the flow (as rules.advance, with slots) -----------------------------------------

    @staticmethod
    def _deal(b: BlindKoryoState, events: list[Event]) -> None:
        """The dealers shuffled deck ``b.need``: distribution of the round (rules.start_round)."""
        deck_id = b.need
        b.deck = [slot_of(deck_id, i) for i in range(len(b.feed))]
        recipients = [""] * len(b.deck)
        b.dealt[deck_id] = recipients
        b.need = ""
        b.feed = []
        k = b.k
        players = k.players
        n = len(players)
        r = k.round
        events.append(Event("round", f"round {r}: {players[k.first]} is first player",
                            {"round": r, "first": players[k.first]}))
        base = deal_size(r)
        deck = b.deck
        for i in range(n):
            p = (k.first + i) % n
            want = base + 1 if rules.has_power(k.tables, p, BROADCASTER) else base
            take = min(want, len(deck))
            name = players[p]
            if take:
                given = deck[-take:]
                del deck[-take:]
                b.hands[p].extend(given)
                for x in given:
                    recipients[parse_slot(x)[1]] = name
            events.append(Event("deal", rules.deal_text(name, take, want, base), {"player": name, "cards": take}))
        k.phase = ORDERS
        k.turn = 0

    @staticmethod
    def _resolve_orders(b: BlindKoryoState, plays: dict[int, list[str]], events: list[Event],
                        forced: list[int]) -> None:
        """rules.resolve_orders with slots: the plays face down, the rest of the hands discarded."""
        k = b.k
        b.shipowner = [rules.has_power(k.tables, p, SHIPOWNER) for p in range(len(k.players))]
        for p, hand in enumerate(b.hands):
            name = k.players[p]
            placed = plays.get(p, [])
            if placed:
                b.facedown[p] = placed[:]
                n = len(placed)
                only = rules.ONLY_MOVE if p in forced else ""
                events.append(Event("play", f"{name} plays {n} card{'s' if n > 1 else ''} face down{only}",
                                    {"player": name, "cards": n}))
            left = [x for x in hand if x not in placed]
            if left:
                events.append(Event("discard-hand",
                                    f"{name} discards {len(left)} card{'s' if len(left) > 1 else ''} left in hand",
                                    {"player": name, "cards": len(left)}))
            b.discard.extend(left)
        b.hands = [[] for _ in b.hands]
        k.phase = ACTIONS
        k.turn = 0

    def _advance(self, b: BlindKoryoState, events: list[Event]) -> None:
        k = b.k
        n = len(k.players)
        while not b.need:
            ph = k.phase
            if ph == ACTIONS:
                if k.turn >= n:
                    k.phase = END
                    k.turn = 0
                    continue
                p = k.current()
                if b.facedown[p] or not rules.auto_action(k, p, events):
                    return  # waits for the reveal, or for the player's action
                k.turn += 1
            elif ph == END:
                if k.turn >= n:
                    self._end_round(b, events)
                    continue
                p = k.current()
                kk, opts = rules.discard_options(k, p, stop_at=2)
                if kk == 0:
                    k.turn += 1
                elif len(opts) == 1:
                    rules.do_discard(k, p, opts[0], events, True)
                    k.turn += 1
                else:
                    return
            elif ph == ORDERS:
                if any(len(h) > 1 for h in b.hands):
                    return
                plays = {p: h[:] for p, h in enumerate(b.hands) if h}
                self._resolve_orders(b, plays, events, list(plays))
            else:
                return

    @staticmethod
    def _end_round(b: BlindKoryoState, events: list[Event]) -> None:
        k = b.k
        if k.round >= ROUNDS:
            rules.end_round(k, events)  # game over: the scores, all public
            return
        known = [CARD_IDS[c] for c in range(NCARDS) for _ in range(k.discard[c])]
        b.feed = b.deck + b.discard + known
        b.deck = []
        b.discard = []
        k.discard = [0] * NCARDS
        k.first = (k.first + 1) % len(k.players)
        k.round += 1
        b.need = f"round-{k.round}"

    # -- views (for Dealing) ------------------------------------------------------------

    def describe_choices(self, state: BlindKoryoState, player: str,
                          cards: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
        """For an orders file: an example legal order and the choices explained (the player's own
        cards, ``cards``, opened from the dealers' shares)."""
        from .cards import describe_counts

        p, d = self._asked(state, player)
        k = state.k
        if d.kind == "action":
            return O.describe_action(k, p)
        if d.kind == "discard":
            return O.describe_discard(k, p)
        hand = state.hands[p]
        by_id: dict[str, list[str]] = {}
        for x in hand:
            by_id.setdefault(cards.get(x, "?"), []).append(x)
        best = max(by_id.values(), key=len) if cards else hand[:1]
        comments = ["Place face down the slots of one card id (or two different ids with the Ship Owner",
                    "power): facedown = [slots]. Your hand:"]
        comments += [f"  {x} = {cards.get(x, '(not opened)')}" for x in hand]
        if state.shipowner and rules.has_power(k.tables, p, SHIPOWNER):
            comments.append("You hold the Ship Owner power: two cards of different ids are allowed.")
        comments.append(f"In front of you: {describe_counts(k.tables[p])}.")
        return {"facedown": best}, comments


    def random_order(self, state: BlindKoryoState, player: str, rng: Any, cards: Mapping[str, str]) -> dict[str, Any]:
        """A random legal order (the demo's bots): face-down slots chosen by the player's own
        cards, ``cards``; actions and discards as in the open game."""
        p, d = self._asked(state, player)
        k = state.k
        if d.kind == "action":
            return O.random_action(k, p, rng)
        if d.kind == "discard":
            return O.random_discard(k, p, rng)
        view = k.copy()
        counts = [0] * NCARDS
        for x in state.hands[p]:
            counts[INDEX[cards[x]]] += 1
        view.hands[p] = counts
        left = state.hands[p][:]
        slots = []
        for c in O.random_play(view, p, rng)["play"]:
            x = next(x for x in left if cards[x] == c)
            left.remove(x)
            slots.append(x)
        return {"facedown": slots}

    def open_view(self, state: BlindKoryoState, player: str, cards: Mapping[str, str]) -> KoryoState:
        """What ``player`` knows, as the ordinary rules' view state (:func:`.views.from_view`'s
        shape): the public table, the player's own hand and face-down cards from ``cards``
        (slot -> id, their own only), every other hidden card known by count only."""
        from .state import Hidden

        b = state
        k = b.k
        p = k.players.index(player)
        n = len(k.players)
        s = k.copy()
        s.hands = [[0] * NCARDS for _ in range(n)]
        s.facedown = [f[:] for f in k.facedown]
        for slots, piles in ((b.hands[p], s.hands), (b.facedown[p], s.facedown)):
            for x in slots:
                cid = cards.get(x)
                if cid not in INDEX:
                    raise GameError(f"{player}'s card at {x} is not opened")
                piles[p][INDEX[cid]] += 1
        s.deck = []
        s.discard = [0] * NCARDS
        s.hidden = Hidden([0 if q == p else len(b.hands[q]) for q in range(n)],
                          [0 if q == p else len(b.facedown[q]) for q in range(n)],
                          len(b.deck), sum(k.discard) + len(b.discard))
        s.rng = None
        s.decision = None
        return s

    def bot_order(self, state: BlindKoryoState, player: str, level: str, rng: Any, limit: float,
                  clock: Any, cards: Mapping[str, str]) -> dict[str, Any]:
        """The ordinary game's bot of ``level`` on :meth:`open_view`: its cards to place become
        slots of the hand (the first slots holding each id chosen)."""
        p, d = self._asked(state, player)
        order = self.game.bot_order(self.open_view(state, player, cards), player, level, rng, limit, clock)
        if d.kind != "orders":
            return order
        left = state.hands[p][:]
        slots = []
        for c in order["play"]:
            x = next(x for x in left if cards[x] == c)
            left.remove(x)
            slots.append(x)
        return {"facedown": slots}

    def render(self, data: Mapping[str, Any], cards: Mapping[str, str], me: str | None) -> str:
        """The table as text from the public state (and a player's own cards)."""
        from .cards import describe_counts

        players = data["players"]
        lines = [f"round {data['round']} of {ROUNDS}, {data['phase']}; first player {players[data['first']]}; "
                 f"bank {data['bank']} tokens; deck {len(data['deck'])} cards, discard pile "
                 f"{len(data['discard']) + sum(data['known_discard'])} cards"]
        for i, name in enumerate(players):
            lines.append(f"{name}: {data['tokens'][i]} tokens; in front: {describe_counts(data['tables'][i])}; "
                         f"hand {len(data['hands'][i])}, face down {len(data['facedown'][i])}")
        if data["phase"] == OVER:
            sc = rules.scores(self.load_state(data).k)
            top = max(sc)
            lines.append("game over: " + ", ".join(f"{n} {x}" for n, x in zip(players, sc, strict=True))
                         + "; " + " and ".join(n for n, x in zip(players, sc, strict=True) if x == top)
                         + (" wins" if sc.count(top) == 1 else " share the win"))
        if me in players:
            i = players.index(me)
            from .views import _card

            def told(slots: list[str]) -> str:  # "round-1:45 merchant (9)": the slot, its card and value
                return ", ".join(f"{x} {_card(cards[x]) if x in cards else '?'}" for x in slots) or "(none)"

            if data["hands"][i] or data["facedown"][i]:
                lines.append(f"your hand ({me}): {told(data['hands'][i])}")
                lines.append(f"your face-down cards: {told(data['facedown'][i])}")
        return "\n".join(lines)

    # -- storage -------------------------------------------------------------------------

    def dump_state(self, state: BlindKoryoState) -> dict[str, Any]:
        b = state
        k = b.k
        return {
            "players": list(k.players), "round": k.round, "phase": k.phase, "first": k.first,
            "turn": k.turn, "bank": k.bank, "tokens": k.tokens[:],
            "tables": [t[:] for t in k.tables], "revealed": [f[:] for f in k.facedown],
            "known_discard": k.discard[:],
            "hands": [h[:] for h in b.hands], "facedown": [f[:] for f in b.facedown],
            "deck": b.deck[:], "discard": b.discard[:], "need": b.need, "feed": b.feed[:],
            "shipowner": b.shipowner[:], "dealt": {d: r[:] for d, r in b.dealt.items()},
        }

    def load_state(self, data: Mapping[str, Any]) -> BlindKoryoState:
        try:
            players = tuple(data["players"])
            n = len(players)
            k = KoryoState.__new__(KoryoState)
            k.players = players
            k.round, k.phase, k.first, k.turn, k.bank = (int(data["round"]), str(data["phase"]),
                                                          int(data["first"]), int(data["turn"]), int(data["bank"]))
            k.tokens = [int(x) for x in data["tokens"]]
            k.tables = [[int(x) for x in t] for t in data["tables"]]
            k.hands = [[0] * NCARDS for _ in range(n)]
            k.facedown = [[int(x) for x in t] for t in data["revealed"]]
            k.deck = []
            k.discard = [int(x) for x in data["known_discard"]]
            k.rng = None
            k.hidden = None
            k.decision = None
            b = BlindKoryoState.__new__(BlindKoryoState)
            b.k = k
            b.hands = [[str(x) for x in h] for h in data["hands"]]
            b.facedown = [[str(x) for x in h] for h in data["facedown"]]
            b.deck = [str(x) for x in data["deck"]]
            b.discard = [str(x) for x in data["discard"]]
            b.need = str(data["need"])
            b.feed = [str(x) for x in data["feed"]]
            b.shipowner = [bool(x) for x in data["shipowner"]]
            b.dealt = {str(d): [str(x) for x in r] for d, r in data["dealt"].items()}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise FormatError(f"malformed blind Koryo state: {e}") from None
        if k.phase not in PHASES or not all(len(x) == n for x in (k.tokens, k.tables, b.hands, b.facedown)):
            raise FormatError("malformed blind Koryo state")
        return b

    # -- the ordinary rules on the real cards --------------------------------------------

    def replay_open(self, players: Sequence[str], first: str, decks: Mapping[str, Sequence[str]],
                    answers: Sequence[tuple[Decision, Mapping[str, Order]]]) -> tuple[list[Event], Outcome | None]:
        def card(slot: str) -> str:
            deck_id, pos = parse_slot(slot)
            try:
                return decks[deck_id][pos]
            except (KeyError, IndexError):
                raise GameError(f"slot {slot} is in no deck of the audit") from None

        game = self.game
        # the audit's arrangement stands for the generator: see _Arranged
        s = rules.before_the_deal(tuple(players), tuple(players).index(first), [INDEX[c] for c in decks[FIRST_DECK]], _Arranged(decks))
        events: list[Event] = []
        rules.start_round(s, events)
        rules.advance(s, events)
        for decision, orders in answers:
            if decision.kind in ("deal", "reveal"):
                continue  # the dealers' steps: no decision of the open game
            if decision.kind == "orders":
                orders = {name: {"play": [card(x) for x in o["facedown"]]} for name, o in orders.items()}
            s, more = game.apply(s, dict(orders))
            events += more
        return events, game.outcome(s)


class _Arranged:
    """Stands for the seeded generator in :meth:`BlindKoryo.replay_open`: each reshuffle gives
    the order the audit found (checked to hold the very cards the rules put back)."""

    def __init__(self, decks: Mapping[str, Sequence[str]]):
        self.decks = decks

    def copy(self) -> _Arranged:
        return self

    def arranged(self, rnd: int, cards: list[int]) -> list[int]:
        order = [INDEX[c] for c in self.decks[f"round-{rnd}"]]
        if sorted(order) != sorted(cards):
            raise GameError(f"deck round-{rnd} does not hold the cards the rules put back")
        return order

