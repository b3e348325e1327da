"""The picture's model: the scene a game draws (:mod:`koryo_pbm.engine.scene`, re-exported
here) and the frame the engine puts around it."""

from __future__ import annotations

from dataclasses import dataclass

from koryo_pbm.engine.scene import Card, Group, Panel, Row, Scene

#: The marks this layer (and the player page's picture.js, which mirrors it) draws in a style of
#: their own (a star, a band), and their tooltip words; any other mark a game declares is drawn
#: plain and named by its own word. TODO(issue 33): a game should declare each mark's style, and
#: the page read it from the scene, so that no game's words are here.
MARKS: dict[str, str] = {
    "majority": "scoring majority",
    "power": "power majority",
    "omniscient": "power majority by the Omniscient's tie",
    "control": "in control",
}

__all__ = ["MARKS", "Card", "Frame", "Group", "Panel", "Row", "Scene"]


@dataclass(frozen=True)
class Frame:
    """What the engine knows around the scene: which game, which version, who must answer
    (and by when), what happened last, and whom the picture is for (``""``: everybody)."""

    game_id: str
    title: str
    version: int
    decision: str = ""
    waiting_for: tuple[str, ...] = ()
    received: tuple[str, ...] = ()
    deadline: str = ""
    last_label: str = ""
    last: tuple[str, ...] = ()
    for_player: str = ""
