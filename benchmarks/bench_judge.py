"""The judge's speed through real mail servers: one ``koryo-pbm serve`` serving 1,000 games with
10,000 incoming envelopes, read from dovecot over IMAPS and answered through postfix over SMTPS
(both private instances on 127.0.0.1, as the tests start them: ``tests/mailservers/servers.py``).

Set-up (not timed): 1,000 three-player Koryo games, and for each the envelopes of its first ten
orders (decisions r1 to r3 complete, one order of r4), made by playing each game once through the
shared folder and keeping the envelopes; the games are then reset to their start. A first
``serve --once`` sends every game's start mails. Then every envelope is mailed to the judge, one
mail each, through postfix, decision by decision (all r1 mails delivered before the first r2 mail),
as players answering over a few days would.

Timed: one ``koryo-pbm serve --once`` that reads the 10,000 mails, verifies every envelope, resolves
3,000 decisions, queues and sends 10,000 receipts and 9,000 state mails (with game.toml). The
figure is envelopes per second, end to end. Memory: the judge's resident size, sampled every
half second (it must stay flat, not grow with the mail). fsyncs: counted inside the judge process
(``os.fsync``/``os.fdatasync`` calls), per envelope.

Run (as root, dovecot and postfix installed): ``python benchmarks/bench_judge.py [--games 1000]``.
The set-up is cached under ``--cache`` (default ``/tmp/koryo-pbm-bench-judge``) per game count.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import smtplib
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from multiprocessing import Pool
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "mailservers"))

import servers  # noqa: E402  (the test suite's server harness)

PLAYERS = ("p1", "p2", "p3")
PER_GAME = 10

COUNTING_JUDGE = r"""
import atexit, os, sys
import time, traceback, collections
counts = {"fsync": 0}
where = collections.Counter()
spent = collections.Counter()
real_fsync, real_fdatasync = os.fsync, os.fdatasync
def fsync(fd):
    counts["fsync"] += 1
    if os.environ.get("BENCH_FSYNC_SITES"):
        site = " < ".join(f"{f.name}:{f.lineno}" for f in traceback.extract_stack()[-5:-1])
        where[site] += 1
        t = time.perf_counter()
        r = real_fsync(fd)
        spent[site] += time.perf_counter() - t
        return r
    return real_fsync(fd)
def report():
    if os.environ.get("BENCH_FSYNC_SITES"):
        with open(os.environ["BENCH_FSYNC_SITES"], "w") as f:
            for site, n in where.most_common():
                f.write(f"{n:6d} {spent[site]:7.2f}s {site}\n")
atexit.register(report)
def fdatasync(fd):
    counts["fsync"] += 1
    return real_fdatasync(fd)
os.fsync, os.fdatasync = fsync, fdatasync
def counted():
    from koryo_pbm.store import atomic
    with open(os.environ["BENCH_FSYNCS"], "w") as f:
        f.write(f"{counts['fsync']} {getattr(atomic, 'syncfs_calls', 0)}")
atexit.register(counted)
from koryo_pbm.cli.main import main
if os.environ.get("BENCH_PROFILE"):
    import cProfile, pstats
    prof = cProfile.Profile()
    code = prof.runcall(main, sys.argv[1:])
    pstats.Stats(prof, stream=open(os.environ["BENCH_PROFILE"], "w")).sort_stats("cumulative").print_stats(60)
    pstats.Stats(prof, stream=open(os.environ["BENCH_PROFILE"] + ".tottime", "w")).sort_stats("tottime").print_stats(40)
else:
    code = main(sys.argv[1:])
