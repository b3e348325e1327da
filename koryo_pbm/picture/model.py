"""The picture's model: the scene a game draws (:mod:`koryo_pbm.engine.scene`, re-exported
here) and the frame the engine puts around it."""

from __future__ import annotations

from dataclasses import dataclass

from koryo_pbm.engine.scene import MARKS, Card, Group, Panel, Row, Scene

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
