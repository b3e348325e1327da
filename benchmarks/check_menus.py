"""The player page's menus of two installations, compared byte for byte over random positions.

Plays seeded random games (3- and 4-player Koryo, 3- and 4-player Korsar, random legal orders)
and at every decision asks ``choices.menus_for`` for every waiting player's menu, as ``resolve``
does (each player's table as text and the picture), the caches emptied first; then the same
decision again with a long view that compresses little (what fits changes: long action turns are
cut elsewhere, the picture or the view may be left out), from the builders the first call kept,
and once more with the caches emptied. Every encoded menu (the compressed, base64 text sealed
in the part) of each installation is recorded, with the CPU ``menus_for`` took; the records are
then compared, and the first difference named.

Run: ``python benchmarks/check_menus.py --python /tmp/before/bin/python --python .venv/bin/python
[--games 6]``. Each installation runs in its own process (``--record FILE`` is that process).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SETS = (("koryo", 3), ("koryo", 4), ("korsar", 3), ("korsar", 4))


def record(path: Path, games: int) -> None:
    import random
    import time

    from koryo_pbm import choices
    from koryo_pbm.engine import scene
    from koryo_pbm.engine.registry import find_game

    out: list[tuple[str, str, str]] = []  # (case, player, encoded menu)
    spent = 0.0
    for name, n in SETS:
        game = find_game(name)
        players = [f"player-{i}" for i in range(1, n + 1)]
        for g in range(games):
            options = {"teams": [players[:2], players[2:]]} if name == "korsar" and n == 4 else None
            seed = f"check-menus-{name}-{n}-{g}"
            state = game.setup(players, seed, options=options)
            rng = random.Random(seed)
            step = 0
            while (decision := game.pending(state)) is not None:
                public = game.public(state)
                privates = {p: game.private(state, p) for p in players}
                full = {p: {**game.view(public, privates[p]), "me": p, "id": f"{name}-0123456789", "game": name,
                            "version": step, "decision": decision.id, "waiting_for": list(decision.players),
                            "received": []} for p in decision.players}
                views = {p: game.render(full[p]) for p in decision.players}
                pictures = {p: {"title": game.title, "scene": scene.to_json(game.picture(full[p]))}
                            for p in decision.players}
                noisy = {p: "".join(random.Random(f"{seed}/{step}/{p}").choices("abcdefghijklmnopqrstuvwxyz0123456789",
                                                                             k=2000 + 500 * (step % 5)))
                         for p in decision.players}
                args = {"game_id": f"{name}-0123456789", "game_public": public, "privates": privates}
                for case, kwargs, clear in (("fresh", {"views": views, "pictures": pictures}, True),
                                            ("kept-noisy", {"views": noisy, "pictures": pictures}, False),
                                            ("noisy", {"views": noisy, "pictures": pictures}, True),
                                            ("kept-again", {"views": views, "pictures": pictures}, False)):
                    if clear:
                        choices._KEPT.builders.clear()
                        choices._WHOLE.menus.clear()
                    start = time.process_time()
                    menus = choices.menus_for(game, state, **args, **kwargs)
                    spent += time.process_time() - start
                    label = f"{name}{n}/g{g}/{step}/{decision.id}/{case}"
                    out.extend((label, p, menus[p]) for p in sorted(menus))
                state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players}, log=False)
                step += 1
    path.write_text(json.dumps({"menus": out, "cpu": spent}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append", default=[], help="an installation's python (two or more)")
    ap.add_argument("--games", type=int, default=6, help="random games of each kind (default 6)")
    ap.add_argument("--record", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.record:
        record(Path(a.record), a.games)
        return 0
    if len(a.python) < 2:
        ap.error("name two installations with --python")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, python in enumerate(a.python):
            target = Path(tmp) / f"{i}.json"
            subprocess.run([os.path.abspath(python), str(Path(__file__).resolve()), "--record", str(target), "--games", str(a.games)],
                           check=True, cwd=tmp)
            runs.append(json.loads(target.read_text()))
    first = runs[0]
    for python, run in zip(a.python, runs, strict=True):
        print(f"{python}: {len(run['menus'])} menus, menus_for {run['cpu']:.2f} s of CPU "
              f"({run['cpu'] / first['cpu']:.2f}x)")
    for python, run in zip(a.python[1:], runs[1:], strict=True):
        if run["menus"] != first["menus"]:
            for x, y in zip(first["menus"], run["menus"], strict=False):
                if x != y:
                    print(f"DIFFERENT: {python} at {x[0]} {x[1]} (vs {y[0]} {y[1]})")
                    break
            else:
                print(f"DIFFERENT: {python} has {len(run['menus'])} menus, not {len(first['menus'])}")
            return 1
    print(f"the same, byte for byte: {len(first['menus'])} menus "
          f"({len({m[0].rsplit('/', 1)[0] for m in first['menus']})} decisions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
