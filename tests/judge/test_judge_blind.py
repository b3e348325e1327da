"""The co-dealer of a blind game by mail, through the judge's Maildir and a sendmail program:
the moderator's judge mails the co-dealer what it must answer (and only that), reminds it like
a player, and counts its answer; ``serve --as carl --co-dealer`` answers by mail. Bad input:
a deal envelope signed by another key, a co-dealer answering twice or for another game, a
mangled share: one line to the sender or the log, nothing counted, the game waits."""

from __future__ import annotations

import re

from judge_kit import FROM, PostOffice, attachment, body

CARL = "carl@example.org"
CARL_FROM = f"Carl (co-dealer) <{CARL}>"
START = "2026-11-26T17:00Z"


def blind_table(cli, tmp_path, monkeypatch, *extra):
    """A blind 2-player game (alice, and dora: the moderator's own seat) in games/friday, every
    seat and the co-dealer with an address; carl's key lives in its own home, as on its machine."""
    monkeypatch.setenv("KORYO_PBM_NOW", START)
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "dora"]}
    carl_home = tmp_path / "carl-home"
    carl = cli.ok("keygen", "carl", home=carl_home).out.strip()
    (cli.cwd / "games").mkdir()
    cli.ok("new", "games/friday", "--as", "mod", "--blind", "--co-dealer", f"carl={carl}",
           "--player", f"alice={pubs['alice']}", "--player", f"dora={pubs['dora']}",
           "--email", "alice=alice@example.org", "--email", "dora=dora@example.org", "--email", f"carl={CARL}",
           *extra)
    po = PostOffice(tmp_path / "post")
    (cli.cwd / "dealt").mkdir()
    return po, carl_home


def judge(cli, po, *extra):
    r = cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
            "--from", FROM, "--retry", "0.01", "--log-file", cli.cwd / "judge.log", *extra)
    assert r.code == 0, r.err
    return r


def co_dealer(cli, po, carl_home, *extra):
    r = cli("serve", "dealt", "--as", "carl", "--co-dealer", "--once", "--maildir", po.box(CARL),
            "--sendmail", po.sendmail, "--from", CARL_FROM, "--retry", "0.01",
            "--log-file", cli.cwd / "carl.log", *extra, home=carl_home)
    assert r.code == 0, r.err
    return r


def status(cli):
    return cli.ok("status", "games/friday", "--json").json


def game_bytes(cli) -> bytes:
    return (cli.cwd / "games" / "friday" / "game.toml").read_bytes()


def test_the_co_dealer_is_mailed_reminded_and_answers_by_mail(cli, tmp_path, monkeypatch):
    po, carl_home = blind_table(cli, tmp_path, monkeypatch, "--deadline", "deal=1h")
    judge(cli, po)
    # the co-dealer is awaited like a player: the state mail with the game file, a deadline
    (first,) = po.messages(CARL, take=False)
    assert str(first["Subject"]) == "[koryo-pbm friday] decision keys: the game starts, your deal turn"
    assert attachment(first) is not None and "koryo-pbm co-deal friday/game.toml --as carl --out answer.txt" in body(first)
    shown = status(cli)
    assert shown["missing"] == ["carl"] and shown["decision"] == "keys" and shown["deadline"]
    # half an hour before the deadline, the co-dealer (its serve stopped until now) is reminded
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-26T17:40Z")
    judge(cli, po)
    reminder = po.messages(CARL, take=False)[-1]
    assert str(reminder["Subject"]) == "[koryo-pbm friday] reminder: your orders for keys are due 2026-11-26 18:00 UTC"
    assert attachment(reminder) is not None
    # its serve answers both mails with the same envelope: counted once
    co_dealer(cli, po, carl_home)
    log = (cli.cwd / "carl.log").read_text()
    assert "co-dealer carl: answered keys of game " in log and "answered keys of game" in log.split("\n", 1)[1]
    assert "(the same envelope)" in log
    answers = [m for m in po.messages(FROM.split("<")[1].rstrip(">"))]
    assert len(answers) == 2 and all(m["Auto-Submitted"] == "auto-replied" for m in answers)
    assert all("BEGIN KORYO-PBM ENVELOPE" in body(m) for m in answers)
    assert len({re.search(r"BEGIN KORYO-PBM ENVELOPE.*?END", body(m), re.S).group(0) for m in answers}) == 1
    judge(cli, po)
    text = (cli.cwd / "judge.log").read_text()
    assert "carl's envelope for keys of friday: accepted" in text
    assert "carl's envelope for keys of friday: duplicate" in text
    assert text.count("automatic mail (Auto-Submitted: auto-replied); not answered") == 2
    shown = status(cli)
    assert shown["decision"] == "r1-deal" and shown["missing"] == ["carl"]
    # the players heard nothing while the co-dealer was late but the start and the deal (no game file)
    for p in ("alice", "dora"):
        subjects = [str(m["Subject"]) for m in po.messages(f"{p}@example.org")]
        assert subjects[0] == "[koryo-pbm friday] decision keys: the game starts, deal, waiting for carl", subjects
        assert not any("reminder" in s for s in subjects)


