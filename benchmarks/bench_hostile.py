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
* one passphrase guess against a passphrase-protected key: the time of the guess alone and the
  peak memory of a process that makes it (what an attacker with the key file pays per guess,
  on one core).

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
    from koryo_pbm.store.keyring import find_identity
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

KEY = textwrap.dedent('''
    import sys
    from pathlib import Path
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.store.keyring import save_identity
    save_identity(Identity.generate("vic"), Path(sys.argv[1]), b"correct horse battery staple")
''')

GUESS = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from koryo_pbm.crypto.keys import parse_identity
    from koryo_pbm.errors import KeyFileError
    key = Path(sys.argv[1]) / "vic.key"
    data = key.read_bytes()
    for guess in (b"password0", b"password1"):  # the first pays the imports: the second is timed
        start = time.perf_counter()
        try:
            parse_identity(data, key, guess)
        except KeyFileError:
            pass
    print(time.perf_counter() - start)
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
    # cwd: python -c puts the current folder first on sys.path, before PYTHONPATH
    subprocess.run([sys.executable, "-c", setup, str(root), *args], env=env, cwd=root, check=True)
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
            env = env_for(path, root)
            subprocess.run([sys.executable, "-c", KEY, str(root)], env=env, cwd=root, check=True)
            proc = subprocess.Popen([sys.executable, "-c", GUESS, str(root)], env=env, cwd=root,
                                    stdout=subprocess.PIPE, text=True)
            out = proc.stdout.read() if proc.stdout else ""
            _, _, usage = os.wait4(proc.pid, 0)
            cells.append(f"{float(out):7.4f} s {usage.ru_maxrss / 1024:6.0f} MiB")
        print(f"{'one passphrase guess (its time; peak memory)':<42} {cells[0]:>22} {cells[1]:>22}")


if __name__ == "__main__":
    main()
