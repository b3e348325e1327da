"""Record what ``test_replay_random_games.py`` compares: ``python tests/replay/record_random_games.py``.

For a fixed set of seeded random games (``play_random``: the game's chance from its seed, the
random bots' from theirs), a digest of each game's whole log (every decision's id and every
event, with its text and data), its final state and its scores; and the wins and mean scores
that ``simulate`` (the rules without building events) reports for other seeds. The file was
written with main's code before the random games were made faster (issue 19, branch ``sim``): a
game that differs in one event, one card or one point is a change of the rules, not of their
speed. Run it again only to add games, never to make a failing test pass.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("random-games.json")

# (game, players, options, games): every table size of Koryo, a few of Korsar
PLAYED: list[tuple[str, int, dict[str, Any], int]] = [
    ("koryo", 2, {}, 100),
    ("koryo", 3, {}, 100),
    ("koryo", 4, {}, 150),
    ("korsar", 2, {}, 6),
    ("korsar", 4, {}, 4),
    ("korsar", 4, {"teams": True}, 4),
]
# (game, players, options, games): simulate's wins and mean scores
SIMULATED: list[tuple[str, int, dict[str, Any], int]] = [
    ("koryo", 2, {}, 200),
    ("koryo", 3, {}, 200),
    ("koryo", 4, {}, 300),
    ("korsar", 3, {}, 10),
]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def table(name: str, n: int, options: dict[str, Any]) -> str:
    return f"{name}-{n}{'-teams' if options else ''}"


def game_digest(game: Any, players: list[str], seed: str, options: dict[str, Any]) -> str:
    """SHA-256 over every decision's id and events, the final state and the outcome of one
    ``play_random`` game."""
    from koryo_pbm.engine.simulate import play_random

    digest = hashlib.sha256()

    def after(state: Any, events: list[Any]) -> None:
        d = game.pending(state)
        digest.update(canonical([d.id if d is not None else None, [e.to_dict() for e in events]]).encode())

    state, outcome = play_random(game, players, seed, options=options, after=after)
    digest.update(canonical([game.dump_state(state), outcome.scores, sorted(outcome.winners)]).encode())
    return digest.hexdigest()


def played(name: str, n: int, options: dict[str, Any], games: int) -> list[str]:
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import seat_names

    game = find_game(name)
    return [game_digest(game, seat_names(n), f"random-{n}/{i}", options) for i in range(games)]


def simulated(name: str, n: int, options: dict[str, Any], games: int) -> dict[str, Any]:
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import simulate

    result = simulate(find_game(name), n, games, f"simulated-{n}", options=options)
    return {"wins": result.wins, "mean_scores": result.mean_scores}


def main() -> None:
    out: dict[str, Any] = {"played": {}, "simulated": {}}
    for name, n, options, games in PLAYED:
        out["played"][table(name, n, options)] = played(name, n, options, games)
    for name, n, options, games in SIMULATED:
        out["simulated"][table(name, n, options)] = simulated(name, n, options, games)
    FILE.write_text(json.dumps(out, sort_keys=True, indent=1) + "\n")
    print(f"wrote {FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
