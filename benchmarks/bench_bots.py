"""Seconds per decision of each bot level, side by side in one run, as ratios to ``random``.

Run: ``python3 benchmarks/bench_bots.py [games]`` (one core, one process). For each
game, whole matches are played with every level seated (Koryo: search, heuristic, random,
random; Korsar: heuristic, random, random), levels moving one seat per match, so every level
decides in the same positions' kind and under the same load. Each decision is timed by the
process's CPU clock (what the bots' safety limit is counted in). Printed per level: decisions,
mean and max seconds per decision, the mean as a multiple of ``random``'s, and fallbacks (of
them, time-outs). A bot's work is a fixed count, not a time: the search level is expected to
take at most 1 s per decision on one core (the goal of issue 17) at every decision.
"""

from __future__ import annotations

import sys
import time

from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import simulate

TABLES = {"koryo": ["search", "heuristic", "random", "random"], "korsar": ["heuristic", "random", "random"]}


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    for name, levels in TABLES.items():
        game = find_game(name)
        result = simulate(game, len(levels), games, f"bench-bots/{name}", bots=levels,
                          clock=time.perf_counter)
        assert result.levels is not None
        base = result.levels["random"]
        base_mean = base.seconds_total / base.decisions
        print(f"{game.title}: {games} games, {', '.join(levels)}, {result.seconds:.1f} s in all")
        for lv, st in result.levels.items():
            mean = st.seconds_total / st.decisions
            print(f"  {lv:<10} {st.decisions:>6} decisions  mean {mean * 1000:9.3f} ms  max {st.seconds_max * 1000:9.1f} ms"
                  f"  {mean / base_mean:8.1f}x random  fallbacks {st.fallbacks} (time-outs {st.timed_out})")


if __name__ == "__main__":
    main()
