"""``koryo-pbm inspect GAME --as NAME``: everything NAME's key opens in a game file, and nothing
else (issue 20, item 3), through the real CLI with real keys."""

from __future__ import annotations

import base64
import json

import pytest
from test_cli_bymail import make_keys

PLAYERS = ["alice", "bob"]


@pytest.fixture
def game(cli):
    """A Koryo game of alice, bob and carol (a bot seat, the moderator's key), eve a stranger."""
    lines = make_keys(cli, [*PLAYERS, "eve"])
    args = ["new", "g", "--as", "mod", "--seed", "inspect", "--bot", "carol=random"]
    for n in PLAYERS:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return cli.cwd / "g"


def opened(cli, name, *extra):
    data = cli.ok("inspect", "g", "--as", name, "--json", *extra).json
    return {p["part"]: p for p in data["opened"]}, data


def test_a_player_opens_only_their_own_part(cli, game):
    parts, data = opened(cli, "alice")
    assert list(parts) == ["alice"]
    assert sorted(data["not_opened"]) == ["bob", "carol", "moderator"]
    shown = cli.ok("show", "g", "--as", "alice", "--json").json
    mine = parts["alice"]["data"]
    assert mine["hand"] == shown["hand"] and mine["player"] == "alice"
    assert "menu" not in mine  # no menu: the page and play compute the choices themselves
    assert parts["alice"]["labelled_yours"] and parts["alice"]["recipient_holds"] == ["alice"]
    assert data["key"] == {"name": "alice", "fingerprint": parts["alice"]["recipient"], "holds": ["alice"]}
    # nothing of bob's hand or of the moderator's secrets is in what alice sees
    assert "seed" not in json.dumps(data) and "hands" not in mine

    out = cli.ok("inspect", "g", "--as", "alice").out
    assert "the key of alice (" in out and "the key of seat alice" in out
    assert "it opens 1 of the file's 4 sealed parts; sealed to other keys: bob, carol, moderator" in out
    assert "[sealed.alice]: alice's part, sealed to alice's key" in out
    assert "[sealed.bob]" not in out and "[sealed.moderator]" not in out
    assert json.dumps(shown["hand"][0]) in out


def test_the_moderator_opens_every_hand_and_the_secrets(cli, game):
    parts, data = opened(cli, "mod")
    assert list(parts) == ["carol", "moderator"]  # the bot seat has the moderator's key
    assert data["not_opened"] == ["alice", "bob"] and data["key"]["holds"] == ["moderator", "carol"]
    secret = parts["moderator"]["data"]
    assert secret["seed"] == "inspect" and len(secret["salt"]) == 64
    for p in PLAYERS:  # every hand of an open game: what this command lets anyone check
        assert secret["state"]["hands"][p] == cli.ok("show", "g", "--as", p, "--json").json["hand"]
    assert secret["state"]["hands"]["carol"] == parts["carol"]["data"]["hand"]
    out = cli.ok("inspect", "g", "--as", "mod").out
    assert "the moderator, holding the bot seat carol" in out
    assert "[sealed.moderator]: the moderator's part, sealed to the moderator's key" in out
    assert '"seed": "inspect"' in out


def test_a_key_of_no_seat_opens_nothing_and_that_is_an_answer(cli, game):
    r = cli.ok("inspect", "g", "--as", "eve")
    assert "neither the moderator's nor a player's key of game" in r.out
    assert ("nothing in this file opens with eve's key: its 4 sealed parts (alice, bob, carol, moderator) "
            "are sealed to other keys") in r.out
    parts, data = opened(cli, "eve")
    assert parts == {} and sorted(data["not_opened"]) == ["alice", "bob", "carol", "moderator"]
    assert set(data) == {"game_id", "game", "version", "moderator", "key", "opened", "not_opened", "player_copy"}
    assert data["player_copy"] is False  # the whole file (a player copy holds the moderator's part as its digest)
    assert data["key"]["holds"] == [] and data["version"] == 1 and data["game"] == "koryo"


