"""Random 4-player Koryo games per second, through ``koryo_pbm.engine.simulate.simulate``.

Run: ``python3 benchmarks/bench_koryo_simulate.py [games] [seed]`` (one core, one process).
Each of three runs prints games per second by the wall clock (``time.perf_counter``, what the
goal is measured by: 3,000 games per second, issue 19) and by the process's CPU time
(``time.process_time``, less disturbed when other work shares the machine). The last line is
the best of the three runs (the machine's noise only ever slows a run down). The bots' choices
(``random_order``) are part of the measured loop.

``--python PY`` (repeatable) compares installations side by side in one run instead: each
plays the same games in its own process, round after round in turn (``--rounds``, default 5),
and the best rates are compared as ratios to the first (e.g. ``--python
/tmp/before/.venv/bin/python --python .venv/bin/python``: after / before).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time


def one_run(games: int, seed: str) -> tuple[float, float]:
    """Games per second of one run: (wall clock, CPU time)."""
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import simulate

    game = find_game("koryo")
    cpu = time.process_time()
    result = simulate(game, 4, games, seed, clock=time.perf_counter)
    cpu = time.process_time() - cpu
    return result.games / result.seconds, result.games / cpu


def compare(pythons: list[str], games: int, seed: str, rounds: int) -> None:
    best: dict[str, list[float]] = {py: [0.0, 0.0] for py in pythons}
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import bench_koryo_simulate as b; "
            "b.one_run(20, 'warm-up'); print(*b.one_run(int(sys.argv[2]), sys.argv[3]))")
    here = os.path.dirname(os.path.abspath(__file__))
    for r in range(rounds):
        for py in pythons:
            # run from the benchmarks folder: the current folder comes first on the path of
            # ``python -c``, and a checkout there would stand in for the installation compared
            out = subprocess.run([py, "-c", code, here, str(games), f"{seed}/{r}"], check=True, cwd=here,
                                 capture_output=True, text=True).stdout.split()
            wall, cpu = float(out[0]), float(out[1])
            best[py] = [max(best[py][0], wall), max(best[py][1], cpu)]
    first = best[pythons[0]]
    print(f"best of {rounds} rounds of {games} random 4-player Koryo games, each installation in turn:")
    for py in pythons:
        wall, cpu = best[py]
        print(f"  {py}: {wall:7.0f} games/s wall ({wall / first[0]:.2f}x), {cpu:7.0f} games/s CPU "
              f"({cpu / first[1]:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=1000)
    parser.add_argument("seed", nargs="?", default="bench")
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.python:
        compare([os.path.abspath(p) for p in args.python], args.games, args.seed, args.rounds)
        return
    one_run(20, "warm-up")
    wall_rates, cpu_rates = [], []
    for run in range(3):
        wall, cpu = one_run(args.games, f"{args.seed}/{run}")
        wall_rates.append(wall)
        cpu_rates.append(cpu)
        print(f"run {run + 1}: {args.games} games: {wall:.0f} games/s (CPU time: {cpu:.0f} games/s)")
    print(f"best: {max(wall_rates):.0f} random 4-player Koryo games per second "
          f"(CPU time: {max(cpu_rates):.0f} games per second)")


if __name__ == "__main__":
    main()
