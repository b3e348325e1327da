"""The judge for a club (issue 18): sign-up by mail, mail commands, press, light state mails,
through a local Maildir and a sendmail program (the same with the real mail servers:
tests/mailservers/test_club_by_mail.py). Each bad input changes nothing and gets one line."""

from __future__ import annotations

import re

import mail_golden as golden
from judge_kit import FROM, PostOffice, attachment, player_copy
from judge_kit import body as raw_body

PLAYERS = ["alice", "bob", "carol"]


def body(msg) -> str:
    """The text of a mail with its lines joined: what a sentence says, wherever it was wrapped."""
    return " ".join(raw_body(msg).split())


def serve(cli, po, *extra):
    r = cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
            "--from", FROM, "--retry", "0.01", *extra)
    assert r.code == 0, r.err
    return r


def keys(cli, names=("mod", *PLAYERS)):
    return {n: cli.ok("keygen", n).out.strip() for n in names}


def started_game(cli, tmp_path, *extra):
    pubs = keys(cli)
    (cli.cwd / "games").mkdir(exist_ok=True)
    args = ["new", "games/friday", "--as", "mod", "--seed", "club", *extra]
    for n in PLAYERS:
        args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org"]
    cli.ok(*args)
    po = PostOffice(tmp_path / "post")
    serve(cli, po)
    first = {p: po.messages(f"{p}@example.org") for p in PLAYERS}
    return po, first


def test_seats_taken_by_mail_and_the_bad_key_lines(cli, tmp_path):
    """alice has a seat (--player), bob and carol are invited; each takes a seat with a reply; a
    key line from a stranger and a second key for a taken seat change nothing; the game then
    begins with the join, as any game."""
    pubs = keys(cli)
    (cli.cwd / "games").mkdir()
    r = cli.ok("new", "games/friday", "--as", "mod", "--player", f"alice={pubs['alice']}", "--email",
               "alice=alice@example.org", "--invite", "bob=bob@example.org", "--invite", "carol=carol@example.org",
               "--deadline", "3d")
    assert "waiting for its seats" in r.out
    assert not (cli.cwd / "games" / "friday" / "game.toml").exists()
    assert b"bob@example.org" not in (cli.cwd / "games" / "friday" / "signup.toml").read_bytes()  # sealed
    po = PostOffice(tmp_path / "post")
    serve(cli, po)
    assert po.messages("alice@example.org") == []
    invites = {}
    for p in ("bob", "carol"):
        (msg,) = po.messages(f"{p}@example.org")
        subject = str(msg["Subject"])
        assert subject.startswith(f"[koryo-pbm friday] invitation: seat {p} in a Koryo game (code ")
        text = body(msg)
        assert f"koryo-pbm keygen {p}" in text and "alice, bob, carol" in text and "Once the game runs, each decision has a deadline (time to answer: 3d)." in text
        assert re.search(r"answer by \d{4}-\d\d-\d\d \d\d:\d\d UTC", text), text
        # with nothing to install: the player page of this release rides along, and the text says how to use it
        from koryo_pbm.assets import player_page

        assert attachment(msg, "koryo-pbm-player-page.html") == player_page()
        assert "1. Save the attached koryo-pbm-player-page.html and open it in your browser." in text
        # the page first, the command line after it, for those who use it
        assert text.index("player page") < text.index("If you use the command line")
        invites[p] = msg
    golden.check("invitation", invites["bob"])
    serve(cli, po)  # an invitation is sent once
    assert po.messages("bob@example.org") == []

    # a stranger's key line: logged, nothing sent, nothing changed
    signup_before = (cli.cwd / "games" / "friday" / "signup.toml").read_bytes()
    po.send_to_judge("eve@example.org", "Re: " + str(invites["bob"]["Subject"]), pubs["mod"])
    r = serve(cli, po)
    assert "a key line from an address not invited" in r.err
    assert (cli.cwd / "games" / "friday" / "signup.toml").read_bytes() == signup_before
    assert not (po.root / "eve@example.org").exists()

    # bob without the code (a new mail, not a reply): one line, the seat stays open
    po.send_to_judge("bob@example.org", "[koryo-pbm friday] my key", pubs["bob"])
    serve(cli, po)
    (msg,) = po.messages("bob@example.org")
    assert "key not taken" in str(msg["Subject"]) and "invitation's code" in body(msg)
    golden.check("seat-refused", msg)

    # bob's reply takes the seat, answered with the fingerprint
    po.send_to_judge("Bob <bob@example.org>", "Re: " + str(invites["bob"]["Subject"]),
                     f"Here is my key:\n\n{pubs['bob']}\n\n> quoted invitation\n", in_reply_to=str(invites["bob"]["Message-ID"]))
    serve(cli, po)
    (msg,) = po.messages("bob@example.org")
    fpr = _fingerprint(pubs["bob"])
    assert str(msg["Subject"]) == f"[koryo-pbm friday] seat bob taken, fingerprint {fpr}"
    assert f"fingerprint {fpr}" in body(msg) and "still open: carol" in body(msg)
    golden.check("seat-taken", msg)

    # a second key for bob's taken seat: one line, nothing changed
    po.send_to_judge("bob@example.org", "Re: " + str(invites["bob"]["Subject"]), pubs["carol"])
    serve(cli, po)
    (msg,) = po.messages("bob@example.org")
    assert "is taken already" in body(msg) and "nothing was changed" in body(msg)

    # carol takes the last seat: the game is made, it begins with the join
    po.send_to_judge("carol@example.org", "Re: " + str(invites["carol"]["Subject"]), pubs["carol"])
    serve(cli, po)
    (answer,) = po.messages("carol@example.org")
    assert "Every seat is taken" in body(answer)
    assert (cli.cwd / "games" / "friday" / "game.toml").is_file()
    assert (cli.cwd / "games" / "friday" / "signup-done.toml").is_file()
    status = cli.ok("status", "games/friday", "--json").json
    assert status["decision"] == "join" and sorted(status["missing"]) == PLAYERS
    serve(cli, po)
    for p in PLAYERS:
        (msg,) = po.messages(f"{p}@example.org")
        assert msg["Subject"] == "[koryo-pbm friday] your turn: join the game"
        assert attachment(msg) is not None


