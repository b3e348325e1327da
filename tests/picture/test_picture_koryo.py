"""Pictures of a Koryo table (``show --html``), looked at in real headless chromium at a laptop's
and a phone's width: the cards the page shows are the view's cards, majorities and powers are
marked as the rules say, and nobody's hidden card is in a picture not made for them."""

from __future__ import annotations

import os
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from koryo_pbm_games.koryo import KoryoGame
from picture_kit import png_size
from test_cli_bymail import make_keys

from koryo_pbm.engine.contract import drawn_scene
from koryo_pbm.picture import Frame, page

ROOT = Path(__file__).resolve().parents[2]
POSITION = ROOT / "examples" / "positions" / "koryo-barbarian-guardian.toml"
WIDTHS = (1280, 390)


def new_from_position(cli, position: Path, folder: str = "g") -> dict[str, str]:
    doc = tomllib.loads(position.read_text())
    lines = make_keys(cli, doc["players"])
    args = ["new", folder, "--as", "mod", "--seed", "picture", "--position", position]
    for n in doc["players"]:
        args += ["--player", f"{n}={lines[n]}"]
    cli.ok(*args)
    return lines


def assert_shows_the_view(shown, view: dict) -> None:
    """Every tile of the page against the view: tables, face-down counts, own cards."""
    for name in view["players"]:
        assert shown.zone("table", name) == view["tables"][name], name
        fd = view["facedown_sizes"][name]
        assert shown.zone("facedown-count", name) == ({"back": fd} if fd else {}), name
    zones = {c["zone"] for c in shown.cards}
    if "player" in view:
        me = view["player"]
        assert shown.zone("hand", me) == dict(Counter(view["hand"]))
        assert shown.zone("facedown", me) == dict(Counter(view["facedown"]))
        assert {c["owner"] for c in shown.cards if c["zone"] in ("hand", "facedown")} <= {me}
    else:
        assert not zones & {"hand", "facedown"}, "a public picture shows hidden cards"
    assert zones <= {"table", "facedown-count", "hand", "facedown"}


def test_a_players_picture_shows_their_view_at_laptop_and_phone_width(cli, browser, tmp_path):
    make = make_keys(cli, ["alice", "bob", "carol"])
    cli.ok("new", "g", "--as", "mod", "--seed", "picture-deal",
           *[x for n in ("alice", "bob", "carol") for x in ("--player", f"{n}={make[n]}")])
    out = cli.cwd / "alice.html"
    r = cli.ok("show", "g", "--as", "alice", "--html", out)
    assert "alice's hidden cards" in r.out and "keep it to yourself" in r.out
    assert os.stat(out).st_mode & 0o077 == 0, "a picture with hidden cards is readable by others"
    view = cli.ok("show", "g", "--as", "alice", "--json").json
    assert len(view["hand"]) == 10
    for width in WIDTHS:
        shown = browser.load(out, width)
        assert_shows_the_view(shown, {**view, "player": "alice"})
        assert shown.scripts == 0
        # Readable on that screen: nothing wider than the screen, every tile laid out inside it.
        assert shown.scroll_width <= width, (width, shown.scroll_width)
        for card in shown.cards:
            assert card["visible"] and card["left"] >= 0 and card["right"] <= width, (width, card)
        assert "round 1 of 8" in shown.text and "dealt 10 cards" in shown.text
        assert "keep at most 3" in shown.text and "waiting for alice, bob, carol" in shown.text
        png = browser.screenshot(out, tmp_path / f"alice-{width}.png", width, 900)
        assert png_size(png) == (width, 900)


