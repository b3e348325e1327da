"""Writing pictures (``show --html/--svg FILE``): atomically, never through a symbolic link, a
self-contained page that needs no network and runs no script, every text escaped."""

from __future__ import annotations

import re

from test_cli_bymail import make_keys

from koryo_pbm.picture import Card, Frame, Group, Panel, Row, Scene, page


def _game(cli, names=("alice", "bob")):
    lines = make_keys(cli, list(names))
    cli.ok("new", "g", "--as", "mod", "--seed", "files", *[x for n in names for x in ("--player", f"{n}={lines[n]}")])


def test_a_picture_is_self_contained(cli):
    _game(cli)
    out = cli.cwd / "t.html"
    cli.ok("show", "g", "--html", out)
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text and "<svg" in text
    assert "<script" not in text.lower()
    # Nothing fetched: no link, no source, no stylesheet import, no url() but the page's own pattern.
    assert not re.search(r"\b(src|href)\s*=\s*\"(?!#)", text), "refers to another file"
    assert "http:" not in text and "https:" not in text and "@import" not in text
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {"#weave"}


def test_the_picture_replaces_an_older_one_and_never_writes_through_a_symlink(cli):
    _game(cli)
    out = cli.cwd / "t.html"
    out.write_text("an older picture")
    cli.ok("show", "g", "--html", out)
    assert out.read_text().startswith("<!DOCTYPE html>")
    victim = cli.cwd / "victim.txt"
    victim.write_text("keep me")
    link = cli.cwd / "link.html"
    link.symlink_to(victim)
    r = cli.fails("show", "g", "--as", "alice", "--html", link)
    assert "symbolic link" in r.err and "nothing was written" in r.err
    assert victim.read_text() == "keep me" and link.is_symlink()
    # A folder, or the same file twice, is refused too, and no temporary file is left behind.
    (cli.cwd / "dir.html").mkdir()
    assert "is a folder; name a file" in cli.fails("show", "g", "--html", cli.cwd / "dir.html").err
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["dir.html", "g", "link.html", "t.html", "victim.txt"]


def test_every_text_is_escaped():
    hostile = '<script>alert("x")</script>&'
    scene = Scene(headline=hostile, facts=(hostile,), turn=hostile,
                  groups=(Group(hostile, (Panel(title=hostile, badge=hostile, facts=(hostile,),
                                rows=(Row(hostile, (Card(id=hostile, name=hostile, rank=hostile, note=hostile),),
                                          "table", hostile),)),), hostile),),
                  legend=(hostile,))
    frame = Frame(game_id="g-1", title=hostile, version=3, decision="d", waiting_for=(hostile,),
                  deadline=hostile, last_label=hostile, last=(hostile,), for_player=hostile)
    text = page(scene, frame)
    assert "<script" not in text and "&lt;script&gt;" in text
    assert 'alert("x")' not in text


def test_the_deadline_hook_shows_when_a_decision_has_one():
    scene = Scene(headline="h", turn="alice's action turn")
    frame = Frame(game_id="g-1", title="Koryo", version=3, decision="r1-action-alice", waiting_for=("alice",))
    assert "answer by" not in page(scene, frame)
    with_deadline = Frame(**{**frame.__dict__, "deadline": "2026-11-30 18:00 UTC"})
    text = page(scene, with_deadline)
    assert 'data-deadline="2026-11-30 18:00 UTC"' in text and "answer by 2026-11-30 18:00 UTC" in text


def test_without_chromium_the_browser_tests_skip_with_the_install_command_but_fail_in_ci(monkeypatch):
    import picture_kit
    import pytest

    monkeypatch.setattr(picture_kit, "find_chromium", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        picture_kit.require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        picture_kit.require_chromium()