def _play_until(cli, po, carl_home, stop, *, limit=60):
    """Judge and co-dealer passes; the players answer their turns; until ``stop(status)``."""
    from test_judge_mail_game import play_turn

    for _ in range(limit):
        judge(cli, po)
        shown = status(cli)
        if stop(shown):
            return shown
        if shown["missing"] == ["carl"]:
            co_dealer(cli, po, carl_home)
        for p in ("alice", "dora"):
            for msg in po.messages(f"{p}@example.org"):
                if attachment(msg) is not None and re.search(r"your (\w+ )?turn$", str(msg["Subject"])):
                    play_turn(cli, po, p, msg)
    raise AssertionError("not reached")


def _forged(cli, carl_home, body_of, *, signer_home=None, signer="carl", game="games/friday"):
    """An envelope for the pending decision of ``game`` as the co-dealer carl: its honest answer
    changed by ``body_of``, signed by ``signer``'s key (a forgery unless carl's), not checked."""
    import os

    from koryo_pbm import blind, match
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.store import gamefile, gamelog
    from koryo_pbm.store.keyring import find_identity

    old = os.environ.get("KORYO_PBM_HOME")
    try:
        os.environ["KORYO_PBM_HOME"] = str(carl_home)
        carl = find_identity("carl")
        os.environ["KORYO_PBM_HOME"] = str(signer_home or carl_home)
        key = find_identity(signer)
    finally:
        os.environ["KORYO_PBM_HOME"] = old or ""
    doc = gamefile.read_game(cli.cwd / game / "game.toml")
    honest = blind.co_deal(match.game_of(doc), doc.public, {n: k for n, k in doc.players.items() if n != "carl"},
                           carl, doc.decision["id"], doc.log, moderator=doc.moderator, end_proven=True)
    text = match.canonical_orders(doc.game_id, doc.decision["id"], body_of(honest))
    return make_envelope(key, doc.moderator, game_id=doc.game_id, decision=doc.decision["id"],
                         answers=gamelog.head(doc), player="carl", orders_text=text,
                         submitted="2026-11-26T17:01:00.000000Z").armor()


