"""Shell completion (issue 10, item 5), in real shells: bash, zsh and fish, each run
interactively in a tmux pseudo-terminal, set up as the README says, completing keystroke by
keystroke: a command name, an option, and ``--as`` with the names of the keys in the keyring.

Missing shells or tmux skip with the command that installs them, except under ``CI=true``,
where they fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from koryo_pbm.cli.completion import completion_script


def _need(program: str, package: str) -> str:
    path = shutil.which(program)
    if path is None:
        message = f"{program} is not installed (apt-get install {package})"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def _console_script() -> Path:
    """The installed ``koryo-pbm`` beside this interpreter (pip puts it there)."""
    script = Path(sys.executable).parent / "koryo-pbm"
    if not script.exists():
        pytest.fail(f"no koryo-pbm console script beside {sys.executable}: install the package (pip install -e .)")
    return script


class Terminal:
    """One interactive shell in a tmux session of its own (its own server socket)."""

    def __init__(self, tmp: Path, argv: list[str], env: dict[str, str]):
        self.tmux = _need("tmux", "tmux")
        self.socket = str(tmp / "tmux.sock")
        env_args = [f"{k}={v}" for k, v in env.items()]
        self._run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "40",
                  "env", "-i", *env_args, *argv)

    def _run(self, *args: str) -> str:
        return subprocess.run([self.tmux, "-S", self.socket, *args], check=True, capture_output=True,
                              text=True, timeout=30).stdout

    def type(self, text: str) -> None:
        """Type ``text`` key by key (as hex, so that a leading '-' is not read as a flag)."""
        self._run("send-keys", "-t", "t", "-H", *(f"{b:02x}" for b in text.encode("utf-8")))

    def key(self, name: str) -> None:
        self._run("send-keys", "-t", "t", name)

    def screen(self) -> str:
        return self._run("capture-pane", "-t", "t", "-p")

    def wait_for(self, predicate, what: str, timeout: float = 20.0) -> str:
        """The screen (each line's runs of spaces made one) once ``predicate`` holds for it."""
        end = time.monotonic() + timeout
        while True:
            screen = "\n".join(" ".join(ln.split()) for ln in self.screen().splitlines())
            if predicate(screen):
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"waited {timeout} s for {what}; the screen:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([self.tmux, "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


SHELLS = {
    # shell: (program, apt package, argv, setup typed at the prompt as the README says)
    "bash": ("bash", "bash", ["bash", "--norc", "--noprofile", "-i"], 'eval "$(koryo-pbm completion bash)"'),
    "zsh": ("zsh", "zsh", ["zsh", "-f", "-i"], 'autoload -Uz compinit && compinit -u && eval "$(koryo-pbm completion zsh)"'),
    "fish": ("fish", "fish", ["fish", "-i"], None),  # fish reads ~/.config/fish/completions/koryo-pbm.fish
}


@pytest.fixture(params=list(SHELLS))
def shell(request, tmp_path):
    name = request.param
    program, package, argv, setup = SHELLS[name]
    _need(program, package)
    script = _console_script()
    home = tmp_path / "home"
    (home / ".config" / "fish" / "completions").mkdir(parents=True)
    keys = tmp_path / "kp" / "keys"
    keys.mkdir(parents=True)
    for who in ("alice", "albert", "bob"):  # the keyring --as completes from
        (keys / f"{who}.key").write_text("not read by completion\n")
    if name == "fish":  # installed as the README says
        (home / ".config" / "fish" / "completions" / "koryo-pbm.fish").write_text(completion_script("fish"))
    env = {"PATH": f"{script.parent}:/usr/bin:/bin", "HOME": str(home), "TERM": "xterm",
           "KORYO_PBM_HOME": str(tmp_path / "kp"), "PS1": "$ ", "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local" / "share")}
    term = Terminal(tmp_path, argv, env)
    try:
        term.wait_for(lambda s: s.strip(), f"{name} to start")
        if setup:
            term.type(setup)
            term.key("Enter")
            term.wait_for(lambda s: s.rstrip().count("\n") >= 1, f"{name} to read the completion script")
        yield name, term
    finally:
        term.close()


def test_completion_of_commands_options_and_key_names(shell):
    name, term = shell
    term.type("koryo-pbm sho")
    term.key("Tab")
    term.wait_for(lambda s: "koryo-pbm show" in s, f"{name} to complete 'sho' to 'show'")
    term.type(" --js")  # (a second space after the shell's own is harmless)
    term.key("Tab")
    term.wait_for(lambda s: "koryo-pbm show --json" in s, f"{name} to complete '--js' to '--json'")
    term.type(" --as bo")
    term.key("Tab")
    term.wait_for(lambda s: "koryo-pbm show --json --as bob" in s, f"{name} to complete '--as bo' to the key 'bob'")
    # two keys start with 'al': both are offered
    term.key("C-u") if name != "fish" else term.key("C-c")
    # the shell may still be busy with the last completion: type only at an empty prompt
    term.wait_for(lambda s: "koryo-pbm" not in (s.rstrip().splitlines() or [""])[-1], f"{name} to clear the line")
    term.type("koryo-pbm orders --as al")
    term.key("Tab")
    term.key("Tab")
    screen = term.wait_for(lambda s: "alice" in s and "albert" in s, f"{name} to offer alice and albert")
    assert "bob" not in screen.split("--as al", 1)[1]


def test_completion_scripts_are_the_ones_click_answers():
    for sh in ("bash", "zsh", "fish"):
        text = completion_script(sh)
        assert "_KORYO_PBM_COMPLETE" in text and "koryo-pbm" in text
    r = subprocess.run([sys.executable, "-m", "koryo_pbm", "completion", "tcsh"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith("koryo-pbm: error: invalid value for 'SHELL': 'tcsh' is not one of 'bash', 'zsh', 'fish'")
