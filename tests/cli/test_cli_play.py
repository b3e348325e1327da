"""``koryo-pbm play`` in a real pseudo-terminal, keystroke by keystroke (issue 10, item 3).

Each test starts the real console program on the slave side of a pty (as a terminal would),
reads what it prints, and types answers one key at a time. The menus refuse what is not on
them and ask again; Ctrl-C and ``q`` leave nothing written.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

from test_cli_frictions import setup_game

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _own_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is the pty (so that
    Ctrl-C typed there is a SIGINT, and a hang-up a SIGHUP, as in a real terminal)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """``koryo-pbm ARGS`` on a pseudo-terminal: ``expect`` text, ``type`` keys."""

    def __init__(self, args: list[str], home: Path, cwd: Path):
        master, slave = pty.openpty()
        env = {**os.environ, "KORYO_PBM_HOME": str(home), "TERM": "dumb", "COLUMNS": "100"}
        self.proc = subprocess.Popen([sys.executable, "-m", "koryo_pbm", *args], cwd=cwd, env=env,
                                     stdin=slave, stdout=slave, stderr=slave, preexec_fn=_own_terminal)
        os.close(slave)
        self.fd = master
        self.seen = ""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the program ended and closed the terminal
            return False
        if not data:
            return False
        self.seen += ANSI.sub("", data.decode("utf-8", "replace").replace("\r\n", "\n"))
        return True

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Wait until ``text`` appears after what was already matched; return what came before."""
        end = time.monotonic() + timeout
        while text not in self.seen:
            if time.monotonic() > end or (not self._read(min(1.0, end - time.monotonic())) and self.proc.poll() is not None
                                          and not self._read(0.1)):
                raise AssertionError(f"never saw {text!r}; the terminal shows:\n{self.seen}")
        before, _, self.seen = self.seen.partition(text)
        return before

    def type(self, keys: str) -> None:
        for key in keys:  # one keystroke at a time, as a person types
            os.write(self.fd, key.encode())
            time.sleep(0.01)

    def finish(self, timeout: float = 30.0) -> int:
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0.1):
            pass
        code = self.proc.wait(timeout=1)
        os.close(self.fd)
        return code


def play(cli, *args: str) -> Terminal:
    return Terminal(["play", *args], cli.home, cli.cwd)


def envelopes(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "inbox").iterdir())


def test_play_picks_from_the_menu_and_submits_into_the_inbox(cli):
    folder, _ = setup_game(cli)
    term = play(cli, "g", "--as", "alice")
    shown = term.expect("which cards do you place face down?")
    assert "your hand (alice):" in shown
    menu = term.expect("Your choice (")
    options = re.findall(r"^\s+(\d+)\) (.+?)(   \(suggested\))?$", menu, re.M)
    assert len(options) >= 2 and options[0][0] == "1"
    assert sum(1 for o in options if o[2]) == 1  # one suggestion: the heuristic bot's choice
    term.type("99\r")
    term.expect(f"not on the menu: '99'; type a number from 1-{len(options)} or q")
    term.type("x\r")
    term.expect("not on the menu: 'x'")
    term.type("1\r")
    summary = term.expect("Sign and seal them into the game's inbox? (y: yes, n: choose again, q: quit)")
    assert f"Your orders for r1-orders:\n  - {options[0][1]}\n" in summary
    assert envelopes(folder) == []  # nothing written before the confirmation
    term.type("y\r")
    term.expect("submitted alice's orders for r1-orders: g/inbox/r1-orders--alice.envelope")
    assert term.finish() == 0
    status = cli.ok("status", "g").out
    assert "alice" not in status.split("missing")[-1] if "missing" in status else True
    assert envelopes(folder) == ["r1-orders--alice.envelope"]