def test_a_damaged_or_forged_file_is_refused_as_show_refuses_it(cli, game):
    path = game / "game.toml"
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"version = 1\n", b"version = 2\n", 1))
    shown = cli.fails("show", "g", "--as", "alice")
    r = cli.fails("inspect", "g", "--as", "alice")
    assert r.err == shown.err and "signature" in r.err
    path.write_bytes(raw)
    assert cli.fails("inspect", "g").err.startswith("koryo-pbm: error: say who you are")
    assert "no key for 'zed'" in cli.fails("inspect", "g", "--as", "zed").err


def test_a_part_sealed_to_another_key_than_its_label_is_shown_to_that_key(cli, game):
    """The moderator seals alice's part to bob's key, labelled as alice's: bob's key is tried on
    every part, so inspect shows bob what he was given (show would never open it)."""
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.store import gamefile, gameparts
    from koryo_pbm.store.keyring import find_identity

    mod, alice = find_identity("mod"), find_identity("alice")
    bob = find_identity("bob")
    path = game / "game.toml"
    doc = gamefile.read_game(path)
    hand = gameparts.open_part(doc, "alice", alice)
    label = doc.sealed["alice"]["recipient"]
    info = gameparts.part_info(doc.game_id, doc.version, "alice", label)
    blob = seal(bob.public, gameparts.compact_json(hand).encode(), info)
    doc.sealed["alice"] = {"recipient": label, "data": base64.b64encode(blob).decode()}
    path.write_bytes(gamefile.encode(doc, mod))
    parts, _ = opened(cli, "bob")
    assert set(parts) == {"alice", "bob"}
    assert parts["alice"]["labelled_yours"] is False and parts["alice"]["data"]["hand"] == hand["hand"]
    out = cli.ok("inspect", "g", "--as", "bob").out
    assert f"[sealed.alice]: alice's part, sealed to alice's key ({label})" in out
    assert f"note: the file names {label} as its recipient, yet it opens with this key" in out
    # and alice's own key, named as the recipient, no longer opens it: damage, one line
    r = cli.fails("inspect", "g", "--as", "alice")
    assert "is sealed to your key but does not open" in r.err


def test_every_part_is_tried_whatever_its_name_and_binding(cli, game, monkeypatch):
    """A part of a kind the file format does not know yet (the blind table's co-dealer parts,
    bound to game, deck and recipient but not to the version) opens through the one list of
    bindings, with no change to inspect. The format refuses such names until the blind table's
    format lands, so this drives the function inspect calls."""
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.store import gamefile, gameparts
    from koryo_pbm.store.keyring import find_identity

    alice, bob = find_identity("alice"), find_identity("bob")
    doc = gamefile.read_game(game / "game.toml")
    name = "carl:alice:round-3"
    fpr = alice.public.fingerprint()

    def unversioned(doc, part, recipient):
        return b"co-dealer part (test)\x00" + "\x00".join((doc.game_id, part, recipient)).encode()

    blob = seal(alice.public, b'{"shares":["x"]}   ', unversioned(doc, name, fpr))
    doc.sealed[name] = {"recipient": fpr, "data": base64.b64encode(blob).decode()}
    from koryo_pbm.errors import TamperedError

    with pytest.raises(TamperedError, match="is sealed to your key but does not open"):
        gameparts.open_every_part(doc, alice)  # no binding of that kind yet: said, never skipped
    monkeypatch.setattr(gameparts, "PART_BINDINGS", [*gameparts.PART_BINDINGS, unversioned])
    parts, closed = gameparts.open_every_part(doc, alice)
    assert [p.name for p in parts] == ["alice", name] and parts[1].data == {"shares": ["x"]}
    assert name not in closed
    assert name not in [p.name for p in gameparts.open_every_part(doc, bob)[0]]
