"""Keys through the command line: file modes, passphrases (prompted or from the environment),
wrong passphrases, keys others can read."""

from __future__ import annotations

import os
import stat

import click
import pytest
from attack_kit import PLAYERS4, assert_refused

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture
def prompt(monkeypatch):
    """Stands in for the terminal: answers click's hidden prompts, records the questions."""

    class Prompt:
        answers: list[str] = []
        asked: list[str] = []

    def hidden(text):
        Prompt.asked.append(text)
        if not Prompt.answers:
            raise EOFError  # no terminal: click turns it into Abort
        return Prompt.answers.pop(0)

    monkeypatch.setattr(click.termui, "hidden_prompt_func", hidden)
    return Prompt


def _game_with(arena, world, player: str, line: str):
    folder = arena.cwd / f"g-{player}"
    arena.ok("new", folder, "--as", "mod", "--seed", "keys", "--player", f"{player}={line}",
             "--player", f"bob={world.lines['bob']}")
    return folder


@posix_only
@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_keygen_creates_private_keys_0600(arena, umask):
    old = os.umask(umask)
    try:
        r = arena.ok("keygen", f"k{umask:o}", "--dir", arena.cwd / f"ring{umask:o}")
    finally:
        os.umask(old)
    key = arena.cwd / f"ring{umask:o}" / f"k{umask:o}.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) & 0o077 == 0
    assert "PRIVATE KEY" not in r.out and r.out.startswith("koryo-pbm-pub-v1:")


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o606, 0o666])
def test_a_key_others_can_read_is_refused(arena, world, mode):
    folder = arena.game(world.g4_v1)
    for who, cmd in (("alice", ("show", folder, "--as", "alice")), ("mod", ("resolve", folder, "--as", "mod"))):
        arena.key(who).chmod(mode)
        err = assert_refused(arena(*cmd))
        assert f"can be read by other users (mode {mode:o})" in err and f"chmod 600 {arena.key(who)}" in err
        err = assert_refused(arena(cmd[0], folder, "--key", arena.key(who)))
        assert "can be read by other users" in err
        arena.key(who).chmod(0o600)
        assert arena(*cmd).code == 0
    assert (folder / "game.toml").read_bytes() == world.g4_v1


def test_passphrase_from_the_prompt(arena, world, prompt):
    prompt.answers = ["correct horse", "correct horse"]  # keygen asks twice
    line = arena.ok("keygen", "pat", "--passphrase").out.strip()
    assert prompt.asked == ["Passphrase: ", "Repeat for confirmation: "]
    assert arena.key("pat").read_bytes().startswith(b"# koryo-pbm secret key v2: pat\nkdf: scrypt\n")
    folder = _game_with(arena, world, "pat", line)
    prompt.answers, prompt.asked = ["correct horse"], []
    view = arena.ok("show", folder, "--as", "pat", "--json").json
    assert view["me"] == "pat" and view["hand"] and prompt.asked == ["Passphrase: "]
    # orders and submit go through the same prompt
    prompt.answers = ["correct horse"]
    arena.ok("orders", folder, "--as", "pat", "-o", arena.cwd / "pat.toml")
    prompt.answers = ["correct horse"]
    arena.ok("submit", arena.cwd / "pat.toml", "--as", "pat", "--game", folder)
    assert [p.name.split("--")[1] for p in (folder / "inbox").iterdir()] == ["pat.envelope"]


def test_passphrase_from_the_environment(arena, world, prompt):
    env = {"KORYO_PBM_PASSPHRASE": "s3cret-from-env"}
    line = arena.ok("keygen", "pat", "--passphrase", env=env).out.strip()
    modline = arena.ok("keygen", "modp", "--passphrase", env=env).out.strip()
    assert modline and prompt.asked == []
    folder = arena.cwd / "gp"
    arena.ok("new", folder, "--as", "modp", "--seed", "k", "--player", f"pat={line}",
             "--player", f"bob={world.lines['bob']}", env=env)
    assert arena.ok("show", folder, "--as", "pat", "--json", env=env).json["me"] == "pat"
    arena.ok("orders", folder, "--as", "pat", "-o", arena.cwd / "p.toml", env=env)
    arena.ok("submit", arena.cwd / "p.toml", "--as", "pat", "--game", folder, env=env)
    arena.ok("orders", folder, "--as", "bob", "-o", arena.cwd / "b.toml")
    arena.ok("submit", arena.cwd / "b.toml", "--as", "bob", "--game", folder)
    r = arena.ok("resolve", folder, "--as", "modp", "--json", env=env)
    assert r.json["applied"] and prompt.asked == []  # never asked: scripts can run unattended


def test_a_wrong_passphrase_is_a_clear_error(arena, world, prompt):
    line = arena.ok("keygen", "pat", "--passphrase", env={"KORYO_PBM_PASSPHRASE": "right"}).out.strip()
    folder = _game_with(arena, world, "pat", line)
    before = (folder / "game.toml").read_bytes()
    err = assert_refused(arena("show", folder, "--as", "pat", env={"KORYO_PBM_PASSPHRASE": "wrong"}), code=1)
    assert err == f"koryo-pbm: error: wrong passphrase for key {arena.key('pat')}"
    prompt.answers = ["wrong"]
    err = assert_refused(arena("show", folder, "--as", "pat"), code=1)
    assert "wrong passphrase" in err
    prompt.answers, prompt.asked = ["", "wrong"], []  # an empty answer: asked again
    assert "wrong passphrase" in assert_refused(arena("show", folder, "--as", "pat"))
    assert prompt.asked == ["Passphrase: ", "Passphrase: "]
    # no terminal to ask on, no environment variable: a clean stop, not a traceback
    prompt.answers = []
    r = arena("show", folder, "--as", "pat")
    assert r.code == 1 and "Traceback" not in r.err
    assert r.err.strip() == (f"koryo-pbm: error: key {arena.key('pat')} is protected by a passphrase and there is no "
                             "terminal to ask for it: set $KORYO_PBM_PASSPHRASE")
    assert (folder / "game.toml").read_bytes() == before
    assert not list((folder / "inbox").iterdir())


def test_a_secret_key_is_never_taken_for_a_public_one(arena, world):
    err = assert_refused(arena("new", arena.cwd / "n", "--as", "mod",
                               "--player", f"alice={arena.key('alice')}", "--player", f"bob={world.lines['bob']}"))
    assert "SECRET key" in err and not (arena.cwd / "n").exists()
    for p in PLAYERS4:
        assert str(arena.key(p).read_text()) not in err