def _fingerprint(line: str) -> str:
    from koryo_pbm.crypto.keys import PublicIdentity

    return PublicIdentity.parse(line).fingerprint()


def test_a_seat_not_taken_by_its_deadline_is_reported(cli, tmp_path):
    keys(cli, ("mod",))
    (cli.cwd / "games").mkdir()
    cli.ok("new", "games/late", "--as", "mod", "--invite", "bob=bob@example.org", "--invite", "ann=ann@example.org",
           "--signup-deadline", "1h")
    po = PostOffice(tmp_path / "post")
    serve(cli, po)
    assert "not taken" not in r.err if (r := serve(cli, po)) else True
    # the judge's clock is the real one: the moderator's sign-up file is rewritten with a deadline past
    from koryo_pbm import signup
    from koryo_pbm.store.keyring import find_identity

    mod = find_identity("mod", None)
    folder = cli.cwd / "games" / "late"
    s = signup.read(folder, mod)
    s.answer_by = "2000-01-01T00:00:00Z"
    signup.write(folder, s, mod)
    r = serve(cli, po)
    assert "seat bob (bob@example.org) was not taken by its deadline" in r.err
    assert "seat ann (ann@example.org) was not taken by its deadline" in r.err
    assert not (cli.cwd / "games" / "late" / "game.toml").exists()


