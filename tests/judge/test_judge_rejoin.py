"""The judge when a seat changes hands during the join (issue 29, item 6): the join starts
again, the player who had joined is mailed the new file and asked to join anew; her join
signed before is refused in one line, nothing counted."""

from __future__ import annotations

from test_judge_answers import answers, envelope_text, start
from test_judge_mail_game import serve_once


def test_a_seat_handed_over_during_the_join_restarts_it_by_mail(cli, tmp_path):
    po, game = start(cli, tmp_path, seed=None)
    assert cli.ok("status", game, "--json").json["decision"] == "join"
    alice_join = envelope_text(cli, "alice", game, "first")
    po.send_to_judge("alice@example.org", "my join", alice_join)
    assert serve_once(cli, po).code == 0
    answers(po, "alice@example.org")  # her receipt
    assert cli.ok("status", game, "--json").json["received"] == ["alice"]
    erin = cli.ok("keygen", "erin").out.strip()
    cli.ok("replace", "games/friday", "--as", "mod", f"carol={erin}", "--email", "carol=erin@example.org")
    assert serve_once(cli, po).code == 0
    [(msg, text)] = answers(po, "alice@example.org")
    assert str(msg["Subject"]) == "[koryo-pbm friday] your turn: join the game"
    said = " ".join(text.split())
    assert ("the join starts again: every player joins anew (joins signed before carol's seat changed hands are "
            "not counted)") in said and "Decision join: waiting for alice, bob, carol. It is your turn" in said
    po.send_to_judge("alice@example.org", "my join again", alice_join)
    assert serve_once(cli, po).code == 0
    [(msg, text)] = answers(po, "alice@example.org")
    assert str(msg["Subject"]) == "[koryo-pbm friday] refused: alice's orders for join (re: my join again)"
    assert ("Reason: a join signed before a seat changed hands: the join of game "
            in text.replace("\r\n  ", " ").replace("\r\n", "\n"))
    assert cli.ok("status", game, "--json").json["received"] == []
