"""Exactly once, nothing lost: the judge stopped at every step of a pass, then started again.

The scenario: game ``friday`` (2 players, Maildir in, sendmail out), its start mails sent. Three
mails wait for the judge: alice's and bob's orders for the first decision (each in its own
mail: the first is held, the second completes the decision), and a mail with the game's tag but
no envelope (help). A clean ``serve --once`` resolves the decision, answers each of the three
mails once, and mails every player the new state.

Each trial stops one ``serve --once`` at the k-th call it makes to ``os.open``, ``os.write``,
``os.fsync``, ``os.replace``, ``os.rename``, ``os.link``, ``os.unlink``, ``os.mkdir`` or the
sender (every k, from the first call to the last): with an exception nothing catches (the
process dying there) and with an ``OSError`` (a full disk, an I/O error; at the sender: an
outage). Then the judge is
started again (``serve --once``, twice). After that, every trial must end where the clean run
ends: the same game file (state and log, each envelope counted once), every incoming mail
moved to the done folder (none lost, none left), and every player holding exactly the mails
of the clean run, by Message-ID; the only repeat allowed is one mail sent again because the
stop fell between the sender accepting it and its move to ``outbox/sent`` (same Message-ID,
which mail clients show once).
"""

from __future__ import annotations

import errno
import os
import shutil
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from judge_kit import PostOffice
from test_judge_mail_game import serve_once, setup_game
from tree_sync import sync_tree

from koryo_pbm.transport import senders

pytestmark = pytest.mark.real_fsync  # the judge stopped at every os call, fsync included (see conftest._unsynced_session)

PLAYERS = ["alice", "bob"]  # two: each trial (~500 of them) costs about its number of players
PATCHED = ("open", "write", "fsync", "replace", "rename", "link", "unlink", "mkdir")


class Killed(BaseException):
    """The process dies here: nothing in koryo-pbm may catch it."""


class Injector:
    """Counts the judge's calls to the patched ``os`` functions and to the sender; the k-th fails."""

    def __init__(self, monkeypatch, fail_at: int | None, error):
        self.calls, self.fail_at, self.error, self.where = 0, fail_at, error, None
        self.unmoved = False  # a mail was handed to the sender and not yet moved to outbox/sent
        self.stopped_unmoved = False
        for name in PATCHED:
            monkeypatch.setattr(os, name, self._wrap(name, getattr(os, name)))
        monkeypatch.setattr(senders.SendmailSender, "send",
                            self._wrap("send", senders.SendmailSender.send))

    def _wrap(self, name, real):
        def wrapper(*args, **kw):
            self.calls += 1
            if self.calls == self.fail_at:
                self.where, self.stopped_unmoved = name, self.unmoved
                error = self.error()
                if name == "send" and isinstance(error, OSError):  # how a sender reports an outage
                    raise senders.SendError(f"mail system down (injected: {error})")
                raise error
            result = real(*args, **kw)
            if name == "send":
                self.unmoved = True
            elif name == "replace":
                self.unmoved = False
            return result

        return wrapper


def _snapshot(cli, tmp_path) -> Path:
    snap = tmp_path / "snap"
    shutil.copytree(cli.cwd, snap / "work", symlinks=True)
    shutil.copytree(tmp_path / "post", snap / "post", symlinks=True)
    return snap


def _restore(cli, tmp_path, snap: Path) -> None:
    for name, target in (("work", cli.cwd), ("post", tmp_path / "post")):
        sync_tree(snap / name, target)




def _outcome(cli, po: PostOffice) -> dict:
    game = tomllib.loads((cli.cwd / "games" / "friday" / "game.toml").read_text())
    mails: dict[str, Counter] = {}
    for p in PLAYERS:
        mails[p] = Counter(po.message_ids(f"{p}@example.org"))
    box = po.judge_box
    return {
        "game": {k: game.get(k) for k in ("version", "public", "decision", "log")},
        "mails": mails,
        "waiting": sorted(os.listdir(box / "new")) + sorted(os.listdir(box / "cur")),
        "done": len(os.listdir(box / ".koryo-pbm.done" / "cur")),
    }


