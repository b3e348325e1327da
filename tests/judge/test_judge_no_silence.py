"""Issue 30: a player with only mail and a browser is never left in silence. A new envelope
signed by a seat's key is answered to that seat whatever the hourly limit; a player's mistakes
(the game file, a key, a cut envelope, an empty mail, HTML only, a forward) are named in the
answer with what to send instead, nothing counted; a secret key mailed is warned about first,
never quoted, and the moderator told; a plain question reaches the moderator's address of the
game (new --moderator-email); what is not answered is logged."""

from __future__ import annotations

import re
import shutil
from email.message import EmailMessage

import mail_golden as golden
from judge_kit import JUDGE, deliver
from test_judge_answers import answers, envelope_text, start
from test_judge_deadlines import serve_at
from test_judge_mail_game import PLAYERS, serve_once


def test_a_new_signed_envelope_is_answered_to_its_seat_whatever_the_hourly_limit(cli, tmp_path):
    po, game = start(cli, tmp_path)
    r1 = cli.cwd / "r1.toml"
    shutil.copy(game, r1)
    for p in PLAYERS:
        po.send_to_judge(f"{p}@example.org", "orders", envelope_text(cli, p, game))
    assert serve_once(cli, po).code == 0  # r1 resolved
    for p in PLAYERS:
        po.messages(f"{p}@example.org")
    # alice asks something: the answer spends the hour's automatic answer to her address ...
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] hm", "What now?")
    # ... then sends a second, different, signed envelope for the decision just resolved
    late = envelope_text(cli, "alice", r1, name="again")
    po.send_to_judge("alice@example.org", "Re: [koryo-pbm friday] round 1", late)
    log = cli.cwd / "judge.log"
    assert serve_once(cli, po, "--log-file", log).code == 0
    got = answers(po, "alice@example.org")
    assert [str(m["Subject"]) for m, _ in got] == [
        "[koryo-pbm friday] no envelope, help (re: hm)", "[koryo-pbm friday] late: alice's orders for r1-orders "
        "(re: round 1)"]
    text = " ".join(got[1][1].split())
    assert "LATE, NOT COUNTED" in text and "made from an old game file" in text
    golden.check("answer-late", got[1][0])
    # the same envelope again (anyone who saw it can send copies): within the limit, and logged
    po.send_to_judge("alice@example.org", "again", late)
    assert serve_once(cli, po, "--log-file", log).code == 0
    assert answers(po, "alice@example.org") == []
    assert "rate limit: game friday, alice@example.org" in log.read_text()


def _key_file(cli, name="alice"):
    return (cli.home / "keys" / f"{name}.key").read_bytes()


def test_a_mailed_secret_key_is_warned_about_first_never_quoted_and_the_moderator_told(cli, tmp_path):
    po, _ = start(cli, tmp_path)
    secret = _key_file(cli)
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] my key", "Is this what you need?",
                     attachments=[("alice.key", secret)])
    log = cli.cwd / "judge.log"
    r = serve_once(cli, po, "--moderator", "mod@example.org", "--log-file", log)
    assert r.code == 0
    [(m, t)] = answers(po, "alice@example.org")
    assert str(m["Subject"]) == "[koryo-pbm friday] WARNING: your mail holds your secret key"
    assert t.startswith("WARNING: your mail holds a SECRET KEY FILE.")
    assert "Make a new key now" in " ".join(t.split()) and "replace your seat's key" in " ".join(t.split())
    [(note, nt)] = answers(po, "mod@example.org")
    assert str(note["Subject"]) == "[koryo-pbm friday] alice mailed a secret key file"
    assert "koryo-pbm replace GAME alice=NEW-PUBLIC-KEY-LINE" in " ".join(nt.split())
    assert not list(note.iter_attachments())  # the mail, and the key in it, go nowhere
    golden.check("secret-key", m)
    golden.check("secret-key-moderator", note)
    lines = [line for line in secret.decode().splitlines() if len(line) > 20]
    for text in (m.as_string(), note.as_string(), log.read_text(), r.out, r.err):
        assert not any(line in text for line in lines)
    assert cli.ok("status", "games/friday", "--json").json["received"] == []


def _raw_mail(sender, subject, *, html=None, text=None):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, JUDGE, subject
    msg["Message-ID"] = f"<{subject.replace(' ', '')}@players.example>"
    if text is not None:
        msg.set_content(text)
    if html is not None:
        if text is None:
            msg.set_content(html, subtype="html")
        else:
            msg.add_alternative(html, subtype="html")
    return msg.as_bytes()


