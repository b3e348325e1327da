"""The heuristic bot's suggestion in every menu: CPU per suggestion by game and decision kind,
two installations side by side, and their suggestions compared one by one.

The menus of ``play`` and of the player page (``koryo_pbm/pagecore.py``; before, each menu the
moderator's resolve sealed) carry the ``heuristic`` bot's order as a suggestion, one per
waiting player and decision. Here seeded games
are played (2-, 3- and 4-player Koryo; 2-, 3-, 5-player and 4- and 6-player team Korsar; half the
seats play the heuristic, half random legal orders) and at every decision each waiting player's
public and private parts are kept. Each installation then suggests in every one of those
positions, as ``pagecore`` asks for it: from the state the menu is built from
(``bots.choose_in_view`` on ``game.from_view``, where the installation has it; before it, the menu
asked ``bots.choose_from_view``, which rebuilt that state again from the parts). Printed: the
mean CPU per suggestion by game and kind, each installation's ratio to the first named, and
whether every suggestion is the same order.

Run: ``python benchmarks/bench_suggest.py --python /tmp/before/bin/python --python .venv/bin/python
[--games 6] [--rounds 2]``. Each installation runs in its own process (``--record FILE`` is that
process); the positions are made by the first installation named.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SETS = (("koryo", 2, None), ("koryo", 3, None), ("koryo", 4, None), ("korsar", 2, None), ("korsar", 3, None),
        ("korsar", 4, {"teams": True}), ("korsar", 5, None), ("korsar", 6, {"teams": True}))


def positions(path: Path, games: int) -> None:
    """Every waiting player's parts at every decision of ``games`` seeded games per set."""
    import random

    from koryo_pbm.engine import bots
    from koryo_pbm.engine.registry import find_game

    out = []
    for name, n, options in SETS:
        game = find_game(name)
        for g in range(games):
            players = [f"p{i}" for i in range(1, n + 1)]
            seed = f"bench-suggest/{name}/{n}/{g}"
            state = game.setup(players, seed, options=options)
            rng = random.Random(seed)
            heuristic = {p for i, p in enumerate(players) if (i + g) % 2}
            while (decision := game.pending(state)) is not None:
                public = game.public(state)
                orders = {}
                for p in decision.players:
                    out.append({"game": name, "kind": decision.kind, "public": public,
                                "private": game.private(state, p), "player": p, "seed": f"{seed}/{decision.id}/{p}"})
                    orders[p] = (bots.choose(game, state, p, "heuristic", seed=seed).order if p in heuristic
                                 else game.random_order(state, p, rng))
                state, _events = game.apply(state, orders)
    path.write_text(json.dumps(out))


def record(source: Path, path: Path) -> None:
    """Suggest in every position of ``source``; write the orders and the CPU by game and kind."""
    import time

    from koryo_pbm.engine import bots
    from koryo_pbm.engine.registry import find_game

    games = {name: find_game(name) for name, _n, _o in SETS}
    in_view = getattr(bots, "choose_in_view", None)
    orders = []
    cpu: dict[str, float] = {}
    count: dict[str, int] = {}
    for pos in json.loads(source.read_text()):
        game, player = games[pos["game"]], pos["player"]
        if in_view is not None:  # what the menu asks: from the state its builder is made from
            view = game.from_view(pos["public"], pos["private"], player)
            start = time.process_time()
            choice = in_view(game, view, player, "heuristic", seed=pos["seed"])
        else:
            start = time.process_time()
            choice = bots.choose_from_view(game, pos["public"], pos["private"], player, "heuristic", seed=pos["seed"])
        spent = time.process_time() - start
        key = f"{pos['game']} {pos['kind']}"
        cpu[key] = cpu.get(key, 0.0) + spent
        count[key] = count.get(key, 0) + 1
        orders.append(choice.order)
    path.write_text(json.dumps({"orders": orders, "cpu": cpu, "count": count}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    parser.add_argument("--games", type=int, default=6, help="games per table size")
    parser.add_argument("--rounds", type=int, default=2, help="timed runs of each installation, in turn")
    parser.add_argument("--record", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--positions", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.record:
        record(*args.record)
        return
    if args.positions:
        positions(args.positions, args.games)
        return
    pythons = args.python or [sys.executable]
    me = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="bench-suggest-") as tmp:
        source = Path(tmp) / "positions.json"
        subprocess.run([pythons[0], me, "--positions", str(source), "--games", str(args.games)], check=True,
                       cwd=tmp)
        best: list[dict] = [{} for _ in pythons]
        first_orders = None
        for r in range(args.rounds):
            for i, py in enumerate(pythons):
                out = Path(tmp) / f"{i}-{r}.json"
                subprocess.run([py, me, "--record", str(source), str(out)], check=True, cwd=tmp)
                rec = json.loads(out.read_text())
                if first_orders is None:
                    first_orders = rec["orders"]
                elif rec["orders"] != first_orders:
                    k = next(j for j, (a, b) in enumerate(zip(rec["orders"], first_orders, strict=True)) if a != b)
                    raise SystemExit(f"bench_suggest: {py} suggests {rec['orders'][k]} where {pythons[0]} "
                                     f"suggests {first_orders[k]} (position {k})")
                for key, spent in rec["cpu"].items():
                    mean = spent / rec["count"][key]
                    best[i][key] = min(best[i].get(key, (mean, 0))[0], mean), rec["count"][key]
        for i, py in enumerate(pythons):
            print(f"{py}:")
            for key in sorted(best[i]):
                mean, n = best[i][key]
                ratio = mean / best[0][key][0]
                print(f"  {key:<15} {n:>6} suggestions  {mean * 1e6:8.1f} us each (best of {args.rounds})  "
                      f"{ratio:5.2f}x the first's")
        assert first_orders is not None
        print(f"the same suggestion in all {len(first_orders)} positions")


if __name__ == "__main__":
    main()