def test_bad_deal_envelopes_by_mail_are_refused_in_one_line_and_the_game_waits(cli, tmp_path, monkeypatch):
    po, carl_home = blind_table(cli, tmp_path, monkeypatch)
    judge(cli, po)
    before = game_bytes(cli)
    log = cli.cwd / "judge.log"

    def refused(sender, text, said, *, answered=True, word="REFUSED"):
        """``text`` mailed to the judge from ``sender``: refused in one line (to the sender, or in
        the log when the sender is nobody's address), nothing counted, the game still waits."""
        po.messages(sender.split("<")[-1].rstrip(">"))  # earlier mail read
        start = log.read_text() if log.exists() else ""
        po.send_to_judge(sender, "[koryo-pbm friday] my answer", text)
        judge(cli, po)
        new = log.read_text()[len(start):]
        assert said in new, new
        assert game_bytes(cli) == before
        if answered:
            (answer,) = po.messages(sender.split("<")[-1].rstrip(">"))
            text = " ".join(body(answer).split())
            assert word in text and said in text and text.count("Reason:") == (word == "REFUSED"), body(answer)
        return new

    # a deal envelope from a player's address, signed by the player's key as if carl's
    forged = _forged(cli, carl_home, lambda b: b, signer_home=cli.home, signer="alice")
    refused("Alice <alice@example.org>", forged, "is signed by key")
    # a mangled key proof, signed by carl: checked at once
    mangled = _forged(cli, carl_home, lambda b: {**b, "proof": b["proof"][:-8] + "AAAAAAA="})
    refused(CARL_FROM, mangled, "illegal order")
    # the co-dealer's answer for a game this judge does not serve (from an address it does not know)
    cli.ok("new", "elsewhere", "--as", "mod", "--blind", "--co-dealer",
           "carl=" + (carl_home / "keys" / "carl.pub").read_text().strip(),
           "--player", "alice=" + (cli.home / "keys" / "alice.pub").read_text().strip(),
           "--player", "dora=" + (cli.home / "keys" / "dora.pub").read_text().strip())
    other = cli.ok("co-deal", "elsewhere", "--as", "carl", "--out", "other.txt", home=carl_home)
    assert "mail it to the judge" in other.out
    new = refused("Mallory <mallory@example.net>", (cli.cwd / "other.txt").read_text(), "which this judge does not serve",
                  answered=False)
    assert "not answered" in new
    assert status(cli)["missing"] == ["carl"]
    # the honest answer, by hand (co-deal --out), mailed twice: counted once
    cli.ok("co-deal", "games/friday", "--as", "carl", "--out", "answer.txt", home=carl_home)
    for _ in range(2):
        po.send_to_judge(CARL_FROM, "Re: [koryo-pbm friday] keys", (cli.cwd / "answer.txt").read_text())
    judge(cli, po)
    assert status(cli)["decision"] == "r1-deal"
    receipts = [body(m) for m in po.messages(CARL)]
    assert sum("ACCEPTED" in b for b in receipts) == 1
    # the co-dealer's serve plays on; at the first reveal, a mangled share signed by carl
    shown = _play_until(cli, po, carl_home, lambda s: s["missing"] == ["carl"] and "reveal" in s["decision"])
    before = game_bytes(cli)
    slot = None

    def mangle(b):
        nonlocal slot
        slot = sorted(b["shares"])[0]
        share = b["shares"][slot]
        return {**b, "shares": {**b["shares"], slot: share[:10] + ("B" if share[10] != "B" else "C") + share[11:]}}

    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-26T19:00Z")  # the judge answers an address once an hour
    refused(CARL_FROM, _forged(cli, carl_home, mangle), "illegal order")
    assert status(cli)["decision"] == shown["decision"] and status(cli)["missing"] == ["carl"]
    # ... and once the game moved on, the co-dealer's answer to a decision already resolved
    late = _forged(cli, carl_home, lambda b: b)
    _play_until(cli, po, carl_home, lambda s: s["decision"] != shown["decision"])
    before = game_bytes(cli)
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-26T21:00Z")
    refused(CARL_FROM, late, "was resolved", word="LATE, NOT COUNTED")