def test_mail_commands(cli, tmp_path):
    po, _first = started_game(cli, tmp_path)
    tag = "[koryo-pbm friday]"
    po.send_to_judge("alice@example.org", f"{tag} help", "help\n")
    po.send_to_judge("bob@example.org", f"Re: {tag} round 1", "Status\n\n> quoted\n")
    po.send_to_judge("bob@example.org", f"{tag} a question", "Status please?\n")  # a person, not a command
    po.send_to_judge("carol@example.org", f"{tag} file", "resend")
    po.send_to_judge("Alice <alice@example.org>", f"{tag} what happened", "history\n")
    po.send_to_judge("eve@example.org", f"{tag} status", "status\n")  # not a player: logged, nothing sent
    r = serve(cli, po)
    assert "mail command 'status' for friday from an address that is not a player's; nothing sent" in r.err
    assert not (po.root / "eve@example.org").exists()
    alice = po.messages("alice@example.org")
    assert [str(m["Subject"]) for m in alice] == [f"{tag} help", f"{tag} history"]
    assert all(w in body(alice[0]) for w in ("status", "resend", "history", "list"))
    assert "(nothing yet" in body(alice[1])
    golden.check("command-help", alice[0])
    golden.check("command-history", alice[1])
    bob, human = po.messages("bob@example.org")
    assert str(human["Subject"]).startswith(f"{tag} no envelope, help")  # "Status please?" is no command
    assert ("The judge is a program: it reads envelopes and mail commands only. For anything else, write to the "
            "moderator of the game (the person who set it up and invited you) at their own address, not to the "
            "judge.") in " ".join(body(human).split())  # no --moderator: nobody else reads it, and it says so
    assert bob["Subject"] == f"{tag} status"
    assert "r1-orders (orders): waiting for alice, bob, carol. It is your turn." in " ".join(body(bob).split())
    golden.check("command-status", bob)
    golden.check("help-no-envelope", human)
    (carol,) = po.messages("carol@example.org")
    assert str(carol["Subject"]).startswith(f"{tag} resend: game.toml version 1")
    assert attachment(carol) == player_copy(cli.cwd / "games" / "friday" / "game.toml")
    golden.check("command-resend", carol)
    # a second game of alice's: list names both
    pubs = {n: (cli.home / "keys" / f"{n}.pub").read_text().strip() for n in PLAYERS}
    cli.ok("new", "games/saturday", "--as", "mod", "--seed", "x", "--player", f"alice={pubs['alice']}",
           "--player", f"bob={pubs['bob']}", "--email", "alice=alice@example.org")
    serve(cli, po)
    po.messages("alice@example.org")
    po.send_to_judge("alice@example.org", f"{tag} games?", "list")
    serve(cli, po)
    (msg,) = po.messages("alice@example.org")
    text = " ".join(body(msg).split())
    assert "* [koryo-pbm friday] (Koryo) as alice: round 1, r1-orders: waiting for alice, bob, carol; your turn" in text
    assert "* [koryo-pbm saturday] (Koryo) as alice:" in text
    golden.check("command-list", msg)
    assert "bob@example.org" not in text


def test_mail_commands_as_players_write_them(cli, tmp_path):
    """Case, punctuation, quoted text below, a signature below "-- ", "resend page"; the page goes
    with its first mail to an address, and again only on request."""
    from koryo_pbm.assets import player_page

    po, first = started_game(cli, tmp_path)
    # the first mail to each address carries the page (once per address and release)
    assert all(attachment(first[p][0], "koryo-pbm-player-page.html") == player_page() for p in PLAYERS)
    tag = "[koryo-pbm friday]"
    po.send_to_judge("alice@example.org", f"Re: {tag} round 1", "Status?\n\nOn Monday the judge wrote:\n> help\n")
    po.send_to_judge("bob@example.org", f"{tag} x", "  *HELP!*  \n-- \nBob Smith\nstatus\n")
    po.send_to_judge("carol@example.org", f"{tag} the page", "Resend page.\n")
    serve(cli, po)
    (alice,) = po.messages("alice@example.org")
    assert alice["Subject"] == f"{tag} status"
    (bob,) = po.messages("bob@example.org")
    assert bob["Subject"] == f"{tag} help"
    assert "resend page the player page, attached" in body(bob)
    assert attachment(bob, "koryo-pbm-player-page.html") is None  # had it with the first mail
    (carol,) = po.messages("carol@example.org")
    assert str(carol["Subject"]) == f"{tag} resend page: the player page"
    assert attachment(carol, "koryo-pbm-player-page.html") == player_page()
    golden.check("command-resend-page", carol)


