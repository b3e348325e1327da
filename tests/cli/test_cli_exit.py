"""The command line ends its process without the interpreter's teardown (issue 19:
``cli.main.leave``): in real processes, everything a command prints reaches the pipe whole,
every file it writes is there for the next command, exit statuses and error lines are as
before, and a reader that closes the pipe early still gets no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import run_subprocess


def test_output_files_and_exit_statuses_survive_the_prompt_exit(tmp_path):
    def ok(*args):
        r = run_subprocess(list(args), tmp_path, tmp_path)
        assert r.returncode == 0, r.stderr
        return r

    lines = {name: ok("keygen", name).stdout.strip() for name in ("mod", "alice", "bob")}
    ok("new", "g", "--as", "mod", "--seed", "exit", "--player", f"alice={lines['alice']}",
       "--player", f"bob={lines['bob']}")
    status = json.loads(ok("status", "g", "--json").stdout)
    assert status["version"] == 1 and status["missing"] == ["alice", "bob"]
    for p in ("alice", "bob"):
        ok("orders", "g", "--as", p, "-o", f"{p}.toml")
        ok("submit", f"{p}.toml", "--as", p, "--game", "g")
    done = json.loads(ok("resolve", "g", "--as", "mod", "--json").stdout)  # the whole JSON, through a pipe
    assert done["written"] and done["applied"][0]["decision"] == "r1-orders"
    assert sorted(os.listdir(tmp_path / "g" / "archive" / "accepted")) == ["r1-orders--alice.envelope",
                                                                            "r1-orders--bob.envelope"]
    # the next process reads what the last one wrote: the game file, and the memory of games seen
    again = ok("resolve", "g", "--as", "mod")
    assert f"decision {done['decision']}, version 2" in again.stdout
    assert json.loads(ok("status", "g", "--json").stdout)["version"] == 2
    assert "your hand (alice)" in ok("show", "g", "--as", "alice").stdout
    # an error: its one line on standard error and its exit status, as before
    r = run_subprocess(["resolve", "g", "--as", "alice"], tmp_path, tmp_path)
    assert r.returncode != 0 and r.stderr.startswith("koryo-pbm: error: ") and "Traceback" not in r.stderr
    # a reader that stops early (head): no traceback
    proc = subprocess.Popen([sys.executable, "-m", "koryo_pbm", "log", "g"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "KORYO_PBM_HOME": str(tmp_path)})
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(1)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err
