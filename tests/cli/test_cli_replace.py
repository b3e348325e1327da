"""``koryo-pbm replace``: a substitute takes over a seat, through the real CLI with real keys."""

from __future__ import annotations

import pytest
from test_cli_bymail import make_keys, new_game

from koryo_pbm.crypto.keys import PublicIdentity

NAMES = ["alice", "bob", "carol"]


def fingerprint(line: str) -> str:
    return PublicIdentity.parse(line).fingerprint()


def answer(cli, folder, who: str, key: str) -> None:
    """``who``'s seat answers the pending decision with the suggested order, using ``key``."""
    status = cli.ok("status", folder, "--json").json
    orders = cli.cwd / f"{status['decision']}-{who}-{key}.toml"
    cli.ok("orders", folder, "--as", key, "-o", orders)
    cli.ok("submit", orders, "--as", key, "--game", folder)


def test_a_substitute_takes_over_midway_and_finishes_the_game(cli):
    lines = make_keys(cli, [*NAMES, "erin"])
    folder = new_game(cli, lines, names=NAMES, seed="substitute", extra=["--email", "bob=bob@example.org"])
    # two decisions or more played by everybody, up to one that waits for bob and somebody else
    # (the deal depends on the random game id: which decision that is varies)
    for played in range(40):
        status = cli.ok("status", folder, "--json").json
        if played >= 2 and "bob" in status["waiting_for"] and len(status["waiting_for"]) > 1:
            break
        for p in status["missing"]:
            answer(cli, folder, p, p)
        cli.ok("resolve", folder, "--as", "mod")
    else:
        raise AssertionError("no decision waited for bob and another player")
    # bob answers it (held: the others have not), then sends a second envelope
    decision = status["decision"]
    answer(cli, folder, "bob", "bob")
    cli.ok("resolve", folder, "--as", "mod")
    assert "bob" in cli.ok("status", folder, "--json").json["received"]
    cli.ok("submit", cli.cwd / f"{decision}-bob-bob.toml", "--as", "bob", "--game", folder)  # in the inbox
    before = cli.ok("show", folder, "--as", "bob", "--json").json

    r = cli.ok("replace", folder, "--as", "mod", f"bob={lines['erin']}", "--email", "bob=erin@example.org")
    assert r.out.splitlines()[0].startswith(f"bob's seat in game {before['id']} is now held by key "
                                            f"{fingerprint(lines['erin'])} (version {before['version'] + 1}); "
                                            f"envelopes signed by the former key {fingerprint(lines['bob'])} are refused")
    assert f"bob's orders for {decision}, sent with the former key, were dropped" in r.out
    assert "bob's address: erin@example.org" in r.out
    assert "bob" not in cli.ok("status", folder, "--json").json["received"]
    assert cli.ok("address", folder, "--as", "mod", "--json").json["addresses"]["bob"] == "erin@example.org"

    # the new player sees the seat's hand and the whole public history
    after = cli.ok("show", folder, "--as", "erin", "--json").json
    assert after["hand"] == before["hand"] and after["facedown"] == before["facedown"]
    log = cli.ok("log", folder).out
    assert (f"bob's seat is taken over by a new player (key fingerprint {fingerprint(lines['erin'])}; "
            f"the former key was {fingerprint(lines['bob'])})") in log
    assert log.index("round 1") < log.index("bob's seat is taken over")
    # the former key opens nothing any more, and its envelope is refused by name
    old = cli.fails("show", folder, "--as", "bob", code=1)
    assert "not the key game" in old.err
    # a copy changed in its signed header still names the former key, but is not signed by it
    [held] = list((folder / "inbox").iterdir())
    text = held.read_text()
    (folder / "inbox" / "forged.envelope").write_text(text.replace("submitted: 20", "submitted: 21"))
    res = cli("resolve", folder, "--as", "mod")
    assert res.code == 3
    said = res.out + res.err
    assert said.count(f"signed by bob's former key ({fingerprint(lines['bob'])}): the seat was taken over by a "
                      "new player") == 1
    assert "does not verify: it was changed" in said

    # the substitute answers the decision anew and plays the game to the end
    seats = {"alice": "alice", "bob": "erin", "carol": "carol"}
    for _ in range(400):
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            break
        for p in status["missing"]:
            answer(cli, folder, p, seats[p])
        cli.ok("resolve", folder, "--as", "mod")
    final = cli.ok("show", folder, "--as", "erin", "--json").json
    assert final["phase"] == "over" and set(final["scores"]) == set(NAMES)


