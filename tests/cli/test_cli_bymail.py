"""Playing by mail and by shared folder, end to end through the real CLI with real keys."""

from __future__ import annotations

import mailbox
import shutil
import threading
from email.message import EmailMessage

PLAYERS = ["alice", "bob", "carol", "dave"]


def make_keys(cli, names=PLAYERS, moderator="mod"):
    lines = {}
    for name in [moderator, *names]:
        r = cli.ok("keygen", name)
        lines[name] = r.out.strip()
        assert lines[name].startswith("koryo-pbm-pub-v1:")
        assert "\n" not in lines[name]
    return lines


def new_game(cli, lines, names=PLAYERS, folder="g", seed="by-mail", extra=()):
    args = ["new", folder, "--as", "mod", "--seed", seed, *extra]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return cli.cwd / folder


def play_template_orders(cli, folder, *, max_steps=400):
    """Every player answers with the example order from `koryo-pbm orders`, until the end."""
    steps = 0
    while True:
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            return steps
        for p in status["missing"]:
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", folder, "--as", p, "-o", orders)
            cli.ok("submit", orders, "--as", p, "--game", folder)
        cli.ok("resolve", folder, "--as", "mod")
        steps += 1
        assert steps < max_steps


def test_full_four_player_game_through_envelopes(cli):
    lines = make_keys(cli)
    folder = new_game(cli, lines)
    status = cli.ok("status", folder, "--json").json
    assert set(status) >= {"id", "game", "decision", "waiting_for", "round", "phase"}
    assert status["game"] == "koryo" and status["round"] == 1 and status["decision"] == "r1-orders"
    play_template_orders(cli, folder)
    final = cli.ok("show", folder, "--json").json
    assert final["phase"] == "over" and final["decision"] is None
    assert final["winners"] and set(final["winners"]) <= set(PLAYERS)
    assert max(final["scores"].values()) == final["scores"][final["winners"][0]]
    # Nothing was lost: every envelope is archived, none deleted, the inbox is empty.
    assert not list((folder / "inbox").iterdir())
    assert list((folder / "archive" / "accepted").iterdir())
    assert not (folder / "archive" / "rejected").exists() or not list((folder / "archive" / "rejected").iterdir())
    # The seed is published at the end and matches the commitment made at the start.
    import tomllib

    from koryo_pbm.store.gamedoc import seed_commitment

    assert final["seed"] == "by-mail"
    doc = tomllib.loads((folder / "game.toml").read_text())
    salt = doc["salt"]
    assert doc["deal"] == "seed" and len(salt) == 64
    assert doc["seed_commitment"] == seed_commitment("by-mail", salt) != seed_commitment("by-mail!", salt)


def test_each_player_sees_only_their_own_hand(cli):
    lines = make_keys(cli)
    folder = new_game(cli, lines, seed="secret-seed-text")
    views = {p: cli.ok("show", folder, "--as", p, "--json").json for p in PLAYERS}
    public = cli.ok("show", folder, "--json").json
    assert "hand" not in public
    for p in PLAYERS:
        assert views[p]["me"] == p
        assert len(views[p]["hand"]) == public["hand_sizes"][p] == 10
    # bob's key cannot open alice's part: `show FILE --key bob.key` shows bob's, never alice's.
    text = (folder / "game.toml").read_text()
    assert "secret-seed-text" not in text
    for p in PLAYERS:  # no hand appears in the clear anywhere in the folder
        assert f"hand = {views[p]['hand']!r}".replace("'", '"') not in text
    # The moderator's key is not a player's key: --as mod shows the public state only.
    assert "hand" not in cli.ok("show", folder, "--as", "mod", "--json").json
    # A stranger's key opens nothing.
    cli.ok("keygen", "eve")
    r = cli.fails("show", folder, "--as", "eve")
    assert "is not the key of any player" in r.err


