"""CLI speed, as ratios measured side by side in one run (these machines are shared and noisy).

The baseline is the bare imports no call can avoid: starting Python and importing click,
tomllib and cryptography's Ed25519 (every command reads a TOML file and verifies a
signature). Each command is timed as a real process, interleaved with the baseline run after
run, and the medians are compared:

* ``koryo-pbm status`` on a game in progress — goal: at most 1.3× the baseline;
* ``koryo-pbm demo`` — a complete 4-player Koryo game through the real protocol (keys, new,
  orders files, envelopes in the inbox, resolve) — goal: at most 3× the baseline.

Run: ``python benchmarks/bench_cli.py [--runs 15]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = [sys.executable, "-c", "import click, tomllib, cryptography.hazmat.primitives.asymmetric.ed25519"]
CLI = [sys.executable, "-m", "koryo_pbm"]


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = {**os.environ, "KORYO_PBM_HOME": str(tmp_path / "home")}
        # A game in progress, with one player's envelope in the inbox: the common case.
        keys = {}
        for name in ["mod", "alice", "bob", "carol", "dave"]:
            keys[name] = subprocess.run([*CLI, "keygen", name], env=env, check=True, capture_output=True,
                                        text=True).stdout.strip()
        new = [*CLI, "new", str(tmp_path / "g"), "--as", "mod", "--seed", "bench"]
        for p in ["alice", "bob", "carol", "dave"]:
            new += ["--player", f"{p}={keys[p]}"]
        subprocess.run(new, env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*CLI, "orders", str(tmp_path / "g"), "--as", "alice", "-o", str(tmp_path / "o.toml")],
                       env=env, check=True, stderr=subprocess.DEVNULL)
        subprocess.run([*CLI, "submit", str(tmp_path / "o.toml"), "--as", "alice", "--game", str(tmp_path / "g")],
                       env=env, check=True, stderr=subprocess.DEVNULL)

        base, status, demo = [], [], []
        for i in range(args.runs):
            base.append(timed(BASELINE, env, tmp_path))
            status.append(timed([*CLI, "status", str(tmp_path / "g")], env, tmp_path))
            base.append(timed(BASELINE, env, tmp_path))
            demo.append(timed([*CLI, "demo", "--seed", f"bench-{i}"], env, tmp_path))
        b, s, d = statistics.median(base), statistics.median(status), statistics.median(demo)
        print(f"baseline (python + click + tomllib + ed25519 imports): {b * 1000:.1f} ms (median of {len(base)})")
        print(f"koryo-pbm status:              {s * 1000:.1f} ms = {s / b:.2f}x baseline (goal <= 1.3x)")
        print(f"koryo-pbm demo (4 players):    {d * 1000:.1f} ms = {d / b:.2f}x baseline (goal <= 3x)")


if __name__ == "__main__":
    main()
