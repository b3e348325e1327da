"""The size of a finished game file: every state mail carries it (issue 19: a finished 4-player
Koryo game at most 64 KiB).

Plays complete games with ``koryo-pbm demo --dir`` (keys, join, orders, envelopes, resolve, as a
real game) for Koryo with 2, 3 and 4 players and Korsar with 4, a few seeds each, and prints
the sizes of their final ``game.toml`` and the ratio of the largest to the goal, and the sizes of
its player copy (what the judge mails players: the moderator's part as its digest; format v4 on).

``--python`` (repeatable) compares installations in one run (e.g. before and after a change of
the file format): each plays the same seeds, and the ratios of their mean sizes are printed.

Run: ``python benchmarks/bench_sizes.py [--seeds 3] [--python PY ...]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TABLES = [("koryo", 2), ("koryo", 3), ("koryo", 4), ("korsar", 4)]
GOAL = 64 * 1024  # a finished 4-player Koryo game


def sizes(n: int, python: str, game: str, players: int, seeds: int, tmp: Path) -> list[tuple[int, int | None]]:
    # run in the temporary folder: ``python -m`` finds a package in the current folder first, and a
    # checkout's would stand in for the installation compared
    out = []
    for i in range(seeds):
        folder = tmp / f"i{n}-{game}-{players}-{i}"
        env = {**os.environ, "KORYO_PBM_HOME": str(tmp / "home")}
        subprocess.run([python, "-m", "koryo_pbm", "demo", "--game", game, "--players", str(players),
                        "--seed", f"size-{i}", "--dir", str(folder), "--json"], env=env, check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
        data = (folder / "game.toml").read_bytes()
        out.append((len(data), len(player_copy(data)) if data.startswith(b'format = "koryo-pbm-game/v4"') else None))
    return out


def player_copy(data: bytes) -> bytes:
    from koryo_pbm.store.playercopy import player_copy as copy_of

    return copy_of(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    args = parser.parse_args()
    pythons = [os.path.abspath(p) for p in args.python] if args.python else [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        found = {(py, t): sizes(n, py, *t, args.seeds, Path(tmp)) for n, py in enumerate(pythons) for t in TABLES}
    for game, players in TABLES:
        line = f"{game} {players} players:"
        first = statistics.mean(whole for whole, _ in found[(pythons[0], (game, players))])
        for py in pythons:
            got = [whole for whole, _ in found[(py, (game, players))]]
            copies = [copy for _, copy in found[(py, (game, players))] if copy is not None]
            mean = statistics.mean(got)
            where = f" [{py}]" if len(pythons) > 1 else ""
            line += f"\n  {min(got) / 1000:6.1f}-{max(got) / 1000:6.1f} KB{where}"
            if len(pythons) > 1:
                line += f", {mean / first:.2f}x the first"
            if (game, players) == ("koryo", 4):
                line += f", largest {max(got) / GOAL:.2f}x the goal of 64 KiB"
            if copies:
                line += f"; player copy {min(copies) / 1000:.1f}-{max(copies) / 1000:.1f} KB"
        print(line)


if __name__ == "__main__":
    main()