def test_resubmitting_replaces_the_earlier_orders(cli):
    lines = make_keys(cli, ["alice", "bob"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="resubmit")
    hand = cli.ok("show", folder, "--as", "alice", "--json").json["hand"]
    first, second = sorted(set(hand))[:2] if len(set(hand)) > 1 else (hand[0], hand[0])
    status = cli.ok("status", folder, "--json").json
    for card in (first, second):
        f = cli.cwd / f"a-{card}.toml"
        f.write_text(f'game = "{status["id"]}"\ndecision = "r1-orders"\nplay = ["{card}"]\n')
        cli.ok("submit", f, "--as", "alice", "--game", folder)
    assert len(list((folder / "inbox").iterdir())) == 1
    status = cli.ok("status", folder, "--json").json
    assert status["in_inbox"] == ["alice"] and status["missing"] == ["bob"]
    cli.ok("resolve", folder, "--as", "mod")
    assert cli.ok("status", folder, "--json").json["received"] == ["alice"]


def test_a_game_played_by_mail_with_mbox_and_maildir(cli, tmp_path):
    names = ["alice", "bob", "carol"]
    lines = make_keys(cli, names)
    folder = new_game(cli, lines, names=names, seed="mail")
    rounds = 0
    while True:
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            break
        # The moderator mails game.toml to every player; each works on their own copy.
        messages = []
        for p in status["waiting_for"]:
            home = tmp_path / f"mail-{p}"
            home.mkdir(exist_ok=True)
            copy = home / "game.toml"
            shutil.copy(folder / "game.toml", copy)
            orders = home / f"{status['decision']}.toml"
            cli.ok("orders", copy, "--as", p, "-o", orders)
            envelope = home / f"{status['decision']}.envelope.txt"
            cli.ok("submit", orders, "--as", p, "--game", copy, "--out", envelope)
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = f"{p}@example.org", "mod@example.org", "my orders"
            if rounds % 2:
                msg.set_content("Here are my orders.\n\n" + envelope.read_text())
            else:
                msg.set_content("Orders attached.")
                msg.add_attachment(envelope.read_bytes(), maintype="application", subtype="octet-stream",
                                   filename="orders.envelope")
            messages.append(msg)
        # Alternate the mail store: an mbox one decision, a Maildir the next.
        if rounds % 2:
            store = tmp_path / f"maildir-{rounds}"
            box = mailbox.Maildir(store, create=True)
        else:
            store = tmp_path / f"mbox-{rounds}"
            box = mailbox.mbox(store)
        for m in messages:
            box.add(m)
        box.flush()
        box.close()
        cli.ok("resolve", folder, "--as", "mod", "--mail", store)
        # Reading the same mail again counts nothing twice.
        again = cli("resolve", folder, "--as", "mod", "--mail", store, "--json")
        assert again.json["written"] is False
        rounds += 1
        assert rounds < 300
    final = cli.ok("show", folder, "--json").json
    assert final["phase"] == "over" and final["winners"]


def test_several_players_submitting_at_the_same_moment_lose_nothing(cli):
    lines = make_keys(cli)
    folder = new_game(cli, lines, seed="simultaneous")
    status = cli.ok("status", folder, "--json").json
    files = {}
    for p in PLAYERS:
        files[p] = cli.cwd / f"{p}.toml"
        cli.ok("orders", folder, "--as", p, "-o", files[p])

    # Four players submit at the same moment, each from their own thread, through the
    # library functions the CLI uses (the CLI's in-process runner is not thread-safe).
    import os

    from koryo_pbm import match
    from koryo_pbm.cli.submit import seal_orders
    from koryo_pbm.store import inbox
    from koryo_pbm.store.keyring import find_identity

    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    doc = match.load_doc(folder / "game.toml")
    game = match.game_of(doc)
    identities = {p: find_identity(p) for p in PLAYERS}
    barrier = threading.Barrier(len(PLAYERS))
    errors = []

    def submit(p):
        try:
            env = seal_orders(doc, game, identities[p], files[p].read_text())
            barrier.wait()
            inbox.drop(folder, env)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=submit, args=(p,)) for p in PLAYERS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(list((folder / "inbox").iterdir())) == 4
    r = cli.ok("resolve", folder, "--as", "mod", "--json").json
    assert next(a["decision"] for a in r["applied"]) == status["decision"]
    assert sorted(e["player"] for e in r["envelopes"] if e["status"] == "accepted") == sorted(PLAYERS)


