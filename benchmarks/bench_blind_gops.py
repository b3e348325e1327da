"""GOPS at the blind table: CPU of a prize turned up in public for each party, as ``co-deal``,
``resolve`` and a player's ``show`` do it, beside the open game's rules of a round in the same
run; the co-dealer's check grows with the game (it replays the rules from every signed order).
And the finished file, blind beside open.

    python benchmarks/bench_blind_gops.py [--runs 5]

CPU is process time, median of the runs, on this machine."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import tempfile
import time
from pathlib import Path


def _cli(home: Path, cwd: Path, *args: object) -> None:
    from koryo_pbm.cli.main import main

    os.environ["KORYO_PBM_HOME"] = str(home)
    os.chdir(cwd)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in args])
    if code != 0:
        raise SystemExit(f"koryo-pbm {' '.join(map(str, args))} failed")


def _game(root: Path, blind: bool) -> dict[str, bytes]:
    """A 2-player game played to the end by shared folder (``orders``' example bids); the file at
    each decision it waited for."""
    from koryo_pbm.store import gamefile

    home = root / "home"
    keys = {}
    for n in ("mod", "alice", "bob", "carl"):
        _cli(home, root, "keygen", n)
        keys[n] = (home / "keys" / f"{n}.pub").read_text().strip()
    _cli(home, root, "new", "g", "--game", "gops", "--as", "mod", *(["--blind", "--co-dealer", f"carl={keys['carl']}"]
                                                                    if blind else ["--seed", "bench"]),
         "--player", f"alice={keys['alice']}", "--player", f"bob={keys['bob']}")
    files = {}
    for _ in range(60):
        path = root / "g" / "game.toml"
        doc = gamefile.read_game(path)
        if doc.decision is None:
            files["end"] = path.read_bytes()
            return files
        files[doc.decision["id"]] = path.read_bytes()
        if doc.decision["waiting_for"] == ["carl"]:
            _cli(home, root, "co-deal", "g", "--as", "carl")
        else:
            for p in doc.decision["waiting_for"]:
                _cli(home, root, "orders", "g", "--as", p, "-o", root / f"o-{p}.toml")
                _cli(home, root, "submit", root / f"o-{p}.toml", "--as", p, "--game", "g")
        _cli(home, root, "resolve", "g", "--as", "mod")
    raise SystemExit("the game did not end")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    from koryo_pbm import blind, match
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("open", "blind"):
            Path(tmp, kind).mkdir()
        open_files = _game(Path(tmp, "open").resolve(), False)
        root = Path(tmp, "blind").resolve()
        files = _game(root, True)
        os.environ["KORYO_PBM_HOME"] = str(root / "home")
        carl, mod = find_identity("carl"), find_identity("mod")
        os.chdir(here)
        (root / "v").mkdir()

        def doc_of(name: str):
            (root / "v" / "game.toml").write_bytes(files[name])
            return gamefile.read_game(root / "v" / "game.toml")

        gops = match.game_of(doc_of("end")).inner
        ostate = gops.setup(["alice", "bob"], "bench")
        bids = {p: {"bid": "b7"} for p in ("alice", "bob")}

        def co_deal(name: str):
            doc = doc_of(name)
            game = match.game_of(doc)
            players = {n: k for n, k in doc.players.items() if n != "carl"}
            return lambda: blind.co_deal(game, doc.public, players, carl, doc.decision["id"], doc.log,
                                         moderator=doc.moderator)

        def apply(name: str):
            doc = doc_of(name)
            mv = match.open_moderator(doc, mod)
            body = co_deal(name)()
            return lambda: mv.game.apply(mv.state, {"carl": body})

        final = doc_of("end")
        rows = {
            "open: the rules of a round (no cryptography)": lambda: gops.apply(ostate, bids),
            "co-dealer: turn up round 2's prize (replays 1 round)": co_deal("r2-turn-up"),
            "co-dealer: turn up round 13's prize (replays 12 rounds)": co_deal("r13-turn-up"),
            "moderator: apply a turn-up (its share, carl's checked)": apply("r13-turn-up"),
            "anyone: check the 13 prizes turned up (26 shares)": lambda: blind.check_turned_up(final.public,
                                                                                              match.game_of(final)),
        }
        times = {}
        for label, fn in rows.items():
            samples = []
            for _ in range(runs):
                start = time.process_time()
                fn()
                samples.append(time.process_time() - start)
            times[label] = statistics.median(samples)
        base = times["open: the rules of a round (no cryptography)"]
        print(f"CPU, median of {runs} runs (process time), a 2-player GOPS game at the blind table:")
        for label, t in times.items():
            print(f"  {label:60s} {t * 1000:8.2f} ms  = {t / base:8.1f}x the open round")
        import json
        import tomllib

        signed = tomllib.loads(files["r13-turn-up"].decode())["public"]["blind"]["signed"]
        print(f"finished file: blind {len(files['end'])} bytes, open {len(open_files['end'])} bytes "
              f"({len(files['end']) / len(open_files['end']):.1f}x); the version asking round 13's prize: "
              f"{len(files['r13-turn-up'])} bytes, of which the {len(signed)} signed orders shown "
              f"{len(json.dumps(signed))} bytes (as JSON)")


if __name__ == "__main__":
    main()
