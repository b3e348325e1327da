"""Random 4-player Koryo games per second, through ``koryo_pbm.engine.simulate.simulate``.

Run: ``python3 benchmarks/bench_koryo_simulate.py [games] [seed]`` (one core, one process).
Prints the best of three runs (the machine's noise only ever slows a run down).
"""

from __future__ import annotations

import sys
import time

from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import simulate


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = sys.argv[2] if len(sys.argv) > 2 else "bench"
    game = find_game("koryo")
    simulate(game, 4, 20, "warm-up")
    rates = []
    for run in range(3):
        result = simulate(game, 4, games, f"{seed}/{run}", clock=time.perf_counter)
        rates.append(result.games / result.seconds)
        print(f"run {run + 1}: {result.games} games in {result.seconds:.2f} s = {rates[-1]:.0f} games/s")
    print(f"best: {max(rates):.0f} random 4-player Koryo games per second")


if __name__ == "__main__":
    main()