def test_mistakes_are_named_with_what_to_send_instead_and_nothing_is_counted(cli, tmp_path, monkeypatch):
    po, game = start(cli, tmp_path)
    tag = "[koryo-pbm friday]"
    env = envelope_text(cli, "alice", game)
    cases = [  # what a player sends by mistake, and what the answer names
        (lambda: po.send_to_judge("alice@example.org", f"Re: {tag} round 1", "here",
                                  attachments=[("game.toml", game.read_bytes())]), "the game file (game.toml)"),
        (lambda: po.send_to_judge("alice@example.org", f"Re: {tag} round 1", env[: len(env) // 2]),
         "CANNOT BE READ"),
        (lambda: po.send_to_judge("alice@example.org", f"Re: {tag} round 1", ""), "It is empty."),
        (lambda: deliver(po.judge_box, _raw_mail("alice@example.org", f"Re: {tag} round 1",
                                                 html="<p>my orders are <b>below</b></p>")),
         "It came in HTML only, without an envelope."),
        (lambda: po.send_to_judge("alice@example.org", f"Fwd: {tag} round 1", "see below\n\n---------- Forwarded "
                                  "message ---------\nFrom: judge"), "It is a forwarded mail"),
        (lambda: po.send_to_judge("alice@example.org", f"{tag} key", cli.ok("keygen", "other").out.strip()),
         "It holds a public key line."),
    ]
    for n, (send, named) in enumerate(cases):
        send()
        serve_at(cli, po, monkeypatch, f"2030-01-01T{2 * n:02d}:00Z")  # the next hour: the limit is per hour
        [(m, t)] = answers(po, "alice@example.org")
        text = " ".join(t.split())
        assert named in text, (named, text)
        golden.check(f"mistake-{n}", m)
        if "CANNOT BE READ" not in named:
            assert "holds no envelope, so it changed nothing in game friday" in text
            assert "Open the player page in your browser" in text  # what to send instead: the page first
    assert cli.ok("status", "games/friday", "--json").json["received"] == []
    # nothing lost: the envelope itself, sent whole, is counted
    po.send_to_judge("alice@example.org", f"Re: {tag} round 1", env)
    serve_at(cli, po, monkeypatch, "2030-01-01T20:00Z")
    [(m, t)] = answers(po, "alice@example.org")
    assert "ACCEPTED: alice's orders for r1-orders" in t


def test_a_plain_question_goes_to_the_moderator_email_of_the_game(cli, tmp_path):
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *PLAYERS]}
    (cli.cwd / "games").mkdir(exist_ok=True)
    args = ["new", "games/friday", "--as", "mod", "--seed", "q", "--moderator-email", "mod@example.org"]
    for n in PLAYERS:
        args += ["--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org"]
    cli.ok(*args)
    from judge_kit import PostOffice

    po = PostOffice(tmp_path / "post")
    assert serve_once(cli, po).code == 0
    for p in PLAYERS:
        po.messages(f"{p}@example.org")
    po.send_to_judge("bob@example.org", "Re: [koryo-pbm friday] round 1", "The page says no menu, what do I do?")
    assert serve_once(cli, po).code == 0
    [(m, t)] = answers(po, "bob@example.org")
    assert "It was forwarded to the moderator, who can answer you." in " ".join(t.split())
    [(fwd, _)] = answers(po, "mod@example.org")
    golden.check("help-forwarded", m)
    golden.check("forward", fwd)
    assert str(fwd["Subject"]) == "[koryo-pbm friday] from bob: Re: round 1" and fwd["Reply-To"] == "bob@example.org"
    assert "not a mail address" in cli.fails("new", "games/x", "--as", "mod", "--player", f"alice={pubs['alice']}",
                                              "--moderator-email", "nobody").err


def test_the_judges_help_and_answers_need_no_terminal():
    """Every mail kind's text puts the page first: what the pure functions say."""
    from koryo_pbm.judge import clubmail, messages

    info = messages.GameInfo(tag="friday", game_id="koryo-0123456789", title="Koryo", version=3,
                             decision={"id": "r2-orders", "kind": "orders", "waiting_for": ["bob"], "received": []},
                             round=2, players=["alice", "bob"])
    for text in ("\n".join(messages._commands(info, "bob", route="mail")), clubmail.help_text("friday"),
                 messages.reminder(info, "bob", "b@x", deadline="d", left="1 h", next_step="x", key="k").body):
        assert "player page" in text and "If you use the command line" in text
        command = re.search(r"koryo-pbm (play|submit|show|orders|read|keygen) ", text)
        assert command is not None
        assert text.index("player page") < text.index("If you use the command line") < command.start()
