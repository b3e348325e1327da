"""A complete 3-player Koryo game run by the judge: players only read their mail and answer it
(orders pasted into a reply), through a local Maildir and a sendmail program."""

from __future__ import annotations

import re
from pathlib import Path

import mail_golden as golden
from judge_kit import FROM, JUDGE, PostOffice, attachment, body

PLAYERS = ["alice", "bob", "carol"]
VOLUME_LIMIT = 1_000_000  # issue 18's goal


def setup_game(cli, tmp_path, *, emails=None, seed: str | None = "mail-game", folder="friday", players=PLAYERS):
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *players]}
    (cli.cwd / "games").mkdir(exist_ok=True)
    args = ["new", f"games/{folder}", "--as", "mod", *(["--seed", seed] if seed is not None else [])]
    for n in players:
        args += ["--player", f"{n}={pubs[n]}"]
    for n in players if emails is None else emails:
        args += ["--email", f"{n}={n}@example.org"]
    cli.ok(*args)
    return PostOffice(tmp_path / "post")


def serve_once(cli, po, *extra):
    return cli("serve", "games", "--as", "mod", "--once", "--maildir", po.judge_box, "--sendmail", po.sendmail,
               "--from", FROM, "--retry", "0.01", *extra)


def play_turn(cli, po, player, msg):
    """What a player does with a state mail that says it is their turn."""
    folder = cli.cwd / "players" / player / "friday"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_bytes(attachment(msg))
    orders = folder.parent / "orders.toml"
    out = folder.parent / "orders.txt"
    for f in (orders, out):
        f.unlink(missing_ok=True)
    cli.ok("orders", folder / "game.toml", "--as", player, "-o", orders)
    cli.ok("submit", orders, "--as", player, "--game", folder / "game.toml", "--out", out)
    po.send_to_judge(f"{player} <{player}@example.org>", "Re: " + str(msg["Subject"]),
                     "Here are my orders.\n\n" + out.read_text(), in_reply_to=str(msg["Message-ID"]))


