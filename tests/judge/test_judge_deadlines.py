"""Issue 11, item 2: the judge's reminders and late notices, and the judge playing missed orders,
through ``koryo-pbm serve --once`` (each run a new judge: a restart) with the time fixed by
``KORYO_PBM_NOW``."""

from __future__ import annotations

import re
import shutil

import mail_golden as golden
from judge_kit import FROM, PostOffice, attachment, body, player_copy

from koryo_pbm.judge import messages

PLAYERS = ["alice", "bob", "carol"]
START = "2026-11-24T18:00Z"


def setup_game(cli, tmp_path, monkeypatch, extra=()):
    monkeypatch.setenv("KORYO_PBM_NOW", START)
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *PLAYERS]}
    (cli.cwd / "games").mkdir(exist_ok=True)
    args = ["new", "games/friday", "--as", "mod", "--seed", "deadline-game", *extra]
    for n in PLAYERS:
        args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org"]
    cli.ok(*args)
    return PostOffice(tmp_path / "post")


def serve_at(cli, po, monkeypatch, when, *extra):
    monkeypatch.setenv("KORYO_PBM_NOW", when)
    r = cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
            "--from", FROM, "--retry", "0.01", *extra)
    assert r.code == 0, r.err
    return r


def mails(po):
    return {p: po.messages(f"{p}@example.org") for p in PLAYERS}


def submit_by_folder(cli, players):
    status = cli.ok("status", "games/friday", "--json").json
    for p in players:
        orders = cli.cwd / f"{status['decision']}-{p}.toml"
        cli.ok("orders", "games/friday", "--as", p, "-o", orders)
        cli.ok("submit", orders, "--as", p, "--game", "games/friday")


def test_reminders_and_late_notices_are_sent_once_each_across_restarts(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "2d"])
    serve_at(cli, po, monkeypatch, START)
    first = mails(po)
    for p in PLAYERS:  # the state mail says when the deadline is
        (state,) = first[p]
        assert "Deadline: 2026-11-26 18:00 UTC." in " ".join(body(state).split())
    # a day and a half before the deadline: too early for a reminder (the judge's --remind 1d)
    serve_at(cli, po, monkeypatch, "2026-11-25T06:00Z")
    assert mails(po) == {p: [] for p in PLAYERS}
    submit_by_folder(cli, ["alice", "carol"])
    serve_at(cli, po, monkeypatch, "2026-11-25T20:00Z")
    got = mails(po)
    assert got["alice"] == [] and got["carol"] == []
    (reminder,) = got["bob"]
    assert str(reminder["Subject"]) == ("[koryo-pbm friday] reminder: your orders for r1-orders are due "
                                        "2026-11-26 18:00 UTC")
    text = " ".join(body(reminder).split())
    assert "The deadline is 2026-11-26 18:00 UTC (in 22 h)." in text
    assert "If your orders are not in by then, the game waits for you; the moderator may extend the deadline." in text
    assert "koryo-pbm orders friday/game.toml --as bob -o orders.toml" in text
    # its steps begin with saving the attached game.toml: it is attached (issue 18)
    assert attachment(reminder) == player_copy(cli.cwd / "games" / "friday" / "game.toml")
    golden.check("reminder", reminder)
    # a restarted judge does not remind again
    serve_at(cli, po, monkeypatch, "2026-11-26T10:00Z")
    assert mails(po) == {p: [] for p in PLAYERS}
    # the deadline passes: the late player is told, once, and what happens next; the others are
    # not mailed (--state-mail act, the default: nothing for them to do)
    serve_at(cli, po, monkeypatch, "2026-11-26T18:05Z")
    got = mails(po)
    assert got["alice"] == [] and got["carol"] == []
    for p in ["bob"]:
        (late,) = got[p]
        assert str(late["Subject"]) == "[koryo-pbm friday] deadline passed: waiting for bob"
        text = " ".join(body(late).split())
        assert "The deadline of decision r1-orders of Koryo game friday" in text
        assert "Late: bob." in text
        assert "What happens next: the game waits for them; the moderator may extend the deadline." in text
        assert ("That includes you." in text) == (p == "bob")
        assert (attachment(late) is not None) == (p == "bob")  # the late player's has the steps, and the file
        golden.check("late-notice", late)
    serve_at(cli, po, monkeypatch, "2026-11-26T23:00Z")
    assert mails(po) == {p: [] for p in PLAYERS}
    # the game waits: the reminders go on, one a day (the judge's --remind), to bob alone
    serve_at(cli, po, monkeypatch, "2026-11-27T18:05Z")
    got = mails(po)
    assert got["alice"] == [] and got["carol"] == []
    (again,) = got["bob"]
    assert str(again["Subject"]) == "[koryo-pbm friday] reminder: the game waits for your orders for r1-orders"
    assert ("The deadline was 2026-11-26 18:00 UTC (passed 1 day ago): the game waits for you; the moderator may "
            "extend the deadline.") in " ".join(body(again).split())
    serve_at(cli, po, monkeypatch, "2026-11-27T18:06Z")
    assert mails(po) == {p: [] for p in PLAYERS}
    # the moderator extends it (from now: it has passed): a new deadline gets its own reminder
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-27T18:10Z")
    cli.ok("deadline", "games/friday", "--as", "mod", "+2d")
    serve_at(cli, po, monkeypatch, "2026-11-29T09:00Z")
    got = mails(po)
    # bob, who must act, is mailed the new version, which says so; alice and carol, who answered,
    # are not (--state-mail act, the default): it is in the next mail each of them gets
    state = got["bob"][0]
    assert "the moderator extended the deadline of r1-orders to 2026-11-29 18:10 UTC" in body(state)
    assert "Deadline: 2026-11-29 18:10 UTC." in " ".join(body(state).split())
    assert got["alice"] == [] and got["carol"] == []
    reminder = got["bob"][1]
    assert "due 2026-11-29 18:10 UTC" in str(reminder["Subject"])
    outbox = cli.cwd / "games" / "friday" / "outbox"
    sent = sorted(p.name for p in (outbox / "sent").glob("*.eml"))
    assert [n for n in sent if n.startswith("remind-")] == [
        "remind-r1-orders-20261126T1800-bob.eml", "remind-r1-orders-20261126T1800-late1-bob.eml",
        "remind-r1-orders-20261129T1810-bob.eml"]
    assert len([n for n in sent if n.startswith("late-")]) == 1


