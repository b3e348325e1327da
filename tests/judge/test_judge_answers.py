"""Every mail gets one answer, to a known address only: receipts, refusals naming the mail,
envelopes it cannot read, help, and silence for automatic mail and strangers."""

from __future__ import annotations

import re
import shlex

from judge_kit import PostOffice, attachment, body
from test_judge_mail_game import PLAYERS, serve_once, setup_game


def envelope_text(cli, player, game_file, name="orders"):
    orders = cli.cwd / f"{name}-{player}.toml"
    out = cli.cwd / f"{name}-{player}.txt"
    cli.ok("orders", game_file, "--as", player, "-o", orders)
    cli.ok("submit", orders, "--as", player, "--game", game_file, "--out", out)
    return out.read_text()


def start(cli, tmp_path, **kw) -> tuple[PostOffice, object]:
    po = setup_game(cli, tmp_path, **kw)
    assert serve_once(cli, po).code == 0
    for p in PLAYERS:
        po.messages(f"{p}@example.org")  # the start mails
    return po, cli.cwd / "games" / "friday" / "game.toml"


def answers(po, who):
    return [(m, body(m)) for m in po.messages(who)]


def test_receipt_is_threaded_signed_and_checked_by_the_receipt_command(cli, tmp_path):
    po, game = start(cli, tmp_path)
    sent = po.send_to_judge("Alice <alice@example.org>", "my orders", envelope_text(cli, "alice", game))
    assert serve_once(cli, po).code == 0
    [(msg, text)] = answers(po, "alice@example.org")
    assert msg["In-Reply-To"] in sent.decode() and msg["Subject"] == "[koryo-pbm friday] received: alice's orders for r1-orders (re: my orders)"
    assert 'Your mail "my orders" of ' in text and "ACCEPTED: alice's orders for r1-orders" in text
    assert "now waits for bob, carol" in text
    saved = cli.cwd / "answer.eml"
    saved.write_bytes(msg.as_bytes())
    r = cli.ok("receipt", saved, "--game", "games/friday")
    assert "valid receipt: game " in r.out and "player alice" in r.out and "(the moderator of this game)" in r.out
    assert "not (yet) in the game's log" in r.out
    j = cli.ok("receipt", saved, "--json").json["receipts"][0]
    assert j["player"] == "alice" and j["decision"] == "r1-orders" and j["replaces"] is None
    # tampered: the decision changed
    saved.write_text(msg.as_string().replace("decision: r1-orders", "decision: r2-orders"))
    r = cli.fails("receipt", saved)
    assert "the receipt for the envelope" in r.err and "does not verify" in r.err
    # a receipt block alone, pasted
    block = text[text.index("-----BEGIN KORYO-PBM RECEIPT"):text.index("-----END KORYO-PBM RECEIPT-----") + 31]
    (cli.cwd / "block.txt").write_text("> " + block.replace("\n", "\n> ") + "\n")
    cli.ok("receipt", cli.cwd / "block.txt")
    (cli.cwd / "nothing.txt").write_text("hello\n")
    assert "holds no readable receipt" in cli.fails("receipt", cli.cwd / "nothing.txt").err


def test_second_orders_replace_the_first_and_say_so(cli, tmp_path):
    po, game = start(cli, tmp_path)
    first = envelope_text(cli, "alice", game, "one")
    second = envelope_text(cli, "alice", game, "two")
    po.send_to_judge("alice@example.org", "first", first)
    assert serve_once(cli, po).code == 0
    po.send_to_judge("alice@example.org", "second", second)
    assert serve_once(cli, po).code == 0
    (_, t1), (_, t2) = answers(po, "alice@example.org")
    assert "replaces" not in t1.split("-----BEGIN")[0] and "replaces: none" in t1
    assert "It replaces your earlier orders for it." in t2 and "replaces: none" not in t2