@pytest.fixture
def scenario(cli, tmp_path, monkeypatch):
    # the help reply attaches the player page: a stand-in of the size the page had before it
    # carried the rules (155 KB, not 7.8 MB), so that the sender's writes to its pipe (os.write,
    # counted here) stay few and as many in every run; what is tested is where the judge stops
    from koryo_pbm import assets

    monkeypatch.setattr(assets, "player_page", lambda: b"<!DOCTYPE html>\n" + b"x" * 155_000)
    po = setup_game(cli, tmp_path, players=PLAYERS)
    assert serve_once(cli, po).code == 0  # the start mails
    starts = {p: po.messages(f"{p}@example.org") for p in PLAYERS}
    for p in PLAYERS:
        folder = cli.cwd / "players" / p
        folder.mkdir(parents=True)
        (folder / "game.toml").write_bytes(next(part for part in starts[p][0].iter_attachments()).get_payload(decode=True))
        cli.ok("orders", folder / "game.toml", "--as", p, "-o", folder / "orders.toml")
        cli.ok("submit", folder / "orders.toml", "--as", p, "--game", folder / "game.toml", "--out", folder / "env.txt")
        po.send_to_judge(f"{p} <{p}@example.org>", "orders", "Mine:\n\n" + (folder / "env.txt").read_text())
    po.send_to_judge("alice <alice@example.org>", "[koryo-pbm friday] how do I play?", "Help me, please.")
    snap = _snapshot(cli, tmp_path)
    assert serve_once(cli, po).code == 0
    clean = _outcome(cli, po)
    assert clean["game"]["version"] == 3 and len(clean["game"]["log"]) == 1  # one order held, then resolved
    assert clean["done"] == len(PLAYERS) + 1 and not clean["waiting"]
    # each player: the start mail, then their receipt and the new state; alice also her help
    assert {p: sum(c.values()) for p, c in clean["mails"].items()} == {"alice": 3, "bob": 2}
    _restore(cli, tmp_path, snap)
    return po, snap, clean


def _check(cli, po, clean) -> int:
    """Start the judge again, then the invariants; returns how many mails were sent twice."""
    logs = []
    for _ in range(2):
        r = serve_once(cli, po)
        assert r.code == 0, r.err
        logs.append(r.out + r.err)
    got = _outcome(cli, po)
    assert got["game"] == clean["game"], logs
    assert got["done"] == clean["done"] and not got["waiting"], "an incoming mail was lost or left"
    twice = 0
    for p in PLAYERS:
        assert set(got["mails"][p]) == set(clean["mails"][p]), p  # nothing lost, nothing extra
        extra = sum(got["mails"][p].values()) - len(got["mails"][p])
        twice += extra
    assert not list((cli.cwd / "games" / "friday" / "outbox").glob("*.eml")), "a mail is still waiting"
    accepted = [d for e in got["game"]["log"] for d in e["accepted"]]
    assert len(accepted) == len(set(accepted)) == len(PLAYERS)
    return twice


def _serve_with(cli, po, monkeypatch, fail_at, error):
    with monkeypatch.context() as mp:
        inj = Injector(mp, fail_at, error)
        try:
            r = serve_once(cli, po)
        except Killed:
            r = None
    return inj, r


def test_the_judge_stopped_at_every_step_finishes_the_job_exactly_once(cli, tmp_path, monkeypatch, scenario):
    po, snap, clean = scenario
    inj, r = _serve_with(cli, po, monkeypatch, None, None)
    n_calls = inj.calls
    assert r is not None and r.code == 0 and n_calls >= 40, n_calls
    assert _check(cli, po, clean) == 0  # the clean run sends each mail once

    def io_error():
        return OSError(errno.EIO, "Input/output error (injected)")

    where: Counter = Counter()
    resent = 0
    for mode, error in (("killed", Killed), ("oserror", io_error)):
        for k in range(1, n_calls + 1):
            _restore(cli, tmp_path, snap)
            inj, r = _serve_with(cli, po, monkeypatch, k, error)
            assert inj.where is not None, (mode, k)
            if r is not None and r.code != 0:
                assert "Traceback" not in r.err and r.err.startswith("koryo-pbm: error: "), r.err
            try:
                twice = _check(cli, po, clean)
            except AssertionError as exc:
                first = (r.out + r.err) if r is not None else "(killed)"
                raise AssertionError(f"stopped ({mode}) at call {k}, {inj.where}: {first} {exc}") from None
            assert twice <= 1, (mode, k, inj.where)
            if twice:
                # the stop fell between a send and the mail's move to outbox/sent
                assert inj.stopped_unmoved, (mode, k, inj.where)
            resent += twice
            where[mode, inj.where] += 1
    # every kind of step was hit, the sends and the moves of handled mail included
    assert where["killed", "send"] and where["killed", "rename"] and where["killed", "replace"]
    assert resent >= 2  # the window between a send and its move was hit too (killed and I/O error)