def test_marks_majorities_powers_and_the_omniscient_tie(cli, browser):
    """The position: alice merchant ×2, priest; bob guardian ×2, banker ×2, senator; carol
    guardian ×2, omniscient, merchant, spy. Worked by hand: carol ties bob on guardians and has
    the Omniscient, so she holds the Guardian power without the scoring majority; bob holds
    neither."""
    new_from_position(cli, POSITION)
    out = cli.cwd / "public.html"
    r = cli.ok("show", "g", "--html", out)
    assert "public picture" in r.out
    shown = browser.load(out, 1280)
    marks = {(c["owner"], c["card"]): c["marks"] for c in shown.cards if c["zone"] == "table"}
    assert marks == {
        ("alice", "merchant"): "majority", ("alice", "priest"): "majority power",  # no Merchant power
        ("bob", "guardian"): "", ("bob", "banker"): "majority power", ("bob", "senator"): "majority power",
        ("carol", "guardian"): "omniscient", ("carol", "omniscient"): "majority power",
        ("carol", "merchant"): "", ("carol", "spy"): "majority power",
    }
    view = cli.ok("show", "g", "--json").json
    assert_shows_the_view(shown, view)
    assert "Guardian: carol" in shown.text and "alice's action turn" in shown.text
    assert "Merchant: alice" not in shown.text  # the Merchant has no power to hold
    assert "bank: 6 tokens" in shown.text and "2 tokens" in shown.text  # bob's
    assert "power Ω" in shown.text
    # The picture a program (a judge) attaches to a mail is this same public picture.
    from koryo_pbm.picture import public_picture
    from koryo_pbm.store.gamefile import read_game

    assert public_picture(read_game(cli.cwd / "g" / "game.toml")) == out.read_text()


def _hidden_redealt(position: Path, tmp_path: Path) -> Path:
    """The same public table with other hidden cards: bob's and carol's face-down cards changed."""
    text = position.read_text()
    text = text.replace('bob = ["merchant", "merchant"]', 'bob = ["banker", "banker"]')
    text = text.replace('carol = ["lobbying"]', 'carol = ["shipowner"]')
    assert text != position.read_text()
    out = tmp_path / "redealt.toml"
    out.write_text(text)
    return out


@pytest.mark.parametrize("who", ["", "alice"])
def test_re_dealt_hidden_cards_leave_the_picture_unchanged(tmp_path, who):
    """Everything but the hidden cards of others is the same: the public picture, and alice's,
    are the same bytes whatever bob and carol hold face down (pure: no browser needed)."""
    game = KoryoGame()
    frame = Frame(game_id="koryo-0000000000", title="Koryo", version=1, decision="r4-action-alice",
                  waiting_for=("alice",), for_player=who)
    pictures = []
    for position in (POSITION, _hidden_redealt(POSITION, tmp_path)):
        for seed in ("one", "two"):  # the deck, too, is shuffled differently
            state = game.load_position(tomllib.loads(position.read_text()), seed)
            private = game.private(state, who) if who else None
            pictures.append(page(drawn_scene(game, game.view(game.public(state), private)), frame))
    assert len(set(pictures)) == 1
    for secret in ("banker", "shipowner", "lobbying"):  # only on the table or in others' hidden cards
        assert f'data-card="{secret}" data-count="1" data-zone="facedown"' not in pictures[0]


def test_a_players_picture_never_shows_another_players_hidden_cards(cli, browser):
    new_from_position(cli, POSITION)
    for name in ("alice", "bob", "carol"):
        out = cli.cwd / f"{name}.html"
        cli.ok("show", "g", "--as", name, "--html", out)
        view = cli.ok("show", "g", "--as", name, "--json").json
        shown = browser.load(out, 390)
        assert_shows_the_view(shown, {**view, "player": name})
        others = [c for c in shown.cards if c["zone"] in ("hand", "facedown") and c["owner"] != name]
        assert others == []


def test_what_happened_last_and_the_end_of_the_game(cli, browser):
    """A game played to the end: the picture names the winners and the last events."""
    from test_cli_bymail import play_template_orders

    make = make_keys(cli, ["alice", "bob"])
    cli.ok("new", "g", "--as", "mod", "--seed", "picture-end",
           *[x for n in ("alice", "bob") for x in ("--player", f"{n}={make[n]}")])
    play_template_orders(cli, cli.cwd / "g")
    view = cli.ok("show", "g", "--json").json
    out = cli.cwd / "end.html"
    cli.ok("show", "g", "--html", out)
    shown = browser.load(out, 390)
    assert_shows_the_view(shown, view)
    assert "game over" in shown.text
    assert ("winner: " if len(view["winners"]) == 1 else "shared win: ") + ", ".join(view["winners"]) in shown.text
    assert "last" in shown.parts
    game_toml = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())
    for event in game_toml["log"][-1]["events"]:
        assert event in shown.text
