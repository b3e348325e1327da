"""Korsar at a blind table (spec, "Blind table"): the rules from public information and checked
claims. Pure: no cryptography, no I/O, no hidden card.

A hidden card is a *slot* ``"deck:12"`` (the deck's id and a position in it). The state
(:class:`BlindKorsarState`) is a :class:`~.state.KorsarState` whose hands and draw pile hold
slots, never a hidden id; everything on the table is public. Every rule on public cards is the
ordinary one (:mod:`.rules`, called on that state), so the events are the ordinary events word for
word. What differs:

* The deal is the dealers' (decision ``deal``): the 78 cards are one deck ``deck`` shuffled by
  both dealers; six slots go to each player in turn as the ordinary rules deal them (position 0
  first), the rest is the draw pile, top first.
* A draw moves the pile's top slot into the drawer's hand; the dealers give it (decision
  ``give``) before the next turn of a player who sees it: their decryption shares of it are
  sealed to the drawer and, in team games, to the partner. Nobody else learns the card. The
  cards drawn meanwhile are given in the same answer: one co-dealer message per round of the
  table at most (two in team games), never one more wait for a player.
* A play or discard names the slot and the card (``{action = "play", slot = "deck:12", card =
  "red-3", galleon = "g1", share = "..."}``): the blind table (:class:`koryo_pbm.blind.Dealing`)
  checks the claim with both dealers' shares before these rules see it, and makes the card
  public. These rules then check the card's play by the ordinary rules.
* A move the ordinary rules make alone because it is the only legal one is made alone here only
  when public information shows it (an empty hand draws, or passes); a move forced by the hidden
  hand is asked of its player, who answers it.
* When the game ends the cards left in hands are shown (decision ``reveal``, answered with the
  ids the dealers' shares proved), then the ordinary end: galleons taken, scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import BlindRules, Decision, Event, Game, Order, Outcome, asked
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, OrderError, SetupError

from . import cards as C
from . import rules as R
from .state import Galleon, KorsarState

#: the id of the one deck of a blind Korsar game
DECK = "deck"
ORDER_KEYS = ("action", "card", "galleon", "slot", "share")


class _NoRng:
    """A blind state draws no chance: the dealers shuffled the deck."""

    def copy(self) -> _NoRng:
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NoRng)

    __hash__ = object.__hash__


class BlindKorsarState:
    """A blind Korsar match: ``k`` the state with slots in hands and pile (top first).

    * ``need``: ``"deck"`` until the dealers have shuffled it; ``dealt``: deck id -> the recipient
      of each position (``""``: not dealt yet, still in the pile);
    * ``give``: slots drawn whose shares the dealers have not given yet: they give them all in
      one answer before the turn of a player who sees one of them (its drawer, or a partner), or
      before the hands are shown at the end;
    * ``ending``: the side whose empty hands end the game, while the hands are shown.
    """

    __slots__ = ("dealt", "ending", "give", "k", "need")

    k: KorsarState
    need: str
    dealt: dict[str, list[str]]
    give: list[str]
    ending: str

    def copy(self) -> BlindKorsarState:
        b = BlindKorsarState.__new__(BlindKorsarState)
        b.k = self.k.copy()
        b.need = self.need
        b.dealt = {d: r[:] for d, r in self.dealt.items()}
        b.give = self.give[:]
        b.ending = self.ending
        return b


def parse_slot(slot: object) -> int:
    """``"deck:12"`` -> 12; FormatError for anything else."""
    deck, sep, pos = slot.rpartition(":") if isinstance(slot, str) else ("", "", "")
    if deck != DECK or not sep or not pos.isdigit() or (pos != "0" and pos.startswith("0")):
        raise FormatError(f"not a card slot: {str(slot)[:40]!r} (expected deck:position, e.g. deck:12)")
    return int(pos)


def parse_turn(order: Order) -> tuple[str, str, str, str]:
    """``(action, slot, card, galleon)`` of a turn at a blind table (``""`` for what it leaves
    out); the order's ``share`` is the blind table's (checked by :mod:`koryo_pbm.blind`)."""
    if not isinstance(order, Mapping):
        raise OrderError('an order is a table such as {action = "draw"} or {action = "play", slot = "deck:12", '
                         'card = "galleon-5", share = "..."}')
    unknown = sorted(str(k) for k in order if k not in ORDER_KEYS)
    if unknown:
        raise OrderError(f"unknown key {', '.join(repr(k) for k in unknown)} in order (keys: {', '.join(ORDER_KEYS)})")
    plain = {k: v for k, v in order.items() if k in R.ORDER_KEYS}
    action, card, gid = R.parse_order(plain)
    if action == "draw":
        if "slot" in order or "share" in order:
            raise OrderError("draw takes no slot and no share")
        return action, "", "", ""
    if "slot" not in order:
        raise OrderError(f"at a blind table, {action} names the card's slot in your hand (slot = \"deck:12\")")
    parse_slot(order["slot"])
    return action, str(order["slot"]), card, gid


class BlindKorsar(BlindRules):
    """Korsar's blind rules (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game  # the open game (KorsarGame), whose rules these play on the real cards

    # -- a match -------------------------------------------------------------------------

    def setup(self, players: Sequence[str], first: str,
              options: Mapping[str, Any] | None = None) -> BlindKorsarState:
        names = R.check_players(list(players))
        opts = dict(options or {})
        unknown = sorted(set(opts) - {"teams"})
        if unknown:
            raise SetupError(f"Korsar has no option {', '.join(unknown)} (options: teams)")
        teams = R.resolve_teams(names, opts.get("teams"))
        if first not in names:
            raise SetupError(f"first player {first!r} does not play")
        k = KorsarState(players=names, teams=teams, hands={p: [] for p in names}, pile=[], galleons=[],
                        loot={p: [] for p in names}, removed=[], current=names.index(first), turn=1,
                        next_galleon=1, last_beside="", over=False, rng=_NoRng())  # type: ignore[arg-type]
        b = BlindKorsarState.__new__(BlindKorsarState)
        b.k, b.need, b.dealt, b.give, b.ending = k, DECK, {}, [], ""
        return b

    def pending(self, state: BlindKorsarState) -> Decision | None:
        b = state
        if b.need:
            return Decision("deal", "deal", ())
        if b.give and (b.ending or self._seen_next(b)):
            return Decision("end-give" if b.ending else f"t{b.k.turn}-give", "give", ())
        if b.ending:
            return Decision("end-reveal", "reveal", ())
        k = b.k
        if k.over:
            return None
        p = k.current_player
        return Decision(f"t{k.turn}-{p}", "turn", (p,))

    def _seen_next(self, b: BlindKorsarState) -> bool:
        """Whether the player to move next sees a card drawn and not given yet (their own, or
        their partner's): the dealers give every card drawn so far then, in one answer."""
        k = b.k
        if k.over:
            return False
        dealt = b.dealt[DECK]
        return any(k.current_player in self.viewers(b, dealt[parse_slot(x)]) for x in b.give)

    def deck_input(self, state: BlindKorsarState) -> tuple[str, list[str]]:
        if not state.need:
            raise GameError("no deck is to be shuffled now")
        return DECK, C.full_deck()

    def dealt(self, state: BlindKorsarState) -> Mapping[str, Sequence[str]]:
        return state.dealt

    def revealing(self, state: BlindKorsarState) -> list[str]:
        if not state.ending or state.need or state.give:
            raise GameError("no card is to be revealed now")
        return [x for p in state.k.players for x in state.k.hands[p]]

    def giving(self, state: BlindKorsarState) -> list[str]:
        """For a pending ``give``: the slots drawn whose shares the dealers give now."""
        if not state.give or state.need:
            raise GameError("no card is to be given now")
        return state.give[:]

    def viewers(self, state: BlindKorsarState, player: str) -> tuple[str, ...]:
        """Who sees ``player``'s cards: the player, and a team partner."""
        partner = state.k.partner(player)
        return (player,) if partner is None else (player, partner)

    def hidden(self, state: BlindKorsarState, player: str | None = None) -> list[str]:
        """The slots in hands (of those whose cards ``player`` sees; all when ``None``)."""
        k = state.k
        who = k.players if player is None else [p for p in k.players if player in self.viewers(state, p)]
        return [x for p in who for x in k.hands[p] if ":" in x]

    def claims(self, state: BlindKorsarState, player: str, order: Order) -> list[tuple[str, str, Any]]:
        """The cards ``order`` shows, as (slot, card id, the co-dealer's share given for it)."""
        action, slot, card, _ = parse_turn(order)
        if action == "draw":
            return []
        assert isinstance(order, Mapping)
        return [(slot, card, order.get("share"))]

    # -- orders --------------------------------------------------------------------------

    def _asked(self, b: BlindKorsarState, player: str) -> Decision:
        return asked(self.pending(b), b.k.players, player)

    def _check_turn(self, b: BlindKorsarState, player: str, order: Order) -> tuple[str, str, str, str]:
        self._asked(b, player)
        action, slot, card, gid = parse_turn(order)
        k = b.k
        if action != "draw" and slot not in k.hands[player]:
            raise IllegalOrder(f"illegal order: {slot} is not a card of {player}'s hand")
        probe = k.copy()
        if action != "draw":
            probe.hands[player] = [card]  # the claim is checked by the dealers' shares
        broken = R.violation(probe, player, action, card, gid)
        if broken is not None:
            raise IllegalOrder(f"illegal order: {broken}")
        return action, slot, card, gid

    def check(self, state: BlindKorsarState, player: str, order: Order) -> None:
        self._check_turn(state, player, order)

    def apply(self, state: BlindKorsarState, orders: Mapping[str, Order]) -> tuple[BlindKorsarState, list[Event]]:
        d = self.pending(state)
        if d is None:
            raise IllegalOrder("illegal order: the game is over")
        d.check_answers(orders, also=("",) if d.kind == "reveal" else ())  # "": the dealers' reveal
        b = state.copy()
        k = b.k
        events: list[Event] = []
        if d.kind == "deal":
            self._deal(b)
            R.begin_turn(k, events)
            self._settle(b, events)
        elif d.kind == "give":
            b.give = []
        elif d.kind == "reveal":
            cards = orders.get("", {}).get("cards") if isinstance(orders.get(""), Mapping) else None
            slots = self.revealing(b)
            if not isinstance(cards, list) or len(cards) != len(slots) or not all(C.is_card(c) for c in cards):
                raise OrderError(f"a reveal names {len(slots)} card ids, one per slot")
            shown = dict(zip(slots, cards, strict=True))
            for p in k.players:
                k.hands[p] = [shown.get(x, x) for x in k.hands[p]]
            side, b.ending = b.ending, ""
            R.finish(k, side, events)
        else:
            player = d.players[0]
            action, slot, card, gid = self._check_turn(b, player, orders[player])
            if action != "draw":
                hand = k.hands[player]
                hand[hand.index(slot)] = card
            self._act(b, player, action, card, gid, events, forced=False)
            self._end_turn(b, events)
            self._settle(b, events)
        return b, events

    def outcome(self, state: BlindKorsarState) -> Outcome | None:
        k = state.k
        if not k.over or state.ending:
            return None
        sc = R.scores(k)
        best = max(sc.values())
        return Outcome(scores=sc, winners=tuple(p for p in k.players if sc[p] == best))

    # -- the flow (as rules.end_turn and rules.settle, with slots) -----------------------

    @staticmethod
    def _deal(b: BlindKorsarState) -> None:
        k = b.k
        n = len(k.players)
        recipients = [""] * C.TOTAL_CARDS
        pos = 0
        for _ in range(R.HAND_SIZE):
            for p in k.players:
                k.hands[p].append(f"{DECK}:{pos}")
                recipients[pos] = p
                pos += 1
        k.pile = [f"{DECK}:{i}" for i in range(n * R.HAND_SIZE, C.TOTAL_CARDS)]
        b.dealt = {DECK: recipients}
        b.need = ""

    @staticmethod
    def _act(b: BlindKorsarState, player: str, action: str, card: str, gid: str, events: list[Event],
             forced: bool) -> None:
        k = b.k
        if action == "draw":
            slot = k.pile[0]
            b.dealt[DECK][parse_slot(slot)] = player
            b.give.append(slot)
        R.do_action(k, player, action, card, gid, events, forced)

    @staticmethod
    def _end_turn(b: BlindKorsarState, events: list[Event]) -> None:
        k = b.k
        side = R.empty_side(k)
        if side:
            if any(":" in x for p in k.players for x in k.hands[p]):
                b.ending = side  # the hands are shown, then rules.finish
            else:
                R.finish(k, side, events)
            return
        R.end_turn(k, events)

    def _settle(self, b: BlindKorsarState, events: list[Event]) -> None:
        """rules.settle for the turns public information decides: an empty hand draws or passes."""
        k = b.k
        while not k.over and not b.ending:
            player = k.current_player
            if k.hands[player]:
                return
            if k.pile:
                self._act(b, player, "draw", "", "", events, forced=True)
            else:
                k.last_beside = ""
                k.last_launched = ""
                events.append(Event("pass", f"{player} has no cards and passes", {"player": player}))
            self._end_turn(b, events)

    # -- views (for Dealing) ------------------------------------------------------------

    def _legal(self, b: BlindKorsarState, player: str, cards: Mapping[str, str]) -> list[dict[str, str]]:
        k = b.k
        d = self.pending(b)
        if d is None or player not in d.players:
            return []
        probe = k.copy()
        probe.hands[player] = [cards[x] for x in k.hands[player] if x in cards]
        out = []
        for o in R.legal_orders(probe, player):
            if o["action"] == "draw":
                out.append(dict(o))
                continue
            slot = next(x for x in k.hands[player] if cards.get(x) == o["card"])
            out.append({**o, "slot": slot})
        return out

    def random_order(self, state: BlindKorsarState, player: str, rng: Any, cards: Mapping[str, str]) -> dict[str, Any]:
        """A random legal order (the demo's bots), from the player's own cards ``cards``."""
        self._asked(state, player)
        orders = self._legal(state, player, cards)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        return dict(rng.choice(orders))

    def open_view(self, state: BlindKorsarState, player: str, cards: Mapping[str, str]) -> KorsarState:
        """What ``player`` knows, as the ordinary rules' state (:func:`.views.from_view`'s
        shape): the public table, the player's own hand and a team partner's from ``cards``
        (slot -> id), every other hidden card a stand-in (the unknown cards in catalogue order,
        dealt to the other hands, then the pile)."""
        b = state
        s = b.k.copy()
        known = [q for q in s.players if player in self.viewers(b, q)]
        unknown = {q: len(s.hands[q]) for q in s.players if q not in known}
        for q in s.players:
            if q in known:
                hand = [cards.get(x, x) if ":" in x else x for x in s.hands[q]]
                bad = next((x for x in hand if not C.is_card(x)), None)
                if bad is not None:
                    raise GameError(f"{q}'s card at {bad} is not opened")
                s.hands[q] = hand
            else:
                s.hands[q] = []
        pile = len(s.pile)
        s.pile = []
        rest = sorted((C.ALL_CARDS - R.zones(s)).elements(), key=C.sort_key)
        for q, need in unknown.items():
            s.hands[q], rest = rest[:need], rest[need:]
        if len(rest) != pile:
            raise GameError(f"{player}'s view does not account for every card (pile {pile}, unknown {len(rest)})")
        s.pile = rest
        return s

    def bot_order(self, state: BlindKorsarState, player: str, level: str, rng: Any, limit: float,
                  clock: Any, cards: Mapping[str, str]) -> dict[str, Any]:
        """The ordinary game's bot of ``level`` on :meth:`open_view`: a play or discard of a card
        names the first slot of the hand holding it (the blind table adds the co-dealer's share
        of that slot, :meth:`koryo_pbm.blind.Dealing.bot_order`)."""
        self._asked(state, player)
        order = dict(self.game.bot_order(self.open_view(state, player, cards), player, level, rng, limit, clock))
        if order.get("action") in (None, "draw"):
            return order
        slot = next((x for x in state.k.hands[player] if cards.get(x) == order.get("card")), None)
        if slot is None:
            raise GameError(f"the {level} bot chose {order.get('card')!r}, which is not in {player}'s hand")
        return {**order, "slot": slot}

    def describe_choices(self, state: BlindKorsarState, player: str,
                         cards: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
        """For an orders file: an example legal order and every legal order (the player's own
        cards ``cards``, opened from the dealers' shares). The blind table adds each card's share."""
        self._asked(state, player)
        k = state.k
        orders = self._legal(state, player, cards)
        if not orders:
            raise IllegalOrder(f"illegal order: {player} has nothing to decide now")
        lines = [f"turn {k.turn}: {player}, draw or play exactly one card ({len(k.pile)} cards in the draw pile)",
                 "Your hand: " + ", ".join(f"{x} = {cards.get(x, '(not opened)')}" for x in k.hands[player]),
                 "Every legal order (a play or discard names the card's slot, and gives its share, listed below):"]
        lines += ["  " + ", ".join(f"{key} = {v!r}" for key, v in o.items()) for o in orders]
        example = next((o for o in orders if o["action"] == "play"), orders[0])
        return dict(example), lines

    def render(self, data: Mapping[str, Any], cards: Mapping[str, str], me: str | None) -> str:
        b = self.load_state(data)
        k = b.k
        lines = [f"turn {k.turn}; {len(k.pile)} cards in the draw pile" + ("; game over" if k.over else "")]
        for g in k.galleons:
            beside = "; ".join(f"{p}: {', '.join(cs)}" for p, cs in g.beside.items()) or "nothing beside it"
            lines.append(f"{R.describe_galleon(k, g)}: {beside}")
        for p in k.players:
            loot = sum(C.value(c) for c in k.loot[p])
            lines.append(f"{p}: hand {len(k.hands[p])} cards; loot {len(k.loot[p])} galleons worth {loot}")
        if me in k.players:
            seen = [p for p in k.players if me in self.viewers(b, p)]
            for p in seen:
                mine = ", ".join(f"{x} {cards.get(x, '?')}" for x in k.hands[p] if ":" in x)
                if mine:
                    whose = "your" if p == me else f"{p}'s"
                    lines.append(f"{whose} cards: {mine}")
        outcome = self.outcome(b)
        if outcome is not None:
            lines.append("scores: " + ", ".join(f"{p} {s}" for p, s in outcome.scores.items())
                         + "; " + " and ".join(outcome.winners) + (" wins" if len(outcome.winners) == 1 else " win"))
        return "\n".join(lines)

    # -- storage -------------------------------------------------------------------------

    def dump_state(self, state: BlindKorsarState) -> dict[str, Any]:
        b = state
        k = b.k
        return {
            "players": list(k.players), "teams": [list(t) for t in k.teams],
            "hands": {p: list(cs) for p, cs in k.hands.items()}, "pile": list(k.pile),
            "galleons": [{"id": g.id, "owner": g.owner, "card": g.card,
                          "beside": {p: list(cs) for p, cs in g.beside.items()}} for g in k.galleons],
            "loot": {p: list(cs) for p, cs in k.loot.items()}, "removed": list(k.removed),
            "current": k.current, "turn": k.turn, "next_galleon": k.next_galleon, "last_beside": k.last_beside,
            "last_launched": k.last_launched, "over": k.over,
            "need": b.need, "dealt": {d: r[:] for d, r in b.dealt.items()}, "give": b.give[:],
            "ending": b.ending,
        }

    def load_state(self, data: Mapping[str, Any]) -> BlindKorsarState:
        try:
            players = tuple(str(p) for p in data["players"])
            k = KorsarState(
                players=players, teams=tuple((str(a), str(c)) for a, c in data["teams"]),
                hands={str(p): [str(x) for x in cs] for p, cs in data["hands"].items()},
                pile=[str(x) for x in data["pile"]],
                galleons=[Galleon(str(g["id"]), str(g["owner"]), str(g["card"]),
                                  {str(p): [str(c) for c in cs] for p, cs in g["beside"].items()})
                          for g in data["galleons"]],
                loot={str(p): [str(x) for x in cs] for p, cs in data["loot"].items()},
                removed=[str(x) for x in data["removed"]], current=int(data["current"]), turn=int(data["turn"]),
                next_galleon=int(data["next_galleon"]), last_beside=str(data["last_beside"]),
                last_launched=str(data["last_launched"]), over=bool(data["over"]),
                rng=_NoRng())  # type: ignore[arg-type]
            b = BlindKorsarState.__new__(BlindKorsarState)
            b.k = k
            b.need, b.ending = str(data["need"]), str(data["ending"])
            b.dealt = {str(d): [str(x) for x in r] for d, r in data["dealt"].items()}
            b.give = [str(x) for x in data["give"]]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise FormatError(f"malformed blind Korsar state: {e}") from None
        if set(k.hands) != set(players) or set(k.loot) != set(players) or not 0 <= k.current < len(players):
            raise FormatError("malformed blind Korsar state")
        return b

    # -- the ordinary rules on the real cards --------------------------------------------

    def replay_open(self, players: Sequence[str], first: str, decks: Mapping[str, Sequence[str]],
                    answers: Sequence[tuple[Decision, Mapping[str, Order]]],
                    options: Mapping[str, Any] | None = None) -> tuple[list[Event], Outcome | None]:
        """The ordinary rules (:class:`~.game.KorsarGame`) on the audit's deck: dealt as the
        ordinary set-up deals, the blind game's turns played on the real cards. A turn the open
        rules make alone (the only legal move) and the blind game asked of its player is
        skipped here: the events compared (:meth:`event_text`) show it was that move."""
        game = self.game
        names = R.check_players(list(players))
        deck = list(decks[DECK])
        n = len(names)
        hands: dict[str, list[str]] = {p: [] for p in names}
        for i in range(R.HAND_SIZE):
            for j, p in enumerate(names):
                hands[p].append(deck[i * n + j])
        s = KorsarState(players=names, teams=R.resolve_teams(names, dict(options or {}).get("teams")), hands=hands,
                        pile=deck[n * R.HAND_SIZE:], galleons=[], loot={p: [] for p in names}, removed=[],
                        current=names.index(first), turn=1, next_galleon=1, last_beside="", over=False,
                        rng=_NoRng())  # type: ignore[arg-type]
        events: list[Event] = []
        R.begin_turn(s, events)
        R.settle(s, events)
        for decision, orders in answers:
            if decision.kind != "turn":
                continue  # the dealers' steps: no decision of the open game
            d = game.pending(s)
            name = decision.players[0]
            action, _slot, card, gid = parse_turn(orders[name])
            turn = int(decision.id[1:].partition("-")[0])
            if d is None or s.turn > turn:
                continue  # the open rules made this move alone (the only legal one); the events show it
            if d.id != decision.id:
                raise GameError(f"the blind game asked {decision.id} where the ordinary rules ask {d.id}")
            plain = {"action": action, **({"card": card} if card else {}), **({"galleon": gid} if gid else {})}
            s, more = game.apply(s, {name: plain})
            events += more
        return events, game.outcome(s)

    @staticmethod
    def event_text(text: str) -> str:
        """An event's text as the audit compares it: without the note of a move the rules made
        alone, since a blind table asks a move the hidden hand forces (the moderator cannot see
        that it is forced)."""
        return text.replace(" (the only legal move)", "")
