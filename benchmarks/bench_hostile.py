"""What a hostile player costs the moderator, before and after issue 9, side by side in one run.

"Before" is the engine as it was when the attacks were found (commit ``BEFORE``, taken from
git), "after" is this checkout. Each attack is set up by each engine itself (its own keys,
game and files), then the command under attack runs as a real process; its wall time and peak
memory (``wait4``'s ``ru_maxrss``) are printed side by side:

* ``resolve`` of a 2-player game with 800 + 800 valid envelopes of the two players for one
  decision in the inbox;
* ``status`` of a forged 16 MB game file (the real header, 16 MB of TOML, a signature that does
  not match);
* ``resolve`` beside 8 forged 16 MB sync-conflict copies of the game file claiming a later
  version;
* ``resolve --mail`` of one message with 20,000 small MIME parts;
* one passphrase guess against a passphrase-protected key (time and memory of the guess alone:
  what an attacker with the key file pays per guess, on one core).

Run: ``python benchmarks/bench_hostile.py [--before COMMIT] [--skip-slow]`` (``--skip-slow``
leaves out the "before" side of the two slowest attacks, about two minutes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path

BEFORE = "28a602b"  # main when issue 9 was filed
REPO = Path(__file__).resolve().parents[1]

SETUP = textwrap.dedent('''
    import contextlib, io, os, sys
    from pathlib import Path
    from koryo_pbm.cli.main import main
    root = Path(sys.argv[1]); os.environ["KORYO_PBM_HOME"] = str(root / "home")
    def run(*args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main([str(a) for a in args])
        assert code == 0, args
        return out.getvalue().strip()
    lines = {n: run("keygen", n) for n in ("mod", "alice", "bob")}
    run("new", root / "g", "--as", "mod", "--seed", "bench", "--player", "alice=" + lines["alice"],
        "--player", "bob=" + lines["bob"])
''')

FLOOD = SETUP + textwrap.dedent('''
    from koryo_pbm import match
    from koryo_pbm.cli.submit import seal_orders
    from koryo_pbm.crypto.keys import find_identity
    doc = match.load_doc(root / "g" / "game.toml"); game = match.game_of(doc)
    for p in ("alice", "bob"):
        run("orders", root / "g", "--as", p, "-o", root / f"{p}.toml")
        me, text = find_identity(p, None), (root / f"{p}.toml").read_text()
        for i in range(800):
            env = seal_orders(doc, game, me, text, submitted=f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z")
            (root / "g" / "inbox" / f"r1-orders--{p}-{i}.envelope").write_text(env.armor())
''')

FORGED = SETUP + textwrap.dedent('''
    import re
    path = root / "g" / "game.toml"
    data = path.read_bytes()
    cut = data.rfind(b"\\n", 0, len(data) - 1) + 1
    body, sig = data[:cut], data[cut:]
    copies = int(sys.argv[2])
    if copies:  # later versions of the same game, as conflict copies beside the real file
        body = re.sub(rb"\\nversion = \\d+\\n", b"\\nversion = 99\\n", body, count=1)
    filler = b"[public.x]\\na = [" + b"1," * ((16 * 1024 * 1024 - len(body) - len(sig) - 64) // 2) + b"]\\n"
    forged = body + filler + sig
    if copies:
        for i in range(copies):
            (root / "g" / f"game ({i + 1}).toml").write_bytes(forged)
    else:
        path.write_bytes(forged)
''')

MAIL = SETUP + textwrap.dedent('''
    head = 'From: eve@example.org\\nSubject: hi\\nMIME-Version: 1.0\\nContent-Type: multipart/mixed; boundary="b"\\n\\n'
    (root / "m.eml").write_text(head + "--b\\nContent-Type: text/plain\\n\\nx\\n" * 20000 + "--b--\\n")
''')

GUESS = textwrap.dedent('''
    import resource, sys, time
    from pathlib import Path
    from koryo_pbm.crypto.keys import Identity, parse_identity, save_identity
    from koryo_pbm.errors import KeyFileError
    root = Path(sys.argv[1])
    key, _ = save_identity(Identity.generate("vic"), root, b"correct horse battery staple")
    data = key.read_bytes()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        parse_identity(data, key, b"password1")
    except KeyFileError:
        pass
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{took} {max(after - before, 0) / 1024}")
''')


def tree(commit: str | None, where: Path) -> Path:
    """A folder to put first on PYTHONPATH: ``koryo_pbm`` and ``koryo_pbm_games`` of ``commit``
    (from git), or of this checkout when ``commit`` is None."""
    where.mkdir(parents=True)
    if commit is None:
        src = REPO
    else:
        src = where / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "koryo_pbm", "games"],
                                 check=True, capture_output=True).stdout
        archive_path = where / "src.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(src, filter="data")
    (where / "koryo_pbm").symlink_to(src / "koryo_pbm")
    (where / "koryo_pbm_games").symlink_to(src / "games")
    return where


def env_for(path: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(path), "KORYO_PBM_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}


def measure(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(seconds, peak MiB, exit code) of a real process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return took, usage.ru_maxrss / 1024, proc.returncode


def attack(name: str, setup: str, args: list[str], command: list[str], path: Path, work: Path):
    root = work / name
    root.mkdir(parents=True)
    env = env_for(path, root / "home")
    subprocess.run([sys.executable, "-c", setup, str(root), *args], env=env, check=True)
    return measure([sys.executable, "-m", "koryo_pbm", *command], env, root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--skip-slow", action="store_true")
    args = parser.parse_args()
    attacks = [
        ("800 + 800 envelopes: resolve", FLOOD, [], ["resolve", "g", "--as", "mod"], False),
        ("forged 16 MB game file: status", FORGED, ["0"], ["status", "g"], False),
        ("8 forged 16 MB conflict copies: resolve", FORGED, ["8"], ["resolve", "g", "--as", "mod"], True),
        ("20,000-part mail: resolve --mail", MAIL, [], ["resolve", "g", "--as", "mod", "--mail", "m.eml"], False),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trees = {"before": tree(args.before, work / "before"), "after": tree(None, work / "after")}
        print(f"{'attack':<42} {'before':>22} {'after':>22}")
        for i, (name, setup, extra, command, slow) in enumerate(attacks):
            cells = []
            for side, path in trees.items():
                if side == "before" and slow and args.skip_slow:
                    cells.append("(skipped)")
                    continue
                took, mib, code = attack(f"{side}-{i}", setup, extra, command, path, work)
                cells.append(f"{took:7.2f} s {mib:6.0f} MiB (exit {code})")
            print(f"{name:<42} {cells[0]:>22} {cells[1]:>22}")
        cells = []
        for side, path in trees.items():
            root = work / f"{side}-guess"
            root.mkdir()
            out = subprocess.run([sys.executable, "-c", GUESS, str(root)], env=env_for(path, root), check=True,
                                 capture_output=True, text=True).stdout.split()
            cells.append(f"{float(out[0]):7.3f} s {float(out[1]):6.0f} MiB")
        print(f"{'one passphrase guess (time, memory)':<42} {cells[0]:>22} {cells[1]:>22}")


if __name__ == "__main__":
    main()
