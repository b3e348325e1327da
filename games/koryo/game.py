"""``KoryoGame``: the game contract for Koryo (see the package docstring for the readings)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from koryo_pbm.engine.contract import BlindRules, BotRandom, Decision, Event, Game, Order, Outcome, asked
from koryo_pbm.engine.rng import Rng
from koryo_pbm.engine.scene import Mark
from koryo_pbm.errors import FormatError, GameError, IllegalOrder, PositionError, SetupError

from . import orders as O
from . import positions, rules, views
from .cards import CHARS, COPIES, ROUNDS, TOKENS, base_limit, full_deck
from .state import ACTIONS, END, ORDERS, OVER, KoryoState


def _round_number(text: str, before: str, after: str) -> str | None:
    """The digits of ``text`` between ``before`` at its start and ``after``: group 1 of
    ``re.match(before + r"(\\d+)" + after, text)``, without compiling it in every command. Decision
    ids: ``r3-orders``, ``r3-action-bob`` (``"r"``, ``"-"``); the event that opens a round:
    ``round 3: ...`` (``"round "``, ``": "``)."""
    if not text.startswith(before):
        return None
    end = start = len(before)
    while end < len(text) and text[end].isdecimal():
        end += 1
    return text[start:end] if end > start and text.startswith(after, end) else None

if TYPE_CHECKING:
    from koryo_pbm.engine.menus import Menu
    from koryo_pbm.engine.scene import Scene

#: (phase, round, the players asked) -> Decision: decisions are immutable values, shared
_DECISIONS: dict[tuple, Decision] = {}


def _decision(s: KoryoState) -> Decision | bool:
    """The pending decision (``False`` when the game is over, so it can be cached)."""
    ph = s.phase
    r = s.round
    if ph == ORDERS:  # only the players with a choice: a hand of one card is played by itself
        if s.hidden is None:
            names = tuple([name for name, h in zip(s.players, s.hands, strict=False) if sum(h) > 1])
        else:
            names = tuple([s.players[p] for p in range(len(s.players)) if s.hand_size(p) > 1])
    elif ph in (ACTIONS, END):
        names = (s.players[s.current()],)
    else:
        return False
    key = (ph, r, names)
    d = _DECISIONS.get(key)
    if d is None:
        if ph == ORDERS:
            d = Decision(f"r{r}-orders", "orders", names)
        elif ph == ACTIONS:
            d = Decision(f"r{r}-action-{names[0]}", "action", names)
        else:
            d = Decision(f"r{r}-discard-{names[0]}", "discard", names)
        if len(_DECISIONS) >= 4096:  # many different tables in one process: start again
            _DECISIONS.clear()
        _DECISIONS[key] = d
    return d


class KoryoGame(Game):
    name = "koryo"
    title = "Koryo"
    player_counts = (2, 3, 4)
    decision_kinds = ("orders", "action", "discard")
    marks: ClassVar[Mapping[str, str | Mark]] = {
        "majority": Mark("scoring majority", "star"),
        "power": Mark("power majority", "band", "power"),
        "omniscient": Mark("power majority by the Omniscient's tie", "band", "power Ω"),
    }

    # -- a match -------------------------------------------------------------------------

    def setup(self, players: Sequence[str], seed: str, *, first: str | None = None,
              options: Mapping[str, Any] | None = None) -> KoryoState:
        if isinstance(players, str):
            raise SetupError("players must be a list of names")
        names = positions.check_players(list(players), SetupError)
        if options:
            raise SetupError(f"Koryo has no options (got {', '.join(sorted(map(str, options)))})")
        if not isinstance(seed, str):
            raise SetupError("the seed must be text")
        rng = Rng.from_seed(seed)
        n = len(names)
        if first is None:
            f = rng.below(n)
        elif first in names:
            f = names.index(first)
        else:
            raise SetupError(f"first player {first!r} is not one of the players")
        deck = full_deck()
        rules.shuffle(rng, deck)
        s = rules.before_the_deal(names, f, deck, rng)
        rules.start_round(s, None)
        rules.advance(s, None)
        return s

    def pending(self, state: KoryoState) -> Decision | None:
        d = getattr(state, "decision", None)
        if d:
            return d
        if d is None:
            d = state.decision = _decision(state)
        return d if isinstance(d, Decision) else None

    def _who(self, s: KoryoState, player: str) -> tuple[int, Decision]:
        d = asked(self.pending(s), s.players, player)
        return s.players.index(player), d

    def check(self, state: KoryoState, player: str, order: Order) -> None:
        s = state
        p, d = self._who(s, player)
        if d.kind == "orders":
            rules.check_play(s, p, O.parse_play(order))
        elif d.kind == "action":
            steps = O.parse_action(s, order)
            rules.run_steps(s.copy(), p, steps, None)
        else:
            O.check_discard(s, p, O.parse_discard(order))

    def apply(self, state: KoryoState, orders: Mapping[str, Order], *, log: bool = True
              ) -> tuple[KoryoState, list[Event]]:
        if state.hidden is not None:
            raise GameError("cannot apply orders to a state rebuilt from one player's view")
        d = self.pending(state)
        if d is None:
            raise IllegalOrder("illegal order: the game is over")
        asked = d.players
        if type(orders) is not dict or len(orders) != len(asked) or not all(name in orders for name in asked):
            d.check_answers(orders)  # the common case above is checked without a call
        s = state.copy()
        events: list[Event] | None = [] if log else None  # None: the rules build no event
        players = s.players
        if d.kind == "orders":
            plays = {}
            for name in d.players:
                p = players.index(name)
                cards = O.parse_play(orders[name])
                rules.check_play(s, p, cards)
                plays[p] = cards
            rules.resolve_orders(s, plays, events, rules.forced_plays(s, plays))
        else:
            O.play_turn(s, d.kind, orders[d.players[0]], events)
        rules.advance(s, events)
        return s, events if events is not None else []

    def outcome(self, state: KoryoState) -> Outcome | None:
        if state.phase != OVER:
            return None
        sc = rules.scores(state)
        top = max(sc)
        names = state.players
        return Outcome({names[p]: sc[p] for p in range(len(names))},
                       tuple(names[p] for p in range(len(names)) if sc[p] == top))

    # -- players -------------------------------------------------------------------------

    def random_order(self, state: KoryoState, player: str, rng: BotRandom) -> dict[str, Any]:
        d = self.pending(state)
        if d is not None and player in d.players:  # the usual case, quickly
            p = state.players.index(player)
        else:
            p, d = self._who(state, player)
        if d.kind == "orders":
            return O.random_play(state, p, rng)
        if d.kind == "action":
            return O.random_action(state, p, rng)
        return O.random_discard(state, p, rng)

    def random_playout(self, state: KoryoState, rng: BotRandom, max_decisions: int = 100_000) -> KoryoState:
        # What apply does with random_order's orders, on one copy of the state changed in place,
        # the orders kept as the rules read them (never written out as tables and parsed back)
        if state.hidden is not None:
            raise GameError("cannot apply orders to a state rebuilt from one player's view")
        s = state.copy()
        for _ in range(max_decisions):
            phase = s.phase
            if phase == ORDERS:  # the seats asked (more than one card in hand) draw in seat order
                for p, hand in enumerate(s.hands):  # each play face down as drawn (legal: not checked again)
                    k = sum(hand)
                    if k > 1:
                        O.random_face_down(s, p, rng, k)
                    elif k == 1:  # not asked: the only legal play (rules.forced_plays)
                        c = hand.index(1)
                        hand[c] = 0
                        s.facedown[p][c] += 1
                rules.discard_hands(s)  # the rest of rules.resolve_orders
            elif phase == ACTIONS:
                p = s.current()
                O.random_turn(s, p, rng)  # legal as drawn: played in place, not checked again
                s.turn += 1
            elif phase == END:  # only where the playout began: advance below chooses the discards
                p = s.current()
                rules.do_discard(s, p, O.random_discard_counts(s, p, rng), None, False)
                s.turn += 1
            else:
                return s
            # the discards as random_discard_counts draws them (rng.choice of the choices, when
            # there are several), chosen where advance finds them
            rules.advance(s, None, rng.choice)
        raise RuntimeError(f"koryo: no end after {max_decisions} decisions")

    def blind_rules(self) -> BlindRules:
        from .blind import BlindKoryo

        return BlindKoryo(self)

    def bot_levels(self) -> tuple[str, ...]:
        return ("heuristic", "search")

    def bot_order(self, state: KoryoState, player: str, level: str, rng: BotRandom, limit: float,
                  clock: Callable[[], float]) -> dict[str, Any]:
        from . import bots

        if level not in bots.LEVELS:
            return super().bot_order(state, player, level, rng, limit, clock)
        self._who(state, player)
        return bots.bot_order(state, player, level, rng, limit, clock)

    def determinize(self, state: KoryoState, player: str, rng: BotRandom) -> KoryoState:
        from . import bots

        return bots.determinize(state, state.players.index(player), rng)

    def describe_choices(self, state: KoryoState, player: str) -> tuple[dict[str, Any], list[str]]:
        p, d = self._who(state, player)
        if d.kind == "orders":
            return O.describe_play(state, p)
        if d.kind == "action":
            return O.describe_action(state, p)
        return O.describe_discard(state, p)

    # -- storage and views ---------------------------------------------------------------

    def menu(self, state: KoryoState, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Menu | dict[str, Any]:
        from . import menus

        p, d = self._who(state, player)
        if d.kind == "orders":
            return menus.play_menu(state, p, picked, hint)
        if d.kind == "action":
            return menus.action_menu(self, state, player, picked, hint)
        return menus.discard_menu(state, p, picked, hint)

    def menu_answers(self, state: KoryoState, player: str, picked: Sequence[Any], menu: Menu,
                     hint: Mapping[str, Any] | None = None) -> Sequence[Menu | dict[str, Any]] | None:
        from . import menus

        p, d = self._who(state, player)
        if d.kind == "action":
            return menus.action_answers(self, state, player, picked, menu, hint)
        if picked:  # a one-question menu has no question after its first
            return None
        return menus.single_answers(state, p, "play" if d.kind == "orders" else "discard", menu)

    def dump_state(self, state: KoryoState) -> dict[str, Any]:
        if state.hidden is not None or state.rng is None:
            raise FormatError("a state rebuilt from a player's view cannot be stored as a whole state")
        return positions.dump_state(state)

    def load_state(self, data: Mapping[str, Any]) -> KoryoState:
        try:
            return positions.load_state(data, FormatError)
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed Koryo state: {exc}") from None

    def public(self, state: KoryoState) -> dict[str, Any]:
        return views.public(state)

    def private(self, state: KoryoState, player: str) -> dict[str, Any]:
        if player not in state.players:
            raise GameError(f"unknown player {player!r}")
        return views.private(state, player)

    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        try:
            return views.view(public, private)
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed Koryo view: {exc}") from None

    def render(self, view: Mapping[str, Any]) -> str:
        return views.render(view)

    def picture(self, view: Mapping[str, Any]) -> Scene:
        from . import picture

        try:
            return picture.picture(view)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed Koryo view: {exc}") from None

    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> KoryoState:
        try:
            return views.from_view(public, private, player)
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise FormatError(f"malformed Koryo view: {exc}") from None

    # -- positions -----------------------------------------------------------------------

    def load_position(self, doc: Mapping[str, Any], seed: str) -> KoryoState:
        try:
            s = positions.load_position(doc, seed, PositionError)
        except PositionError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise PositionError(f"malformed Koryo position: {exc}") from None
        rules.advance(s, None)
        return s

    def dump_position(self, state: KoryoState) -> dict[str, Any]:
        if state.hidden is not None:
            raise PositionError("a state rebuilt from a player's view has unknown cards")
        return positions.dump(state)

    # -- invariants ----------------------------------------------------------------------

    def progress(self, public: Mapping[str, Any]) -> tuple[int | None, str | None]:
        rnd, phase = public.get("round"), public.get("phase")
        return (rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
                phase if isinstance(phase, str) else None)

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        number = _round_number(event, "round ", ": ") if event is not None else _round_number(decision, "r", "-")
        return f"round {number}" if number is not None else None

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        return views.score_breakdown(view)

    def check_invariants(self, state: KoryoState) -> None:
        s = state
        n = len(s.players)
        assert s.hidden is None, "a view state has unknown cards"
        census = rules.card_census(s)
        assert census == list(COPIES), f"cards: {census} != {list(COPIES)}"
        assert all(x >= 0 for pile in (s.tables + s.hands + s.facedown + [s.discard]) for x in pile)
        assert s.bank >= 0 and all(t >= 0 for t in s.tokens), "negative tokens"
        assert s.bank + sum(s.tokens) == TOKENS, "bank + tokens != 8"
        assert 1 <= s.round <= ROUNDS
        assert 0 <= s.first < n
        if s.phase != ORDERS:
            assert not any(map(any, s.hands)), "hands must be empty outside the order phase"
        if s.phase != ACTIONS:
            assert not any(map(any, s.facedown)), "face-down cards outside the actions phase"
        if s.phase == ORDERS:
            assert not rules.orders_automatic(s), "an automatic order phase was left pending"
            if s.round >= 2:
                for p in range(n):
                    assert rules._complies(s.tables, p, base_limit(s.round - 1)), \
                        f"table of {s.players[p]} over the limit after the end phase"
        elif s.phase == ACTIONS:
            assert 0 <= s.turn < n
            for k in range(s.turn):
                assert not any(s.facedown[(s.first + k) % n]), "played turn with face-down cards"
            w = s.copy()
            assert not rules.auto_action(w, s.current(), None), "an automatic action turn was left pending"
        elif s.phase == END:
            assert 0 <= s.turn < n
            k, opts = rules.discard_options(s, s.current(), stop_at=2)
            assert k > 0 and len(opts) >= 2, "an automatic discard was left pending"
            for j in range(s.turn):
                assert rules._complies(s.tables, (s.first + j) % n, base_limit(s.round)), \
                    "a table over the limit after its discard"
        else:
            assert s.round == ROUNDS
            for p in range(n):
                assert rules._complies(s.tables, p, base_limit(ROUNDS)), "table over the final limit"
        _ = CHARS