def guide_samples() -> list[str]:
    """The sample mails of the moderators' guide ("What the players receive"): headers, a blank
    line, the text as a mail client shows it."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "moderators.md").read_text(encoding="utf-8")
    section = guide[guide.index("\n### What the players receive\n"):guide.index("\n## Deadlines")]
    return re.findall(r"^```\n(From: .*?)^```", section, flags=re.M | re.S)


# What changes from one game to the next: ids, digests, times, signatures, the deal's events.
VARYING = re.compile(r"[0-9a-f]{10,}|koryo-pbm-pub-v1:|\d\d:\d\d|<[^>]*@|^[A-Za-z0-9+/=]{20,}$|^    \S|^  r\d+-")


def looks_like_the_guide(sample: str, msg) -> None:
    """``msg`` is the mail the guide shows: the same headers (but its ids), and every line of the
    text that does not vary from game to game."""
    import os

    if os.environ.get("KORYO_PBM_GOLDEN") == "update":
        return  # the golden texts are being written: the guide's samples are updated from them
    head, _, text = sample.partition("\n\n")
    for line in head.splitlines():
        name, _, value = line.partition(": ")
        if name not in ("Message-ID", "In-Reply-To", "Attachment"):
            assert str(msg[name]) == value, (name, str(msg[name]), value)
    if "Attachment: game.toml" in head:
        assert attachment(msg) is not None
    real = body(msg).splitlines()
    for line in text.splitlines():
        if not VARYING.search(line):
            assert line in real, f"the guide's line {line!r} is not in the mail:\n{body(msg)}"


def test_a_whole_game_by_mail(cli, tmp_path):
    """Also: the state mail and the receipt the moderators' guide shows are the judge's own (this
    game is the guide's: three players, bob's mails, a Maildir and sendmail)."""
    state_sample, receipt_sample = guide_samples()
    po = setup_game(cli, tmp_path)
    receipts = {p: 0 for p in PLAYERS}
    state_mails = {p: 0 for p in PLAYERS}
    volume = dict.fromkeys(PLAYERS, 0)  # bytes of mail each player received, the player page apart
    pages = dict.fromkeys(PLAYERS, 0)  # the player page attached (7.9 MB since it carries the rules)
    shown = set()
    log = cli.cwd / "judge.log"
    for _ in range(200):
        r = serve_once(cli, po, "--log-file", log)
        assert r.code == 0, r.err
        over = False
        for p in PLAYERS:
            volume[p] += sum(f.stat().st_size for f in (po.box(f"{p}@example.org") / "new").iterdir())
            for msg in po.messages(f"{p}@example.org"):
                assert msg["From"] == FROM and msg["To"] == f"{p}@example.org"
                assert msg["Auto-Submitted"] in ("auto-replied", "auto-generated")
                assert str(msg["Subject"]).startswith("[koryo-pbm friday] ")
                for part in msg.walk():
                    if part.get_filename() == "koryo-pbm-player-page.html":
                        pages[p] += 1
                        volume[p] -= len(part.as_bytes())
                text = body(msg)
                if p == "bob" and str(msg["Subject"]).startswith("[koryo-pbm friday] received: bob's orders for r1-"):
                    looks_like_the_guide(receipt_sample, msg)
                    golden.check("receipt", msg)
                    shown.add("receipt")
                if p == "bob" and msg["Subject"] == "[koryo-pbm friday] round 2: your orders turn":
                    looks_like_the_guide(state_sample, msg)
                    golden.check("state-turn", msg)
                    shown.add("state")
                if p == "bob" and msg["Subject"] == "[koryo-pbm friday] round 1: the game starts, your orders turn":
                    golden.check("state-first", msg)  # the first mail: the player page rides along, once
                    shown.add("first")
                if p == "bob" and str(msg["Subject"]).endswith("game over"):
                    golden.check("game-over", msg)
                if "BEGIN KORYO-PBM RECEIPT" in text:
                    receipts[p] += 1
                    assert msg["In-Reply-To"] and "ACCEPTED" in text
                    continue
                state_mails[p] += 1
                # (--state-mail act: the file only to the players the decision waits for)
                acting = re.search(r": (the game starts, )?your \w+ turn$", str(msg["Subject"]))
                assert (attachment(msg) is not None) == bool(acting or str(msg["Subject"]).endswith("game over"))
                if attachment(msg) is not None:  # the player copy: the moderator's part as its digest
                    assert re.search(rb'\n\[sealed\.moderator\]\nrecipient = "[0-9a-f]{16}"\ndigest = "sha256:'
                                     rb'[0-9a-f]{64}"\nsignature = ', attachment(msg))
                if str(msg["Subject"]).endswith("game over"):
                    over = True
                elif acting:
                    play_turn(cli, po, p, msg)
        if over:
            break
    else:
        raise AssertionError("the game did not end")
    final = cli.ok("show", "games/friday", "--json").json
    assert final["phase"] == "over"
    assert shown == {"receipt", "state", "first"}
    assert all(n > 3 for n in receipts.values()), receipts
    assert all(n > 3 for n in state_mails.values()), state_mails
    # everything sent, nothing waiting, nothing failed; every handled mail kept in the done folder
    outbox = cli.cwd / "games" / "friday" / "outbox"
    assert not list(outbox.glob("*.eml")) and not list((outbox / "failed").glob("*"))
    assert len(list((outbox / "sent").glob("*.eml"))) == sum(receipts.values()) + sum(state_mails.values())
    assert not list((po.judge_box / "new").iterdir())
    assert len(list((po.judge_box / ".koryo-pbm.done" / "cur").iterdir())) == sum(receipts.values())
    assert re.search(r"^alice@example.org$", po.log.read_text(), re.M)
    # the judge's log: every mail received, answered and sent, and the end
    text = log.read_text()
    assert text.count(" received mail ") == sum(receipts.values())
    assert text.count(": answered (accepted") + text.count(": answered (held") == sum(receipts.values())
    assert text.count(" sent ") == sum(receipts.values()) + sum(state_mails.values())
    assert "game friday is over (version " in text
    assert JUDGE not in po.log.read_text()
    # the mail a whole game costs each player: issue 18's goal, under 1 MB. 0.43 to 0.54 MB measured
    # (3 runs) since the first mail carries the player page (0.17 MB, once; issue 30) and the
    # players are mailed only when they must act; 0.26 to 0.39 MB
    # measured (10 runs) since the judge mails the player copy of the game file (without the
    # moderator's part, which holds every counted order until the end); 0.72 to 1.18 MB before it
    # (9 runs), which depended on the deal; 2.33 MB before --state-mail turn (see
    # docs/moderators.md, "Light mail"). Every file attached is a player copy.
    # Since the page carries the rules (7.9 MB, quoted-printable in the mail: under the 10 MB a
    # mail server takes by default), it is counted apart: attached once a player, with the first mail.
    print(f"\nmail per player, a whole 3-player game: {volume}, the page apart, attached {pages} times")
    assert all(v < VOLUME_LIMIT for v in volume.values()), volume
    assert all(n == 1 for n in pages.values()), pages


def test_a_joined_game_by_mail_begins_with_the_join_and_verifies_at_the_end(cli, tmp_path):
    """Without --seed the judge's first mails ask every player to join; the players answer as
    any decision; at the end each player verifies the final game file the judge mailed."""
    po = setup_game(cli, tmp_path, seed=None)
    assert serve_once(cli, po).code == 0
    first = {p: po.messages(f"{p}@example.org") for p in PLAYERS}
    for p in PLAYERS:
        (msg,) = first[p]
        assert msg["Subject"] == "[koryo-pbm friday] your turn: join the game"
        text = " ".join(body(msg).split())  # what the text says, wherever it was wrapped
        assert "The cards are not dealt yet: every player joins first" in text
        assert "Decision join: waiting for alice, bob, carol. It is your turn: join the game." in text
        assert "it holds your contribution to the deal, fresh random bytes: submit it as it is" in text
        play_turn(cli, po, p, msg)
    final = None
    for _ in range(200):
        assert serve_once(cli, po).code == 0
        for p in PLAYERS:
            for msg in po.messages(f"{p}@example.org"):
                subject = str(msg["Subject"])
                assert "join" not in subject or "(re: " in subject or "game over" in subject  # answers name the mail
                if subject.endswith("game over"):
                    final = msg
                    assert "koryo-pbm verify friday/game.toml --as " + p in " ".join(body(msg).split())
                    assert ("The final game file is attached: open it in your player page to see the final table and "
                            "the scores.") in " ".join(body(msg).split())
                    assert "If you use the command line: save it as friday/game.toml (over the one you have)." \
                        in " ".join(body(msg).split())
                elif re.search(r"your (\w+ )?turn$", subject) and "BEGIN KORYO-PBM RECEIPT" not in body(msg):
                    play_turn(cli, po, p, msg)
        if final is not None:
            break
    else:
        raise AssertionError("the game did not end")
    folder = cli.cwd / "players" / "alice" / "friday"
    (folder / "game.toml").write_bytes(attachment(final))
    for p in PLAYERS:
        out = cli.ok("verify", folder / "game.toml", "--as", p).out
        assert "no single party chose it" in out and out.splitlines()[-1] == "verdict: the game verifies"