def test_enter_takes_the_suggestion_in_the_order_phase(cli):
    folder, _ = setup_game(cli, seed="play-enter")
    for name in ("alice", "bob", "carol"):
        term = play(cli, "g", "--as", name)
        menu = term.expect("Your choice (")
        suggested = re.search(r"^\s+\d+\) (.+)   \(suggested\)$", menu, re.M).group(1)
        term.type("\r")
        summary = term.expect("(y: yes, n: choose again, q: quit)")
        assert f"  - {suggested}\n" in summary
        term.type("y\r")
        assert term.finish() == 0
    assert len(envelopes(folder)) == 3
    cli.ok("resolve", "g", "--as", "mod")
    assert cli.ok("status", "g", "--json").json["version"] == 2


def test_an_action_turn_step_by_step_with_back(cli):
    """From examples/positions/koryo-barbarian-guardian.toml: alice's two Barbarians can hit
    only bob (carol has Guardian protection through the Omniscient tie)."""
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob", "carol"]}
    position = Path(__file__).resolve().parents[2] / "examples" / "positions" / "koryo-barbarian-guardian.toml"
    cli.ok("new", "g", "--as", "mod", "--position", str(position),
           *[a for n in ("alice", "bob", "carol") for a in ("--player", f"{n}={lines[n]}")])
    term = play(cli, "g", "--as", "alice")
    menu = term.expect("Your choice (")
    assert "Round 4, your action turn (done: nothing yet). Next step?" in menu
    assert "  1) reveal your face-down cards (barbarian ×2)" in menu
    assert "end the turn" not in menu  # the reveal is required first
    term.type("1\r")
    menu = term.expect("Your choice (")
    assert "(done: reveal)" in menu
    assert "barbarian: destroy bob's banker" in menu
    assert "carol's" not in menu  # Guardian protection
    term.type("b\r")  # back: the reveal is undone
    menu = term.expect("Your choice (")
    assert "(done: nothing yet)" in menu
    term.type("1\r")
    menu = term.expect("Your choice (")
    banker = re.search(r"^\s+(\d+)\) barbarian: destroy bob's banker$", menu, re.M).group(1)
    term.type(banker + "\r")
    menu = term.expect("Your choice (")
    assert "(done: reveal, barbarian on bob's banker)" in menu
    end = re.search(r"^\s+(\d+)\) end the turn \(the events left have no effect\)$", menu, re.M).group(1)
    term.type(end + "\r")
    summary = term.expect("(y: yes, n: choose again, q: quit)")
    assert ("  - reveal your face-down cards (barbarian ×2)\n  - barbarian: destroy bob's banker\n"
            "  - end the turn (the events left have no effect)\n") in summary
    term.type("y\r")
    term.expect("submitted alice's orders for r4-action-alice")
    assert term.finish() == 0
    resolved = cli.ok("resolve", "g", "--as", "mod")
    assert "alice's barbarian destroys bob's banker" in resolved.out + resolved.err


def test_q_and_ctrl_c_leave_nothing_written(cli):
    folder, _ = setup_game(cli)
    term = play(cli, "g", "--as", "bob")
    term.expect("Your choice (")
    term.type("q\r")
    rest = term.expect("stopped: nothing was submitted")
    assert term.finish() == 130  # as Ctrl-C: a loop around play stops on it
    assert "Traceback" not in rest
    term = play(cli, "g", "--as", "bob")
    term.expect("Your choice (")
    term.type("\x04")  # Ctrl-D: the end of input
    term.expect("no answer (end of input): nothing was submitted")
    assert term.finish() == 130
    term = play(cli, "g", "--as", "bob")
    term.expect("Your choice (")
    term.type("2\r")
    term.expect("(y: yes, n: choose again, q: quit)")
    term.type("\x03")  # Ctrl-C at the confirmation
    term.expect("koryo-pbm: interrupted")
    assert term.finish() == 130
    assert envelopes(folder) == []


