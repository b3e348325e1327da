"""``show --svg FILE``: the same picture as one SVG image, checked in real headless chromium at
two widths (the image scales to the screen) against the view, and as well-formed XML."""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET

import pytest
from koryo_pbm_games.korsar import KorsarGame
from koryo_pbm_games.koryo import KoryoGame
from test_cli_bymail import make_keys
from test_picture_korsar import TEAMS, _team_game
from test_picture_korsar import assert_shows_the_view as assert_korsar
from test_picture_koryo import POSITION, _hidden_redealt, new_from_position
from test_picture_koryo import assert_shows_the_view as assert_koryo

from koryo_pbm.engine.contract import drawn_scene
from koryo_pbm.picture import Frame
from koryo_pbm.picture.svg import svg


def _self_contained(text: str) -> None:
    root = ET.fromstring(text.encode("utf-8"))  # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "<script" not in text.lower() and "<foreignobject" not in text.lower()
    assert not re.search(r"\b(src|href)\s*=", text), "refers to another file"
    assert "https:" not in text and text.count("http:") == 1  # the SVG namespace only
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {"#weave"}


def test_koryo_svg_shows_the_view_for_everybody_and_for_alice(cli, browser):
    new_from_position(cli, POSITION)
    for name in ("", "alice"):
        out = cli.cwd / f"{name or 'public'}.svg"
        r = cli.ok("show", "g", "--svg", out, *(["--as", name] if name else []))
        assert ("keep it to yourself" if name else "fine to share") in r.out
        _self_contained(out.read_text())
        view = cli.ok("show", "g", "--json", *(["--as", name] if name else [])).json
        for width in (1280, 390):
            shown = browser.load(out, width)
            assert_koryo(shown, {**view, **({"player": name} if name else {})})
            assert shown.scroll_width <= width
            for card in shown.cards:
                assert card["visible"] and card["left"] >= 0 and card["right"] <= width, (width, card)
            marks = {(c["owner"], c["card"]): c["marks"] for c in shown.cards if c["zone"] == "table"}
            assert marks[("carol", "guardian")] == "omniscient" and marks[("bob", "guardian")] == ""
            assert "alice's action turn; waiting for alice" in shown.text


def test_korsar_svg_shows_the_galleons_and_the_teams_cards(cli, browser):
    _team_game(cli)
    out = cli.cwd / "bob.svg"
    cli.ok("show", "k", "--as", "bob", "--svg", out)
    _self_contained(out.read_text())
    view = cli.ok("show", "k", "--as", "bob", "--json").json
    for width in (1280, 390):
        shown = browser.load(out, width)
        assert_korsar(shown, {**view, "player": "bob"})
        assert shown.scroll_width <= width
        assert "level: nobody controls it" in shown.text


@pytest.mark.parametrize("who", ["", "alice"])
def test_re_dealt_hidden_cards_leave_the_svg_unchanged(tmp_path, who):
    game = KoryoGame()
    frame = Frame(game_id="koryo-0000000000", title="Koryo", version=1, decision="r4-action-alice",
                  waiting_for=("alice",), for_player=who)
    images = set()
    for position in (POSITION, _hidden_redealt(POSITION, tmp_path)):
        state = game.load_position(tomllib.loads(position.read_text()), "seed")
        private = game.private(state, who) if who else None
        images.add(svg(drawn_scene(game, game.view(game.public(state), private)), frame))
    assert len(images) == 1


def test_both_pictures_at_once_and_never_the_same_file(cli):
    lines = make_keys(cli, ["alice", "bob"])
    cli.ok("new", "g", "--as", "mod", "--seed", "svg", *[x for n in ("alice", "bob") for x in ("--player", f"{n}={lines[n]}")])
    r = cli.ok("show", "g", "--html", "t.html", "--svg", "t.svg")
    assert r.out.count("wrote ") == 2
    assert (cli.cwd / "t.html").read_text().startswith("<!DOCTYPE html>")
    _self_contained((cli.cwd / "t.svg").read_text())
    assert "same file" in cli.fails("show", "g", "--html", "x.svg", "--svg", "x.svg").err
    assert not (cli.cwd / "x.svg").exists()


def test_the_korsar_teams_svg_is_well_formed_from_the_pure_functions():
    game = KorsarGame()
    state = game.load_position(tomllib.loads(TEAMS.read_text()), "s")
    for who in (None, "alice", "dave"):
        view = game.view(game.public(state), game.private(state, who) if who else None)
        _self_contained(svg(drawn_scene(game, view), Frame(game_id="korsar-1", title="Korsar", version=2, for_player=who or "")))