sys.exit(code)
"""


def _cli(*args: object) -> str:
    from koryo_pbm.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main([str(a) for a in args])
    if code != 0:
        raise RuntimeError(f"koryo-pbm {' '.join(map(str, args))}: {err.getvalue().strip()}")
    return out.getvalue()


def _make_game(job: tuple[Path, int, dict[str, str]]) -> list[tuple[int, str, str]]:
    """Game ``n`` at its start in ``work/games``, and its first envelopes: ``[(step, decision, armoured)]``
    where step counts the decisions resolved before it."""
    work, n, pubs = job
    os.environ["KORYO_PBM_HOME"] = str(work / "home")
    folder = work / "games" / f"g{n:04d}"
    args: list[object] = ["new", folder, "--as", "mod", "--seed", f"bench-{n}"]
    for p in PLAYERS:
        args += ["--player", f"{p}={pubs[p]}", "--email", f"{p}={p}@{servers.DOMAIN}"]
    _cli(*args)
    scratch = work / "scratch" / folder.name
    shutil.copytree(folder, scratch)
    orders = work / "scratch" / f"orders-{n}.toml"
    count = step = 0
    steps: dict[tuple[str, str], int] = {}
    while count < PER_GAME:
        status = json.loads(_cli("status", scratch, "--json"))
        for p in status["missing"]:
            if count < PER_GAME:
                orders.unlink(missing_ok=True)
                _cli("orders", scratch, "--as", p, "-o", orders)
                _cli("submit", orders, "--as", p, "--game", scratch)
                # resolved at once, as the judge does each mail: the same versions, so the same
                # history that later envelopes name (they are pinned to its head)
                _cli("resolve", scratch, "--as", "mod")
                steps[(status["decision"], p)] = step
                count += 1
        step += 1
    found = []
    for path in (scratch / "archive" / "accepted").iterdir():
        text = path.read_text()
        head = dict(line.split(": ", 1) for line in text.splitlines()[1:9])
        found.append((steps[(head["decision"], head["player"])], head["decision"], text))
    shutil.rmtree(scratch)
    orders.unlink(missing_ok=True)
    return sorted(found)


def set_up(cache: Path, games: int) -> Path:
    work = cache / f"games-{games}"
    if (work / "envelopes.json").exists():
        return work
    shutil.rmtree(work, ignore_errors=True)
    (work / "games").mkdir(parents=True)
    (work / "scratch").mkdir()
    os.environ["KORYO_PBM_HOME"] = str(work / "home")
    pubs = {n: _cli("keygen", n).strip() for n in ["mod", *PLAYERS]}
    start = time.perf_counter()
    with Pool(os.cpu_count() or 1) as pool:
        envelopes = pool.map(_make_game, [(work, n, pubs) for n in range(games)], chunksize=10)
    print(f"set-up: {games} games and their envelopes in {time.perf_counter() - start:.0f} s", flush=True)
    (work / "envelopes.json").write_text(json.dumps(envelopes))
    return work


def mail_envelopes(mail: servers.MailServers, judge: str, envelopes: list[list[list]]) -> int:
    """Every envelope as one player's mail to the judge, decision by decision (all the envelopes of
    every game's first decision delivered before the first of a second decision); the count."""
    by_round: dict[int, list[tuple[str, str, str]]] = {}
    for game in envelopes:
        for step, decision, text in game:
            player = text.split("\nplayer: ", 1)[1].split("\n", 1)[0]
            by_round.setdefault(step, []).append((decision, player, text))
    sent = 0
    for rnd in sorted(by_round):
        with smtplib.SMTP("127.0.0.1", mail.postfix.plain_port, timeout=60) as smtp:
            for decision, player, text in by_round[rnd]:
                m = EmailMessage()
                m["From"] = f"{player} <{player}@{servers.DOMAIN}>"
                m["To"] = f"{judge}@{servers.DOMAIN}"
                m["Subject"] = f"my orders for {decision}"
                m["Date"] = formatdate()
                m["Message-ID"] = make_msgid(domain=servers.DOMAIN)
                m.set_content(f"Here are my orders.\n\n{text}\n")
                smtp.send_message(m)
        sent += len(by_round[rnd])
        mail.delivered(judge, sent, timeout=600)
        print(f"  mailed decision {rnd + 1} of each game: {len(by_round[rnd])} envelopes", flush=True)
    return sent


def rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def serve_once(work: Path, mail: servers.MailServers, judge: str, fsyncs: Path,
               cpu: list[float] | None = None) -> tuple[float, list[tuple[float, int]], str]:
    """One ``serve --once``: its wall time, memory samples and log; ``cpu`` gets the judge
    process's own CPU seconds (user + system: what the machine's load does not change)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "KORYO_PBM_HOME": str(work / "home"), "KORYO_PBM_IMAP_PASSWORD": mail.password,
           "KORYO_PBM_SMTP_PASSWORD": mail.password, "BENCH_FSYNCS": str(fsyncs)}
    args = [sys.executable, "-c", COUNTING_JUDGE, "serve", str(work / "run"), "--as", "mod", "--once",
            "--imap", f"imaps://{judge}@127.0.0.1:{mail.dovecot.imaps_port}/INBOX",
            "--smtp", f"smtps://{judge}@127.0.0.1:{mail.postfix.smtps_port}", "--ca-file", str(mail.ca),
            "--from", f"Koryo judge <{judge}@{servers.DOMAIN}>"]
    samples: list[tuple[float, int]] = []
    log = work / "judge.log"
    start = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.5):
                samples.append((time.perf_counter() - start, rss_kib(proc.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        code = proc.wait()
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if cpu is not None:
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        stop.set()
        sampler.join()
    text = log.read_text(errors="replace")
    if code != 0:
        raise RuntimeError(f"serve failed ({code}):\n{text[-3000:]}")
    return elapsed, samples, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/koryo-pbm-bench-judge"))
    parser.add_argument("--keep", action="store_true", help="keep the servers' folder (mail, logs) afterwards")
    args = parser.parse_args()
    reason = servers.missing()
    if reason:
        sys.exit(f"bench_judge: {reason}")
    work = set_up(args.cache, args.games)
    envelopes = json.loads((work / "envelopes.json").read_text())
    total = sum(len(g) for g in envelopes)
    run = work / "run"
    shutil.rmtree(run, ignore_errors=True)
    shutil.copytree(work / "games", run)
    judge = "judge"
    mail = servers.start_servers(users=[judge, *PLAYERS])
    try:
        first, _, _ = serve_once(work, mail, judge, work / "fsyncs-start")
        print(f"start mails: {args.games * len(PLAYERS)} sent in {first:.1f} s", flush=True)
        mail_envelopes(mail, judge, envelopes)
        fsyncs = work / "fsyncs"
        cpu: list[float] = []
        elapsed, samples, log = serve_once(work, mail, judge, fsyncs, cpu)
        # the game folders: not the judge's lock file, nor its own state (.koryo-pbm-judge)
        folders = [g for g in run.iterdir() if g.is_dir() and not g.name.startswith(".")]
        sent = sum(len(os.listdir(g / "outbox" / "sent")) for g in folders)
        waiting = sum(len([n for n in os.listdir(g / "outbox") if n.endswith(".eml")]) for g in folders)
        accepted = log.count(": accepted") + log.count(": held")
        refused = [line for line in log.splitlines() if ": refused" in line or "unreadable" in line]
        count, barriers = (int(n) for n in fsyncs.read_text().split())
    finally:
        mail.stop()
        if not args.keep:
            shutil.rmtree(mail.root, ignore_errors=True)
    print(f"judge: {total} envelopes in {elapsed:.1f} s = {total / elapsed:.1f} envelopes/s end to end "
          f"(goal: at least 50/s)")
    print(f"  the judge's own CPU time: {cpu[0]:.1f} s = {cpu[0] / total * 1000:.1f} ms per envelope "
          f"(wall time depends on the load of the machine; this does not)")
    print(f"  envelopes accepted or held: {accepted} of {total}; refused: {len(refused)}; mails sent in all: {sent}; "
          f"left in outboxes: {waiting}")
    print(f"  fsyncs: {count} = {count / total:.2f} per envelope; file-system flushes (syncfs): {barriers} "
          f"= {barriers / total:.2f} per envelope")
    if samples:
        quarter = [samples[min(len(samples) - 1, int(len(samples) * q))] for q in (0.1, 0.25, 0.5, 0.75)] + [samples[-1]]
        print("  resident memory (MiB) at " + ", ".join(f"{t:.0f} s: {kib / 1024:.0f}" for t, kib in quarter)
              + f"; peak {max(k for _, k in samples) / 1024:.0f}")
    for line in refused[:5]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
