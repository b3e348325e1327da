"""Random 4-player Koryo games per second, through ``koryo_pbm.engine.simulate.simulate``.

Run: ``python3 benchmarks/bench_koryo_simulate.py [games] [seed]`` (one core, one process).
Each of three runs prints games per second by the wall clock (``time.perf_counter``, what the
goal of 1,000 games per second is measured by) and by the process's CPU time
(``time.process_time``, less disturbed when other work shares the machine). The last line is
the best of the three runs (the machine's noise only ever slows a run down). The bots' choices
(``random_order``) are part of the measured loop.
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
    wall_rates, cpu_rates = [], []
    for run in range(3):
        cpu = time.process_time()
        result = simulate(game, 4, games, f"{seed}/{run}", clock=time.perf_counter)
        cpu = time.process_time() - cpu
        wall_rates.append(result.games / result.seconds)
        cpu_rates.append(result.games / cpu)
        print(f"run {run + 1}: {result.games} games in {result.seconds:.2f} s = {wall_rates[-1]:.0f} games/s "
              f"(CPU {cpu:.2f} s = {cpu_rates[-1]:.0f} games/s)")
    print(f"best: {max(wall_rates):.0f} random 4-player Koryo games per second "
          f"(CPU time: {max(cpu_rates):.0f} games per second)")


if __name__ == "__main__":
    main()
