"""The generic bot level ``search``, built on the game contract alone: determinized Monte Carlo.

For each legal order of the player (:meth:`~koryo_pbm.engine.contract.Game.legal_orders`), in
turn, a *world* the player cannot tell from what they know is drawn
(:meth:`~koryo_pbm.engine.contract.Game.determinize`: the hidden cards dealt anew among
themselves), the other players asked by the same decision answer at random, and the match is
played out at random (:meth:`~koryo_pbm.engine.contract.Game.random_playout`). The order whose
playouts won most (a shared win counts its share; the score margin breaks ties) is chosen.

The work is a count (:data:`PLAYOUTS` per decision, spread over the orders), drawn from the
bot's own generator: the same view gives the same order on any machine, and ``verify``
chooses it again. The clock is read only for the safety limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from koryo_pbm.engine.contract import BotRandom, Game, State

LEVEL = "search"
#: Playouts per decision, spread evenly over the legal orders (at least :data:`MIN_EACH` each).
PLAYOUTS = 400
MIN_EACH = 8


def search_order(game: Game, state: State, player: str, rng: BotRandom, limit: float,
                 clock: Callable[[], float]) -> dict[str, Any]:
    """The order ``search`` chooses for ``player`` in ``state`` (a :meth:`from_view` state)."""
    from koryo_pbm.engine.contract import TimeLimit

    orders = [dict(o) for o in game.legal_orders(state, player)]
    if len(orders) <= 1:
        return game.random_order(state, player, rng) if not orders else orders[0]
    decision = game.pending(state)
    assert decision is not None
    each = max(MIN_EACH, PLAYOUTS // len(orders))
    value = [0.0] * len(orders)
    start = clock()
    for i in range(each * len(orders)):
        k = i % len(orders)
        world = game.determinize(state, player, rng)
        answers = {p: orders[k] if p == player else game.random_order(world, p, rng) for p in decision.players}
        after, _ = game.apply(world, answers, log=False)
        outcome = game.outcome(game.random_playout(after, rng))
        assert outcome is not None
        scores = dict(outcome.scores)
        mine = scores.pop(player, 0)
        margin = mine - max(scores.values(), default=0)
        value[k] += (1 / len(outcome.winners) if player in outcome.winners else 0.0) + margin / 1e4
        if k == len(orders) - 1 and clock() - start > limit:
            raise TimeLimit(f"search passed {limit:g} s")
    best = max(range(len(orders)), key=lambda j: (value[j], -j))
    return orders[best]
