"""Record the games that ``test_replay_recorded_games.py`` replays: ``python tests/replay/record_games.py``.

Each recorded game is a game, its seats, its seed and every order the random bots gave
(``play_random``'s generators), with a digest of what the rules made of them: every decision's
id, its events, the state after it and the final scores. The file was written before the rules
and the engine were made faster (issue 19): a replay that differs in one event, one card or one
point is a change of the rules, not of their speed. Run it again only to add games, never to
make a failing replay pass.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("recorded-games.json")

# (game, players, options, seeds): every table size of both games, a few seeds each
TABLES: list[tuple[str, int, dict[str, Any], list[str]]] = [
    ("koryo", 2, {}, ["rec-1", "rec-2", "rec-3"]),
    ("koryo", 3, {}, ["rec-1", "rec-2", "rec-3"]),
    ("koryo", 4, {}, ["rec-1", "rec-2", "rec-3", "rec-4"]),
    ("korsar", 2, {}, ["rec-1", "rec-2"]),
    ("korsar", 4, {}, ["rec-1"]),
    ("korsar", 4, {"teams": True}, ["rec-1"]),
]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def replay(game: Any, players: list[str], seed: str, options: dict[str, Any],
           orders: list[dict[str, Any]] | None) -> tuple[str, list[dict[str, Any]]]:
    """Play the game from its seed: with the recorded ``orders`` (one mapping per decision), or,
    with None, with ``play_random``'s bots (their generator seeded as there). Return the digest of
    every decision's id, events and following state and of the final scores, and the orders."""
    state = game.setup(players, seed, options=options)
    bots = random.Random(f"bots:{seed}")
    digest = hashlib.sha256(canonical(game.dump_state(state)).encode())
    given: list[dict[str, Any]] = []
    while (decision := game.pending(state)) is not None:
        if orders is None:
            step = {p: game.random_order(state, p, bots) for p in decision.players}
        else:
            step = orders[len(given)]
        given.append(step)
        state, events = game.apply(state, step)
        digest.update(canonical([decision.id, [e.to_dict() for e in events], game.dump_state(state)]).encode())
    outcome = game.outcome(state)
    digest.update(canonical([outcome.scores, sorted(outcome.winners)]).encode())
    return digest.hexdigest(), given


def main() -> None:
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import seat_names

    games = []
    for name, n, options, seeds in TABLES:
        game = find_game(name)
        for seed in seeds:
            digest, orders = replay(game, seat_names(n), seed, options, None)
            games.append({"game": name, "players": seat_names(n), "options": options, "seed": seed,
                          "digest": digest, "orders": orders})
    FILE.write_text(json.dumps({"games": games}, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {len(games)} games to {FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
