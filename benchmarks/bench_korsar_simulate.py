"""Korsar's speed under random play: games per second and turns per second at every legal
table size, in-process (``koryo_pbm.engine.simulate``), the medians of a few repeats.

Goal: a 4-player team game in under 20 ms on a developer's machine (``koryo-pbm simulate
--game korsar --players 4 --teams --games 100`` in about a second or less).

Run: ``python benchmarks/bench_korsar_simulate.py [--games 50] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from koryo_pbm_games.korsar import KorsarGame

from koryo_pbm.engine.simulate import play_random, seat_names

TABLES = [(2, None), (3, None), (4, None), (4, {"teams": True}), (5, None), (6, {"teams": True}), (8, {"teams": True})]


def run(game: KorsarGame, n: int, options: dict | None, games: int) -> tuple[float, int]:
    turns = 0
    start = time.perf_counter()
    for i in range(games):
        state, _ = play_random(game, seat_names(n), f"bench/{i}", options=options)
        turns += state.turn
    return time.perf_counter() - start, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    game = KorsarGame()
    print(f"{'table':<10}{'games/s':>10}{'ms/game':>10}{'turns/game':>12}{'turns/s':>10}")
    for n, options in TABLES:
        results = [run(game, n, options, args.games) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in results)
        turns = results[0][1]
        label = f"{n}{' teams' if options else ''}"
        print(f"{label:<10}{args.games / seconds:>10.0f}{1000 * seconds / args.games:>10.1f}{turns / args.games:>12.0f}{turns / seconds:>10.0f}")


if __name__ == "__main__":
    main()
