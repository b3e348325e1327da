"""Players' mail addresses: given at `new` (--email), changed with `address`, kept sealed to the
moderator and never in the public game file."""

from __future__ import annotations

PLAYERS = ["alice", "bob", "carol"]


def keys(cli, names=PLAYERS):
    return {n: cli.ok("keygen", n).out.strip() for n in ["mod", *names]}


def new(cli, lines, *extra, folder="g"):
    args = ["new", folder, "--as", "mod", "--seed", "addr"]
    for n in PLAYERS:
        args += ["--player", f"{n}={lines[n]}"]
    return cli("new", *args[1:], *extra)


def test_new_keeps_addresses_sealed_to_the_moderator(cli):
    lines = keys(cli)
    r = new(cli, lines, "--email", "alice=alice@example.org", "--email", "bob=Bob.Smith+koryo@mail.example.net")
    assert r.code == 0, r.err
    text = (cli.cwd / "g" / "game.toml").read_text()
    assert "example.org" not in text and "example.net" not in text and "alice@" not in text
    listed = cli.ok("address", "g", "--as", "mod", "--json").json
    assert listed["addresses"] == {"alice": "alice@example.org", "bob": "Bob.Smith+koryo@mail.example.net",
                                   "carol": None}
    assert listed["written"] is False
    plain = cli.ok("address", "g", "--as", "mod").out
    assert "alice        alice@example.org" in plain
    assert "carol        (none: shared folder only)" in plain


def test_address_changes_adds_and_removes_and_writes_a_new_version(cli):
    lines = keys(cli)
    assert new(cli, lines, "--email", "alice=alice@example.org").code == 0
    before = cli.ok("status", "g", "--json").json
    r = cli.ok("address", "g", "--as", "mod", "alice=alice@new.example.org", "carol=carol@example.com", "--json")
    assert r.json["addresses"] == {"alice": "alice@new.example.org", "bob": None, "carol": "carol@example.com"}
    assert r.json["version"] == 2 and r.json["written"] is True
    after = cli.ok("status", "g", "--json").json
    assert after["decision"] == before["decision"] and after["waiting_for"] == before["waiting_for"]
    # players still read their hands in the new version
    assert len(cli.ok("show", "g", "--as", "bob", "--json").json["hand"]) > 0
    r = cli.ok("address", "g", "--as", "mod", "--remove", "alice", "--json")
    assert r.json["addresses"]["alice"] is None and r.json["version"] == 3
    assert "example" not in (cli.cwd / "g" / "game.toml").read_text()


def test_addresses_survive_resolves(cli):
    lines = keys(cli)
    assert new(cli, lines, "--email", "carol=carol@example.com").code == 0
    status = cli.ok("status", "g", "--json").json
    for p in status["waiting_for"]:
        cli.ok("orders", "g", "--as", p, "-o", f"{p}.toml")
        cli.ok("submit", f"{p}.toml", "--as", p, "--game", "g")
    cli.ok("resolve", "g", "--as", "mod")
    assert cli.ok("status", "g", "--json").json["decision"] != status["decision"]
    assert cli.ok("address", "g", "--as", "mod", "--json").json["addresses"]["carol"] == "carol@example.com"


def test_bad_addresses_are_refused_with_one_line_and_nothing_written(cli):
    lines = keys(cli)
    for bad, reason in [
        ("alice=not-an-address", "'not-an-address' is not a mail address"),
        ("alice=Alice <alice@example.org>", "is not a mail address"),
        ("alice=alice@example.org\nBcc: x@evil.example", "is not a mail address"),
        ("alice=-oQ/tmp@x.org", "is not a mail address"),
        ("alice", "--email takes NAME=ADDRESS"),
    ]:
        r = new(cli, lines, "--email", bad)
        assert r.code == 2 and reason in r.err, (bad, r.err)
        assert not (cli.cwd / "g").exists()
    r = new(cli, lines, "--email", "zoe=zoe@example.org")
    assert r.code != 0 and "'zoe' has an address but is not a player" in r.err
    assert not (cli.cwd / "g" / "game.toml").exists()
    assert new(cli, lines).code == 0
    data = (cli.cwd / "g" / "game.toml").read_bytes()
    r = cli("address", "g", "--as", "mod", "bob=bob@@example.org")
    assert r.code == 2 and "bob's address 'bob@@example.org' is not a mail address" in r.err
    r = cli("address", "g", "--as", "mod", "zoe=zoe@example.org")
    assert r.code == 1 and "not a player" in r.err
    r = cli("address", "g", "--as", "alice", "alice=a@example.org")
    assert r.code == 1 and "is not the moderator" in r.err
    assert (cli.cwd / "g" / "game.toml").read_bytes() == data
