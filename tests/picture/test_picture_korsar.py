"""Pictures of a Korsar table: the galleons at sea with the cards beside each, colours,
strengths and control, hands' sizes and loot counts; a player's (and a teammate's) own cards
only in that player's picture. Looked at in real headless chromium at two widths."""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from koryo_pbm_games.korsar import KorsarGame
from test_cli_bymail import make_keys

from koryo_pbm.engine.contract import drawn_scene
from koryo_pbm.picture import Frame, page

ROOT = Path(__file__).resolve().parents[2]
TEAMS = ROOT / "examples" / "positions" / "korsar-4-teams-endgame.toml"
SOURCE = ROOT / "examples" / "positions" / "korsar-source-example.toml"
FOUR = ["alice", "bob", "carol", "dave"]


def assert_shows_the_view(shown, view: dict) -> None:
    for g in view["galleons"]:
        panel = f"galleon-{g['id']}"
        assert shown.zone("galleon", g["owner"], panel) == {g["card"]: 1}
        for q in view["players"]:
            assert shown.zone("beside", q, panel) == dict(Counter(g["beside"].get(q, []))), (panel, q)
    assert shown.zone("removed") == dict(Counter(view["removed"]))
    owners = {c["owner"] for c in shown.cards if c["zone"] in ("hand", "loot")}
    if view["over"]:
        for q in view["players"]:
            assert shown.zone("hand", q) == dict(Counter(view["hands"][q]))
            assert shown.zone("loot", q) == dict(Counter(view["loot"][q]))
        return
    for q in view["players"]:
        hs, ls = view["hand_sizes"][q], view["loot_sizes"][q]
        assert shown.zone("hand-count", q) == ({"back": hs} if hs else {}), q
        assert shown.zone("loot-count", q) == ({"back": ls} if ls else {}), q
    if "player" not in view:
        assert owners == set(), "a public picture shows hidden cards"
        return
    me, mate = view["player"], view.get("partner")
    assert owners <= {me, mate}
    assert shown.zone("hand", me) == dict(Counter(view["hand"]))
    assert shown.zone("loot", me) == dict(Counter(view["my_loot"]))
    if mate:
        assert shown.zone("hand", mate) == dict(Counter(view["partner_hand"]))
        assert shown.zone("loot", mate) == dict(Counter(view["partner_loot"]))


def _team_game(cli) -> None:
    lines = make_keys(cli, FOUR)
    cli.ok("new", "k", "--game", "korsar", "--as", "mod", "--seed", "picture", "--position", TEAMS,
           "--team", "alice,bob", "--team", "carol,dave", *[x for n in FOUR for x in ("--player", f"{n}={lines[n]}")])


def test_the_galleons_at_sea_and_every_players_cards_at_two_widths(cli, browser):
    """The position: g7, carol's 8, alice red 2+2 against carol blue 4 (level: 4 to 4);
    g9, bob's 5, dave yellow 3 against bob green 2+1 (level: 3 to 3)."""
    _team_game(cli)
    for name in ("", "alice", "carol"):
        out = cli.cwd / f"{name or 'public'}.html"
        args = ["show", "k", "--html", out] + (["--as", name] if name else [])
        cli.ok(*args)
        view = cli.ok("show", "k", "--json", *(["--as", name] if name else [])).json
        for width in (1280, 390):
            shown = browser.load(out, width)
            assert_shows_the_view(shown, {**view, **({"player": name} if name else {})})
            assert shown.scroll_width <= width
            for card in shown.cards:
                assert card["visible"] and card["right"] <= width, (width, card)
            text = shown.text
            assert "g7: carol's galleon, 8 gold" in text and "g9: bob's galleon, 5 gold" in text
            assert "alice · red · strength 4 (alice + bob)" in text
            assert "carol · blue · strength 4 (carol + dave)" in text
            assert "dave · yellow · strength 3 (carol + dave)" in text
            assert text.count("level: nobody controls it") == 2
            assert "turn 57, alice to play" in text and "draw pile: 0 cards" in text
        if name == "alice":
            assert "bob's hand (your partner)" in shown.text and "team’s score so far: 6" in shown.text


def _parse_tiles(html: str) -> list[dict[str, str]]:
    class P(HTMLParser):
        tiles: list[dict[str, str]] = []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "data-card" in a:
                self.tiles.append({k: v or "" for k, v in a.items()})

    p = P()
    p.tiles = []
    p.feed(html)
    return p.tiles


@pytest.mark.parametrize("who", ["", "B"])
def test_re_dealt_hidden_cards_leave_the_picture_unchanged(who):
    """A's hand and the pile exchange cards: B's picture and the public one stay the same bytes."""
    game = KorsarGame()
    text = SOURCE.read_text()
    other = text.replace('A = ["galleon-3", "yellow-3", "blue-3", "blue-captain", "green-2", "galleon-4"]',
                         'A = ["galleon-7", "red-4", "red-4", "yellow-captain", "green-1", "galleon-8"]')
    assert other != text
    frame = Frame(game_id="korsar-0000000000", title="Korsar", version=1, decision="t1-A", waiting_for=("A",),
                  for_player=who)
    pictures = set()
    for doc in (text, other):
        for seed in ("one", "two"):
            state = game.load_position(tomllib.loads(doc), seed)
            private = game.private(state, who) if who else None
            pictures.add(page(drawn_scene(game, game.view(game.public(state), private)), frame))
    assert len(pictures) == 1


def test_a_finished_game_shows_every_hand_and_loot_with_the_scores():
    game = KorsarGame()
    state = game.setup(["ann", "ben", "cy"], "picture-end")
    rng = random.Random(7)
    while (d := game.pending(state)) is not None:
        state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in d.players})
    view = game.view(game.public(state), None)
    assert view["over"]
    html = page(drawn_scene(game, view), Frame(game_id="korsar-1", title="Korsar", version=99))
    tiles = _parse_tiles(html)
    for q in view["players"]:
        for zone, cards in (("hand", view["hands"][q]), ("loot", view["loot"][q])):
            shown = Counter()
            for t in tiles:
                if t["data-zone"] == zone and t["data-owner"] == q:
                    shown[t["data-card"]] += int(t["data-count"])
            assert shown == Counter(cards), (q, zone)
    w = view["winners"]
    assert ("winner: " if len(w) == 1 else "shared win: ") + ", ".join(w) in html
    for q in view["players"]:
        assert f"{q} {view['scores'][q]}" in html