def test_the_same_envelope_in_the_inbox_and_in_the_mail_counts_once(cli, tmp_path):
    lines = make_keys(cli, ["alice", "bob"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="twice")
    orders = cli.cwd / "a.toml"
    cli.ok("orders", folder, "--as", "alice", "-o", orders)
    armored = cli.ok("submit", orders, "--as", "alice", "--game", folder, "--out", "-").out
    (folder / "inbox" / "copy.envelope").write_text(armored)
    mail = tmp_path / "one.eml"
    mail.write_text("From: alice@example.org\nSubject: orders\n\n" + armored)
    r = cli("resolve", folder, "--as", "mod", "--mail", mail, "--json")
    assert r.code == 0, r.err
    statuses = sorted(e["status"] for e in r.json["envelopes"])
    assert statuses == ["duplicate", "held"]
    assert r.json["received"] == ["alice"]


def test_the_json_contract_that_scripts_rely_on(cli):
    lines = make_keys(cli, ["alice", "bob", "carol"])
    folder = new_game(cli, lines, names=["alice", "bob", "carol"], seed="contract")
    status = cli.ok("status", folder, "--json").json
    assert {"id", "game", "decision", "waiting_for", "round", "phase"} <= set(status)
    public = cli.ok("show", folder, "--json").json
    keys = {"id", "game", "round", "phase", "decision", "waiting_for", "players", "first", "bank", "tokens",
            "tables", "facedown_sizes", "hand_sizes", "deck", "powers", "scores", "winners"}
    assert keys <= set(public)
    assert public["phase"] in ("orders", "actions", "end", "over")
    assert public["players"] == ["alice", "bob", "carol"]
    assert set(public["tokens"]) == set(public["hand_sizes"]) == set(public["tables"]) == {"alice", "bob", "carol"}
    characters = {"merchant", "broadcaster", "guardian", "banker", "shipowner", "priest", "senator", "spy", "omniscient"}
    assert set(public["powers"]) == characters
    assert public["winners"] == [] and isinstance(public["deck"], int)
    mine = cli.ok("show", folder, "--as", "bob", "--json").json
    assert isinstance(mine["hand"], list) and mine["facedown"] == []
    # Errors are one line on stderr with a non-zero exit.
    r = cli.fails("show", cli.cwd / "nowhere")
    assert r.err.count("\n") == 1


def test_orders_from_standard_input(cli):
    lines = make_keys(cli, ["alice", "bob"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="stdin")
    text = cli.ok("orders", folder, "--as", "alice").out
    cli.ok("submit", "-", "--as", "alice", "--game", folder, stdin=text)
    assert cli.ok("status", folder, "--json").json["in_inbox"] == ["alice"]
    r = cli.fails("submit", "-", "--as", "bob", "--game", folder, stdin="x" * (64 * 1024 + 1))
    assert "larger than" in r.err


def test_an_envelope_or_press_that_cannot_be_written_out_is_a_one_line_refusal(cli):
    """submit, play and say --out FILE share one write: a file that cannot be written (its folder
    does not exist) is a one-line refusal, and nothing lands in the inbox."""
    lines = make_keys(cli, ["alice", "bob"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="unwritable")
    orders = cli.cwd / "a.toml"
    cli.ok("orders", folder, "--as", "alice", "-o", orders)
    nowhere = cli.cwd / "no-such-folder" / "out.txt"
    for args, stdin in ((("submit", orders, "--as", "alice", "--game", folder), None),
                        (("play", folder, "--as", "alice"), "\n" * 40 + "y\n"),
                        (("say", folder, "--as", "alice", "--to", "bob", "Truce?"), None)):
        r = cli.fails(*args, "--out", nowhere, stdin=stdin)
        assert r.err.endswith(f"cannot write {nowhere}: No such file or directory\n"), r.err
    assert not nowhere.parent.exists() and list((folder / "inbox").iterdir()) == []
