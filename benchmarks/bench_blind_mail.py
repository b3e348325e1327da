"""A blind game through local mail beside an open one, in one run: the time a whole 2-player
Koryo game takes through the judge over real dovecot (IMAPS, IDLE) and postfix (SMTPS), as the
test ``tests/mailservers/test_blind_by_mail.py`` plays it: the players (the moderator's own seat
among them in the blind game) only read their mail and answer at once; the blind game's
co-dealer is ``serve --as carl --co-dealer`` over its own mailbox. Wall time from the judge's
start to every player's game-over mail, the mails each side sent and the bytes the players
received.

    python benchmarks/bench_blind_mail.py [--runs 1]

Run as root, with dovecot and postfix installed (``tests/mailservers/servers.py``). The two
games alternate, open first; the figures are medians over the runs. Players answer as soon as
the mail is there, so this is the game's floor: the machinery's time, not the players'."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "mailservers"), str(REPO / "tests")]  # the test kit and its helpers


def one_game(servers, kind: str) -> dict[str, float]:
    import pytest
    from conftest import Mailer
    from test_blind_by_mail import BlindTable

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-blind-mail-{kind}-"))
    mp = pytest.MonkeyPatch()
    table = None
    try:
        names = ["alice", "dora"]
        table = BlindTable(servers, Mailer(servers, tmp / "client-home"), tmp, mp, names,
                           {"alice": "reply", "dora": "attachment"})
        table.hands = {}
        if kind == "blind":
            folder = table.new_game("g", "--blind", "--co-dealer", f"carl={table.carl_pub}",
                                    "--email", f"carl={table.carl_address}")
        else:
            folder = table.new_game("g", "--seed", f"bench-{time.time_ns()}")
        started = time.monotonic()
        table.start_judge()
        if kind == "blind":
            table.start_co_dealer()
        table.play(timeout=900)
        took = time.monotonic() - started
        table.settle(timeout=60)
        table.stop_judge()
        dealer = 0
        if kind == "blind":
            table.stop_co_dealer()
            dealer = len(list((tmp / "dealt").glob("*/outbox/sent/*.eml")))
        judge_mails = len(list((folder / "outbox" / "sent").iterdir()))
        received = sum(len(m.as_bytes()) for n in names for m in table.received[n])
        return {"seconds": took, "player envelopes": table.sent, "co-dealer answers": dealer,
                "judge's mails": judge_mails, "mail bytes to players": received}
    finally:
        if table is not None:
            for proc in (table.judge_proc, table.co_dealer_proc):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait()
        mp.undo()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    import servers as servers_module

    reason = servers_module.missing()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    servers = servers_module.start_servers()
    try:
        results: dict[str, list[dict[str, float]]] = {"open": [], "blind": []}
        for _ in range(args.runs):
            for kind in ("open", "blind"):
                results[kind].append(one_game(servers, kind))
                print(f"{kind}: {results[kind][-1]}", file=sys.stderr)
    finally:
        servers.stop()
        shutil.rmtree(servers.root, ignore_errors=True)
    med = {k: {f: statistics.median(r[f] for r in v) for f in v[0]} for k, v in results.items()}
    print(f"A whole 2-player Koryo game through the judge over local dovecot and postfix "
          f"(median of {args.runs} run(s)), blind beside open:")
    for field in med["open"]:
        o, b = med["open"][field], med["blind"][field]
        ratio = f"= {b / o:5.2f}x" if o else ""
        print(f"  {field:24s} blind {b:10.1f}   open {o:10.1f}   {ratio}")
    b = med["blind"]
    print(f"  per mail round trip (judge -> player or co-dealer -> judge): blind "
          f"{b['seconds'] / (b['player envelopes'] + b['co-dealer answers']):.2f} s, open "
          f"{med['open']['seconds'] / med['open']['player envelopes']:.2f} s")


if __name__ == "__main__":
    main()
