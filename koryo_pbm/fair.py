"""A fair deal: the seed commitment, the deal seed, and the join step. It knows no game.

* **Commitment.** The moderator's secret seed is committed to in the first game file as
  ``sha256:<hex>`` of SHA-256 over a domain tag, a random 32-byte *salt* and the seed: the
  commitment hides the seed whatever it is (a guessable ``--seed`` too). Seed and salt are
  published when the game ends.
* **Deal seed.** The game's generator is seeded (``Game.setup(players, seed)``) from a
  derivation of the moderator's seed, the game id and, for a joined game, every player's
  contribution in seat order: one seed reused in two games deals differently, and no single
  party chooses the deal.
* **Join.** A game created without ``--seed`` or ``--position`` begins with the decision
  ``join`` (kind ``join``): each player answers ``contribution = "<64 hex digits>"`` (32 fresh
  random bytes, which ``orders`` and ``play`` write) and ``commitment``, the seed commitment
  of the game file the player joins: signed by the player before the deal, it pins the
  moderator's secret (``verify`` checks that the published seed is the one they joined under). :class:`Joining` is the game seen through
  that first decision: it answers the :class:`~koryo_pbm.engine.contract.Game` contract for
  the join state and hands every other state to the game itself, so resolve, orders, play,
  show and the bots need no special case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import BotRandom, Decision, Event, Game, Order, Outcome, State
from koryo_pbm.errors import FormatError, OrderError, PositionError
from koryo_pbm.values import Frozen

JOIN = "join"  # the id and the kind of the join decision
DEALS = ("joined", "seed", "position")  # how a game's deal was made (the game file's ``deal``)


# -- the join step -----------------------------------------------------------------------------


class JoinState(Frozen):
    """A game waiting for its players to join. ``seed`` (the moderator's secret) is set in the
    moderator's state only; a player's state (:meth:`Joining.from_view`) has ``""``."""

    _fields = ("game_id", "players", "seed", "first", "options", "commitment")
    game_id: str
    players: tuple[str, ...]
    seed: str
    first: str | None
    options: Mapping[str, Any]
    commitment: str  # the seed commitment of the game file: every join order names it

    def __init__(self, game_id: str, players: tuple[str, ...], seed: str = "", first: str | None = None,
                 options: Mapping[str, Any] | None = None, commitment: str = "") -> None:
        set_ = object.__setattr__
        set_(self, "game_id", game_id)
        set_(self, "players", players)
        set_(self, "seed", seed)
        set_(self, "first", first)
        set_(self, "options", {} if options is None else options)
        set_(self, "commitment", commitment)


# the public part of a game not dealt yet: {not_dealt = true, players = [...]}; a key no game may
# use in its own public part (engine.contract.RESERVED_PUBLIC_KEYS)
_PUBLIC_KEY = "not_dealt"


def is_join_public(public: Mapping[str, Any]) -> bool:
    return bool(public.get(_PUBLIC_KEY))


class Joining(Game):
    """``game`` with the join step in front of it (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.inner = game

    def __getattr__(self, name: str) -> Any:  # name, title, player_counts, options, ...
        return getattr(self.inner, name)

    @property
    def marks(self) -> Mapping[str, Any]:  # type: ignore[override]  # the game's (Game has its own, empty)
        return self.inner.marks

    def setup(self, players: Sequence[str], seed: str, *, first: str | None = None,
              options: Mapping[str, Any] | None = None) -> State:
        """The game dealt at once from ``seed`` (no join): what the game itself does."""
        return self.inner.setup(players, seed, first=first, options=options)

    def deal(self, state: JoinState, contributions: Mapping[str, str]) -> State:
        """The game dealt from the moderator's seed, the game id and every contribution."""
        from koryo_pbm.crypto.commit import deal_seed  # only a join deals: no other decision imports it

        seed = deal_seed(state.seed, state.game_id, [(p, contributions[p]) for p in state.players])
        return self.inner.setup(list(state.players), seed, first=state.first, options=dict(state.options))

    # -- the contract, for the join state; anything else goes to the game ---------------------

    def pending(self, state: State) -> Decision | None:
        if isinstance(state, JoinState):
            return Decision(JOIN, JOIN, state.players)
        return self.inner.pending(state)

    def check(self, state: State, player: str, order: Order) -> None:
        if not isinstance(state, JoinState):
            return self.inner.check(state, player, order)
        if player not in state.players:
            raise OrderError(f"{player} is not a player of this game")
        extra = sorted(k for k in order if k not in ("contribution", "commitment"))
        if extra:
            raise OrderError(f"a join order holds only 'contribution' and 'commitment', not {extra[0][:40]!r}")
        from koryo_pbm.crypto.commit import is_contribution

        if not is_contribution(order.get("contribution")):
            raise OrderError("a join order's 'contribution' must be 64 hex digits (32 random bytes; "
                             "koryo-pbm orders writes fresh ones)")
        if order.get("commitment") != state.commitment:
            raise OrderError(f"a join order's 'commitment' must be the game file's seed commitment "
                             f"({state.commitment}): koryo-pbm orders writes it")

    def apply(self, state: State, orders: Mapping[str, Order], *, log: bool = True) -> tuple[State, list[Event]]:
        if not isinstance(state, JoinState):
            return self.inner.apply(state, orders, log=log)
        for p in state.players:
            if p not in orders:
                raise OrderError(f"the join waits for {p}")
            self.check(state, p, orders[p])
        contributions = {p: str(orders[p]["contribution"]) for p in state.players}
        dealt = self.deal(state, contributions)
        events = [Event("join", f"{p} joined (contribution {contributions[p][:12]}…)", {"player": p})
                  for p in state.players]
        events.append(Event("deal", "the cards were dealt from the moderator's committed secret and every "
                                    "player's contribution"))
        return dealt, events

    def outcome(self, state: State) -> Outcome | None:
        return None if isinstance(state, JoinState) else self.inner.outcome(state)

    def random_order(self, state: State, player: str, rng: BotRandom) -> dict[str, Any]:
        if isinstance(state, JoinState):
            from koryo_pbm.crypto.commit import CONTRIBUTION_SIZE

            return {"contribution": rng.getrandbits(8 * CONTRIBUTION_SIZE).to_bytes(CONTRIBUTION_SIZE, "big").hex(),
                    "commitment": state.commitment}
        return self.inner.random_order(state, player, rng)

    def describe_choices(self, state: State, player: str) -> tuple[dict[str, Any], list[str]]:
        if not isinstance(state, JoinState):
            return self.inner.describe_choices(state, player)
        from koryo_pbm.crypto.commit import new_contribution

        return {"contribution": new_contribution(), "commitment": state.commitment}, [
            "Join the game: your contribution to the deal is 32 fresh random bytes (written here",
            "from your computer's generator). The deal is derived from the moderator's secret,",
            "committed to before anyone joined (the commitment below, which you sign with your",
            "contribution), and every player's contribution, so nobody alone chooses it.",
            "Submitting this also confirms that your key is the one the game names.",
        ]

    def menu(self, state: State, player: str, picked: Sequence[Any],
             hint: Mapping[str, Any] | None = None) -> Any:
        if not isinstance(state, JoinState):
            return self.inner.menu(state, player, picked, hint)
        from koryo_pbm.crypto.commit import is_contribution, new_contribution

        value = hint.get("contribution") if hint else None
        return {"contribution": value if is_contribution(value) else new_contribution(),
                "commitment": state.commitment}

    def menu_answers(self, state: State, player: str, picked: Sequence[Any], menu: Any,
                     hint: Mapping[str, Any] | None = None) -> Any:
        return None if isinstance(state, JoinState) else self.inner.menu_answers(state, player, picked, menu, hint)

    def legal_orders(self, state: State, player: str) -> Sequence[Mapping[str, Any]]:
        return [] if isinstance(state, JoinState) else self.inner.legal_orders(state, player)

    def progress(self, public: Mapping[str, Any]) -> tuple[int | None, str | None]:
        return (None, None) if is_join_public(public) else self.inner.progress(public)

    def bot_order(self, state: State, player: str, level: str, rng: BotRandom,
                  limit: float, clock: Callable[[], float]) -> dict[str, Any]:
        if isinstance(state, JoinState):
            return self.random_order(state, player, rng)
        return self.inner.bot_order(state, player, level, rng, limit, clock)

    def bot_levels(self) -> tuple[str, ...]:
        return self.inner.bot_levels()

    def dump_state(self, state: State) -> dict[str, Any]:
        if not isinstance(state, JoinState):
            return self.inner.dump_state(state)
        join: dict[str, Any] = {"game_id": state.game_id, "players": list(state.players), "seed": state.seed,
                                "options": dict(state.options), "commitment": state.commitment}
        if state.first is not None:
            join["first"] = state.first
        return {JOIN: join}

    def load_state(self, data: Mapping[str, Any]) -> State:
        join = data.get(JOIN)
        if join is None:
            return self.inner.load_state(data)
        try:
            players, first, options = join["players"], join.get("first"), join.get("options", {})
            if not (isinstance(players, list) and all(isinstance(p, str) for p in players)
                    and isinstance(join["seed"], str) and isinstance(join["game_id"], str)
                    and isinstance(join["commitment"], str)
                    and (first is None or isinstance(first, str)) and isinstance(options, dict)):
                raise TypeError
        except (KeyError, TypeError):
            raise FormatError("the join state is malformed") from None
        return JoinState(join["game_id"], tuple(players), join["seed"], first, options, join["commitment"])

    def public(self, state: State) -> dict[str, Any]:
        if isinstance(state, JoinState):
            return {_PUBLIC_KEY: True, "players": list(state.players), "commitment": state.commitment}
        return self.inner.public(state)

    def private(self, state: State, player: str) -> dict[str, Any]:
        return {} if isinstance(state, JoinState) else self.inner.private(state, player)

    def view(self, public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
        if is_join_public(public):
            return {"dealt": False, "players": list(public.get("players", []))}
        return self.inner.view(public, private)

    def render(self, view: Mapping[str, Any]) -> str:
        if view.get("dealt") is False:
            return (f"{self.inner.title}: not dealt yet; the deal waits for every player to join "
                    f"(players: {', '.join(view.get('players', []))})")
        return self.inner.render(view)

    def picture(self, view: Mapping[str, Any]) -> Any:
        if view.get("dealt") is False:
            return Game.picture(self, view)
        return self.inner.picture(view)

    def from_view(self, public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> State:
        if is_join_public(public):
            players = public.get("players")
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                raise FormatError("the public part of a game not dealt yet has no list of players")
            commitment = public.get("commitment")
            if not isinstance(commitment, str):
                raise FormatError("the public part of a game not dealt yet has no seed commitment")
            return JoinState("", tuple(players), commitment=commitment)
        return self.inner.from_view(public, private, player)

    def log_section(self, decision: str, event: str | None, players: Sequence[str]) -> str | None:
        if decision == JOIN:
            return "the join" if event is None else None
        return self.inner.log_section(decision, event, players)

    def score_breakdown(self, view: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        return None if view.get("dealt") is False else self.inner.score_breakdown(view)

    def load_position(self, doc: Mapping[str, Any], seed: str) -> State:
        return self.inner.load_position(doc, seed)

    def dump_position(self, state: State) -> dict[str, Any]:
        if isinstance(state, JoinState):
            raise PositionError("the game is not dealt yet (it waits for every player to join): it has no position")
        return self.inner.dump_position(state)

    def check_invariants(self, state: State) -> None:
        if not isinstance(state, JoinState):
            self.inner.check_invariants(state)

