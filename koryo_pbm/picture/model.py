"""The picture's model: the scene a game draws (:mod:`koryo_pbm.engine.scene`, re-exported
here) and the frame the engine puts around it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from koryo_pbm.engine.scene import Card, Group, Mark, Panel, Row, Scene

__all__ = ["Card", "Frame", "Group", "Mark", "Panel", "Row", "Scene", "card_marks"]


def card_marks(card: Card, marks: Mapping[str, Mark]) -> tuple[str, str | None, str]:
    """How the tile of ``card`` shows its marks, by the styles ``marks`` (the scene's) gives
    them (the player page's picture.js does the same): the words its tooltip adds (each mark's,
    or the mark itself when the scene declares it not), the words of its first ``star`` mark
    (``None``: no star) and the label of its first ``band`` mark (``""``: no band)."""
    words: list[str] = []
    star: str | None = None
    band = ""
    for name in card.marks:
        mark = marks.get(name)
        if mark is None:
            words.append(name)
            continue
        words.append(mark.words)
        if mark.style == "star" and star is None:
            star = mark.words
        elif mark.style == "band" and not band:
            band = mark.label
    return ", ".join(words), star, band


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
