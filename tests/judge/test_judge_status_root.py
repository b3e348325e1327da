"""The moderator's view of a judge's root: ``koryo-pbm status ROOT`` gives one line per game
(its decision, who it waits for, the deadline, the last activity), ``--json`` too, and
``--as`` says whose key it is; the judge's ``--log-file``."""

from __future__ import annotations

from judge_kit import FROM, PostOffice
from test_judge_mail_game import PLAYERS, setup_game


def test_status_of_a_root_gives_one_line_per_game(cli, tmp_path):
    setup_game(cli, tmp_path)  # games/friday: no deadline
    pubs = {n: (cli.home / "keys" / f"{n}.pub").read_text().strip() for n in PLAYERS}
    cli.ok("new", "games/saturday", "--as", "mod", "--seed", "s", "--deadline", "2d",
           *[a for p in PLAYERS for a in ("--player", f"{p}={pubs[p]}")])
    cli.ok("orders", "games/saturday", "--as", "bob", "-o", cli.cwd / "o.toml")
    cli.ok("submit", cli.cwd / "o.toml", "--as", "bob", "--game", "games/saturday")
    po = PostOffice(tmp_path / "post")
    log = cli.cwd / "judge.log"
    r = cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
            "--from", FROM, "--log-file", log)
    assert r.code == 0 and r.err == "", r.err  # everything went to the log file
    text = log.read_text()
    assert "state mail queued for alice" in text and " sent state-v" in text
    assert "saturday: bob's envelope for r1-orders in the inbox" in text

    out = cli.ok("status", "games").out.splitlines()
    assert len(out) == 2
    assert out[0].startswith("friday    round 1, r1-orders: awaiting alice, bob, carol; no deadline; last activity 20")
    assert out[1].startswith("saturday  round 1, r1-orders: awaiting alice, carol; deadline 20")
    data = cli.ok("status", "games", "--json").json
    [fri, sat] = data["games"]
    assert (fri["folder"], fri["decision"], fri["awaited"], fri["deadline"]) == ("friday", "r1-orders", PLAYERS, None)
    assert sat["awaited"] == ["alice", "carol"] and sat["received"] == ["bob"] and sat["deadline"].startswith("20")
    # the moderator's key is accepted and named, for one game and for the root
    assert "you are the moderator of this game" in cli.ok("status", "games/friday", "--as", "mod").out
    assert cli.ok("status", "games", "--as", "mod", "--json").json["games"][0]["you"] == "moderator"
    assert "you are bob: your orders are in" in cli.ok("status", "games/saturday", "--as", "bob").out
    cli.ok("keygen", "eve")
    assert "neither the moderator's nor a player's" in cli.fails("status", "games/friday", "--as", "eve").err
    # a folder whose game file cannot be read: its line says why, the others are shown, exit non-zero
    (cli.cwd / "games" / "broken").mkdir()
    (cli.cwd / "games" / "broken" / "game.toml").write_text("not a game\n")
    r = cli.fails("status", "games")
    assert r.out.startswith("broken    cannot be read: ") and len(r.out.splitlines()) == 3
    assert "1 of 3 games under games cannot be read" in r.err


def test_status_of_a_root_lists_the_games_that_wait_for_their_seats(cli, tmp_path):
    """A game made with --invite waits for its seats in signup.toml (sealed to the moderator):
    status ROOT gives its line with the seats still open and the deadline to take them."""
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ("mod", "alice", "bob")}
    cli.ok("new", "games/friday", "--as", "mod", "--seed", "s", "--player", f"alice={pubs['alice']}",
           "--player", f"bob={pubs['bob']}")
    cli.ok("new", "games/spring", "--as", "mod", "--player", f"alice={pubs['alice']}", "--invite",
           "bob=bob@example.org", "--invite", "carol=carol@example.org", "--signup-deadline", "3d")
    out = cli.ok("status", "games", "--as", "mod").out.splitlines()
    assert len(out) == 2 and out[0].startswith("friday  round 1, r1-orders: awaiting alice, bob")
    assert out[1].startswith("spring  sign-up (koryo): seats open bob, carol (alice taken); answer by 20")
    assert "(in 2 days 23 h" in out[1] or "(in 3 days" in out[1], out[1]
    assert "; last activity 20" in out[1] and out[1].endswith("; you: moderator")
    data = cli.ok("status", "games", "--as", "mod", "--json").json["games"][1]
    assert data["folder"] == "spring" and data["signup"] is True and data["sealed"] is False
    assert data["open_seats"] == ["bob", "carol"] and data["taken"] == ["alice"] and data["game"] == "koryo"
    assert data["answer_by"].endswith("Z") and data["you"] == "moderator"
    # without the moderator's key, or with a player's: only that it waits for its seats (sealed)
    for args in ((), ("--as", "alice")):
        line = cli.ok("status", "games", *args).out.splitlines()[1]
        assert line.startswith("spring  sign-up: waiting for its seats (which ones: --as the moderator"), line
        assert "bob" not in line
    assert cli.ok("status", "games", "--json").json["games"][1]["sealed"] is True
    # the sign-up's own folder gives its one line
    assert cli.ok("status", "games/spring", "--as", "mod").out.startswith("spring  sign-up (koryo): seats open bob")