def test_the_co_dealer_answers_only_what_its_own_games_ask(cli, tmp_path, monkeypatch):
    """What reaches the co-dealer's mailbox besides its games' requests: each gets one line in its
    log and no answer (an open game, a tampered file, the game re-signed by another moderator
    key, an older file, a mail without a game file); a mail about no game is left where it is."""
    from email.message import EmailMessage

    from judge_kit import deliver

    from koryo_pbm import match
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile

    po, carl_home = blind_table(cli, tmp_path, monkeypatch)
    judge(cli, po)
    first = game_bytes(cli)
    co_dealer(cli, po, carl_home)
    judge(cli, po)
    co_dealer(cli, po, carl_home)  # keys, then r1-deal answered
    judge(cli, po)
    assert status(cli)["decision"] == "r1-orders"
    sent = cli.cwd / "dealt"
    answers = sorted(p.name for p in sent.rglob("outbox/sent/*.eml"))
    assert len(answers) == 2
    log = cli.cwd / "carl.log"

    def mailed(data: bytes | None, subject="[koryo-pbm friday] decision: your deal turn", sender=FROM):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = sender, CARL, subject
        msg.set_content("Your turn.")
        if data is not None:
            msg.add_attachment(data, maintype="application", subtype="toml", filename="game.toml")
        return msg.as_bytes()

    cli.ok("new", "games/open", "--as", "mod", "--seed", "x",
           "--player", "alice=" + (cli.home / "keys" / "alice.pub").read_text().strip(),
           "--player", "dora=" + (cli.home / "keys" / "dora.pub").read_text().strip())
    tampered = bytearray(first)
    at = tampered.index(b"[public")
    tampered[at + 40] ^= 1
    doc = gamefile.decode(first)
    other = Identity.generate("mod")  # another moderator key, a game of the same id
    forged, _ = match.create(find_game("koryo"), other, {p: doc.players[p] for p in ("alice", "dora")},
                             game_id=doc.game_id, blind=("mod", "carl", doc.players["carl"]))
    resigned = gamefile.encode(forged, other)
    cases = [
        (mailed((cli.cwd / "games" / "open" / "game.toml").read_bytes()), "is not a blind game of which carl is the co-dealer"),
        (mailed(bytes(tampered)), "the attached game.toml"),
        (mailed(resigned), "this file is not from your moderator"),
        (mailed(first), "older than"),
        (mailed(None), "no game file attached"),
    ]
    for data, said in cases:
        start = log.read_text()
        deliver(po.box(CARL), data)
        co_dealer(cli, po, carl_home)
        new = log.read_text()[len(start):].splitlines()
        assert len(new) == 1 and said in new[0] and ("not answered" in new[0] or "nothing to answer" in new[0]), new
    deliver(po.box(CARL), mailed(None, subject="lunch?", sender="Bob <bob@example.net>"))
    co_dealer(cli, po, carl_home)
    assert len(list((po.box(CARL) / "new").iterdir())) == 1  # left alone, not answered
    assert sorted(p.name for p in sent.rglob("outbox/sent/*.eml")) == answers
    assert not list(sent.rglob("outbox/*.eml"))


