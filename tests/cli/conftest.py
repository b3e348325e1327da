"""Fixtures for driving the real CLI with real keys in temporary folders."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from koryo_pbm.cli.main import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self):
        import json

        return json.loads(self.out)


class Cli:
    """Runs ``koryo-pbm ARGS`` in-process (same code path as the console script), in a
    folder of its own, with its own keyring."""

    def __init__(self, home: Path, cwd: Path, capsys, monkeypatch):
        self.home, self.cwd, self._capsys, self._mp = home, cwd, capsys, monkeypatch

    def __call__(self, *args: str, stdin: str | None = None, home: Path | None = None) -> Result:
        self._capsys.readouterr()
        self._mp.setenv("KORYO_PBM_HOME", str(home or self.home))
        self._mp.chdir(self.cwd)
        if stdin is not None:
            import io

            self._mp.setattr(sys, "stdin", io.StringIO(stdin))
        code = main([str(a) for a in args])
        captured = self._capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def ok(self, *args: str, **kw) -> Result:
        r = self(*args, **kw)
        assert r.code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({r.code}): {r.err}"
        return r

    def join(self, folder, *, moderator: str = "mod", resolve: bool = True) -> list[str]:
        """Every player of the game in ``folder`` answers the join (``orders``, then ``submit``
        the contribution as ``orders`` wrote it), then the moderator resolves: the deal. Returns
        who joined. A game created without ``--seed`` or ``--position`` begins with the join."""
        status = self.ok("status", folder, "--json").json
        assert status["decision"] == "join", status
        for p in status["missing"]:
            orders = self.cwd / f"join-{p}.toml"
            self.ok("orders", folder, "--as", p, "-o", orders)
            self.ok("submit", orders, "--as", p, "--game", folder)
        if resolve:
            applied = self.ok("resolve", folder, "--as", moderator, "--json").json["applied"]
            assert applied[0]["decision"] == "join", applied
        return list(status["missing"])

    def fails(self, *args: str, code: int | None = None, **kw) -> Result:
        r = self(*args, **kw)
        assert r.code != 0, f"koryo-pbm {' '.join(map(str, args))} should have failed: {r.out}"
        if code is not None:
            assert r.code == code, r.err
        assert r.err.startswith("koryo-pbm: error: ") or r.err.startswith("Usage:") or "Error:" in r.err, r.err
        assert "Traceback" not in r.err
        lines = [ln for ln in r.err.splitlines() if ln.startswith("koryo-pbm: error:")]
        assert len(lines) <= 1
        return r


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch) -> Cli:
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.delenv("KORYO_PBM_PASSPHRASE", raising=False)
    return Cli(home, work, capsys, monkeypatch)


def run_subprocess(args: list[str], env_home: Path, cwd: Path, **kw) -> subprocess.CompletedProcess:
    """The installed console script in a real process."""
    env = {**os.environ, "KORYO_PBM_HOME": str(env_home)}
    return subprocess.run([sys.executable, "-m", "koryo_pbm", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, **kw)
