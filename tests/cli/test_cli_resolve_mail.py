"""``resolve --mail``: no silent misses, late envelopes are not failures, refusals name the mail
(From, Subject, Date), and the summary says where things really went."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage

from test_cli_bymail import make_keys, new_game


def _mail(sender: str, subject: str, text: str, date: str = "Tue, 24 Nov 2026 10:00:00 +0000") -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Date"] = sender, "mod@example.org", subject, date
    m.set_content(text)
    return m


def _envelope(cli, folder, player) -> str:
    orders = cli.cwd / f"{player}.toml"
    orders.unlink(missing_ok=True)
    cli.ok("orders", folder, "--as", player, "-o", orders)
    return cli.ok("submit", orders, "--as", player, "--game", folder, "--out", "-").out


def test_every_mail_is_accounted_for_and_refusals_name_it(cli, tmp_path):
    lines = make_keys(cli, ["alice", "bob"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="resolve-mail")
    alice_r1, bob_r1 = _envelope(cli, folder, "alice"), _envelope(cli, folder, "bob")
    first = tmp_path / "first"
    box = mailbox.Maildir(first, create=True)
    box.add(_mail("alice@example.org", "round 1", alice_r1))
    box.add(_mail("bob@example.org", "round 1", bob_r1))
    box.close()
    cli.ok("resolve", folder, "--as", "mod", "--mail", first)
    assert cli.ok("status", folder, "--json").json["decision"] != "r1-orders"

    store = tmp_path / "second"
    box = mailbox.Maildir(store, create=True)
    # bob's first orders again, sent late: counted already, not a failure
    box.add(_mail("Bob <bob@example.org>", "resent", bob_r1))
    # a lunch invitation: no envelope, listed, not skipped silently
    box.add(_mail("carol@example.org", "lunch?", "Lunch tomorrow?"))
    # an envelope changed in transit: refused, naming the mail
    broken = alice_r1.replace("player: alice", "player: bob")
    box.add(_mail("Alice <alice@example.org>", "Grüße, my orders", broken, "Wed, 25 Nov 2026 09:30:00 +0100"))
    box.close()

    r = cli("resolve", folder, "--as", "mod", "--mail", store)
    assert r.code == 3 and "Traceback" not in r.err
    err = " ".join(r.err.split())
    assert 'no envelope Maildir' in err and '(from carol@example.org, "lunch?", Tue, 24 Nov 2026 10:00:00 +0000)' in err
    assert '(from Alice <alice@example.org>, "Grüße, my orders", Wed, 25 Nov 2026 09:30:00 +0100)' in err
    assert "1 envelope(s) rejected (in the mail given, which is left where it is)" in err
    assert "archive/rejected" not in err  # nothing of the mail was moved there
    assert len(box_files(store)) == 3  # every mail is still where it was

    j = cli("resolve", folder, "--as", "mod", "--mail", store, "--json").json
    assert [m.split(" (from ", 1)[1] for m in j["mails_without_envelope"]] == [
        'carol@example.org, "lunch?", Tue, 24 Nov 2026 10:00:00 +0000)']
    statuses = {e["source"].split(" (from ", 1)[1].split(",", 1)[0]: e["status"] for e in j["envelopes"]}
    assert statuses == {"Bob <bob@example.org>": "duplicate", "Alice <alice@example.org>": "rejected"}

    # only the late envelope and the lunch mail: exit status 0
    box = mailbox.Maildir(store)
    for key, msg in list(box.items()):
        if "Alice" in str(msg["From"]):
            box.remove(key)
    box.close()
    r = cli("resolve", folder, "--as", "mod", "--mail", store)
    assert r.code == 0, r.err
    assert "no envelope" in r.err and "duplicate" in r.err


def box_files(store):
    return [p for sub in ("new", "cur") for p in (store / sub).iterdir()]
