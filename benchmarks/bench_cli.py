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
# What a demo cannot avoid on top: writing TOML, sealing (HPKE, X25519), key files, and the
# entry points through which every game, built-in or not, is found.
DEMO_BASELINE = [sys.executable, "-c", "import click, tomllib, tomli_w, importlib.metadata, "
                 "cryptography.hazmat.primitives.hpke, cryptography.hazmat.primitives.serialization, "
                 "cryptography.hazmat.primitives.asymmetric.ed25519, cryptography.hazmat.primitives.asymmetric.x25519"]
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
        # As installed by pip, modules run from their byte-compiled files: let Python write them
        # (some environments forbid it), and warm up before timing.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
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

        for _ in range(2):
            timed(BASELINE, env, tmp_path)
            timed([*CLI, "status", str(tmp_path / "g")], env, tmp_path)
            timed([*CLI, "demo", "--seed", "warm-up"], env, tmp_path)
        base, demo_base, status, demo = [], [], [], []
        for i in range(args.runs):
            base.append(timed(BASELINE, env, tmp_path))
            status.append(timed([*CLI, "status", str(tmp_path / "g")], env, tmp_path))
            demo_base.append(timed(DEMO_BASELINE, env, tmp_path))
            demo.append(timed([*CLI, "demo", "--seed", f"bench-{i}"], env, tmp_path))
        b, db = statistics.median(base), statistics.median(demo_base)
        s, d = statistics.median(status), statistics.median(demo)
        print(f"baseline A (python, click, tomllib, ed25519):        {b * 1000:6.1f} ms (median of {args.runs})")
        print(f"baseline B (A + tomli_w, metadata, hpke, x25519...): {db * 1000:6.1f} ms")
        print(f"koryo-pbm status:            {s * 1000:6.1f} ms = {s / b:.2f}x A (goal <= 1.3x)")
        print(f"koryo-pbm demo (4 players):  {d * 1000:6.1f} ms = {d / b:.2f}x A, {d / db:.2f}x B (goal <= 3x)")


if __name__ == "__main__":
    main()
