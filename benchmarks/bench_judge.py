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

``--python`` (repeatable) times the judges of other installations in the same run, side by side:
every judge serves a copy of the games and envelopes the first installation's code made (game ids
are random: two set-ups would be two sets of games, with other deals and other bots' seeds, and
their judges' CPU would differ by as much as a pass gains), or with ``--own-games`` each
installation makes its own (for one whose file format the first's code cannot make); each judge
has its own mailbox on the same servers, and the timed ``serve --once`` runs go
one after the other, in turn (``--rounds`` times, the order turned each round). E.g. ``--python
/tmp/before/.venv/bin/python --python .venv/bin/python``; the default is this interpreter. The
judge's own CPU per envelope is the figure to compare on a shared machine. Profiles of the judge
process (the timed run's overwrites the start mails'): ``BENCH_PROFILE=FILE`` (cProfile of CPU
time: ``FILE``, ``FILE.tottime`` and the binary ``FILE.prof``), ``BENCH_SAMPLE=FILE`` (a sampling
profile, every 2 ms of CPU: the share of samples in each function and below it).

``--idle`` (issue 31, no mail servers): a pass with nothing to do over 100, 1,000 and 10,000 idle
three-player games (``--idle-games``), each waiting for its join with its start mails sent, for
each ``--code DIR`` (a checkout's folder holding ``koryo_pbm``, run by this interpreter; default:
this one's code) side by side in one run, in turn, each on a fresh copy of the same games. Three
figures each: the CPU of one pass of a judge that keeps running (``Judge.run_once``, the median
of ``--passes``, after two passes), the CPU of a whole ``serve --once`` process as cron runs it
(the second of its kind: its index, if it keeps one, written; start-up included; median of 3),
and the CPU of a new judge's first pass (no index yet: every game read); and the running judge's
peak memory. The games are made and their start mails sent once (``new``, then one pass of the
first ``--code``'s judge; cached under ``--cache``).

``--scale`` (issue 31, item 4, no mail servers): one judge over ``--scale-games`` games (default
10,000), ``--games`` of them (default 100) receiving their first ten orders each as one mail an
envelope, read from a Maildir, decision by decision, the rest idle. In one process: a first pass
sends every game's start mails (not timed); then each decision's mails are delivered into the
Maildir and one pass handles them (timed: the judge's CPU and wall time, envelopes per second).
Sending is the edge left out (a sender that accepts every mail at once): the mails are still
rendered and queued, moved to ``outbox/sent/``. Peak memory: the process's resident maximum.
Then, in the same run, the floor (issue 31, item 2) on copies of the same games and mails: only
what every new version needs (``FLOOR_RUN``: parse the mail, read and check the file, open the
envelope, seal the parts, sign, write atomically, write the mails), and the judge's CPU per
envelope as a multiple of it.

Run (as root, dovecot and postfix installed): ``python benchmarks/bench_judge.py [--games 1000]
[--python PY ...] [--rounds N]``. The set-up is cached under ``--cache`` (default
``/tmp/koryo-pbm-bench-judge``) per installation (its interpreter's path) and game count: remove
it when an installation's file format changes.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
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
if os.environ.get("BENCH_SAMPLE"):
    # a sampling profile of CPU time (every 2 ms of the process's CPU, the main thread's stack):
    # unlike cProfile it does not slow down code that makes many small calls more than the rest
    import signal
    inclusive, own, total = collections.Counter(), collections.Counter(), [0]
    def sample(signum, frame):
        total[0] += 1
        seen = set()
        first = True
        while frame is not None:
            code = frame.f_code
            name = "/".join(code.co_filename.split("/")[-2:]) + ":" + code.co_name
            if first:
                own[name] += 1
                first = False
            if name not in seen:
                seen.add(name)
                inclusive[name] += 1
            frame = frame.f_back
    def write_samples():
        signal.setitimer(signal.ITIMER_PROF, 0, 0)  # no more SIGPROF (its default ends the process)
        with open(os.environ["BENCH_SAMPLE"], "w") as f:
            f.write(f"{total[0]} samples\ninclusive:\n")
            for name, n in inclusive.most_common(80):
                f.write(f"{n / total[0] * 100:6.1f}% {name}\n")
            f.write("own:\n")
            for name, n in own.most_common(40):
                f.write(f"{n / total[0] * 100:6.1f}% {name}\n")
    atexit.register(write_samples)
    signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, 0.002, 0.002)
if os.environ.get("BENCH_PROFILE"):
    import cProfile, pstats
    prof = cProfile.Profile(time.process_time)  # CPU, not the wall clock of a loaded machine
    code = prof.runcall(main, sys.argv[1:])
    prof.dump_stats(os.environ["BENCH_PROFILE"] + ".prof")
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
               cpu: list[float] | None = None, python: str = sys.executable) -> tuple[float, list[tuple[float, int]], str]:
    """One ``serve --once`` of ``python``'s installation: its wall time, memory samples and log;
    ``cpu`` gets the judge process's own CPU seconds (user + system: what the machine's load does
    not change). It runs in ``work``, so that ``python -c`` imports the installed code, not a
    ``koryo_pbm`` folder in the current directory."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "KORYO_PBM_HOME": str(work / "home"), "KORYO_PBM_IMAP_PASSWORD": mail.password,
           "KORYO_PBM_SMTP_PASSWORD": mail.password, "BENCH_FSYNCS": str(fsyncs)}
    # as installed, modules run from their byte-compiled files: let Python write them (some
    # environments forbid it, and every judge would compile its modules again at each start)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    args = [python, "-c", COUNTING_JUDGE, "serve", str(work / "run"), "--as", "mod", "--once",
            "--imap", f"imaps://{judge}@127.0.0.1:{mail.dovecot.imaps_port}/INBOX",
            "--smtp", f"smtps://{judge}@127.0.0.1:{mail.postfix.smtps_port}", "--ca-file", str(mail.ca),
            "--from", f"Koryo judge <{judge}@{servers.DOMAIN}>"]
    samples: list[tuple[float, int]] = []
    log = work / f"{fsyncs.name}.log"
    start = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(args, env=env, cwd=work, stdout=out, stderr=subprocess.STDOUT)
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


class Install:
    """One installation's judge: its interpreter, its set-up (made by its own code) and its mailbox."""

    def __init__(self, n: int, python: str, cache: Path, games: int, same_as: Install | None = None) -> None:
        self.python = os.path.abspath(python)  # not resolved: a virtualenv's python is a link
        key = hashlib.sha256(self.python.encode()).hexdigest()[:10]
        self.judge = f"judge{n}"
        self.cache = cache / key
        self.cache.mkdir(parents=True, exist_ok=True)
        (self.cache / "python").write_text(self.python + "\n")
        if same_as is not None:
            # the first installation's games, keys and envelopes: the same deals, the same bots'
            # seeds (game ids are random, so two set-ups are two sets of games)
            self.work = self.cache / f"games-{games}-as-{same_as.cache.name}"
            if not (self.work / "envelopes.json").exists():
                shutil.rmtree(self.work, ignore_errors=True)
                shutil.copytree(same_as.work, self.work, ignore=shutil.ignore_patterns("run", "fsyncs*"))
        else:
            # this installation's code makes its games: run this file with its interpreter (the
            # benchmarks folder first on its path, so the installed koryo_pbm is the one imported)
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            subprocess.run([self.python, str(Path(__file__).resolve()), "--set-up-only", "--games", str(games),
                            "--cache", str(self.cache)], check=True, env=env, cwd=self.cache)
            self.work = self.cache / f"games-{games}"
        self.envelopes = json.loads((self.work / "envelopes.json").read_text())
        self.total = sum(len(g) for g in self.envelopes)
        self.cpu: list[float] = []
        self.wall: list[float] = []

    def reset(self) -> None:
        run = self.work / "run"
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(self.work / "games", run)

    def report(self, elapsed: float, samples: list[tuple[float, int]], log: str, cpu: float) -> None:
        run = self.work / "run"
        # the game folders: not the judge's lock file, nor its own state (.koryo-pbm-judge)
        folders = [g for g in run.iterdir() if g.is_dir() and not g.name.startswith(".")]
        sent = sum(len(os.listdir(g / "outbox" / "sent")) for g in folders)
        waiting = sum(len([n for n in os.listdir(g / "outbox") if n.endswith(".eml")]) for g in folders)
        accepted = log.count(": accepted") + log.count(": held")
        refused = [line for line in log.splitlines() if ": refused" in line or "unreadable" in line]
        count, barriers = (int(n) for n in (self.work / "fsyncs").read_text().split())
        total = self.total
        print(f"{self.python}:")
        print(f"  judge: {total} envelopes in {elapsed:.1f} s = {total / elapsed:.1f} envelopes/s end to end "
              f"(goal: at least 50/s)")
        print(f"  the judge's own CPU time: {cpu:.1f} s = {cpu / total * 1000:.1f} ms per envelope "
              f"(wall time depends on the load of the machine; this does not)")
        print(f"  envelopes accepted or held: {accepted} of {total}; refused: {len(refused)}; mails sent in all: "
              f"{sent}; left in outboxes: {waiting}")
        print(f"  fsyncs: {count} = {count / total:.2f} per envelope; file-system flushes (syncfs): {barriers} "
              f"= {barriers / total:.2f} per envelope")
        if samples:
            quarter = [samples[min(len(samples) - 1, int(len(samples) * q))] for q in (0.1, 0.25, 0.5, 0.75)] + [samples[-1]]
            print("  resident memory (MiB) at " + ", ".join(f"{t:.0f} s: {kib / 1024:.0f}" for t, kib in quarter)
                  + f"; peak {max(k for _, k in samples) / 1024:.0f}")
        for line in refused[:5]:
            print(f"  {line}")
        if accepted != total or refused or waiting:
            print(f"  NOTE: {self.python}'s judge did not accept every envelope, or left mail unsent")
        sys.stdout.flush()


IDLE_PASS = r"""
import json, os, resource, statistics, sys, time
from pathlib import Path
import koryo_pbm
from koryo_pbm.cli.common import load_identity
from koryo_pbm.judge.service import Judge

class Null:
    label = "nowhere"
    def send(self, data, *, sender, recipients):
        pass
    def close(self):
        pass

root, passes = Path(sys.argv[1]), int(sys.argv[2])
judge = Judge(root=root, identity=load_identity("mod", None), sender=Null(),
              from_header="Koryo judge <judge@example.org>", log=lambda line: None)
t = time.process_time()
judge.run_once()  # a first pass (a new process: every game is read)
first = time.process_time() - t
time.sleep(0.2)  # (files older than a tick of the file system's clock)
judge.run_once()
times = []
for _ in range(passes):
    t = time.process_time()
    judge.run_once()
    times.append(time.process_time() - t)
print(json.dumps({"first": first, "code": koryo_pbm.__file__, "pass": statistics.median(times) if times else 0.0,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _idle_games(cache: Path, count: int, env: dict[str, str], work: Path | None = None) -> Path:
    """``count`` idle games under ``cache/idle-COUNT/games`` (made once; under ``work/games`` with
    its keys, when given)."""
    if work is None:
        work = cache / f"idle-{count}"
        if (work / "done").exists():
            return work
        shutil.rmtree(work, ignore_errors=True)
    elif (work / "idle-done").exists():
        return work
    (work / "games").mkdir(parents=True, exist_ok=True)
    script = (
        "import os, sys\n"
        "from multiprocessing import Pool\n"
        "sys.path.insert(0, sys.argv[3])\n"
        "from bench_judge import _cli\n"
        "work, count = sys.argv[1], int(sys.argv[2])\n"
        "os.environ['KORYO_PBM_HOME'] = work + '/home'\n"
        "from pathlib import Path\n"
        "keys = Path(work) / 'home' / 'keys'\n"
        "pubs = {n: (keys / f'{n}.pub').read_text().strip() if (keys / f'{n}.pub').exists() else _cli('keygen', n).strip()\n"
        "        for n in ['mod', 'p1', 'p2', 'p3']}\n"
        "def make(n):\n"
        "    args = ['new', f'{work}/games/idle{n:05d}', '--as', 'mod']\n"
        "    for p in ('p1', 'p2', 'p3'):\n"
        "        args += ['--player', f'{p}={pubs[p]}', '--email', f'{p}={p}-{n}@example.org']\n"
        "    _cli(*args)\n"
        "if __name__ == '__main__':\n"
        "    with Pool(os.cpu_count() or 1) as pool:\n"
        "        pool.map(make, range(count), chunksize=50)\n")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", script, str(work), str(count), str(Path(__file__).parent)],
                   check=True, env=env)
    (work / ("idle-done" if (work / "envelopes.json").exists() else "done")).write_text("")
    print(f"set-up: {count} idle games in {time.perf_counter() - start:.0f} s", flush=True)
    return work


SCALE_RUN = r"""
import json, os, resource, sys, time
from pathlib import Path
from koryo_pbm.cli.common import load_identity
from koryo_pbm.judge.service import Judge
from koryo_pbm.transport.sources import MaildirSource

class Null:
    label = "nowhere"
    def send(self, data, *, sender, recipients):
        pass
    def close(self):
        pass

root, box, mails = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
lines = []
judge = Judge(root=root, identity=load_identity("mod", None), sources=[MaildirSource(box)], sender=Null(),
              from_header="Koryo judge <judge@example.org>", log=lines.append)
t = time.process_time()
judge.run_once()
print(f"first pass (start mails of every game): {time.process_time() - t:.1f} s CPU", file=sys.stderr, flush=True)
cpu = wall = 0.0
count = 0
for step in sorted(mails, key=int):
    for n, data in enumerate(mails[step]):
        name = f"{step}.{n}.bench"
        (box / "tmp" / name).write_text(data)
        os.rename(box / "tmp" / name, box / "new" / name)
    t, w = time.process_time(), time.perf_counter()
    judge.run_once()
    cpu += time.process_time() - t
    wall += time.perf_counter() - w
    count += len(mails[step])
    print(f"  decision step {step}: {len(mails[step])} envelopes; so far {count} in {cpu:.1f} s CPU", file=sys.stderr,
          flush=True)
text = "\n".join(lines)
print(json.dumps({"envelopes": count, "cpu": cpu, "wall": wall, "accepted": text.count(": accepted") + text.count(": held"),
                  "refused": text.count(": refused"), "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


FLOOR_RUN = r"""
import binascii, json, os, resource, sys, time
from pathlib import Path
from koryo_pbm.cli.common import load_identity
from koryo_pbm.crypto.receipt import make_receipt
from koryo_pbm.crypto.seal import seal
from koryo_pbm.judge import outbox
from koryo_pbm.judge.incoming import parse_mail
from koryo_pbm.judge.messages import Outgoing
from koryo_pbm.store import gamefile
from koryo_pbm.store.atomic import batched_sync, sync_now, write_atomic

root, mails = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
mod = load_identity("mod", None)
by_id = {gamefile.read_header(g / "game.toml").game_id: g for g in root.iterdir() if (g / "game.toml").is_file()}
count, written = 0, {}
t = time.process_time()
with batched_sync():
    for step in sorted(mails, key=int):
        for n, text in enumerate(mails[step]):
            raw = text.encode()
            parsed = parse_mail(raw, f"mail {n}")  # parse the mail
            env = parsed.found[0]
            folder = by_id[env.game_id]
            path = folder / "game.toml"
            data = gamefile.read_game_bytes(path)  # read and check the file
            doc = gamefile.decode(data, expected_moderator=mod.public)
            env.open(mod, doc.players[env.player])  # open the envelope (its signature checked)
            sealed = {}
            for name, part in doc.sealed.items():  # seal the parts again, each as large as it is
                size = len(binascii.a2b_base64(part["data"])) - 48
                key = mod.public if part["recipient"] == mod.public.fingerprint() else next(
                    p for p in doc.players.values() if p.fingerprint() == part["recipient"])
                blob = seal(key, b" " * size, gamefile.part_info(doc.game_id, doc.version + 1, name, part["recipient"]))
                sealed[name] = {"recipient": part["recipient"], "data": binascii.b2a_base64(blob, newline=False).decode()}
            new = gamefile.encode(doc.replace(sealed=sealed), mod)  # sign (the document as it is: the rules' work is not the floor's)
            write_atomic(folder / "floor.toml", new)  # write atomically
            receipt = make_receipt(mod, game_id=doc.game_id, decision=env.decision, player=env.player,
                                   envelope=env.digest, submitted=env.submitted, replaces=None,
                                   received="2026-01-01T00:00:00Z").armor()
            outs = [Outgoing(key=f"answer-{step}-{n}", to=parsed.sender or "x@example.org", subject="receipt",
                             body=receipt, in_reply_to=parsed.message_id)]
            written[folder] = written.get(folder, 0) + 1
            if written[folder] % 3 == 0:  # a decision complete: the state mails, each with the player copy
                copy = gamefile.player_copy(new)
                outs += [Outgoing(key=f"state-{step}-{n}-{p}", to=f"{p}@example.org", subject="your turn",
                                  body="what happened, and what to do now\n", attachments=(("game.toml", copy),))
                         for p in doc.players]
            for out in outs:  # write the mails
                write_atomic(folder / "floor-outbox" / f"{out.key}.eml", outbox.render(
                    out, from_header="Koryo judge <judge@example.org>", message_id=f"<{out.key}@example.org>",
                    date=0.0, tag=folder.name))
            count += 1
            if count % 50 == 0:
                sync_now()
cpu = time.process_time() - t
print(json.dumps({"envelopes": count, "cpu": cpu, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def scale(args: argparse.Namespace) -> None:
    """The ``--scale`` mode (see the module's docstring)."""
    from email.message import EmailMessage

    work = set_up(args.cache, args.games)  # the active games and their envelopes
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    _idle_games(args.cache, args.scale_games - args.games, env, work)
    mails: dict[int, list[str]] = {}
    for game in json.loads((work / "envelopes.json").read_text()):
        for step, decision, text in game:
            player = text.split("\nplayer: ", 1)[1].split("\n", 1)[0]
            m = EmailMessage()
            m["From"], m["To"] = f"{player} <{player}@{servers.DOMAIN}>", f"judge@{servers.DOMAIN}"
            m["Subject"], m["Date"], m["Message-ID"] = f"my orders for {decision}", formatdate(), make_msgid()
            m.set_content(f"Here are my orders.\n\n{text}\n")
            mails.setdefault(step, []).append(m.as_string())
    (work / "mails.json").write_text(json.dumps(mails))
    run, box = work / "run", work / "box"
    for folder in (run, box):
        shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(work / "games", run)
    for sub in ("new", "cur", "tmp"):
        (box / sub).mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "KORYO_PBM_HOME": str(work / "home")}
    out = subprocess.run([sys.executable, "-c", SCALE_RUN, str(run), str(box), str(work / "mails.json")], env=env,
                         check=True, stdout=subprocess.PIPE, text=True, cwd=work).stdout
    got = json.loads(out.strip().splitlines()[-1])
    games = len([g for g in run.iterdir() if not g.name.startswith(".")])
    print(f"{games} games under one judge, {args.games} of them playing: {got['envelopes']} envelopes from a Maildir, "
          f"{got['accepted']} accepted or held, {got['refused']} refused")
    print(f"  the judge's CPU: {got['cpu']:.1f} s = {got['cpu'] / got['envelopes'] * 1000:.1f} ms per envelope = "
          f"{got['envelopes'] / got['cpu']:.1f} envelopes/s of CPU; wall {got['wall']:.1f} s = "
          f"{got['envelopes'] / got['wall']:.1f} envelopes/s")
    print(f"  peak resident memory: {got['rss'] / 1024:.0f} MiB", flush=True)
    # the floor, on the same games (at their start) and mails: what every new version needs
    floor_root = work / "floor"
    shutil.rmtree(floor_root, ignore_errors=True)
    floor_root.mkdir()
    for g in (work / "games").iterdir():
        if g.name.startswith("g"):  # the playing games only (idle ones get no mail)
            shutil.copytree(g, floor_root / g.name)
            (floor_root / g.name / "floor-outbox").mkdir()
    out = subprocess.run([sys.executable, "-c", FLOOR_RUN, str(floor_root), str(work / "mails.json")], env=env,
                         check=True, stdout=subprocess.PIPE, text=True, cwd=work).stdout
    floor = json.loads(out.strip().splitlines()[-1])
    per, floor_per = got["cpu"] / got["envelopes"], floor["cpu"] / floor["envelopes"]
    print(f"  the floor (read and check the file, open the envelope, seal the parts, sign, write atomically, "
          f"parse and write the mails): {floor_per * 1000:.1f} ms per envelope; the judge {per * 1000:.1f} ms = "
          f"{per / floor_per:.2f}x the floor")


def idle(args: argparse.Namespace) -> None:
    """The ``--idle`` mode (see the module's docstring)."""
    import resource

    codes = [Path(c).resolve() for c in (args.code or [REPO])]
    counts = [int(n) for n in args.idle_games.split(",")]
    results: dict[tuple[int, Path], dict[str, float]] = {}
    for count in counts:
        base_env = {**os.environ, "PYTHONPATH": str(codes[0])}
        work = _idle_games(args.cache, count, base_env)
        if not (work / "started").exists():  # the start mails sent once (by the first code), for every code
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", IDLE_PASS, str(work / "games"), "0"], check=True, cwd=work,
                           env={**base_env, "KORYO_PBM_HOME": str(work / "home")}, capture_output=True)
            shutil.rmtree(work / "games" / ".koryo-pbm-judge", ignore_errors=True)  # its index and limits: each code starts without
            (work / "games" / ".koryo-pbm-serve.lock").unlink(missing_ok=True)
            (work / "started").write_text("")
            print(f"set-up: the start mails of {count} games sent in {time.perf_counter() - start:.0f} s", flush=True)
        for code in codes:  # in turn, on copies of the same games
            run = work / "run"
            shutil.rmtree(run, ignore_errors=True)
            shutil.copytree(work / "games", run, symlinks=True)
            env = {**os.environ, "PYTHONPATH": str(code), "KORYO_PBM_HOME": str(work / "home")}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            out = subprocess.run([sys.executable, "-c", IDLE_PASS, str(run), str(args.passes)], env=env,
                                 check=True, capture_output=True, text=True, cwd=work).stdout
            got = json.loads(out.strip().splitlines()[-1])
            if not got["code"].startswith(str(code)):
                sys.exit(f"bench_judge: {code}'s run imported {got['code']}")
            box = work / "box"
            for sub in ("new", "cur", "tmp"):
                (box / sub).mkdir(parents=True, exist_ok=True)
            cron = ["-c", "import sys; from koryo_pbm.cli.main import main; sys.exit(main(sys.argv[1:]))", "serve", str(run), "--as", "mod", "--once", "--maildir", str(box),
                    "--sendmail", "/bin/true", "--from", "Koryo judge <judge@example.org>"]
            subprocess.run([sys.executable, *cron], env=env, check=True, cwd=work, capture_output=True)
            cpu = []
            for _ in range(3):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([sys.executable, *cron], env=env, check=True, cwd=work, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            results[(count, code)] = {"pass": got["pass"], "rss": got["rss"] / 1024, "cron": sorted(cpu)[1],
                                      "first": got["first"]}
            print(f"  {count} games, {code}: a pass {got['pass'] * 1000:.3f} ms, serve --once {sorted(cpu)[1]:.2f} s",
                  flush=True)
    print("idle passes, CPU (a running judge's pass: median of "
          f"{args.passes}; a whole serve --once: median of 3), side by side")
    for code in codes:
        print(f"  {code}:")
        for count in counts:
            r = results[(count, code)]
            print(f"    {count:>6} games: pass {r['pass'] * 1000:9.3f} ms ({r['pass'] / count * 1e6:7.2f} us/game), "
                  f"serve --once {r['cron']:6.2f} s; a new judge's first pass {r['first']:6.2f} s; "
                  f"peak memory of the running judge {r['rss']:.0f} MiB")
        first = results[(counts[0], code)]
        for count in counts[1:]:
            r = results[(count, code)]
            print(f"    {count} / {counts[0]}: pass {r['pass'] / first['pass']:.2f}x, "
                  f"serve --once {r['cron'] / first['cron']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/koryo-pbm-bench-judge"))
    parser.add_argument("--keep", action="store_true", help="keep the servers' folder (mail, logs) afterwards")
    parser.add_argument("--python", action="append", help="an installation's interpreter (repeatable)")
    parser.add_argument("--rounds", type=int, default=1, help="timed runs of each judge, in turn")
    parser.add_argument("--own-games", action="store_true",
                        help="each installation makes its own games (for file formats the first cannot make)")
    parser.add_argument("--set-up-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--idle", action="store_true", help="passes with nothing to do over idle games (no mail servers)")
    parser.add_argument("--idle-games", default="100,1000,10000", help="the counts of idle games (--idle)")
    parser.add_argument("--code", action="append", help="a checkout's folder holding koryo_pbm (--idle; repeatable)")
    parser.add_argument("--passes", type=int, default=5, help="timed passes (--idle)")
    parser.add_argument("--scale", action="store_true", help="many games, envelopes from a Maildir (no mail servers)")
    parser.add_argument("--scale-games", type=int, default=10000, help="the games under the judge (--scale)")
    args = parser.parse_args()
    if args.idle:
        idle(args)
        return
    if args.scale:
        scale(args)
        return
    if args.set_up_only:  # run by Install with that installation's interpreter
        set_up(args.cache, args.games)
        return
    reason = servers.missing()
    if reason:
        sys.exit(f"bench_judge: {reason}")
    installs: list[Install] = []
    for n, py in enumerate(args.python or [sys.executable]):
        same_as = installs[0] if installs and not args.own_games else None
        installs.append(Install(n, py, args.cache, args.games, same_as))
    for rnd in range(args.rounds):
        mail = servers.start_servers(users=[i.judge for i in installs] + list(PLAYERS))
        try:
            for inst in installs:
                inst.reset()
                first, _, _ = serve_once(inst.work, mail, inst.judge, inst.work / "fsyncs-start", python=inst.python)
                print(f"{inst.judge} ({inst.python}) start mails: {args.games * len(PLAYERS)} sent in {first:.1f} s",
                      flush=True)
                mail_envelopes(mail, inst.judge, inst.envelopes)
            turn = rnd % len(installs)
            for inst in installs[turn:] + installs[:turn]:
                cpu: list[float] = []
                elapsed, samples, log = serve_once(inst.work, mail, inst.judge, inst.work / "fsyncs", cpu,
                                                   python=inst.python)
                inst.cpu.append(cpu[0])
                inst.wall.append(elapsed)
                print(f"round {rnd + 1}:", end=" ")
                inst.report(elapsed, samples, log, cpu[0])
        finally:
            mail.stop()
            if not args.keep:
                shutil.rmtree(mail.root, ignore_errors=True)
    print(f"side by side, {args.games} games, {args.rounds} round(s): the judge's own CPU per envelope "
          "(and envelopes per second end to end), round by round")
    first = installs[0]
    for inst in installs:
        per = [c / inst.total * 1000 for c in inst.cpu]
        ratio = (sum(inst.cpu) / inst.total) / (sum(first.cpu) / first.total)
        print(f"  {inst.python}: " + ", ".join(f"{ms:.1f} ms ({inst.total / w:.1f}/s)" for ms, w in zip(per, inst.wall, strict=True))
              + f"; {ratio:.2f}x the first's CPU")


if __name__ == "__main__":
    main()
