"""The judge's resolve without the mail: CPU per envelope that only holds an order, and per
envelope that completes a decision, as ``koryo-pbm serve`` spends it in its own process.

The set-up is ``bench_judge.py``'s (``--games`` three-player Koryo games and the envelopes of
their first ten orders, cached under ``--cache``; made here if missing, no mail server needed).
Timed: every envelope resolved in one process as the judge does it, decision by decision across
the games (every game's first orders before any game's second): the game file the judge wrote
last kept in memory, its moderator's part opened, ``match.resolve`` with the envelope, the new
version signed and encoded (``gamefile.encode``). Neither the mail around it (reading, receipts,
state mails) nor writing the file is timed: ``bench_judge.py`` times the whole judge.

``--python PY`` (repeatable) times other installations on the same set-up, one process each, in
turn, ``--rounds`` times (default 3), and prints each one's best with its ratio to the first
named: ``--python /tmp/before/.venv/bin/python --python .venv/bin/python``. The set-up's game
files must be of a format every installation reads.

Run: ``python benchmarks/bench_judge_resolve.py [--games 100] [--python PY ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

TIMED = r"""
import json, os, sys, time
from datetime import UTC, datetime
from pathlib import Path

work, n = Path(sys.argv[1]), int(sys.argv[2])
os.environ["KORYO_PBM_HOME"] = str(work / "home")
from koryo_pbm import match
from koryo_pbm.crypto.envelope import parse_one
from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.store import gamefile

moderator = load_identity(work / "home" / "keys" / "mod.key")
envelopes = json.loads((work / "envelopes.json").read_text())[:n]
docs = {g: gamefile.read_game(work / "games" / f"g{g:04d}" / "game.toml") for g in range(n)}
steps = max(step for found in envelopes for step, _, _ in found) + 1
order = [(g, text) for step in range(steps) for g in range(n) for s, _, text in envelopes[g] if s == step]
now = datetime(2026, 11, 26, 6, 0, tzinfo=UTC)
spent = {"held": 0.0, "accepted": 0.0}
count = {"held": 0, "accepted": 0}
for g, text in order:
    doc = docs[g]
    start = time.process_time()
    mv = match.open_moderator(doc.replace(players=dict(doc.players), log=list(doc.log), sealed=dict(doc.sealed)),
                              moderator)
    result = match.resolve(mv, [match.Candidate(source="bench", envelope=parse_one(text))], now=now)
    gamefile.encode(result.doc, moderator)
    took = time.process_time() - start
    status = result.candidates[0].status
    if status not in spent or not result.written:
        sys.exit(f"game {g}: the envelope was {status}")
    spent[status] += took
    count[status] += 1
    docs[g] = result.doc
print(json.dumps({"spent": spent, "count": count, "code": match.__file__}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/koryo-pbm-bench-judge"))
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import bench_judge  # the same set-up (its servers are not started here)

    work = args.cache / "resolve" / f"games-{args.games}"
    work.parent.mkdir(parents=True, exist_ok=True)
    work = bench_judge.set_up(work.parent, args.games)
    pythons = args.python or [sys.executable]
    best: dict[str, dict[str, float]] = {}
    for r in range(args.rounds):
        for py in pythons if r % 2 == 0 else list(reversed(pythons)):
            # run in the set-up's folder: ``-c`` puts the current folder first on the path, and a
            # checkout's koryo_pbm there would be imported instead of the installation's
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            out = subprocess.run([py, "-c", TIMED, str(work), str(args.games)], capture_output=True, text=True,
                                 env=env, cwd=work)
            if out.returncode != 0:
                sys.exit(f"{py}: {out.stderr.strip()[-2000:]}")
            got = json.loads(out.stdout)
            ms = {k: got["spent"][k] / max(got["count"][k], 1) * 1000 for k in got["spent"]}
            ms["all"] = sum(got["spent"].values()) / sum(got["count"].values()) * 1000
            print(f"round {r + 1}: {py}: an order held {ms['held']:.2f} ms ({got['count']['held']}), a decision "
                  f"completed {ms['accepted']:.2f} ms ({got['count']['accepted']}), all {ms['all']:.2f} ms per envelope "
                  f"(code: {Path(got['code']).parent.parent})", flush=True)
            mine = best.setdefault(py, ms)
            for k, v in ms.items():
                mine[k] = min(mine[k], v)
    first = best[pythons[0]]
    print(f"best of {args.rounds} rounds, CPU per envelope (resolve, sign and encode; no mail):")
    for py in pythons:
        b = best[py]
        print(f"  {py}: held {b['held']:.2f} ms ({b['held'] / first['held']:.2f}x), completed "
              f"{b['accepted']:.2f} ms ({b['accepted'] / first['accepted']:.2f}x), all {b['all']:.2f} ms "
              f"({b['all'] / first['all']:.2f}x)")


if __name__ == "__main__":
    main()