def test_refusals_and_late_envelopes_name_the_mail(cli, tmp_path):
    po, game = start(cli, tmp_path)
    envs = {p: envelope_text(cli, p, game) for p in PLAYERS}
    for p in PLAYERS:
        po.send_to_judge(f"{p}@example.org", f"orders of {p}", envs[p])
    assert serve_once(cli, po).code == 0
    for p in PLAYERS:
        po.messages(f"{p}@example.org")
    # the same envelope again: counted once, receipt again
    po.send_to_judge("bob@example.org", "again", envs["bob"])
    # bob forwards carol's envelope: its receipt goes to carol's own address, never to bob
    po.send_to_judge("bob@example.org", "carol's", envs["carol"])
    r = serve_once(cli, po)
    assert r.code == 0, r.err
    [(m, t)] = answers(po, "bob@example.org")
    assert m["Subject"] == "[koryo-pbm friday] received: bob's orders for r1-orders (re: again)"
    assert "ALREADY COUNTED: bob's orders for r1-orders" in t and "BEGIN KORYO-PBM RECEIPT" in t
    [(m, t)] = answers(po, "carol@example.org")
    assert "ALREADY COUNTED: carol's orders for r1-orders" in t
    # a mail for a game this judge does not serve: refused, to the sender (a player)
    po.send_to_judge("bob@example.org", "other game", envs["bob"].replace(
        f"game_id: {cli.ok('status', 'games/friday', '--json').json['id']}", "game_id: koryo-0000000000"))
    assert serve_once(cli, po).code == 0
    [(m, t)] = answers(po, "bob@example.org")
    assert 'Your mail "other game" of ' in t and m["Subject"] == "[koryo-pbm friday] refused: bob's orders for r1-orders (re: other game)"
    assert "REFUSED: bob's orders for r1-orders" in t and "which this judge does not serve" in t


def test_an_envelope_for_a_finished_decision_is_late(cli, tmp_path):
    po, game = start(cli, tmp_path)
    old_alice = envelope_text(cli, "alice", game, "old")
    envs = {p: envelope_text(cli, p, game) for p in PLAYERS}
    for p in PLAYERS:
        po.send_to_judge(f"{p}@example.org", f"orders of {p}", envs[p])
    assert serve_once(cli, po).code == 0
    for p in PLAYERS:
        po.messages(f"{p}@example.org")
    # alice's older envelope, delayed in the mail system, arrives after r1 was resolved
    po.send_to_judge("alice@example.org", "Old orders", old_alice, headers={"Date": "Mon, 23 Nov 2026 09:00:00 +0000"})
    r = serve_once(cli, po)
    assert r.code == 0
    [(_m, t)] = answers(po, "alice@example.org")
    assert 'Your mail "Old orders" of Mon, 23 Nov 2026 09:00:00 +0000' in t
    assert "LATE, NOT COUNTED: alice's orders for r1-orders" in t
    assert "decision r1-orders was resolved already" in t
    assert "BEGIN KORYO-PBM RECEIPT" not in t