def test_the_judge_plays_missed_orders_after_the_grace_period(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "1d", "--grace", "2h", "--missed", "bot"])
    serve_at(cli, po, monkeypatch, START)
    mails(po)
    submit_by_folder(cli, ["alice", "carol"])
    serve_at(cli, po, monkeypatch, "2026-11-25T18:30Z")  # late, within the grace period
    got = mails(po)
    assert got["alice"] == [] and got["carol"] == []  # only the late player is told (--state-mail act)
    for p in ["bob"]:
        (late,) = got[p]
        text = " ".join(body(late).split())
        assert ("What happens next: the heuristic bot plays for them from 2026-11-25 20:00 UTC if the orders are "
                "still missing then.") in text
    assert cli.ok("status", "games/friday", "--json").json["decision"] == "r1-orders"
    # the grace period is over: the judge resolves with an empty inbox, the bot plays for bob
    serve_at(cli, po, monkeypatch, "2026-11-25T20:00Z")
    got = mails(po)
    for p in PLAYERS:
        (state,) = got[p]
        text = body(state)
        assert "bob missed the deadline: the heuristic bot played for them" in text
        assert "Deadline: 2026-11-26 20:00 UTC." in " ".join(text.split())
    status = cli.ok("status", "games/friday", "--json").json
    assert status["decision"] != "r1-orders" and status["deadline"] == "2026-11-26T20:00:00Z"


def test_a_game_without_deadline_gets_no_reminders(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch)
    serve_at(cli, po, monkeypatch, START)
    got = mails(po)
    for p in PLAYERS:
        (state,) = got[p]
        assert "There is no deadline." in " ".join(body(state).split())
    serve_at(cli, po, monkeypatch, "2027-01-01T00:00Z")
    assert mails(po) == {p: [] for p in PLAYERS}


