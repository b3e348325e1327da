"""The engine's ``search`` level against its goals (issue 33, item 6), whole matches on one core.

Run: ``python3 benchmarks/bench_search.py [games] [goal ...] [--out FILE] [--seed TEXT]``
(default 200 games, every goal; game *i* of a goal is seeded ``TEXT/goal/i``, default
``bench-search``: another seed gives other games, to run a goal in several processes). The goals, each a table of levels played ``games`` times, the levels moving one
seat per match (``simulate --bots``), so no level keeps a seat's advantage:

* ``<game>-random``: 2 players, ``search`` against ``random``, in every registered game: the
  search should win at least 70%.
* ``koryo-heuristic``: 4 players, the engine's ``search`` against three ``heuristic`` bots:
  at least Koryo's own search level's share (40.4% over 240 games, issue 33);
  ``koryo-own-heuristic`` plays Koryo's own search in the same seats, side by side.
* ``korsar-heuristic``: 2 players, ``search`` against ``heuristic``: more than half.

In Koryo, which has a ``search`` of its own, the engine's is played through a copy of the game
that declares only its other levels. Printed (and appended as JSON lines to ``--out``, after
every match, so a long run can be read while it goes): wins of the first level with a 95%
Wilson interval, and the seconds per decision of each level (mean and max, by the process's
CPU clock, what the bots' safety limit counts).
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any

from koryo_pbm.engine.bots import with_engine_search
from koryo_pbm.engine.registry import find_game, names
from koryo_pbm.engine.simulate import SimulationResult, simulate


def goals() -> dict[str, tuple[str, list[str], bool]]:
    """Goal name -> (game, levels by seat, whether the engine's search plays)."""
    out = {f"{name}-random": (name, ["search", "random"], True) for name in names()}
    out["koryo-heuristic"] = ("koryo", ["search", "heuristic", "heuristic", "heuristic"], True)
    out["koryo-own-heuristic"] = ("koryo", ["search", "heuristic", "heuristic", "heuristic"], False)
    out["korsar-heuristic"] = ("korsar", ["search", "heuristic"], True)
    return {k: v for k, v in out.items() if v[0] in names()}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``wins / n``."""
    if not n:
        return 0.0, 1.0
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


def summary(goal: str, result: SimulationResult) -> dict[str, Any]:
    assert result.levels is not None and result.bots is not None
    first = result.bots[0]
    st = result.levels[first]
    n = result.games * st.seats
    lo, hi = wilson(st.wins, n)
    return {
        "goal": goal, "games": result.games, "levels": result.bots, "wins": st.wins, "share": st.wins / n if n else 0.0,
        "ci95": [round(lo, 4), round(hi, 4)], "seconds": round(result.seconds, 1),
        "per_decision": {lv: {"mean": round(s.seconds_total / s.decisions, 4) if s.decisions else 0.0,
                              "max": round(s.seconds_max, 4), "decisions": s.decisions, "fallbacks": s.fallbacks}
                         for lv, s in result.levels.items()},
    }


def main() -> None:
    args = sys.argv[1:]
    out = None
    seed = "bench-search"
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = args[i + 1]
        del args[i:i + 2]
    games = int(args[0]) if args else 200
    table = goals()
    chosen = args[1:] or list(table)
    for goal in chosen:
        name, levels, engine = table[goal]
        game = find_game(name)
        game = with_engine_search(game) if engine else game

        def progress(_i: int, partial: SimulationResult, goal: str = goal) -> None:
            if out is not None:
                with open(out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(summary(goal, partial)) + "\n")

        result = simulate(game, len(levels), games, f"{seed}/{goal}", bots=levels, clock=time.perf_counter,
                          progress=progress)
        s = summary(goal, result)
        lo, hi = s["ci95"]
        print(f"{goal}: {', '.join(levels)}; {s['games']} games: {levels[0]} won {s['wins']} "
              f"({s['share']:.1%}, 95% {lo:.1%}..{hi:.1%}), {s['seconds']:.0f} s in all")
        for lv, d in s["per_decision"].items():
            print(f"  {lv:<10} {d['decisions']:>6} decisions  mean {d['mean']:.3f} s  max {d['max']:.3f} s  fallbacks {d['fallbacks']}")


if __name__ == "__main__":
    main()