def test_envelopes_the_judge_cannot_read_are_answered_with_what_is_wrong(cli, tmp_path):
    po, game = start(cli, tmp_path)
    env = envelope_text(cli, "alice", game)
    cases = {
        "bom": ("\ufeff" + env, "byte-order mark"),
        "joined": ("My orders:" + env, "BEGIN line is joined to other text"),
        "cut": (env[: len(env) // 2], "has no '-----END KORYO-PBM ENVELOPE-----' line"),
    }
    for subject, (text, _) in cases.items():
        po.send_to_judge("alice@example.org", subject, "Hello judge,\n\n" + text)
    po.send_to_judge("alice@example.org", "utf16", "attached", attachments=[("orders.txt", env.encode("utf-16"))])
    assert serve_once(cli, po).code == 0
    got = {}
    for m, t in answers(po, "alice@example.org"):
        assert str(m["Subject"]).startswith("[koryo-pbm friday] unreadable: an envelope (re: "), m["Subject"]
        got[str(m["Subject"]).rsplit(" ", 1)[-1].rstrip(")")] = t
    assert set(got) == {"bom", "joined", "cut", "utf16"}
    for subject, (_, reason) in cases.items():
        assert "CANNOT BE READ" in got[subject] and reason in got[subject], got[subject]
    assert "UTF-16" in got["utf16"]
    assert cli.ok("status", "games/friday", "--json").json["received"] == []


def test_help_only_with_the_tag_and_only_to_players(cli, tmp_path):
    po, _ = start(cli, tmp_path)
    po.send_to_judge("alice@example.org", "[koryo-pbm friday] what now?", "How do I play?")
    po.send_to_judge("eve@evil.example", "[koryo-pbm friday] what now?", "How do I play?")
    po.send_to_judge("alice@example.org", "lunch?", "Lunch tomorrow?")
    assert serve_once(cli, po).code == 0
    [(m, t)] = answers(po, "alice@example.org")
    assert m["Subject"] == "[koryo-pbm friday] no envelope, help (re: what now?)"
    assert "holds no envelope, so it changed nothing in game friday" in t
    assert "koryo-pbm submit orders.toml --as alice --game friday/game.toml --out orders.txt" in t
    # the steps begin with saving the attached game.toml: it is attached, byte-exact
    assert attachment(m) == (cli.cwd / "games" / "friday" / "game.toml").read_bytes()
    assert not po.box("eve@evil.example").joinpath("new").exists() or not answers(po, "eve@evil.example")
    # the untagged mail is left alone, where it was; the others are moved to the done folder
    left = [p.read_bytes() for p in (po.judge_box / "new").iterdir()]
    assert len(left) == 1 and b"Lunch tomorrow?" in left[0]
    assert len(list((po.judge_box / ".koryo-pbm.done" / "cur").iterdir())) == 2


def test_forged_senders_and_automatic_mail_get_no_answer(cli, tmp_path):
    po, game = start(cli, tmp_path)
    env = envelope_text(cli, "alice", game)
    # eve forwards alice's (valid) envelope: counted; the receipt goes to alice, not to eve
    po.send_to_judge("eve@evil.example", "hi", env)
    # eve sends junk that looks like an envelope: logged, not answered
    po.send_to_judge("eve@evil.example", "hi again", "-----BEGIN KORYO-PBM ENVELOPE-----\nformat: x\n")
    # a vacation responder and a bounce, holding bob's envelope and garbage
    po.send_to_judge("bob@example.org", "Out of office", envelope_text(cli, "bob", game),
                     headers={"Auto-Submitted": "auto-replied"})
    po.send_to_judge("MAILER-DAEMON@example.org", "Undelivered Mail", "-----BEGIN KORYO-PBM ENVELOPE-----\n")
    r = serve_once(cli, po)
    assert r.code == 0
    [(m, t)] = answers(po, "alice@example.org")
    assert "ACCEPTED: alice's orders" in t and m["To"] == "alice@example.org"
    assert not (po.root / "eve@evil.example").exists()
    assert answers(po, "bob@example.org") == []
    assert not (po.root / "MAILER-DAEMON@example.org").exists()
    assert "the sender is not a player's address; not answered" in r.err
    assert "automatic mail (Auto-Submitted: auto-replied); not answered" in r.err
    # bob's envelope from the automatic mail still counted
    assert cli.ok("status", "games/friday", "--json").json["received"] == ["alice", "bob"]


def test_state_mails_attach_the_game_file_byte_exact_and_never_a_hidden_card(cli, tmp_path):
    po = setup_game(cli, tmp_path, emails=["alice", "bob"])
    assert serve_once(cli, po).code == 0
    game = cli.cwd / "games" / "friday" / "game.toml"
    hands = {p: cli.ok("show", "games/friday", "--as", p, "--json").json["hand"] for p in PLAYERS}
    for p in ["alice", "bob"]:
        [msg] = po.messages(f"{p}@example.org")
        assert msg["Subject"] == "[koryo-pbm friday] round 1: the game starts, your turn"
        assert attachment(msg) == game.read_bytes()
        saved = cli.cwd / p / "game.toml"
        saved.parent.mkdir()
        saved.write_bytes(attachment(msg))
        assert cli.ok("show", saved, "--as", p, "--json").json["hand"] == hands[p]
        text = body(msg)
        for cards in hands.values():
            for card in cards:
                name = card if isinstance(card, str) else str(card.get("name", card))
                assert name not in text, name
    # carol has no address: served through the shared folder, with a report next to the game file
    assert not (po.root / "carol@example.org").exists()
    report = (cli.cwd / "games" / "friday" / "report-carol.txt").read_text()
    # its commands run as printed from its own folder, and it mentions play
    assert "     koryo-pbm play --as carol\n" in report
    steps = re.findall(r"^  \d\. (koryo-pbm .*)$", report, re.M)
    assert steps == ["koryo-pbm show --as carol", "koryo-pbm orders --as carol -o orders.toml",
                     "koryo-pbm submit orders.toml --as carol"]
    cli.cwd = cli.cwd / "games" / "friday"
    for step in steps:
        cli.ok(*shlex.split(step)[1:])
    assert cli.ok("status", "--json").json["in_inbox"] == ["carol"]
