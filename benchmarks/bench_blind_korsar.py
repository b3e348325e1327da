"""Korsar at the blind table through the game (``koryo_pbm.blind``, ``games/korsar/blind.py``):
CPU of a draw and of a play for each party, as ``co-deal``, ``resolve`` and ``show`` do them,
beside the open game's in the same run; and what whole games cost in co-dealer messages and
file size (finished, and at every version in play) beside the open game.

    python benchmarks/bench_blind_korsar.py [--runs 5]

CPU is process time, median of the runs, on this machine."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

NAMES = ["alice", "bob", "carol", "dave"]
TEAMS = {"teams": True}  # alice+bob, carol+dave


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def one_turn() -> dict[str, float]:
    """A 4-player team game dealt; alice draws a card (and the dealers give it: bob, her partner,
    is next), then bob plays a card of his hand (a claim checked with both dealers' shares)."""
    from koryo_pbm import blind, match
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game

    mod, carl = Identity.generate("mod"), Identity.generate("carl")
    ids = {n: Identity.generate(n) for n in NAMES}
    pubs = {n: i.public for n, i in ids.items()}
    korsar = find_game("korsar")
    out: dict[str, float] = {}
    # the open game: the moderator's resolve of a draw (the rules, and every part sealed again)
    _odoc, ostate = match.create(korsar, mod, pubs, seed="bench", options=TEAMS, first="alice")

    def open_turn(order):
        nonlocal ostate
        player = korsar.pending(ostate).players[0]
        ostate, _ = korsar.apply(ostate, {player: order(ostate, player)})
        return [korsar.private(ostate, n) for n in NAMES]

    out["open: the rules of a draw (no cryptography)"], _ = _cpu(lambda: open_turn(lambda s, p: {"action": "draw"}))
    out["open: the rules of a play (the same)"], _ = _cpu(lambda: open_turn(
        lambda s, p: next(o for o in korsar.legal_orders(s, p) if o["action"] == "play")))
    doc, state = match.create(korsar, mod, pubs, blind=("mod", "carl", carl.public), options=TEAMS, first="alice")
    g = match.game_of(doc)

    def dealer(decision):
        nonlocal state
        body = blind.co_deal(g, g.public(state), pubs, carl, decision)
        state, _ = g.apply(state, {"carl": body})

    dealer("keys")
    out["co-dealer: co-deal deal (shuffle 78, 24 shares sealed)"], body = _cpu(
        lambda: blind.co_deal(g, g.public(state), pubs, carl, "deal"))
    state, _ = g.apply(state, {"carl": body})
    state, _ = g.apply(state, {"alice": {"action": "draw"}})
    give = g.pending(state).id
    out["co-dealer: co-deal a draw (1 share, sealed to 2)"], body = _cpu(
        lambda: blind.co_deal(g, g.public(state), pubs, carl, give))
    out["moderator: apply the draw's answer (1 share)"], (state, _) = _cpu(lambda: g.apply(state, {"carl": body}))
    public = g.public(state)
    for who in ("alice", "bob"):
        private = g.private(state, who)
        out[f"{who}: open the 13 cards seen (26 shares checked)"], (cards, shares) = _cpu(
            lambda: blind.open_hand_shares(public, private, doc.game_id, who, ids[who]))  # noqa: B023
        assert len(cards) == 13
    view = g.from_view(public, {"cards": cards, "shares": shares}, "bob")
    order = g.random_order(view, "bob", __import__("random").Random(1))
    while order["action"] != "play":
        order = g.random_order(view, "bob", __import__("random").Random(len(out)))
    out["moderator: check and apply a play (its share, 1 share made)"], (state, _) = _cpu(
        lambda: g.apply(state, {"bob": order}))
    out["anyone: check a play's public reveal (2 shares)"], _ = _cpu(lambda: _check_reveal(g, state))
    return out


def _check_reveal(g, state):
    """What anyone does with a play's public reveal: both shares checked, the card opened."""
    import base64

    from koryo_pbm import blind
    from koryo_pbm.crypto import blind as cb

    rev = state.reveals[-1]
    at = blind._slot(state, rev["slot"], rev["player"])
    shares = [cb.Share.from_bytes(d, base64.b64decode(rev["shares"][d])) for d in state.dealers]
    table = blind._table_of(tuple(state.decks[0]["input"]))
    assert cb.open_card(at, blind._card_at(state, rev["slot"]), blind._dealer_keys(state), shares, table) == rev["card"]


def whole_games() -> None:
    from koryo_pbm.cli.demo import run_demo
    from koryo_pbm.store import atomic

    real = atomic.write_atomic
    print("Whole games (demo bots): the game file finished and at every version, co-dealer messages:")
    for n, teams in ((3, False), (4, True)):
        sizes: dict[str, list[int]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for kind in ("b", "o"):
                seen: list[int] = []

                def write(path, data, *a, _seen=seen, **k):
                    if Path(path).name == "game.toml":
                        _seen.append(len(data))
                    return real(path, data, *a, **k)

                with mock.patch.object(atomic, "write_atomic", write):
                    summary = run_demo("korsar", n, f"bench{n}", Path(tmp) / kind, teams=teams, blind=kind == "b",
                                       echo=lambda *a, **k: None)
                sizes[kind] = seen
                if kind == "b":
                    co = sum(1 for _ in (Path(tmp) / "b" / "archive").rglob("*co-dealer*"))
                    decisions = summary["decisions"]
        b, o = sizes["b"], sizes["o"]
        label = f"{n} players{' in teams' if teams else ''}"
        print(f"  {label}: finished blind {b[-1]:7d} bytes, open {o[-1]:6d} ({b[-1] / o[-1]:4.1f}x); in play blind "
              f"mean {statistics.mean(b):7.0f} max {max(b):7d}, open mean {statistics.mean(o):6.0f} max {max(o):6d}; "
              f"{co} co-dealer messages over {decisions} decisions; none between players")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-games", action="store_true", help="only the CPU of one draw and one play")
    args = parser.parse_args()
    runs = [one_turn() for _ in range(args.runs)]
    print(f"CPU, median of {args.runs} runs (process time), a 4-player Korsar team game at the blind table:")
    for what in runs[0]:
        print(f"  {what:<62} {statistics.median(r[what] for r in runs) * 1000:7.2f} ms")
    if not args.no_games:
        whole_games()


if __name__ == "__main__":
    main()
