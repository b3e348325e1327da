"""The judge after ``koryo-pbm replace``: the substitute's address is served, the former
player's key is refused by name and the former address is a stranger."""

from __future__ import annotations

from judge_kit import attachment
from test_judge_answers import answers, envelope_text, start
from test_judge_mail_game import PLAYERS, serve_once


def test_the_judge_serves_the_substitute_and_refuses_the_former_key(cli, tmp_path):
    po, game = start(cli, tmp_path)
    old_bob = envelope_text(cli, "bob", game, "old")  # made before the seat changes hands
    erin = cli.ok("keygen", "erin").out.strip()
    r = cli.ok("replace", "games/friday", "--as", "mod", f"bob={erin}", "--email", "bob=erin@example.org")
    assert "bob's address: erin@example.org" in r.out
    # the former player mails the envelope signed with the former key: not a player's address any more
    po.send_to_judge("bob@example.org", "my orders", old_bob)
    # the same envelope from the new address is refused by name
    po.send_to_judge("erin@example.org", "bob's old orders", old_bob)
    assert serve_once(cli, po).code == 0
    assert answers(po, "bob@example.org") == []
    refused = [t for m, t in answers(po, "erin@example.org") if "bob's old orders" in str(m["Subject"])]
    assert refused and "signed by bob's former key" in refused[0]
    # the substitute answers with the new key from the new address, and gets the game by mail
    envs = {p: envelope_text(cli, p, game) for p in PLAYERS if p != "bob"}
    envs["bob"] = envelope_text(cli, "erin", game, "erin")
    for p, text in envs.items():
        po.send_to_judge("erin@example.org" if p == "bob" else f"{p}@example.org", f"orders of {p}", text)
    assert serve_once(cli, po).code == 0
    got = answers(po, "erin@example.org")
    assert any("ACCEPTED: bob's orders for r1-orders" in t for _, t in got)
    states = [m for m, _ in got if attachment(m) is not None]
    assert states, [t[:200] for _, t in got]
    mine = cli.cwd / "erin.toml"
    mine.write_bytes(attachment(states[-1]))
    assert cli.ok("show", mine, "--as", "erin", "--json").json["hand"]
    assert answers(po, "bob@example.org") == []
