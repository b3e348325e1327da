"""A complete blind Korsar team game through the judge (issue 20, item 7), by Maildir and a
sendmail program: the moderator's ``serve`` runs the game, the co-dealer answers through its own
``serve --co-dealer`` mail loop with its key in a home of its own, and the four players (dora,
the moderator's own seat, in a team with erin) only read their mail and answer it. At the end
``verify`` audits the final file the players were mailed, and no mail any player received carries
a hidden card in clear. (The same game through real dovecot and postfix costs minutes at mail
latency; the real-mail test plays a blind Koryo game, tests/mailservers/test_blind_by_mail.py.)"""

from __future__ import annotations

import json
import re
import time
import tomllib
from collections import Counter

from blind_checks import card_words, pairs
from judge_kit import PostOffice, attachment, body
from test_judge_blind import CARL, co_dealer, judge
from test_judge_mail_game import play_turn

SEATS = ["alice", "bob", "dora", "erin"]  # teams alice+bob and dora+erin


def test_a_blind_korsar_team_game_through_the_judge_with_the_co_dealer_by_mail(cli, tmp_path, monkeypatch):
    from koryo_pbm_games.korsar.cards import CARD_IDS, COPIES

    from koryo_pbm.store import gamefile

    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-26T17:00Z")
    pubs = {n: cli.ok("keygen", n).out.strip() for n in ["mod", *SEATS]}
    carl_home = tmp_path / "carl-home"
    carl = cli.ok("keygen", "carl", home=carl_home).out.strip()
    (cli.cwd / "games").mkdir()
    (cli.cwd / "dealt").mkdir()
    cli.ok("new", "games/friday", "--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={carl}",
           *[x for n in SEATS for x in ("--player", f"{n}={pubs[n]}", "--email", f"{n}={n}@example.org")],
           "--email", f"carl={CARL}", "--team", "alice,bob", "--team", "dora,erin")
    po = PostOffice(tmp_path / "post")
    received: dict[str, list] = {p: [] for p in SEATS}
    envelopes = co_passes = 0
    over = False
    started, cpu = time.monotonic(), time.process_time()
    for _ in range(400):  # a judge pass; the co-dealer's pass when it has mail; the players answer
        judge(cli, po)
        if any((po.box(CARL) / "new").iterdir()):
            co_dealer(cli, po, carl_home)
            co_passes += 1
        for p in SEATS:
            for msg in po.messages(f"{p}@example.org"):
                received[p].append(msg)
                over = over or str(msg["Subject"]).endswith("game over")
                if attachment(msg) is not None and re.search(r"your (\w+ )?turn$", str(msg["Subject"])):
                    play_turn(cli, po, p, msg)
                    envelopes += 1
        if over:
            break
    else:
        raise AssertionError("the blind Korsar game did not end")
    played, played_cpu = time.monotonic() - started, time.process_time() - cpu
    doc = gamefile.read_game(cli.cwd / "games" / "friday" / "game.toml")
    assert doc.decision is None and doc.deal == "blind"
    ids = [e["decision"] for e in doc.log if "decision" in e]
    assert ids[0] == "keys" and ids[-1] == "end", ids
    # every seat played its turns by mail, the co-dealer answered every one of its decisions by mail
    log = (cli.cwd / "judge.log").read_text()
    asked = re.findall(r"carl's envelope for (\S+) of friday: accepted", log)
    gives = [d for d in asked if d.endswith("-give")]
    assert asked == ["keys", "deal", *gives, "end-reveal", "end"] and len(gives) > 10, asked
    assert log.count("carl's envelope for ") == len(asked)  # none refused, late or duplicate
    answered = re.findall(r"co-dealer carl: answered (\S+) of game ", (cli.cwd / "carl.log").read_text())
    assert answered == asked
    assert envelopes > 40 and all(re.search(rf"{p}'s envelope for \S+ of friday: accepted", log) for p in SEATS)
    # the final file the players were mailed: verify's audit of the blind table passes
    final = cli.cwd / "final.toml"
    over = [m for m in received["alice"] if str(m["Subject"]).endswith("game over")]
    final.write_bytes(attachment(over[-1]))
    report = cli.ok("verify", final, "--json").json
    assert report["ok"], report
    checks = {c["check"]: c for c in report["checks"]}
    assert " shuffled by mod and carl, " in checks["blind"]["detail"], checks["blind"]
    # no mail to a player carries a hidden card in clear: its text names no card the public log
    # had not named by then, the game file's clear part holds no hidden slot with its card
    # every card of the game, slot by slot, as the audit recomputed it from the dealers' secrets
    from koryo_pbm import match
    from koryo_pbm.blind import audit_decks, audited_cards

    cards = audited_cards(audit_decks(match.game_of(doc), doc.public))
    assert len(cards) == 78 and sorted(Counter(cards.values()).elements()) == sorted(
        c for c, n in COPIES.items() for _ in range(n))
    assert cli.ok("show", final, "--as", "dora", "--json").json["cards"].items() <= cards.items()
    named_by: list[tuple[int, Counter]] = []  # (version, the card ids the public log named up to it)
    for e in sorted(doc.log, key=lambda e: int(e.get("version", 0))):
        named = named_by[-1][1] if named_by else Counter()
        named_by.append((int(e.get("version", 0)), named + card_words(json.dumps(e.get("events", [])), CARD_IDS)))
    files: set[bytes] = set()  # every game file mailed (the same file goes to several seats)
    for p in SEATS:
        pages = [m for m in received[p] if attachment(m, "koryo-pbm-player-page.html") is not None]
        assert len(pages) <= 1, f"{p} got the player page {len(pages)} times"
        for msg in received[p]:
            names = [part.get_filename() for part in msg.iter_attachments()]
            assert set(names) <= {"game.toml", "koryo-pbm-player-page.html"}, names  # the page: once
            text = body(msg)
            version = re.search(r", version (\d+), for ", text)
            if version is not None:
                public = [Counter(), *(c for v, c in named_by if v <= int(version.group(1)))][-1]
                assert not (card_words(text, CARD_IDS) - public), str(msg["Subject"])
            if "game.toml" in names:
                files.add(attachment(msg))
    # each file's clear part (all but its sealed parts) holds no card of the game beside its slot
    # but the slots revealed by that version; the log is append-only (each file's is the next
    # one's beginning, checked), so each entry is checked from the first file that holds it
    split = []
    for data in files:
        text = data.decode()
        at_sealed = text.find("\n[sealed")  # the sealed parts come last
        at_sealed = len(text) if at_sealed < 0 else at_sealed
        at_log = text.find("\n[[log]]", 0, at_sealed)
        at_log = at_sealed if at_log < 0 else at_log
        head = tomllib.loads(text[:at_log])
        assert "sealed" not in head
        split.append((head["version"], head, text[at_log:at_sealed]))
    checked_log = ""
    for version, head, log_text in sorted(split, key=lambda f: f[0]):
        assert log_text.startswith(checked_log), f"version {version}: the log is not the last one's, continued"
        clear = head | tomllib.loads(log_text[len(checked_log):])
        checked_log = log_text
        revealed = {r["slot"] for r in head["public"]["blind"]["reveals"]}
        leaked = [(k, v) for k, v in pairs(clear) if isinstance(k, str) and k not in revealed and cards.get(k) == v]
        assert not leaked, (leaked[:3], f"version {version}")
    assert len(files) > 40 and split and max(split, key=lambda f: f[0])[2] == checked_log
    print(f"\na blind 4-player Korsar team game through the judge by Maildir: {played:.1f} s ({played_cpu:.1f} s CPU), "
          f"then the checks {time.monotonic() - started - played:.1f} s; {envelopes} player envelopes, "
          f"{len(asked)} co-dealer answers, {co_passes} co-dealer passes, {len(files)} game files mailed")