def test_mail_commands_are_rate_limited(cli, tmp_path):
    po, _ = started_game(cli, tmp_path)
    for _ in range(12):
        po.send_to_judge("bob@example.org", "[koryo-pbm friday] s", "status")
    r = serve(cli, po)
    assert len(po.messages("bob@example.org")) == 5
    assert "rate limit: game friday, bob@example.org" in r.err


def test_a_mail_handled_again_after_a_stop_is_not_counted_twice(cli, tmp_path):
    """A judge stopped after queuing its answers but before moving the mails away handles them
    again: the answers are queued already, so they are neither sent nor counted a second time."""
    from judge_kit import deliver

    po, _ = started_game(cli, tmp_path)
    mails = [po.send_to_judge("bob@example.org", f"[koryo-pbm friday] s{n}", "status") for n in range(4)]
    serve(cli, po)
    assert len(po.messages("bob@example.org")) == 4
    for data in mails:  # the same mails again, as a judge stopped at that point would find them
        deliver(po.judge_box, data)
    r = serve(cli, po)
    assert po.messages("bob@example.org") == [] and "rate limit" not in r.err
    po.send_to_judge("bob@example.org", "[koryo-pbm friday] s5", "status")  # the fifth of 5 an hour
    r = serve(cli, po)
    assert len(po.messages("bob@example.org")) == 1 and "rate limit" not in r.err


def test_press_by_mail_is_relayed_and_the_moderator_cannot_read_it(cli, tmp_path):
    po, first = started_game(cli, tmp_path)
    game = cli.cwd / "alice-game.toml"
    game.write_bytes(attachment(first["alice"][0]))
    cli.ok("say", game, "Shall we share the east, Bob?", "--as", "alice", "--to", "bob", "--out", "press.txt")
    armored = (cli.cwd / "press.txt").read_text()
    assert "Shall we" not in armored and "BEGIN KORYO-PBM PRESS" in armored
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] press", f"For Bob:\n\n{armored}")
    serve(cli, po)
    (answer,) = po.messages("alice@example.org")
    assert answer["Subject"] == "[koryo-pbm friday] press relayed to bob"
    assert po.messages("carol@example.org") == []
    (relayed,) = po.messages("bob@example.org")
    assert relayed["Subject"] == "[koryo-pbm friday] press from alice"
    golden.check("press-answer", answer)
    golden.check("press", relayed)
    saved = cli.cwd / "mail-to-bob.eml"
    saved.write_bytes(relayed.as_bytes())
    out = cli.ok("read", saved, "--as", "bob", "--game", game).out
    assert "press from alice to bob" in out and "Shall we share the east, Bob?" in out
    # neither the moderator (who relayed it) nor carol can open it; the game file holds no press
    cli.fails("read", saved, "--as", "carol", "--game", game)
    from koryo_pbm.crypto.press import scan_press
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store.keyring import find_identity

    (p,) = scan_press(armored)
    mod = find_identity("mod", None)
    try:
        p.open(mod, "bob", find_identity("alice", None).public)
        raise AssertionError("the moderator's key opened the press")
    except KoryoPbmError as exc:
        assert "another key" in str(exc) or "does not open" in str(exc)
    assert b"Shall we" not in (cli.cwd / "games" / "friday" / "game.toml").read_bytes()
    # the same press again is not relayed again
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] press", armored)
    serve(cli, po)
    assert po.messages("bob@example.org") == []


