"""A game declares how its marks are drawn (``Game.marks``: its words, and a style of the
engine's: ``plain``, ``star``, ``band`` with a label), the engine carries the declaration in the
scene (``Scene.marks``, in its JSON for the player page), and the pictures draw from the scene
alone: no game's marks are known to the engine. A plug-in's own marks are drawn as Koryo's are."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from koryo_pbm_games.gops import GopsGame

from koryo_pbm.engine.contract import contract_problem, drawn_scene
from koryo_pbm.engine.registry import find_game, names
from koryo_pbm.engine.scene import Card, Mark, from_json, to_json
from koryo_pbm.picture import Frame, page
from koryo_pbm.picture.svg import svg

ROOT = Path(__file__).resolve().parents[2]
FRAME = Frame(game_id="gops-1", title="GOPS", version=3)


class MarkedGops(GopsGame):
    """GOPS whose pictures mark the highest bid card left (a star), the prizes won (a band
    "won"), the lowest bid (plain words) and a card of the table with a mark named as one of
    the engine's own classes (``back``) and one it does not declare (``odd``)."""

    marks = {"top": Mark("the highest bid left", "star"), "won": Mark("a prize won", "band", "won"),
             "low": "the lowest bid left", "back": "a card to watch"}

    def picture(self, view):
        def marked(card: Card) -> Card:
            marks = (("top",) if card.id == "b13" else ("low",) if card.id == "b1" else ("won",) if card.id[0] == "p"
                     else ())
            return card.replace(marks=marks)

        scene = super().picture(view)
        groups = tuple(g.replace(panels=tuple(p.replace(rows=tuple(
            r.replace(cards=tuple((c.replace(marks=("back", "odd")) if r.zone == "table" else marked(c))
                                  for c in r.cards)) for r in p.rows)) for p in g.panels)) for g in scene.groups)
        return scene.replace(groups=groups)


def _won_view():
    """The public view after one round: ann won the first prize."""
    game = MarkedGops()
    state = game.setup(["ann", "ben"], "marks")
    state, _ = game.apply(state, {"ann": {"bid": "b13"}, "ben": {"bid": "b1"}})
    return game, game.view(game.public(state), None)


def _tile(text: str, card: str, owner: str) -> str:
    m = re.search(rf'<g class="card" data-card="{card}"[^>]*data-owner="{owner}"[^>]*>.*?</g>', text, re.S)
    assert m, (card, owner)
    return m.group(0)


def test_a_plug_ins_marks_are_drawn_in_the_styles_it_declares_from_the_scene_alone():
    game, view = _won_view()
    scene = drawn_scene(game, view)
    assert dict(scene.marks) == {"top": Mark("the highest bid left", "star"), "won": Mark("a prize won", "band", "won"),
                                 "low": Mark("the lowest bid left"), "back": Mark("a card to watch")}
    image = svg(scene, FRAME)
    star = _tile(image, "b13", "ben")  # ben still holds his 13
    assert '<title>bid — the highest bid left</title>' in star
    assert 'stroke="#ffd43b" stroke-width="3"' in star and 'text-anchor="end">★</text>' in star
    band = _tile(image, next(c for c in view["won"]["ann"]), "ann")
    assert 'fill="#3b2f00" text-anchor="middle">won</text>' in band and "— a prize won</title>" in band
    plain = _tile(image, "b1", "ann")  # ann bid her 13 and holds her 1
    assert "— the lowest bid left</title>" in plain and "★" not in plain and ">won<" not in plain
    html = page(scene, FRAME)
    assert html.count('class="card m-star"') == 1 and 'aria-label="the highest bid left">★</span>' in html
    assert html.count('<span class="band">won</span>') == len(view["won"]["ann"])
    # a mark named like the engine's own class ("back") leaves the tile face up; an undeclared
    # mark ("odd") is named by itself
    table = re.search(r'<div class="card"[^>]*data-zone="table"[^>]*>', html)
    assert table and 'data-marks="back odd"' in table.group(0) and "— a card to watch, odd" in table.group(0)
    # what the player page gets: the scene's JSON, the same picture from it
    again = from_json(json.loads(json.dumps(to_json(scene))))
    assert again == scene and svg(again, FRAME) == image and page(again, FRAME) == html


def test_a_scene_without_the_declaration_draws_every_mark_plain():
    game, view = _won_view()
    scene = game.picture(view)  # the game's own scene, before the engine adds its marks
    image = svg(scene, FRAME)
    assert 'text-anchor="end">★</text>' not in image and 'fill="#3b2f00"' not in image
    assert "<title>bid — top</title>" in image and "<title>prize — won</title>" in image
    assert 'class="card m-star"' not in page(scene, FRAME) and 'class="band"' not in page(scene, FRAME)


@pytest.mark.parametrize(("marks", "problem"), [
    ({"top": Mark("the highest", "glow")}, "mark top has style 'glow', not one of plain, star, band"),
    ({"won": Mark("a prize won", "band")}, "mark won: a band needs a label, and only a band has one"),
    ({"top": Mark("the highest", "star", "top")}, "mark top: a band needs a label, and only a band has one"),
    ({"two words": "x"}, "mark 'two words' must be one word"),
    ({"top": ""}, "mark top has no words"),
    ({"top": 3}, "mark top must be its words or a Mark(words, style, label)"),
])
def test_a_game_whose_marks_break_the_contract_is_refused_naming_the_mark(marks, problem):
    broken = type("Broken", (GopsGame,), {"marks": marks})
    assert contract_problem(broken) == f"class attribute marks: {problem}"
    assert contract_problem(MarkedGops) is None


def _quoted(text: str) -> set[str]:
    return set(re.findall(r'"([^"\n]*)"', text)) | set(re.findall(r"'([^'\n]*)'", text))


def test_the_engine_and_the_page_know_no_games_marks():
    """Every built-in game's mark names, words and band labels: in no text literal of the
    engine (koryo_pbm/, the shipped page aside) nor of the page's picture.js."""
    declared: set[str] = set()
    for name in names():
        for mark, how in find_game(name).marks.items():
            declared |= {mark, how} if isinstance(how, str) else {mark, how.words, how.label} - {""}
    assert {"majority", "power", "power Ω"} <= declared  # Koryo's, by which this test was written
    files = [p for p in (ROOT / "koryo_pbm").rglob("*.py")] + [ROOT / "player-page" / "src" / "picture.js"]
    for path in files:
        found = declared & _quoted(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(ROOT)} names {sorted(found)}"
