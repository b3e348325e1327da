"""The attack suite's kit: real keys, real games, the real CLI entry point.

``run()`` calls ``koryo_pbm.cli.main.main`` in-process (the code path of the console script)
with its own stdin/stdout/stderr, ``$KORYO_PBM_HOME`` and working folder. It does not catch
anything: an exception escaping ``main`` fails the test that caused it.

The ``world`` (built once per session) holds keys, a 4-player Koryo game before and after its
first decision with the four players' envelopes, and a 2-player game played to its end with
every envelope kept. Tests copy what they need into their own temporary folder (``Arena``).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from koryo_pbm.cli.main import main

PLAYERS4 = ["alice", "bob", "carol", "dave"]
PLAYERS2 = ["alice", "bob"]
ERROR = "koryo-pbm: error: "


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self):
        import json

        return json.loads(self.out)

    @property
    def error_lines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.startswith(ERROR)]


def run(*args, home: Path, cwd: Path, stdin: str | None = None, env: dict | None = None) -> Result:
    """``koryo-pbm ARGS`` in-process. Exceptions other than SystemExit propagate (= a bug)."""
    saved_env = {k: os.environ.get(k) for k in ("KORYO_PBM_HOME", "KORYO_PBM_PASSPHRASE", *(env or {}))}
    saved_cwd, saved_stdin = os.getcwd(), sys.stdin
    out, err = io.StringIO(), io.StringIO()
    os.environ["KORYO_PBM_HOME"] = str(home)
    os.environ.pop("KORYO_PBM_PASSPHRASE", None)
    for k, v in (env or {}).items():
        os.environ[k] = v
    os.chdir(cwd)
    sys.stdin = io.StringIO(stdin or "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:  # allowed by the rules of the suite, reported as a code
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return Result(code, out.getvalue(), err.getvalue())


def assert_refused(r: Result, *, code: int | None = None) -> str:
    """A refusal: non-zero exit, exactly one ``koryo-pbm: error: ...`` line (the last line of
    stderr), no traceback. Returns the error line."""
    assert r.code != 0, f"should have been refused: out={r.out!r} err={r.err!r}"
    if code is not None:
        assert r.code == code, r.err
    assert "Traceback" not in r.err, r.err
    lines = r.error_lines
    assert len(lines) == 1, r.err
    assert r.err.rstrip("\n").splitlines()[-1] == lines[0], r.err
    return lines[0]


def folder_snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (relative path -> bytes), the lock file excluded."""
    snap = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != ".lock":
            snap[str(p.relative_to(folder))] = p.read_bytes()
    return snap


def envelope_files(folder: Path) -> list[bytes]:
    """The contents of every envelope file in inbox/ and archive/ (hidden files excluded)."""
    found = []
    for sub in ("inbox", "archive"):
        for p in sorted((folder / sub).rglob("*")):
            if p.is_file() and not p.name.startswith("."):
                found.append(p.read_bytes())
    return found


def game_version(path: Path) -> int:
    return tomllib.loads(path.read_text(encoding="utf-8"))["version"]


@dataclass
class World:
    root: Path
    keys: Path  # a keyring folder (mod, alice, bob, carol, dave, eve)
    lines: dict[str, str]  # public key lines
    g4_v1: bytes  # 4-player Koryo game, version 1 (r1-orders pending)
    g4_v2: bytes  # the same after r1-orders
    env4: dict[str, str]  # the four players' armoured envelopes for r1-orders of g4
    env4_old_alice: str  # an earlier envelope of alice for r1-orders (superseded by env4["alice"])
    g2_versions: list[bytes]  # every version of a 2-player game played to its end
    g2_envelopes: list[tuple[str, str, str]]  # (decision, player, armoured) in submission order
    other_v1: bytes  # another 4-player game, same moderator and players
    orders4: dict[str, str] = field(default_factory=dict)  # the orders files of env4


def _ok(r: Result, what: str) -> Result:
    assert r.code == 0, f"{what}: {r.err}"
    return r


def _new(home: Path, cwd: Path, lines: dict, players: list[str], folder: str, seed: str) -> Path:
    args = ["new", folder, "--as", "mod", "--seed", seed]
    for p in players:
        args += ["--player", f"{p}={lines[p]}"]
    _ok(run(*args, home=home, cwd=cwd), "new")
    return cwd / folder


def _orders_and_envelope(home, cwd, folder: Path, player: str, tag: str) -> tuple[str, str]:
    orders = cwd / f"{tag}-{player}.toml"
    out = cwd / f"{tag}-{player}.envelope"
    _ok(run("orders", folder, "--as", player, "-o", orders, home=home, cwd=cwd), "orders")
    _ok(run("submit", orders, "--as", player, "--game", folder, "--out", out, home=home, cwd=cwd), "submit")
    return orders.read_text(), out.read_text()