def test_the_co_dealer_is_no_relay(cli, tmp_path, monkeypatch):
    """Issue 29, item 7: 10 forged mails carrying the game's file, From a victim's address with
    the attacker's subject and link, get the victim nothing (before: 10 mails, each quoting 200
    characters of that subject); forged From the judge's own address, they get the judge at most
    the one automatic answer an hour its own judge allows (before: 10). No answer quotes the
    attacker's subject; the game's judge is answered as before."""
    from email.message import EmailMessage

    from judge_kit import JUDGE, deliver

    po, carl_home = blind_table(cli, tmp_path, monkeypatch)
    judge(cli, po)
    co_dealer(cli, po, carl_home)  # keys: answered at the judge's address, which it keeps for the game
    judge(cli, po)
    co_dealer(cli, po, carl_home)  # the next decision, from the judge's own mail
    waiting = game_bytes(cli)  # a copy of the file that waits for carl (a player's, a stolen one)
    state = status(cli)
    assert [p for p in state["waiting_for"] if p not in state["received"]] == ["carl"]
    attack = "URGENT: your account http://evil.example/login?id=" + "x" * 150
    victim = "victim@example.net"

    def forged(sender: str) -> bytes:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = sender, CARL, attack
        msg.set_content("see attachment")
        msg.add_attachment(waiting, maintype="application", subtype="toml", filename="game.toml")
        return msg.as_bytes()

    def count(address: str) -> tuple[int, int, int]:
        """Mails in ``address``'s box, their bytes, and how many quote the attacker's subject."""
        box = po.box(address)
        mails = list((box / "new").iterdir()) + list((box / "cur").iterdir())
        return (len(mails), sum(m.stat().st_size for m in mails),
                sum(b"evil.example" in m.read_bytes() for m in mails))

    judge_before = count(JUDGE)
    for _ in range(10):
        deliver(po.box(CARL), forged(f"Victim <{victim}>"))
    co_dealer(cli, po, carl_home)
    to_victim = count(victim)
    for _ in range(10):
        deliver(po.box(CARL), forged(FROM))
    co_dealer(cli, po, carl_home)
    judge_after = count(JUDGE)
    figures = (f"relay: the victim got {to_victim[0]} mails ({to_victim[1]} bytes, {to_victim[2]} quoting the "
               f"attacker's subject); the judge got {judge_after[0] - judge_before[0]} more")
    (tmp_path / "relay-figures.txt").write_text(figures)
    assert to_victim == (0, 0, 0), figures  # before issue 29: 10 mails, each quoting it
    assert judge_after[0] - judge_before[0] <= 1 and judge_after[2] == 0, figures  # before: 10
    log = (cli.cwd / "carl.log").read_text()
    assert log.count(f"is answered at its judge's address only ({JUDGE}), not at the sender's; "
                     "not answered") == 10
    assert "rate limit: game " in log
    # the game's judge counts the co-dealer's answer: the game goes on
    judge(cli, po)
    assert status(cli)["decision"] != state["decision"]


def test_a_co_dealer_given_its_judges_answers_no_one_else_first(cli, tmp_path, monkeypatch):
    """With --judge, a forged mail that reaches the co-dealer before the judge's own (a player's
    copy of the first file, From a victim) is not answered, and does not take the judge's place."""
    from email.message import EmailMessage

    from judge_kit import JUDGE, deliver

    po, carl_home = blind_table(cli, tmp_path, monkeypatch)
    judge(cli, po)
    held = tmp_path / "held"
    held.mkdir()
    for mail in (po.box(CARL) / "new").iterdir():  # the judge's mail is slow: the forged one comes first
        mail.rename(held / mail.name)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "victim@example.net", CARL, "http://evil.example/"
    msg.set_content("x")
    msg.add_attachment(game_bytes(cli), maintype="application", subtype="toml", filename="game.toml")
    deliver(po.box(CARL), msg.as_bytes())
    co_dealer(cli, po, carl_home, "--judge", JUDGE)
    assert not (po.root / "victim@example.net").exists()
    assert ("is answered only at a judge's address given with --judge, not at the sender's; not answered"
            in (cli.cwd / "carl.log").read_text())
    for mail in held.iterdir():
        mail.rename(po.box(CARL) / "new" / mail.name)
    co_dealer(cli, po, carl_home, "--judge", JUDGE)
    before = status(cli)["decision"]
    judge(cli, po)
    assert status(cli)["decision"] != before  # the judge counted carl's answer
    r = cli("serve", "games", "--as", "mod", "--once", "--judge", JUDGE)
    assert r.code != 0 and "--judge is the co-dealer's option" in r.err


def test_judge_is_an_option_of_the_co_dealer_by_mail_only(cli, tmp_path, monkeypatch):
    po, carl_home = blind_table(cli, tmp_path, monkeypatch)
    r = cli("serve", "dealt", "--as", "carl", "--co-dealer", "--once", "--judge", "judge@example.org", home=carl_home)
    assert r.code != 0 and "--judge names the judges a co-dealer answers by mail: give mail options too" in r.err
    r = cli("serve", "dealt", "--as", "carl", "--co-dealer", "--once", "--maildir", po.box(CARL), "--sendmail",
            po.sendmail, "--from", CARL_FROM, "--judge", "not an address", home=carl_home)
    assert r.code != 0 and "--judge address" in r.err and "Traceback" not in r.err