def test_press_that_is_refused(cli, tmp_path):
    po, first = started_game(cli, tmp_path, "--press", "public")
    game = cli.cwd / "g.toml"
    game.write_bytes(attachment(first["alice"][0]))
    r = cli.fails("say", game, "hello", "--as", "alice", "--to", "bob", "--out", "p.txt")
    assert "allows only public press" in r.err and not (cli.cwd / "p.txt").exists()
    r = cli.fails("say", game, "hello", "--as", "alice", "--to", "dave", "--out", "p.txt")
    assert "dave is not a player" in r.err
    r = cli.fails("say", game, "-", "--as", "alice", "--to", "all", "--out", "p.txt", stdin="x" * (1024 * 1024))
    assert "more than the 16000 a press may hold" in r.err and not (cli.cwd / "p.txt").exists()
    # bob's press sent from carol's address is not relayed; carol is told in one line
    cli.ok("say", game, "to all", "--as", "bob", "--to", "all", "--out", "p.txt")
    po.send_to_judge("carol@example.org", "[koryo-pbm friday] press", (cli.cwd / "p.txt").read_text())
    serve(cli, po)
    (msg,) = po.messages("carol@example.org")
    assert msg["Subject"] == "[koryo-pbm friday] press not relayed" and "it is bob's press" in body(msg)
    assert po.messages("alice@example.org") == []
    # a press of a megabyte mailed in: one line to its sender, nothing relayed
    huge = (cli.cwd / "p.txt").read_text().splitlines()
    blob = "\n".join(["A" * 64] * (1024 * 1024 // 64))
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] press", "\n".join([*huge[:10], blob, huge[-1]]))
    serve(cli, po)
    (msg,) = po.messages("alice@example.org")
    assert msg["Subject"] == "[koryo-pbm friday] press not relayed" and "larger than 512 KiB" in body(msg), body(msg)
    assert po.messages("bob@example.org") == [] and po.messages("carol@example.org") == []


def test_press_through_a_shared_folder(cli, tmp_path):
    pubs = keys(cli)
    args = ["new", "g", "--as", "mod", "--seed", "s"]
    for n in PLAYERS:
        args += ["--player", f"{n}={pubs[n]}"]
    cli.ok(*args)
    cli.ok("say", "g", "Hello all", "--as", "carol", "--to", "all")
    for reader in ("alice", "bob"):
        files = list((cli.cwd / "g" / "press" / reader).glob("*.press"))
        assert len(files) == 1
        assert "Hello all" in cli.ok("read", files[0], "--as", reader).out
    assert not (cli.cwd / "g" / "press" / "carol").exists()
    cli.ok("new", "quiet", "--as", "mod", "--seed", "s", "--press", "none", "--player", f"alice={pubs['alice']}",
           "--player", f"bob={pubs['bob']}")
    r = cli.fails("say", "quiet", "hi", "--as", "alice", "--to", "bob")
    assert "allows no press" in r.err and not (cli.cwd / "quiet" / "press").exists()


def test_state_mail_every_attaches_the_game_only_for_those_who_act(cli, tmp_path):
    """With --state-mail every (turn, its old name) the file goes to the players the decision waits
    for; the others get what happened; the subject names the decision."""
    from test_judge_mail_game import play_turn

    po, first = started_game(cli, tmp_path, "--state-mail", "every")
    for p in PLAYERS:  # round 1 orders: everyone acts, everyone has the file
        (msg,) = first[p]
        assert msg["Subject"] == "[koryo-pbm friday] round 1: the game starts, your orders turn"
        play_turn(cli, po, p, msg)
    seen_short = False
    for _ in range(8):
        serve(cli, po)
        for p in PLAYERS:
            for msg in po.messages(f"{p}@example.org"):
                subject = str(msg["Subject"])
                if "(re: " in subject:
                    continue
                acting = re.search(r": your (\w+) turn$", subject)
                assert (attachment(msg) is not None) == bool(acting), subject
                if acting:
                    play_turn(cli, po, p, msg)
                else:
                    assert re.search(r"round \d+: \w+, waiting for \w+", subject), subject
                    assert "What happened since the last mail" in body(msg) and '"resend"' in body(msg)
                    seen_short = True
        if seen_short:
            break
    assert seen_short
