"""What a picture of the table is made of: values a game builds from a view (``Game.picture``),
which :mod:`koryo_pbm.picture` frames and lays out. No game's cards are known here: a card is a
tile with a name, a rank, a colour and a count; the game decides what they are.

The scene sits in the engine because the game contract returns it; the picture layer, above,
imports it from here (never the other way round)."""

from __future__ import annotations

from dataclasses import dataclass

#: The marks a card tile may carry, and what the legend says of each.
MARKS: dict[str, str] = {
    "majority": "scoring majority",
    "power": "power majority",
    "omniscient": "power majority by the Omniscient's tie",
    "control": "in control",
}


@dataclass(frozen=True)
class Card:
    """One tile: ``count`` cards of one ``id``. ``back`` is a face-down pile (its id is
    ``"back"``): only its size is shown."""

    id: str
    name: str
    rank: str = ""
    count: int = 1
    fill: str = "#6b7280"
    ink: str = "#ffffff"
    marks: tuple[str, ...] = ()
    back: bool = False
    note: str = ""  # a longer description (the tile's tooltip)

    def __post_init__(self) -> None:
        unknown = [m for m in self.marks if m not in MARKS]
        if unknown:
            raise ValueError(f"unknown card marks {unknown}")


@dataclass(frozen=True)
class Row:
    """A labelled line of tiles: one zone (``table``, ``hand``, ``facedown``, ``beside``...)
    of one owner."""

    label: str
    cards: tuple[Card, ...]
    zone: str
    owner: str = ""
    empty: str = "none"


@dataclass(frozen=True)
class Panel:
    """A box: a player, a galleon, the player's own hand. ``tone`` is ``""``, ``"turn"`` (whose
    turn it is), ``"secret"`` (hidden cards of the player the picture is for) or ``"dim"``."""

    title: str
    key: str = ""
    facts: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    tone: str = ""
    badge: str = ""


@dataclass(frozen=True)
class Group:
    """Panels shown together (side by side when the screen is wide), under an optional title."""

    title: str
    panels: tuple[Panel, ...]
    key: str = ""


@dataclass(frozen=True)
class Scene:
    """What a game draws of one view (``Game.picture``): ``groups`` of panels in order, and
    ``private`` panels with the hidden cards of the player the view is for (empty for a public
    view), shown first."""

    headline: str
    facts: tuple[str, ...] = ()
    turn: str = ""
    groups: tuple[Group, ...] = ()
    private: tuple[Panel, ...] = ()
    result: str = ""
    legend: tuple[str, ...] = ()