def build_world(root: Path) -> World:
    home = root / "home"
    cwd = root / "work"
    cwd.mkdir()
    lines = {}
    for name in ["mod", *PLAYERS4, "eve"]:
        lines[name] = _ok(run("keygen", name, home=home, cwd=cwd), "keygen").out.strip()

    g4 = _new(home, cwd, lines, PLAYERS4, "g4", "attack-4")
    g4_v1 = (g4 / "game.toml").read_bytes()
    env4, orders4 = {}, {}
    old_alice = None
    for p in PLAYERS4:
        if p == "alice":  # an earlier submission, replaced by the next one
            old_alice = _orders_and_envelope(home, cwd, g4, p, "old")[1]
        orders4[p], env4[p] = _orders_and_envelope(home, cwd, g4, p, "r1")
    for p in PLAYERS4:
        (g4 / "inbox" / f"r1-orders--{p}.envelope").write_text(env4[p])
    r = _ok(run("resolve", g4, "--as", "mod", "--json", home=home, cwd=cwd), "resolve")
    assert r.json["applied"][0]["decision"] == "r1-orders"
    g4_v2 = (g4 / "game.toml").read_bytes()

    other = _new(home, cwd, lines, PLAYERS4, "other", "attack-other")

    g2 = _new(home, cwd, lines, PLAYERS2, "g2", "attack-2")
    versions = [(g2 / "game.toml").read_bytes()]
    envelopes = []
    for step in range(200):
        status = _ok(run("status", g2, "--json", home=home, cwd=cwd), "status").json
        if status["decision"] is None:
            break
        for p in status["missing"]:
            _, text = _orders_and_envelope(home, cwd, g2, p, f"g2-{step}")
            envelopes.append((status["decision"], p, text))
            (g2 / "inbox" / f"{status['decision']}--{p}.envelope").write_text(text)
        _ok(run("resolve", g2, "--as", "mod", home=home, cwd=cwd), "resolve g2")
        versions.append((g2 / "game.toml").read_bytes())
    else:  # pragma: no cover
        raise AssertionError("the 2-player game did not end")

    keys = root / "keys"
    shutil.copytree(home / "keys", keys)
    return World(root, keys, lines, g4_v1, g4_v2, env4, old_alice, versions, envelopes,
                  (other / "game.toml").read_bytes(), orders4)


class Arena:
    """A test's own folder: a home with the world's keys (and no memory of games seen)."""

    def __init__(self, world: World, root: Path):
        self.world = world
        self.root = root
        self.home = root / "home"
        self.cwd = root / "work"
        self.cwd.mkdir(parents=True)
        shutil.copytree(world.keys, self.home / "keys")

    def __call__(self, *args, **kw) -> Result:
        return run(*args, home=kw.pop("home", self.home), cwd=kw.pop("cwd", self.cwd), **kw)

    def ok(self, *args, **kw) -> Result:
        r = self(*args, **kw)
        assert r.code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({r.code}): {r.err}"
        return r

    def game(self, data: bytes, name: str = "g", envelopes: dict[str, str] | None = None) -> Path:
        """A game folder holding ``data`` as game.toml, and ``envelopes`` (file name -> text) in its inbox."""
        folder = self.cwd / name
        (folder / "inbox").mkdir(parents=True)
        (folder / "archive").mkdir()
        (folder / "game.toml").write_bytes(data)
        for fname, text in (envelopes or {}).items():
            (folder / "inbox" / fname).write_text(text)
        return folder

    def key(self, name: str) -> Path:
        return self.home / "keys" / f"{name}.key"




# -- crafting ----------------------------------------------------------------------------------


def identity(world_or_arena, name: str):
    """The Identity of ``name`` from the world's keyring."""
    from koryo_pbm.crypto.keys import load_identity

    keys = world_or_arena.keys if isinstance(world_or_arena, World) else world_or_arena.world.keys
    return load_identity(keys / f"{name}.key")


def body_of(game_file: bytes) -> bytes:
    """Everything before a game file's signature line (what the signature covers; from v4 on, in
    its digested form: ``playercopy.signed_message``)."""
    cut = game_file.rfind(b"\n", 0, len(game_file) - 1) + 1
    return game_file[:cut]


def sign_game(body: bytes, signer) -> bytes:
    """``body`` with a valid signature line by ``signer`` (whatever the body says)."""
    import base64

    from koryo_pbm.crypto.sign import sign
    from koryo_pbm.store.gamedoc import SIGN_CONTEXT
    from koryo_pbm.store.playercopy import signed_message

    sig = base64.b64encode(sign(signer, SIGN_CONTEXT, signed_message(body))).decode("ascii")
    return body + f'signature = "{sig}"\n'.encode("ascii")


def head_of(data: bytes) -> str:
    """The head of the history of a game file (what an envelope answering it names)."""
    from koryo_pbm.store import gamefile, gamelog

    return gamelog.head(gamefile.decode(data))


def game_id_of(data: bytes) -> str:
    return tomllib.loads(body_of(data).decode("utf-8"))["game_id"]


def parse_envelope(text: str):
    from koryo_pbm.crypto.envelope import parse_one

    return parse_one(text)
