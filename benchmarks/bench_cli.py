"""CLI speed, as ratios measured side by side in one run (these machines are shared and noisy).

The baseline is the bare imports no call can avoid: starting Python and importing click,
tomllib and cryptography's Ed25519 (every command reads a TOML file and verifies a
signature). Each command is timed as a real process, interleaved with the baseline run after
run (one round times the baseline, then every command once), and the medians are compared: by the wall clock (the goal's measure) and by the
processes' CPU time (less disturbed by other work on the machine).
Goals (issue 19):

* ``status`` on a game in progress (one envelope in the inbox) — at most 1.2x the baseline;
* ``show --as``, ``orders``, ``submit --out``, ``resolve`` with nothing new in the inbox,
  ``resolve`` completing a decision (every order in), ``play`` to its first menu (standard
  input at its end: the menu is printed, nothing is submitted), ``verify`` of a finished
  4-player game — each at most 1.6x the baseline;
* ``demo`` — a complete 4-player Koryo game through the real protocol (keys, new, orders
  files, envelopes in the inbox, resolve) — at most 3x the baseline.

``--python`` (repeatable) times the commands of other installations in the same run, each in
its own folders (e.g. ``--python /tmp/before/.venv/bin/python --python .venv/bin/python``, to
compare a change before and after); the default is this interpreter.

Each command is run as users run it: the ``koryo-pbm`` console script that pip installed beside
the interpreter (``python -m koryo_pbm`` where there is none). ``--module`` times ``python -m
koryo_pbm`` instead, as this benchmark did before: that also imports ``runpy`` and
``importlib.util``, about 1 ms of CPU, where the console script compiles one pattern.

``--imports`` also times, for each command, a process that imports the modules the command
imports (as ``-X importtime`` lists them, in its order) and does nothing else: how much of a
command's ratio is its imports, and how much its own work.

Run: ``python benchmarks/bench_cli.py [--runs 15] [--no-demo] [--module] [--imports] [--python PY ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_IMPORTS = "import click, tomllib, cryptography.hazmat.primitives.asymmetric.ed25519"
PLAYERS = ["alice", "bob", "carol", "dave"]
GOALS = {"status": 1.2, "demo": 3.0}
DEFAULT_GOAL = 1.6


def timed(cmd: list[str], env: dict[str, str], cwd: Path, *, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """The wall time of one run of ``cmd`` and its CPU time (user + system: what the load of a
    shared machine changes less)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code not in ok:
        raise SystemExit(f"bench_cli: {' '.join(cmd)} exited {code}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


class Install:
    """One installation's commands and the folders they run on."""

    def __init__(self, python: str, root: Path, demo: bool, module: bool = False) -> None:
        self.python = os.path.abspath(python)  # not resolved: a virtualenv's python is a link
        self.root = root
        root.mkdir(parents=True)
        self.env = {**os.environ, "KORYO_PBM_HOME": str(root / "home")}
        # As installed by pip, modules run from their byte-compiled files: let Python write them
        # (some environments forbid it), and warm up before timing.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        script = Path(self.python).parent / "koryo-pbm"  # what pip installed for users to type
        self.cli = [self.python, "-m", "koryo_pbm"] if module or not script.is_file() else [str(script)]
        self.demo = demo

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> str:
        proc = subprocess.run([*self.cli, *args], env=self.env, cwd=self.root, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
        if proc.returncode not in ok:
            raise SystemExit(f"bench_cli: koryo-pbm {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def set_up(self) -> None:
        r = self.root
        keys = {name: self.run("keygen", name).strip() for name in ["mod", *PLAYERS]}
        new = ["new", str(r / "g"), "--as", "mod", "--seed", "bench"]
        for p in PLAYERS:
            new += ["--player", f"{p}={keys[p]}"]
        self.run(*new)
        shutil.copytree(r / "g", r / "idle")  # resolve with nothing new: an empty inbox
        # Every order of the first decision in the inbox: resolve completes it (on a fresh copy each run).
        shutil.copytree(r / "g", r / "full")
        waiting = json.loads(self.run("status", str(r / "g"), "--json"))["waiting_for"]
        for p in waiting:
            self.run("orders", str(r / "full"), "--as", p, "-o", str(r / f"o-{p}.toml"))
            self.run("submit", str(r / f"o-{p}.toml"), "--as", p, "--game", str(r / "full"))
        # The common case for status: a game in progress with one envelope in the inbox.
        self.first = waiting[0]
        self.second = waiting[1] if len(waiting) > 1 else waiting[0]
        self.run("submit", str(r / f"o-{self.first}.toml"), "--as", self.first, "--game", str(r / "g"))
        # A finished 4-player game to verify.
        self.run("demo", "--seed", "bench-verify", "--dir", str(r / "finished"))
        self.commands: dict[str, tuple[list[str], tuple[int, ...]]] = {
            "status": (["status", str(r / "g")], (0,)),
            "show --as": (["show", str(r / "g"), "--as", self.first], (0,)),
            "orders": (["orders", str(r / "g"), "--as", self.second, "-o", str(r / "out.toml")], (0,)),
            "submit --out": (["submit", str(r / f"o-{self.first}.toml"), "--as", self.first, "--game",
                              str(r / "g"), "--out", str(r / "envelope.txt")], (0,)),
            "resolve (nothing new)": (["resolve", str(r / "idle"), "--as", "mod"], (0,)),
            "resolve (a decision)": (["resolve", str(r / "run"), "--as", "mod"], (0,)),
            # standard input at its end: the first menu is printed, then "no answer" (exit 130;
            # 1 in older installations, which --python may time)
            "play (first menu)": (["play", str(r / "g"), "--as", self.second], (1, 130)),
            "verify": (["verify", str(r / "finished")], (0,)),
        }
        if self.demo:
            self.commands["demo"] = (["demo", "--seed", "bench"], (0,))

    def _prepared(self, label: str, i: int) -> tuple[list[str], dict[str, str], tuple[int, ...]]:
        args, ok = self.commands[label]
        r = self.root
        if label == "orders":
            (r / "out.toml").unlink(missing_ok=True)
        env = self.env
        if label == "resolve (a decision)":
            # a fresh copy of the game and of the home (whose memory of games seen would
            # otherwise take the copy for a rolled-back file)
            for name in ("run", "run-home"):
                shutil.rmtree(r / name, ignore_errors=True)
            shutil.copytree(r / "full", r / "run")
            shutil.copytree(r / "home", r / "run-home")
            env = {**env, "KORYO_PBM_HOME": str(r / "run-home")}
        if label == "demo":
            args = ["demo", "--seed", f"bench-{i}"]
        return [*self.cli, *args], env, ok

    def time(self, label: str, i: int) -> tuple[float, float]:
        cmd, env, ok = self._prepared(label, i)
        return timed(cmd, env, self.root, ok=ok)

    def imports_alone(self, label: str) -> list[str]:
        """A process that imports what ``label`` imports, in the same order, and does nothing
        else (``--imports``): the floor that the command's own work stands on."""
        cmd, env, ok = self._prepared(label, -1)
        proc = subprocess.run(cmd, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd=self.root, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)
        if proc.returncode not in ok:
            raise SystemExit(f"bench_cli: {' '.join(cmd)} exited {proc.returncode}")
        # `import time: self | cumulative | name`, a module imported at top level unindented
        names = [line.split("|")[2][1:] for line in proc.stderr.splitlines()
                 if line.startswith("import time:") and line.count("|") == 2]
        top = [n for n in names if not n.startswith(" ") and n not in ("__main__", "koryo_pbm.__main__")]
        # as the console script does: the collector's threshold is raised once the command line is imported
        script = (f"import gc\nfor name in {top!r}:\n    try:\n        __import__(name)\n"
                  "    except ImportError:\n        continue\n"
                  "    if name == 'koryo_pbm.cli.main':\n"
                  "        gc.set_threshold(getattr(__import__('sys').modules[name], 'GC_THRESHOLD', 700))\n")
        return [self.python, "-c", script]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    parser.add_argument("--no-demo", action="store_true", help="leave out demo (the slowest)")
    parser.add_argument("--imports", action="store_true",
                        help="also time, for each command, a process that only imports what it imports")
    parser.add_argument("--module", action="store_true",
                        help="time `python -m koryo_pbm` rather than the installed `koryo-pbm` script")
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        baseline = [pythons[0], "-c", BASE_IMPORTS]
        installs = [Install(py, tmp_path / f"i{n}", not args.no_demo, args.module) for n, py in enumerate(pythons)]
        for inst in installs:
            inst.set_up()
        labels = list(installs[0].commands)
        alone = {(n, label): inst.imports_alone(label) for n, inst in enumerate(installs) for label in labels
                 if args.imports and label != "demo"}
        for i in range(2):  # warm-up: byte-compiled files, the page cache
            timed(baseline, installs[0].env, tmp_path)
            for n, inst in enumerate(installs):
                for label in labels:
                    inst.time(label, -1 - i)
                    if (n, label) in alone:
                        timed(alone[(n, label)], inst.env, inst.root)
        base: list[tuple[float, float]] = []
        times: dict[tuple[int, str], list[tuple[float, float]]] = {(n, label): [] for n in range(len(installs))
                                                                   for label in labels}
        imports: dict[tuple[int, str], list[tuple[float, float]]] = {key: [] for key in alone}
        for i in range(args.runs):
            base.append(timed(baseline, installs[0].env, tmp_path))
            for n, inst in enumerate(installs):
                for label in labels:
                    times[(n, label)].append(inst.time(label, i))
                    if (n, label) in alone:
                        imports[(n, label)].append(timed(alone[(n, label)], inst.env, inst.root))
        b = statistics.median(w for w, _ in base)
        bc = statistics.median(c for _, c in base)
        print(f"baseline (python, click, tomllib, ed25519): {b * 1000:6.1f} ms wall, {bc * 1000:6.1f} ms CPU "
              f"(medians of {args.runs} rounds)")
        for n, inst in enumerate(installs):
            if len(installs) > 1:
                print(f"{inst.python} ({'python -m koryo_pbm' if len(inst.cli) > 1 else 'the koryo-pbm script'}):")
            for label in labels:
                t = statistics.median(w for w, _ in times[(n, label)])
                c = statistics.median(c for _, c in times[(n, label)])
                goal = GOALS.get(label, DEFAULT_GOAL)
                mark = "ok" if t / b <= goal else "OVER"
                floor = ""
                if (n, label) in imports:
                    ic = statistics.median(c for _, c in imports[(n, label)])
                    floor = f";  its imports alone: CPU {ic * 1000:6.1f} ms = {ic / bc:5.2f}x"
                print(f"  {label:<22} {t * 1000:7.1f} ms = {t / b:5.2f}x  (goal <= {goal}x: {mark});  "
                      f"CPU {c * 1000:6.1f} ms = {c / bc:5.2f}x{floor}")


if __name__ == "__main__":
    main()
