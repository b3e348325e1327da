"""``resolve`` with nothing new in the inbox tells from the public part alone that there is
nothing to do (issue 19: it no longer opens the moderator's part nor imports the game then).
Checked against the whole resolve on the files of a real game with a bot seat, a missed
deadline played by the bot and a seat abandoned, at times before the deadline, within its
grace and after it: wherever the shortcut says "nothing", the whole resolve writes nothing."""

from __future__ import annotations

from datetime import timedelta

from test_cli_bymail import make_keys
from test_cli_deadlines import START, answer, at, new, stamp

from koryo_pbm import match
from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.match.run import _nothing_to_do


def test_nothing_to_do_agrees_with_the_whole_resolve(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob"])
    _, folder = new(cli, lines, names=("alice", "bob"),
                    extra=["--bot", "carol=random", "--deadline", "1d", "--grace", "2h", "--missed", "bot",
                           "--bot-level", "random", "--abandon-after", "2"])
    mod = load_identity(cli.home / "keys" / "mod.key")
    said = {True: 0, False: 0}

    def check(doc, now):
        quick = _nothing_to_do(doc, now)
        whole = match.resolve(match.open_moderator(doc, mod), [], now=now)
        said[quick] += 1
        if quick:
            assert not whole.written and whole.doc is doc and not whole.applied
        return whole.written

    for _ in range(40):
        status = cli.ok("status", folder, "--json").json
        if status["over"]:
            break
        answer(cli, folder, ["alice"])
        cli.ok("resolve", folder, "--as", "mod")  # alice's order held (or the decision applied)
        doc = match.load_doc(folder / "game.toml")
        if doc.decision is None:
            break
        deadline = stamp(doc.decision["deadline"])
        for now in (deadline - timedelta(hours=5), deadline + timedelta(hours=1), deadline + timedelta(hours=3)):
            check(doc, now)
        at(monkeypatch, deadline + timedelta(hours=3))
        r = cli.ok("resolve", folder, "--as", "mod")  # nothing new: the bot plays bob (missed, then abandoned)
        assert "bob" in r.out and "bot played for them" in r.out
    assert said[True] and said[False]
    doc = match.load_doc(folder / "game.toml")
    assert doc.service["abandoned"] == ["bob"]
    assert doc.decision is None  # the game is over: nothing to do, whatever the time
    check(doc, deadline + timedelta(days=30))
    assert _nothing_to_do(doc, deadline + timedelta(days=30))
