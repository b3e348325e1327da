"""Random 4-player Koryo games per second, through ``koryo_pbm.engine.simulate.simulate``.

Run: ``python3 benchmarks/bench_koryo_simulate.py [games] [seed]`` (one core, one process).
Each of three runs prints games per second by the wall clock (``time.perf_counter``, what the
goal is measured by: 3,000 games per second, issue 19) and by the process's CPU time
(``time.process_time``, less disturbed when other work shares the machine). The last line is
the best of the three runs (the machine's noise only ever slows a run down). The bots' choices
(``random_order``) are part of the measured loop.

``--commit REV`` (repeatable) compares this checkout's code with the code of git commits side
by side in one run instead: each commit's ``koryo_pbm`` and ``games`` are taken out of git
(``git archive``) into a temporary folder and run by this interpreter in a process of their own,
in turn with this checkout's, round after round (``--rounds``, default 5), every side playing
the same games; the best CPU-time rates are printed with their ratio to the first commit named
(e.g. ``--commit main``: this code / main's). ``--python PY`` (repeatable) does the same with
whole installations (each one's interpreter): ``--python /tmp/before/.venv/bin/python --python
.venv/bin/python``: after / before.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Run in a process of its own: the code of the tree ``argv[1]`` stands in for the installed
# package (``koryo_pbm`` first on the path; ``koryo_pbm_games``, the games' package, loaded
# from its ``games`` folder before anything asks for it), then ``tree_run(*argv[4:])`` of the
# benchmark module ``argv[3]`` (of this folder, ``argv[2]``) prints its rates.
TREE_RUN = """
import importlib, importlib.util, sys
root, here, bench, *args = sys.argv[1:]
sys.path[:0] = [root, here]
spec = importlib.util.spec_from_file_location(
    "koryo_pbm_games", root + "/games/__init__.py", submodule_search_locations=[root + "/games"])
module = importlib.util.module_from_spec(spec)
sys.modules["koryo_pbm_games"] = module
spec.loader.exec_module(module)
import koryo_pbm
assert koryo_pbm.__file__.startswith(root), koryo_pbm.__file__
print(*importlib.import_module(bench).tree_run(*args))
"""


def code_trees(revs: list[str], tmp: str) -> dict[str, str]:
    """The code (``koryo_pbm`` and ``games``) of each commit of ``revs``, taken out of git into a
    folder of ``tmp``, and this checkout's: label -> folder."""
    trees: dict[str, str] = {}
    for rev in revs:
        tree = os.path.join(tmp, str(len(trees)))
        os.mkdir(tree)
        archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "koryo_pbm", "games"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], check=True,
                                capture_output=True, text=True).stdout.strip()
        trees[f"{rev} ({commit})"] = tree
    trees["this checkout"] = ROOT
    return trees


def run_in_tree(tree: str, bench: str, *args: str, cwd: str) -> list[float]:
    """``bench.tree_run(*args)`` with the code of ``tree``, in a process of its own."""
    out = subprocess.run([sys.executable, "-c", TREE_RUN, tree, HERE, bench, *args], check=True, cwd=cwd,
                         capture_output=True, text=True).stdout.split()
    return [float(x) for x in out]


def tree_run(games: str, seed: str) -> list[float]:
    """What ``--commit`` runs with each code: one warm-up, then the CPU-time rate of one run."""
    one_run(20, "warm-up")
    return [one_run(int(games), seed)[1]]


def one_run(games: int, seed: str) -> tuple[float, float]:
    """Games per second of one run: (wall clock, CPU time)."""
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import simulate

    game = find_game("koryo")
    cpu = time.process_time()
    result = simulate(game, 4, games, seed, clock=time.perf_counter)
    cpu = time.process_time() - cpu
    return result.games / result.seconds, result.games / cpu


def compare_trees(revs: list[str], games: int, seed: str, rounds: int) -> None:
    """This checkout's code against the code of the commits ``revs``, in turn, in one run."""
    with tempfile.TemporaryDirectory(prefix="bench-koryo-") as tmp:
        trees = code_trees(revs, tmp)
        best = {label: 0.0 for label in trees}
        for r in range(rounds):
            for label, tree in trees.items():
                rate = run_in_tree(tree, "bench_koryo_simulate", str(games), f"{seed}/{r}", cwd=tmp)[0]
                best[label] = max(best[label], rate)
        first = best[next(iter(trees))]
        print(f"best of {rounds} rounds of {games} random 4-player Koryo games, each code in turn (CPU time):")
        for label, cpu in best.items():
            print(f"  {label}: {cpu:7.0f} games/s ({cpu / first:.2f}x)")


def compare(pythons: list[str], games: int, seed: str, rounds: int) -> None:
    best: dict[str, list[float]] = {py: [0.0, 0.0] for py in pythons}
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import bench_koryo_simulate as b; "
            "b.one_run(20, 'warm-up'); print(*b.one_run(int(sys.argv[2]), sys.argv[3]))")
    for r in range(rounds):
        for py in pythons:
            # run from the benchmarks folder: the current folder comes first on the path of
            # ``python -c``, and a checkout there would stand in for the installation compared
            out = subprocess.run([py, "-c", code, HERE, str(games), f"{seed}/{r}"], check=True, cwd=HERE,
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
    parser.add_argument("--commit", action="append", help="a git commit whose code to compare (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.commit:
        compare_trees(args.commit, args.games, args.seed, args.rounds)
        return
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
