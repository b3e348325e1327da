"""The mail a whole game costs each player (issue 30): how many mails, how many of them only
notify (they neither ask the player to act, nor answer their mail, nor end the game), and how
many bytes.

Plays whole games through the judge as players with a mail client would: the judge (``serve
--once``) reads a Maildir and sends with a sendmail program into one Maildir per address (the
tests' post office, tests/judge/judge_kit.py); each player answers each mail that says it is
their turn with the example orders, sealed (``orders``, ``submit``), pasted into a reply. A
4-player Korsar team game (issue 30's goal: at most 1 MB and at most 5 notification-only mails
per player) and a 3-player Koryo game (at most 0.5 MB per player).

``--src DIR`` (repeatable) compares source trees in one run (e.g. main, extracted with ``git
archive``, and this branch): each plays the same seeds with the same interpreter.

Run: ``python benchmarks/bench_mail_volume.py [--seeds 2] [--src DIR ...]`` (``BENCH_DEBUG=1``: each
mail bob gets, its size and subject, on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLES = [("korsar", 4), ("koryo", 3)]
GOALS = {"korsar": (1_000_000, 5), "koryo": (500_000, None)}
NAMES = ["alice", "bob", "carol", "dave"]


def play(game: str, players: int, seed: str, work: Path) -> dict[str, dict[str, int]]:
    """One whole game through the judge; per player: mails, notification-only mails, bytes."""
    import email
    import email.policy

    from click.testing import CliRunner

    sys.path.insert(0, str(REPO / "tests" / "judge"))
    from judge_kit import FROM, PostOffice, attachment

    from koryo_pbm.cli.main import cli

    os.environ["KORYO_PBM_HOME"] = str(work / "home")
    runner = CliRunner()

    def run(*args: object) -> str:
        r = runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)
        if r.exit_code != 0:
            raise SystemExit(f"koryo-pbm {' '.join(map(str, args))}: {r.output}")
        return r.output

    os.chdir(work)
    names = NAMES[:players]
    pubs = {n: run("keygen", n).strip().splitlines()[-1] for n in ["mod", *names]}
    args: list[object] = ["new", "games/g", "--game", game, "--as", "mod", "--seed", seed]
    if game == "korsar":
        args += ["--team", "alice,bob", "--team", "carol,dave"]
    for n in names:
        args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org"]
    (work / "games").mkdir()
    run(*args)
    po = PostOffice(work / "post")
    stats = {n: {"mails": 0, "notify": 0, "bytes": 0} for n in names}
    over: set[str] = set()
    for _ in range(2000):
        run("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
            "--from", FROM, "--retry", "0.01")
        for n in names:
            box = po.box(f"{n}@example.org") / "new"
            for path in sorted(box.iterdir()):
                data = path.read_bytes()
                path.rename(box.parent / "cur" / path.name)
                msg = email.message_from_bytes(data, policy=email.policy.default)
                subject = str(msg["Subject"])
                stats[n]["mails"] += 1
                stats[n]["bytes"] += len(data)
                if os.environ.get("BENCH_DEBUG") and n == "bob":
                    print(len(data), subject, file=sys.stderr)
                answer = msg["In-Reply-To"] is not None
                acting = not answer and re.search(r"your (\w+ )?turn", subject) is not None
                if subject.endswith("game over"):
                    over.add(n)
                elif not answer and not acting and "press from" not in subject and "reminder" not in subject:
                    stats[n]["notify"] += 1
                if acting:
                    folder = work / "players" / n
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / "game.toml").write_bytes(attachment(msg))
                    run("orders", folder / "game.toml", "--as", n, "-o", folder / "orders.toml")
                    out = folder / "orders.txt"
                    out.unlink(missing_ok=True)
                    run("submit", folder / "orders.toml", "--as", n, "--game", folder / "game.toml", "--out", out)
                    po.send_to_judge(f"{n} <{n}@example.org>", "Re: " + subject, "My orders.\n\n" + out.read_text(),
                                     in_reply_to=str(msg["Message-ID"]))
        if over == set(names):
            return stats
    raise SystemExit(f"{game} {seed}: the game did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--src", action="append", help="a source tree to compare (repeatable)")
    parser.add_argument("--worker", nargs=3, metavar=("GAME", "PLAYERS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        game, players, seed = args.worker
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(play(game, int(players), seed, Path(tmp))))
        return
    sources = [os.path.abspath(s) for s in args.src] if args.src else [str(REPO)]
    found: dict[tuple[str, str, int], list[dict[str, dict[str, int]]]] = {}
    for src in sources:
        for game, players in TABLES:
            for i in range(args.seeds):
                env = {**os.environ, "PYTHONPATH": src}
                out = subprocess.run([sys.executable, __file__, "--worker", game, str(players), f"volume-{i}"],
                                     env=env, check=True, capture_output=True, text=True).stdout
                found.setdefault((src, game, players), []).append(json.loads(out.splitlines()[-1]))
    for game, players in TABLES:
        limit, notify = GOALS[game]
        print(f"{game}, {players} players (goal: at most {limit / 1e6:g} MB"
              + (f" and {notify} notification-only mails" if notify else "") + " per player):")
        for src in sources:
            runs = found[(src, game, players)]
            per = [s for run in runs for s in run.values()]
            mb = [s["bytes"] / 1e6 for s in per]
            print(f"  {src}: mails {min(s['mails'] for s in per)}-{max(s['mails'] for s in per)}, "
                  f"notification-only {min(s['notify'] for s in per)}-{max(s['notify'] for s in per)}, "
                  f"{min(mb):.2f}-{max(mb):.2f} MB per player ({len(runs)} games)")
        if len(sources) > 1:
            first = [s["bytes"] for run in found[(sources[0], game, players)] for s in run.values()]
            last = [s["bytes"] for run in found[(sources[-1], game, players)] for s in run.values()]
            print(f"  bytes per player, last/first: {sum(last) / sum(first):.2f}")


if __name__ == "__main__":
    main()
