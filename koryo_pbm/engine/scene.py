"""What a picture of the table is made of: values a game builds from a view (``Game.picture``),
which :mod:`koryo_pbm.picture` frames and lays out. No game's cards are known here: a card is a
tile with a name, a rank, a colour and a count; the game decides what they are.

The scene sits in the engine because the game contract returns it; the picture layer, above,
imports it from here (never the other way round)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def to_json(scene: Scene) -> dict[str, Any]:
    """``scene`` as plain JSON values for the player page (carried in a waiting player's menu,
    :mod:`koryo_pbm.choices`): every dataclass a mapping of its fields, a field at its default
    left out (compact); :func:`from_json` reads it back."""
    return _plain(scene)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.default is not dataclasses.MISSING and v == f.default:
                continue
            out[f.name] = _plain(v)
        return out
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def from_json(data: Any) -> Scene:
    """The scene :func:`to_json` wrote (``ValueError`` when it is not one)."""
    try:
        return _scene(data)
    except (TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"not a scene: {e}") from None


def _card(d: Mapping[str, Any]) -> Card:
    return Card(**{**d, "marks": tuple(d.get("marks", ()))})


def _row(d: Mapping[str, Any]) -> Row:
    return Row(**{**d, "cards": tuple(_card(c) for c in d["cards"])})


def _panel(d: Mapping[str, Any]) -> Panel:
    return Panel(**{**d, "facts": tuple(d.get("facts", ())), "rows": tuple(_row(r) for r in d.get("rows", ()))})


def _scene(d: Mapping[str, Any]) -> Scene:
    groups = tuple(Group(**{**g, "panels": tuple(_panel(p) for p in g["panels"])}) for g in d.get("groups", ()))
    return Scene(**{**d, "facts": tuple(d.get("facts", ())), "legend": tuple(d.get("legend", ())), "groups": groups,
                    "private": tuple(_panel(p) for p in d.get("private", ()))})