@pytest.fixture
def table(cli):
    lines = make_keys(cli, [*NAMES, "erin"])
    folder = new_game(cli, lines, names=NAMES, seed="refusals", extra=["--email", "bob=bob@example.org"])
    return lines, folder


@pytest.mark.parametrize("spec,extra,code,reason", [
    ("bob={alice}", [], 1, "key {fp_alice} is already at the table: it is alice's key"),
    ("bob={bob}", [], 1, "key {fp_bob} is already at the table: it is bob's key"),
    ("bob={mod}", [], 1, "key {fp_mod} is the moderator's own key"),
    ("zoe={erin}", [], 1, "'zoe' is not a player of game"),
    ("bob", [], 2, "NAME=PUB takes NAME=PUBLIC_KEY"),
    ("bob=nonsense", [], 1, ""),
    ("bob={erin}", ["--email", "carol=c@example.org"], 2, "--email names carol, but only bob's seat is being replaced"),
    ("bob={erin}", ["--email", "bob=not an address"], 2, ""),
])
def test_bad_replacements_are_refused_in_one_line_and_change_nothing(cli, table, spec, extra, code, reason):
    lines, folder = table
    fill = {**lines, **{f"fp_{n}": fingerprint(v) for n, v in lines.items()}}
    before = (folder / "game.toml").read_bytes()
    r = cli.fails("replace", folder, "--as", "mod", spec.format(**fill), *extra)
    assert r.err.startswith("koryo-pbm: error: " + reason.format(**fill)), r.err
    assert r.err.count("\n") == 1 and not r.out
    assert r.code == code or (code == 2 and r.code in (1, 2))
    assert (folder / "game.toml").read_bytes() == before


def test_only_the_moderator_replaces_and_a_former_key_cannot_come_back(cli, table):
    lines, folder = table
    before = (folder / "game.toml").read_bytes()
    r = cli.fails("replace", folder, "--as", "alice", f"bob={lines['erin']}", code=1)
    assert "is not the moderator of game" in r.err
    assert (folder / "game.toml").read_bytes() == before
    r = cli.ok("replace", folder, "--as", "mod", f"bob={lines['erin']}")
    assert "bob's address: none (shared folder only)" in r.out  # bob's old address is not erin's
    assert cli.ok("address", folder, "--as", "mod", "--json").json["addresses"]["bob"] is None
    cli.ok("keygen", "frank")
    # bob's former key may not take carol's seat, nor bob's back
    for seat in ("carol", "bob"):
        r = cli.fails("replace", folder, "--as", "mod", f"{seat}={lines['bob']}", code=1)
        assert r.err.startswith(f"koryo-pbm: error: key {fingerprint(lines['bob'])} held bob's seat before")
    j = cli.ok("replace", folder, "--as", "mod", f"bob={cli.home / 'keys' / 'frank.pub'}", "--json").json
    assert j["player"] == "bob" and j["former_key"] == fingerprint(lines["erin"]) and j["dropped"] is None
    cli.ok("show", folder, "--as", "frank")
    assert cli.fails("show", folder, "--as", "erin", code=1)


def test_a_finished_game_has_no_seat_to_take_over(cli):
    lines = make_keys(cli, ["alice", "bob", "erin"])
    folder = new_game(cli, lines, names=["alice", "bob"], seed="over")
    for _ in range(400):
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            break
        for p in status["missing"]:
            answer(cli, folder, p, p)
        cli.ok("resolve", folder, "--as", "mod")
    r = cli.fails("replace", folder, "--as", "mod", f"bob={lines['erin']}", code=1)
    assert "is over: there is no seat to take over" in r.err


def test_a_korsar_substitute_sees_the_seat_and_its_partners_hand(cli):
    names = ["a", "b", "c", "d"]
    lines = make_keys(cli, [*names, "e"])
    folder = new_game(cli, lines, names=names, seed="korsar-seat",
                      extra=["--game", "korsar", "--team", "a,b", "--team", "c,d"])
    before = cli.ok("show", folder, "--as", "b", "--json").json
    cli.ok("replace", folder, "--as", "mod", f"b={lines['e']}")
    after = cli.ok("show", folder, "--as", "e", "--json").json
    assert after["me"] == "b" and after["hand"] == before["hand"]
    assert after["partner"] == "a" and after["partner_hand"] == before["partner_hand"]
    # the partner still opens their own part, with b's hand in it
    assert cli.ok("show", folder, "--as", "a", "--json").json["partner_hand"] == before["hand"]
