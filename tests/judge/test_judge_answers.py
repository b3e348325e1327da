"""Every mail gets one answer, to a known address only: receipts, refusals naming the mail,
envelopes it cannot read, help, and silence for automatic mail and strangers."""

from __future__ import annotations

import hashlib
import re
import shlex

import mail_golden as golden
from judge_kit import PostOffice, attachment, body, player_copy
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
    # the mail is named by when the judge received it and its digest, never by what its sender wrote
    assert "Your mail received 20" in text and f"UTC (mail {hashlib.sha256(sent).hexdigest()[:8]})" in text
    assert "ACCEPTED: alice's orders for r1-orders" in text
    assert "Game friday, decision r1-orders: waiting for bob, carol (alice answered)." in text
    # the words status, show and log use (koryo_pbm.waiting), not a wording of the judge's own
    assert "r1-orders (orders), waiting for bob, carol (alice answered)" in cli.ok("status", "games/friday").out
    assert "decision r1-orders: waiting for bob, carol (alice answered)" in cli.ok("show", "games/friday").out
    saved = cli.cwd / "answer.eml"
    saved.write_bytes(msg.as_bytes())
    r = cli.ok("receipt", saved, "--game", "games/friday")
    assert "valid receipt: game " in r.out and "player alice" in r.out and "(the moderator of this game)" in r.out
    assert "not (yet) in the game's log" in r.out
    j = cli.ok("receipt", saved, "--game", "games/friday", "--json").json["receipts"][0]
    assert j["player"] == "alice" and j["decision"] == "r1-orders" and j["replaces"] is None
    # tampered: the decision changed
    saved.write_text(msg.as_string().replace("decision: r1-orders", "decision: r2-orders"))
    r = cli.fails("receipt", saved)
    assert "the receipt for the envelope" in r.err and "does not verify" in r.err
    # a receipt block alone, pasted
    block = text[text.index("-----BEGIN KORYO-PBM RECEIPT"):text.index("-----END KORYO-PBM RECEIPT-----") + 31]
    (cli.cwd / "block.txt").write_text("> " + block.replace("\n", "\n> ") + "\n")
    cli.ok("receipt", cli.cwd / "block.txt", "--any-key")
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


def test_copies_of_counted_envelopes_and_refusals(cli, tmp_path):
    po, game = start(cli, tmp_path)
    envs = {p: envelope_text(cli, p, game) for p in PLAYERS}
    for p in PLAYERS:
        po.send_to_judge(f"{p}@example.org", f"orders of {p}", envs[p])
    assert serve_once(cli, po).code == 0
    for p in PLAYERS:
        po.messages(f"{p}@example.org")
    # bob sends his envelope for r1 again, after r1 was resolved: counted once; his answer says
    # which decision the game waits for now and what to send, with the game file attached
    po.send_to_judge("bob@example.org", "again", envs["bob"])
    # bob forwards carol's envelope: her receipt was mailed to her before, so nobody is mailed
    po.send_to_judge("bob@example.org", "carol's", envs["carol"])
    r = serve_once(cli, po)
    assert r.code == 0, r.err
    [(m, t)] = answers(po, "bob@example.org")
    assert m["Subject"] == "[koryo-pbm friday] received: bob's orders for r1-orders (re: again)"
    assert "ALREADY COUNTED: bob's orders for r1-orders" in t
    now = cli.ok("status", "games/friday", "--json").json
    text = " ".join(t.split())
    assert "for decision r1-orders, which is resolved" in text
    if "bob" in now["missing"]:
        assert f"bob, the game waits for your orders for decision {now['decision']}" in text
        assert "koryo-pbm submit orders.toml --as bob --game friday/game.toml" in text
        assert attachment(m) == player_copy(cli.cwd / "games" / "friday" / "game.toml")
    assert answers(po, "carol@example.org") == []
    assert "a copy of carol's envelope for r1-orders, whose receipt was mailed to carol before" in r.err
    # a mail for a game this judge does not serve: refused, to the sender (a player), without
    # quoting the envelope's header back
    po.send_to_judge("alice@example.org", "other game", envs["alice"].replace(
        f"game_id: {now['id']}", "game_id: koryo-0000000000"))
    r = serve_once(cli, po)
    assert r.code == 0 and "refused: an envelope for game koryo-0000000000, not served here" in r.err
    [(m, t)] = answers(po, "alice@example.org")
    assert m["Subject"] == "[koryo-pbm friday] refused: alice's orders for r1-orders (re: other game)"
    assert "REFUSED: alice's orders for r1-orders" in t and "which this judge does not serve" in t


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
    assert "23 Nov" not in t and "Old orders" not in t  # nothing of what the sender wrote
    assert "LATE, NOT COUNTED: alice's orders for r1-orders" in t
    assert "It arrived after decision r1-orders was resolved" in t
    now = cli.ok("status", "games/friday", "--json").json
    assert f"Game friday, decision {now['decision']}: waiting for {', '.join(now['missing'])}" in " ".join(t.split())
    assert "BEGIN KORYO-PBM RECEIPT" not in t


