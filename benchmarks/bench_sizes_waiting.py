"""The size of a game file while it waits for players (what every state mail carries, as the
judge mails it: the player copy), installations side by side: games dealt from fixed seeds, every
decision answered by each seat's bot, resolved, and the player copy's size taken at each version.
Issue 32: the parts lost their menu rooms (1 to 6 KiB each waiting player, base64 in the file).

Run: ``python benchmarks/bench_sizes_waiting.py --python /tmp/before/.venv/bin/python --python .venv/bin/python``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TABLES = [("koryo", 3, ()), ("koryo", 4, ()), ("korsar", 4, ("--team", "p1,p2", "--team", "p3,p4"))]
SCRIPT = r'''
import json, sys
from pathlib import Path
from koryo_pbm.store.gamefile import player_copy
print(json.dumps(len(player_copy(Path(sys.argv[1]).read_bytes()))))
'''


def sizes(python: str, game: str, n: int, extra: tuple[str, ...], decisions: int, tmp: Path) -> list[int]:
    home = tmp / "home"
    env = {**os.environ, "KORYO_PBM_HOME": str(home)}
    env.pop("PYTHONPATH", None)

    def run(*args: str) -> str:
        r = subprocess.run([python, "-m", "koryo_pbm", *args], env=env, cwd=tmp, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{python} {' '.join(args)}: {r.stderr}")
        return r.stdout

    players = [f"p{i}" for i in range(1, n + 1)]
    for p in (*players, "mod"):
        run("keygen", p)
    folder = tmp / "g"
    run("new", str(folder), "--game", game, "--as", "mod", "--seed", f"sizes {game} {n}", *extra,
        *[f"--player={p}={home / 'keys' / (p + '.pub')}" for p in players])
    out = []
    for _ in range(decisions):
        status = json.loads(run("status", str(folder), "--json"))
        if status.get("decision") is None:
            break
        copy = subprocess.run([python, "-c", SCRIPT, str(folder / "game.toml")], capture_output=True, text=True, env=env)
        out.append(json.loads(copy.stdout))
        for p in status["missing"]:
            run("bot", str(folder), "--as", p)
        run("resolve", str(folder), "--as", "mod")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", action="append")
    parser.add_argument("--decisions", type=int, default=12)
    args = parser.parse_args()
    pythons = [str(Path(p).absolute()) for p in args.python] if args.python else [sys.executable]
    for game, n, extra in TABLES:
        row = []
        for python in pythons:
            with tempfile.TemporaryDirectory() as tmp:
                got = sizes(python, game, n, extra, args.decisions, Path(tmp))
            row.append(statistics.mean(got))
            print(f"{game} {n} players, {python}: player copy while waiting, mean {statistics.mean(got):,.0f} bytes "
                  f"(min {min(got):,}, max {max(got):,}, {len(got)} versions)")
        if len(row) > 1:
            print(f"  ratio last/first: {row[-1] / row[0]:.3f}")


if __name__ == "__main__":
    main()
