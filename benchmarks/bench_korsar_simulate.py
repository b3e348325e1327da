"""Korsar's speed under random play: games per second and turns per second at every legal
table size, in-process (``koryo_pbm.engine.simulate``), the medians of a few repeats.

Goal: a 4-player team game in under 20 ms on a developer's machine (``koryo-pbm simulate
--game korsar --players 4 --teams --games 100`` in about a second or less).

Run: ``python benchmarks/bench_korsar_simulate.py [--games 50] [--repeats 3]``.

``--commit REV`` (repeatable) compares this checkout's code with the code of git commits side by
side in one run instead, as ``bench_koryo_simulate.py --commit`` does: each code in a process of
its own, in turn, ``--repeats`` rounds of the same games; the best CPU-time rates of every table
size, and their ratio to the first commit named.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import Any

TABLES = [(2, None), (3, None), (4, None), (4, {"teams": True}), (5, None), (6, {"teams": True}), (8, {"teams": True})]


def run(game: Any, n: int, options: dict | None, games: int, seed: str = "bench") -> tuple[float, int]:
    from koryo_pbm.engine.simulate import play_random, seat_names

    turns = 0
    start = time.perf_counter()
    for i in range(games):
        state, _ = play_random(game, seat_names(n), f"{seed}/{i}", options=options)
        turns += state.turn
    return time.perf_counter() - start, turns


def tree_run(games: str, seed: str) -> list[float]:
    """What ``--commit`` runs with each code: games per second of CPU time at every table size."""
    from koryo_pbm_games.korsar import KorsarGame

    game = KorsarGame()
    rates = []
    for n, options in TABLES:
        run(game, n, options, 2, "warm-up")
        cpu = time.process_time()
        run(game, n, options, int(games), seed)
        rates.append(int(games) / (time.process_time() - cpu))
    return rates


def label(n: int, options: dict | None) -> str:
    return f"{n}{' teams' if options else ''}"


def compare_trees(revs: list[str], games: int, rounds: int) -> None:
    from bench_koryo_simulate import code_trees, run_in_tree

    with tempfile.TemporaryDirectory(prefix="bench-korsar-") as tmp:
        trees = code_trees(revs, tmp)
        best = {name: [0.0] * len(TABLES) for name in trees}
        for r in range(rounds):
            for name, tree in trees.items():
                rates = run_in_tree(tree, "bench_korsar_simulate", str(games), f"bench/{r}", cwd=tmp)
                best[name] = [max(a, b) for a, b in zip(best[name], rates, strict=True)]
        first = best[next(iter(trees))]
        print(f"best of {rounds} rounds of {games} random Korsar games per table, each code in turn "
              "(CPU time, games/s and the ratio to the first):")
        print(f"{'table':<10}" + "".join(f"{name:>24}" for name in trees))
        for i, (n, options) in enumerate(TABLES):
            print(f"{label(n, options):<10}" + "".join(
                f"{best[name][i]:>15.0f} ({best[name][i] / first[i]:.2f}x)" for name in trees))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commit", action="append", help="a git commit whose code to compare (repeatable)")
    args = parser.parse_args()
    if args.commit:
        compare_trees(args.commit, args.games, args.repeats)
        return
    from koryo_pbm_games.korsar import KorsarGame

    game = KorsarGame()
    print(f"{'table':<10}{'games/s':>10}{'ms/game':>10}{'turns/game':>12}{'turns/s':>10}")
    for n, options in TABLES:
        results = [run(game, n, options, args.games) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in results)
        turns = results[0][1]
        print(f"{label(n, options):<10}{args.games / seconds:>10.0f}{1000 * seconds / args.games:>10.1f}{turns / args.games:>12.0f}{turns / seconds:>10.0f}")


if __name__ == "__main__":
    main()
