"""The game registry reads entry points as importlib.metadata does, without importing it."""

from __future__ import annotations

import sys
import zipfile
from importlib.metadata import entry_points

import pytest

from koryo_pbm.engine import registry


def listed(group):
    return [(ep.name, ep.value) for ep in entry_points(group=group)]


def scanned(group):
    found = registry._scan(group)
    return None if found is None else [(ep.name, ep.value) for ep in found]


@pytest.mark.parametrize("group", [registry.GROUP, "console_scripts", "pytest11", "no.such.group"])
def test_same_entry_points_as_importlib_metadata_here(group):
    assert scanned(group) == listed(group)


def dist(root, folder, text=None):
    d = root / folder
    d.mkdir(parents=True)
    if text is not None:
        (d / "entry_points.txt").write_text(text, encoding="utf-8")


def test_same_entry_points_on_a_made_up_path(tmp_path, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    dist(one, "Foo_Bar-1.0.dist-info", "# c\n[g]\n a = x.y:Z \nb=m\n[other]\nc = q\n\n[g]\nd = e:f.g [extra]\n")
    dist(one, "foo.bar-2.0.dist-info", "[g]\nhidden = by:the_first\n")
    dist(one, "plain.egg-info", "[g]\nplain = p\n")
    dist(one, "nothing-1.dist-info")
    (one / "file.egg-info").write_text("Name: file\n")
    dist(two, "foo_bar-3.0.dist-info", "[g]\nalso = hidden\n")
    dist(two, "zeta-1.0.dist-info", "[g]\na = overrides:later\n; semi = colon\n")
    dist(two, "Upper-1.0.DIST-INFO", "[g]\nx = y\n")
    monkeypatch.setattr(sys, "path", [str(one), str(tmp_path / "missing"), str(two)])
    if scanned("g") is not None:
        assert scanned("g") == listed("g")
    # the upper-case folder is left to importlib.metadata; without it, the scan answers
    (two / "Upper-1.0.DIST-INFO" / "entry_points.txt").unlink()
    (two / "Upper-1.0.DIST-INFO").rmdir()
    assert scanned("g") == listed("g")
    got = [n for n, _ in scanned("g")]
    assert "also" not in got and "plain" in got and got[-2:] == ["a", "; semi"]  # the first of a name wins


def test_unusual_paths_are_left_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[g]\nz = zz\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert registry._scan("g") is None
    bad = tmp_path / "bad"
    dist(bad, "bad-1.0.dist-info", "[g]\nno equals sign\n")
    monkeypatch.setattr(sys, "path", [str(bad)])
    assert registry._scan("g") is None
    egg = tmp_path / "thing-1.0.egg"
    dist(egg, "EGG-INFO", "[g]\ne = f\n")
    monkeypatch.setattr(sys, "path", [str(egg)])
    assert registry._scan("g") is None


def test_loading_matches_importlib_metadata():
    from importlib.metadata import EntryPoint

    for value in ("koryo_pbm.engine.registry:GROUP", "koryo_pbm.engine", "koryo_pbm.engine.registry:_EntryPoint.load"):
        assert registry._EntryPoint("n", value).load() is EntryPoint("n", value, "g").load()
    for value in ("no_such_module_here:X", "koryo_pbm:no_such_attribute", "!!"):
        with pytest.raises(Exception) as mine:
            registry._EntryPoint("n", value).load()
        with pytest.raises(Exception) as theirs:
            EntryPoint("n", value, "g").load()
        assert type(mine.value) is type(theirs.value) and str(mine.value) == str(theirs.value)
