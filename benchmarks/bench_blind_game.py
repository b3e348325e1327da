"""The blind table through the game (``koryo_pbm.blind``), not the bare cryptography: CPU of a
4-player Koryo round-1 deal for each party, as ``co-deal``, ``resolve`` and ``show`` do it, and
what a whole blind game costs in co-dealer messages and file size beside the open game.

    python benchmarks/bench_blind_game.py [--runs 5]

CPU is process time, median of the runs, on this machine; the open game's deal is measured
beside it in the same run (``match.create`` with a seed, which deals the open game)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import tempfile
import time
from pathlib import Path


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def one_deal() -> dict[str, float]:
    from koryo_pbm import blind, match
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game

    names = ["alice", "bob", "carol", "dave"]
    mod, carl = Identity.generate("mod"), Identity.generate("carl")
    ids = {n: Identity.generate(n) for n in names}
    game = find_game("koryo")
    pubs = {n: i.public for n, i in ids.items()}
    out: dict[str, float] = {}
    out["open: create, deal and seal 4 hands"], _ = _cpu(lambda: match.create(game, mod, pubs, seed="bench"))
    doc, state = match.create(game, mod, pubs, blind=("mod", "carl", carl.public))
    g = match.game_of(doc)
    body = blind.co_deal(g, doc.public, pubs, carl, "keys")
    out["moderator: its shuffle of round-1 (on the co-dealer's key)"], (state, _) = _cpu(
        lambda: g.apply(state, {"carl": body}))
    doc.public = g.public(state)
    out["co-dealer: co-deal r1-deal (shuffle 55, 40 shares, sealed)"], body = _cpu(
        lambda: blind.co_deal(g, doc.public, pubs, carl, "r1-deal"))
    out["moderator: apply r1-deal (checks, 40 shares)"], (state, _) = _cpu(lambda: g.apply(state, {"carl": body}))
    doc.public = g.public(state)
    private = g.private(state, "alice")
    out["alice: open her 10 cards (20 shares checked)"], cards = _cpu(
        lambda: blind.open_hand(doc.public, private, doc.game_id, "alice", ids["alice"]))
    assert len(cards) == 10
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = [one_deal() for _ in range(args.runs)]
    print(f"CPU, median of {args.runs} runs (process time), a 4-player Koryo round-1 deal through the game:")
    for what in runs[0]:
        print(f"  {what:<62} {statistics.median(r[what] for r in runs) * 1000:7.1f} ms")
    from koryo_pbm.cli.demo import run_demo

    print("Whole games (demo bots; finished game file, co-dealer messages; the file at every version in play):")
    for name, n, teams in (("koryo", 3, False), ("koryo", 4, False), ("korsar", 4, True)):
        with tempfile.TemporaryDirectory() as tmp:
            with _versions() as in_play_b:
                blind_sum = run_demo(name, n, f"bench{n}", Path(tmp) / "b", blind=True, teams=teams,
                                     echo=lambda *a, **k: None)
            with _versions() as in_play_o:
                run_demo(name, n, f"bench{n}", Path(tmp) / "o", teams=teams, echo=lambda *a, **k: None)
            size_b = (Path(tmp) / "b" / "game.toml").stat().st_size
            size_o = (Path(tmp) / "o" / "game.toml").stat().st_size
            proofs = _proof_bytes((Path(tmp) / "b" / "game.toml").read_text())
            co = sum(1 for _ in (Path(tmp) / "b" / "archive").rglob("*co-dealer*"))
            print(f"  {name} {n} players: blind {size_b:7d} bytes, open {size_o:6d} bytes ({size_b / size_o:4.1f}x); "
                  f"{co} co-dealer messages over {blind_sum['decisions']} decisions; none between players")
            print(f"    the shuffles' proofs in the finished blind file: {proofs} bytes "
                  f"({proofs / size_b:.0%} of it; without them {size_b - proofs} bytes)")
            for what, sizes in (("blind", [s for s, _ in in_play_b[:-1]]), ("open", [s for s, _ in in_play_o[:-1]])):
                print(f"    in play, {what:<5}: mean {statistics.mean(sizes) / 1000:5.0f} kB, "
                      f"max {max(sizes) / 1000:5.0f} kB over {len(sizes)} versions")
            held = [p for _, p in in_play_b[:-1]]
            print(f"    in play, the proofs in the blind file: mean {statistics.mean(held) / 1000:5.0f} kB, "
                  f"max {max(held) / 1000:5.0f} kB")


_PROOFS = re.compile(r"^proofs = \[([^\]]*)\]", re.MULTILINE)


def _proof_bytes(text: str) -> int:
    """The bytes of the shuffles' proofs (``proofs = [...]`` of each deck) in a game file's text."""
    return sum(len(m[1]) + len("proofs = []") for m in _PROOFS.finditer(text))


@contextlib.contextmanager
def _versions():
    """The size of every game.toml written meanwhile (atomic writes end in ``os.replace``), and
    the bytes of the proofs of shuffles in it."""
    sizes: list[tuple[int, int]] = []
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if str(dst).endswith("game.toml"):
            with open(src, encoding="utf-8") as f:
                text = f.read()
            sizes.append((os.path.getsize(src), _proof_bytes(text)))
        return real(src, dst, *args, **kwargs)

    os.replace = replace
    try:
        yield sizes
    finally:
        os.replace = real


if __name__ == "__main__":
    main()