def test_serve_refuses_a_bad_remind_in_one_line(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "1d"])
    r = cli.fails("serve", "games", "--as", "mod", "--once", "--remind", "-1d", "--maildir", po.judge_box,
                  "--sendmail", po.sendmail, "--from", FROM)
    assert "--remind cannot be negative" in r.err and r.err.count("\n") == 1


def test_reminder_and_late_notice_texts():
    info = messages.GameInfo(tag="friday", game_id="koryo-1", title="Koryo", version=3,
                             decision={"id": "r2-orders", "kind": "orders", "waiting_for": ["alice", "bob"],
                                       "received": ["alice"]}, round=2, players=["alice", "bob"],
                             deadline="2026-11-27 18:00 UTC")
    out = messages.reminder(info, "bob", "bob@example.org", deadline="2026-11-27 18:00 UTC", left="in 5 h",
                            next_step="the random bot plays for you", key="remind-x")
    assert out.to == "bob@example.org" and out.key == "remind-x" and not out.attachments
    text = " ".join(out.body.split())
    assert "waits for your orders for decision r2-orders" in text
    assert "The deadline is 2026-11-27 18:00 UTC (in 5 h). If your orders are not in by then, the random bot plays for you." in text
    late = messages.late_notice(info, "alice", "alice@example.org", late=["bob"], deadline="2026-11-27 18:00 UTC",
                                next_step="the game waits for them", key="late-x")
    text = " ".join(late.body.split())
    assert "Late: bob." in text and "That includes you" not in text and "koryo-pbm orders" not in text
    assert late.subject == "[koryo-pbm friday] deadline passed: waiting for bob"


def test_the_judge_plays_a_bot_seat_whose_turn_it_is(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("KORYO_PBM_NOW", START)
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob"]}
    (cli.cwd / "games").mkdir(exist_ok=True)
    # carol plays first, unless her first hand holds no galleon (the engine draws for her): the
    # deal depends on the random game id, so a game is made anew until carol is waited for
    for _ in range(30):
        cli.ok("new", "games/friday", "--as", "mod", "--game", "korsar", "--seed", "bot-seat", "--first", "carol",
               "--player", f"alice={pubs['alice']}", "--player", f"bob={pubs['bob']}", "--bot", "carol=random",
               "--email", "alice=alice@example.org", "--email", "bob=bob@example.org")
        status = cli.ok("status", "games/friday", "--json").json
        if status["waiting_for"] == ["carol"]:
            break
        shutil.rmtree(cli.cwd / "games" / "friday")
    assert status["waiting_for"] == ["carol"] and status["missing"] == [] and status["bot_plays"] == ["carol"]
    po = PostOffice(tmp_path / "post")
    serve_at(cli, po, monkeypatch, START)
    status = cli.ok("status", "games/friday", "--json").json
    (turn,) = status["waiting_for"]  # whose turn follows depends on the card the bot played
    assert turn in ("alice", "bob")
    log = cli.ok("log", "games/friday").out
    assert "the random bot played carol's seat" in log
    got = po.messages(f"{turn}@example.org")  # the game starts (version 1), then the bot's turn (version 2)
    assert len(got) == 2 and re.search(r": your (\w+ )?turn$", str(got[-1]["Subject"]))
    assert "the random bot played carol's seat" in body(got[-1])


def test_a_games_own_remind_wins_over_the_judges(cli, tmp_path, monkeypatch):
    po = setup_game(cli, tmp_path, monkeypatch, ["--deadline", "3d", "--remind", "6h"])
    serve_at(cli, po, monkeypatch, START)
    mails(po)
    serve_at(cli, po, monkeypatch, "2026-11-27T11:00Z", "--remind", "2d")  # 7 h before: not yet
    assert mails(po) == {p: [] for p in PLAYERS}
    serve_at(cli, po, monkeypatch, "2026-11-27T12:00Z", "--remind", "2d")
    got = mails(po)
    for p in PLAYERS:
        (reminder,) = got[p]
        assert "The deadline is 2026-11-27 18:00 UTC (in 6 h)." in " ".join(body(reminder).split())
