"""``new --judge ADDRESS``: the judge's address and the game's tag (its folder's name) in the
public ``[service]`` table, signed with the game file, kept by every version, where the player
page's reply goes (issue 30, item 4); a wrong address or a folder name no subject can carry is
refused in one line, and a file saying either wrongly is refused when read."""

from __future__ import annotations

import pytest

from koryo_pbm.deadlines import policy_of
from koryo_pbm.errors import FormatError


@pytest.fixture
def keys(cli):
    for n in ("alice", "bob", "mod"):
        cli.ok("keygen", n)
    return cli.home / "keys"


def _new(cli, keys, folder, *extra):
    return cli("new", folder, "--as", "mod", "--seed", "judge", *extra,
               *[f"--player={n}={keys / (n + '.pub')}" for n in ("alice", "bob")])


def test_the_judge_and_the_tag_are_in_every_version(cli, keys):
    assert _new(cli, keys, cli.cwd / "friday", "--judge", "judge@example.org").code == 0
    assert cli.ok("show", "friday", "--json").json["service"] == {"judge": "judge@example.org", "tag": "friday"}
    first = cli.ok("status", "friday", "--json").json["missing"]
    for name in first:
        cli.ok("bot", "friday", "--as", name, "--level", "random")
    cli.ok("resolve", "friday", "--as", "mod")
    text = (cli.cwd / "friday" / "game.toml").read_text()
    assert 'version = 2' in text and '[service]\njudge = "judge@example.org"\ntag = "friday"\n' in text
    # without --judge, nothing is said
    assert _new(cli, keys, cli.cwd / "plain").code == 0
    assert "judge" not in cli.ok("show", "plain", "--json").json.get("service", {})


def test_a_wrong_address_or_folder_name_is_refused(cli, keys):
    bad = _new(cli, keys, cli.cwd / "friday", "--judge", "not an address")
    assert bad.code != 0 and "--judge 'not an address' is not a mail address" in bad.err
    assert "\n" not in bad.err.strip() and not (cli.cwd / "friday").exists()
    bad = _new(cli, keys, cli.cwd / "my game", "--judge", "judge@example.org")
    assert bad.code != 0 and "cannot be the game's tag in the judge's subjects" in bad.err
    with pytest.raises(FormatError, match="service.judge"):
        policy_of({"judge": "judge@example.org\nBcc: x@example.org"})
    with pytest.raises(FormatError, match="service.tag"):
        policy_of({"tag": "a]b"})