def test_play_out_writes_the_envelope_for_mail(cli):
    folder, _ = setup_game(cli)
    term = play(cli, "g", "--as", "carol", "--out", "carol.txt")
    term.expect("Your choice (")
    term.type("\r")
    term.expect("Sign and seal them into carol.txt?")
    term.type("y\r")
    term.expect("wrote carol.txt: attach it to (or paste it into) an email to your moderator")
    assert term.finish() == 0
    assert envelopes(folder) == []
    text = (cli.cwd / "carol.txt").read_text()
    assert text.startswith("-----BEGIN KORYO-PBM ENVELOPE-----") or "BEGIN" in text.splitlines()[0]


def test_korsar_menus_go_draw_or_play_then_card_then_galleon(cli):
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "ann", "ben", "cat"]}
    cli.ok("new", "k", "--game", "korsar", "--as", "mod", "--seed", "play-korsar",
           *[a for n in ("ann", "ben", "cat") for a in ("--player", f"{n}={lines[n]}")])
    who = cli.ok("status", "k", "--json").json["waiting_for"][0]
    term = play(cli, "k", "--as", who)
    menu = term.expect("Your choice (")
    assert "draw, or play a card?" in menu
    assert re.search(r"\d\) draw the top card of the pile \(\d+ left\)", menu)
    assert "play a card from your hand" in menu
    play_no = re.search(r"(\d)\) play a card from your hand", menu).group(1)
    term.type(play_no + "\r")
    menu = term.expect("Your choice (")
    assert "Which card?" in menu
    term.type("b\r")
    menu = term.expect("Your choice (")
    assert "draw, or play a card?" in menu
    draw_no = re.search(r"(\d)\) draw the top card", menu).group(1)
    term.type(draw_no + "\r")
    summary = term.expect("(y: yes, n: choose again, q: quit)")
    assert "  - draw the top card of the pile" in summary
    term.type("y\r")
    term.expect(f"submitted {who}'s orders")
    assert term.finish() == 0


def test_play_when_not_waited_for_is_one_line(cli):
    setup_game(cli)
    cli.ok("keygen", "dave")
    r = cli.fails("play", "g", "--as", "dave")
    assert "Traceback" not in r.err


def test_a_terminal_closed_mid_menu_writes_nothing(cli):
    folder, _ = setup_game(cli)
    term = play(cli, "g", "--as", "alice")
    term.expect("Your choice (")
    os.killpg(term.proc.pid, signal.SIGHUP)
    term.finish()
    assert envelopes(folder) == []


def test_play_opens_with_what_happened_and_says_orders_in_are_replaced(cli):
    setup_game(cli, seed="play-news")
    term = play(cli, "g", "--as", "alice")
    term.expect("Your choice (")
    term.type("\r")
    term.expect("(y: yes, n: choose again, q: quit)")
    term.type("y\r")
    done = term.expect("replace them before")
    assert "they replace" not in done
    assert term.finish() == 0
    term = play(cli, "g", "--as", "alice")  # again: nothing new, and the orders are in
    before = term.expect("Your choice (")
    assert "nothing new since you last looked (version 1)" in before
    assert ("your orders for r1-orders are already in (they are in the inbox): "
            "orders you confirm now replace them") in before
    term.type("\r")
    term.expect("(y: yes, n: choose again, q: quit)")
    term.type("y\r")
    term.expect("submitted alice's orders for r1-orders: g/inbox/r1-orders--alice.envelope "
                "(they replace your earlier orders: they are in the inbox)")
    assert term.finish() == 0
    for name in ("bob", "carol"):
        cli.ok("bot", "g", "--as", name)
    cli.ok("resolve", "g", "--as", "mod")
    assert "alice" in cli.ok("status", "g", "--json").json["waiting_for"]  # (with this seed)
    term = play(cli, "g", "--as", "alice")
    before = term.expect("Your choice (")
    assert "what happened since version 1, which you last saw:" in before
    assert "already in" not in before
    term.type("q\r")
    term.finish()
