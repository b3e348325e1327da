"""A picture of the table: one self-contained HTML page (or SVG image) of a game's view.

The game draws its view as a :class:`Scene` (``Game.picture(view)``: panels of card tiles; the
core knows no card); the engine adds the :class:`Frame` (game id, version, who must answer,
the deadline, what happened last) and :func:`page` (HTML) or
:func:`~koryo_pbm.picture.svg.svg` (an SVG image) lays it out. All of it is
pure: a function of the game file and, for a player, their own private part.

Secrecy: a picture is made from one view. The public view (no private part) holds no hidden
card, so :func:`public_picture` — the one a judge may attach to a mail — cannot show one. A
picture made with a player's private part shows that player's hidden cards and is only ever
written to a local file by ``show --as NAME --html FILE``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .html import esc, page
from .model import Card, Frame, Group, Mark, Panel, Row, Scene

if TYPE_CHECKING:
    from koryo_pbm.engine.contract import Game
    from koryo_pbm.store.gamedoc import GameDoc

__all__ = ["Card", "Frame", "Group", "Mark", "Panel", "Row", "Scene", "esc", "frame_of", "page", "picture",
           "public_picture"]


def _deadline_text(stamp: object) -> str:
    """The pending decision's deadline as people read it (``2026-11-27 18:00 UTC``), or ``""``."""
    from koryo_pbm.deadlines import DeadlineError, human, parse_stamp

    if not isinstance(stamp, str) or not stamp:
        return ""
    try:
        return human(parse_stamp(stamp))
    except DeadlineError:  # the game file's reader checked it; never fail a picture on it
        return ""


def frame_of(doc: GameDoc, title: str, for_player: str = "", answered: Sequence[str] | None = None) -> Frame:
    """The engine's part of a picture, from the game file alone (``answered``: the players whose
    orders are in, when the caller knows more than the file's received list, e.g. the inbox)."""
    decision = doc.decision or {}
    last: tuple[str, ...] = ()
    label = ""
    if doc.log:
        entry = doc.log[-1]
        last = tuple(str(e) for e in entry.get("events", []))
        label = f"(decision {entry.get('decision', '?')}, version {entry.get('version', '?')})"
    deadline = _deadline_text(decision.get("deadline"))
    return Frame(
        game_id=doc.game_id,
        title=title,
        version=doc.version,
        decision=str(decision.get("id", "")),
        waiting_for=tuple(decision.get("waiting_for", ())),
        received=tuple(decision.get("received", ()) if answered is None else answered),
        deadline=deadline,
        last_label=label,
        last=last,
        for_player=for_player,
    )


def picture(doc: GameDoc, game: Game, view: Mapping[str, Any], *, fmt: str = "html",
            answered: Sequence[str] | None = None) -> str:
    """The picture of ``view`` (a :func:`koryo_pbm.match.full_view`) as HTML or SVG text.
    It is for the player named in the view (``view["player"]``) if it has a private part."""
    from koryo_pbm.engine.contract import drawn_scene

    scene = _with_breakdown(drawn_scene(game, view), game, view)
    frame = frame_of(doc, game.title, str(view.get("player", "") or ""), answered)
    if fmt == "svg":
        from .svg import svg

        return svg(scene, frame)
    if fmt != "html":
        raise ValueError(f"unknown picture format {fmt!r}")
    return page(scene, frame)


def _with_breakdown(scene: Scene, game: Game, view: Mapping[str, Any]) -> Scene:
    """At the end of a game, the score breakdown (``Game.score_breakdown``) as a group of
    panels under the table: one panel a player (a side of teammates once), a row a part."""
    from koryo_pbm.history import breakdown_sides

    rows = game.score_breakdown(view)
    if not rows:
        return scene
    panels = [Panel(title=f"{who}: {score}", key=f"breakdown-{who.replace(' + ', '-')}",
                    facts=tuple(f"{r['points']:+d}  {r['what']}" for r in mine) or ("nothing scored",))
              for who, score, mine in breakdown_sides(rows, list(view.get("players", [])),
                                                      view.get("scores") or {})]
    notes = tuple(str(r["what"]) for r in rows if not r.get("player"))
    if notes:
        panels.append(Panel(title="notes", key="breakdown-notes", facts=notes))
    group = Group("Score breakdown", tuple(panels), "breakdown")
    return scene.replace(groups=(*scene.groups, group))


def public_picture(doc: GameDoc, *, fmt: str = "html") -> str:
    """The picture everybody may see (what a judge attaches to a mail): made from the public
    part of the game file alone, so no hidden card can be in it."""
    from koryo_pbm import match

    game = match.game_of(doc)
    return picture(doc, game, match.full_view(doc, game, None), fmt=fmt)