def test_envelopes_the_judge_cannot_read_are_answered_with_what_is_wrong(cli, tmp_path):
    po, game = start(cli, tmp_path)
    env = envelope_text(cli, "alice", game)
    lines = env.splitlines()
    body_at = lines.index("") + 2  # a line in the middle of the base64 body
    cases = {
        "byte-order mark": "\ufeff" + env,
        "BEGIN line is joined to other text": "My orders:" + env,
        # a paste that lost one line: unreadable with the fix, never "it was changed"
        "envelope body is cut": "\n".join(lines[:body_at] + lines[body_at + 1:]) + "\n",
        "has no '-----END KORYO-PBM ENVELOPE-----' line": env[: len(env) // 2],
    }
    po.send_to_judge("alice@example.org", "pasted", "Hello judge,\n\n" + "\n\n".join(cases.values()),
                     attachments=[("orders.txt", env.encode("utf-16"))])
    r = serve_once(cli, po)
    assert r.code == 0 and r.err.count('"pasted", ') >= 5 and ": unreadable: envelope body is cut" in r.err
    [(m, t)] = answers(po, "alice@example.org")
    assert str(m["Subject"]) == "[koryo-pbm friday] 5 unreadable (re: pasted)", m["Subject"]
    assert t.count("CANNOT BE READ") == 5 and "UTF-16" in t and "changed" not in t
    for reason in cases:
        assert reason.lower() in " ".join(t.split()).lower(), (reason, t)
    assert "send it again, the whole envelope from its BEGIN line to its END line" in " ".join(t.split())
    assert cli.ok("status", "games/friday", "--json").json["received"] == []


def test_help_only_with_the_tag_and_only_to_players(cli, tmp_path):
    po, _ = start(cli, tmp_path)
    asked = po.send_to_judge("Alice <alice@example.org>", "[koryo-pbm friday] what now?", "How do I play?")
    po.send_to_judge("eve@evil.example", "[koryo-pbm friday] what now?", "How do I play?")
    po.send_to_judge("alice@example.org", "lunch?", "Lunch tomorrow?")
    po.send_to_judge("dora@example.net", "lunch?", "Lunch tomorrow?")
    log = cli.cwd / "judge.log"
    assert serve_once(cli, po, "--moderator", "mod@example.org", "--log-file", log).code == 0
    # the player's mail is forwarded to the moderator's own address too, as it came; eve's is not
    [(fwd, ft)] = answers(po, "mod@example.org")
    assert fwd["Subject"] == "[koryo-pbm friday] from alice: what now?" and fwd["Reply-To"] == "alice@example.org"
    assert attachment(fwd, f"mail-{hashlib.sha256(asked).hexdigest()[:8]}.eml") == asked
    assert "The judge answered alice with its help." in " ".join(ft.split())
    [(m, t), (untagged, ut)] = answers(po, "alice@example.org")
    # a mail without a game's tag from a player's address: the list of the games they play
    assert untagged["Subject"] == "[koryo-pbm friday] list"
    assert "Your mail has no game tag in its subject" in " ".join(ut.split())
    golden.check("list-untagged", untagged)
    assert "* [koryo-pbm friday] (Koryo) as alice: round 1, r1-orders: waiting for alice, bob" in " ".join(ut.split())
    assert m["Subject"] == "[koryo-pbm friday] no envelope, help (re: what now?)"
    assert "holds no envelope, so it changed nothing in game friday" in " ".join(t.split())
    assert "It was forwarded to the moderator, who can answer you." in " ".join(t.split())
    assert "koryo-pbm submit orders.toml --as alice --game friday/game.toml --out orders.txt" in t
    # the steps begin with saving the attached game.toml: it is attached, byte-exact
    assert attachment(m) == player_copy(cli.cwd / "games" / "friday" / "game.toml")
    assert not po.box("eve@evil.example").joinpath("new").exists() or not answers(po, "eve@evil.example")
    # the untagged mail of a stranger is left alone, where it was, with a line in the log saying why
    left = [p.read_bytes() for p in (po.judge_box / "new").iterdir()]
    assert len(left) == 1 and b"dora@example.net" in left[0]
    assert "from dora@example.net" in log.read_text() and "not for the judge, left alone" in log.read_text()
    assert len(list((po.judge_box / ".koryo-pbm.done" / "cur").iterdir())) == 3


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
        assert msg["Subject"] == "[koryo-pbm friday] round 1: the game starts, your orders turn"
        assert attachment(msg) == player_copy(game)
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
