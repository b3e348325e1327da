"""What a picture of the table is made of: values a game builds from a view (``Game.picture``),
which :mod:`koryo_pbm.picture` frames and lays out. No game's cards are known here: a card is a
tile with a name, a rank, a colour and a count; the game decides what they are.

The scene sits in the engine because the game contract returns it; the picture layer, above,
imports it from here (never the other way round)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from koryo_pbm.values import Frozen

#: The styles a mark is drawn in: a small fixed vocabulary the engine owns (the pictures of
#: :mod:`koryo_pbm.picture` and the player page's picture.js draw each), for the marks a game
#: declares (:attr:`~koryo_pbm.engine.contract.Game.marks`). ``plain``: named in the tile's
#: tooltip only; ``star``: also a star in the tile's top corner and a gold frame; ``band``: also
#: a band across the foot of the tile with the mark's ``label`` (one band a tile: its first).
MARK_STYLES = ("plain", "star", "band")

# Plain frozen value classes (:mod:`koryo_pbm.values`), not dataclasses: every resolve that
# opens a decision draws the waiting players' pictures, and five dataclasses cost some 7 ms to
# import (docs/speed.md). ``_defaults``: the fields with a default, left out by :func:`to_json`.


class Card(Frozen):
    """One tile: ``count`` cards of one ``id``. ``back`` is a face-down pile (its id is
    ``"back"``): only its size is shown. ``marks`` are the game's own words
    (:attr:`~koryo_pbm.engine.contract.Game.marks` declares them and what each means)."""

    _fields = ("id", "name", "rank", "count", "fill", "ink", "marks", "back", "note")
    _defaults: ClassVar[dict[str, Any]] = {"rank": "", "count": 1, "fill": "#6b7280", "ink": "#ffffff",
                                           "marks": (), "back": False, "note": ""}
    id: str
    name: str
    rank: str
    count: int
    fill: str
    ink: str
    marks: tuple[str, ...]
    back: bool
    note: str  # a longer description (the tile's tooltip)

    def __init__(self, id: str, name: str, rank: str = "", count: int = 1, fill: str = "#6b7280",
                 ink: str = "#ffffff", marks: tuple[str, ...] = (), back: bool = False, note: str = "") -> None:
        set_ = object.__setattr__  # a picture has dozens of tiles: each field set once, directly
        set_(self, "id", id)
        set_(self, "name", name)
        set_(self, "rank", rank)
        set_(self, "count", count)
        set_(self, "fill", fill)
        set_(self, "ink", ink)
        set_(self, "marks", marks)
        set_(self, "back", back)
        set_(self, "note", note)


class Mark(Frozen):
    """How the tiles carrying one mark are drawn: ``words``, what the mark means (the tile's
    tooltip, and what a screen reader says of a star), a ``style`` of :data:`MARK_STYLES` and,
    for a band, its ``label`` (a few letters: the band is a tile wide)."""

    _fields = ("words", "style", "label")
    _defaults: ClassVar[dict[str, Any]] = {"style": "plain", "label": ""}
    words: str
    style: str
    label: str

    def __init__(self, words: str, style: str = "plain", label: str = "") -> None:
        for k, value in (("words", words), ("style", style), ("label", label)):
            object.__setattr__(self, k, value)


def mark_problem(name: object, mark: object) -> str | None:
    """What is wrong with declaring mark ``name`` as ``mark`` (its words, or a :class:`Mark`),
    in a few words, or ``None``."""
    if not isinstance(name, str) or not name or name != name.strip() or len(name.split()) != 1:
        return f"mark {name!r} must be one word"
    if isinstance(mark, str):
        return None if mark else f"mark {name} has no words"
    if not isinstance(mark, Mark) or not all(isinstance(v, str) for v in (mark.words, mark.style, mark.label)):
        return f"mark {name} must be its words or a Mark(words, style, label)"
    if not mark.words:
        return f"mark {name} has no words"
    if mark.style not in MARK_STYLES:
        return f"mark {name} has style {mark.style!r}, not one of {', '.join(MARK_STYLES)}"
    if (mark.style == "band") != bool(mark.label):
        return f"mark {name}: a band needs a label, and only a band has one"
    return None


def declared(marks: Mapping[str, str | Mark]) -> tuple[tuple[str, Mark], ...]:
    """A game's ``marks`` as :attr:`Scene.marks` holds them: ``(name, Mark)`` in the game's
    order, a mark declared by its words alone drawn ``plain``."""
    return tuple((name, m if isinstance(m, Mark) else Mark(m)) for name, m in marks.items())


class Row(Frozen):
    """A labelled line of tiles: one zone (``table``, ``hand``, ``facedown``, ``beside``...)
    of one owner."""

    _fields = ("label", "cards", "zone", "owner", "empty")
    _defaults: ClassVar[dict[str, Any]] = {"owner": "", "empty": "none"}
    label: str
    cards: tuple[Card, ...]
    zone: str
    owner: str
    empty: str

    def __init__(self, label: str, cards: tuple[Card, ...], zone: str, owner: str = "", empty: str = "none") -> None:
        set_ = object.__setattr__
        set_(self, "label", label)
        set_(self, "cards", cards)
        set_(self, "zone", zone)
        set_(self, "owner", owner)
        set_(self, "empty", empty)


class Panel(Frozen):
    """A box: a player, a galleon, the player's own hand. ``tone`` is ``""``, ``"turn"`` (whose
    turn it is), ``"secret"`` (hidden cards of the player the picture is for) or ``"dim"``."""

    _fields = ("title", "key", "facts", "rows", "tone", "badge")
    _defaults: ClassVar[dict[str, Any]] = {"key": "", "facts": (), "rows": (), "tone": "", "badge": ""}
    title: str
    key: str
    facts: tuple[str, ...]
    rows: tuple[Row, ...]
    tone: str
    badge: str

    def __init__(self, title: str, key: str = "", facts: tuple[str, ...] = (), rows: tuple[Row, ...] = (),
                 tone: str = "", badge: str = "") -> None:
        for k, value in (("title", title), ("key", key), ("facts", facts), ("rows", rows), ("tone", tone),
                         ("badge", badge)):
            object.__setattr__(self, k, value)


class Group(Frozen):
    """Panels shown together (side by side when the screen is wide), under an optional title."""

    _fields = ("title", "panels", "key")
    _defaults: ClassVar[dict[str, Any]] = {"key": ""}
    title: str
    panels: tuple[Panel, ...]
    key: str

    def __init__(self, title: str, panels: tuple[Panel, ...], key: str = "") -> None:
        for k, value in (("title", title), ("panels", panels), ("key", key)):
            object.__setattr__(self, k, value)


class Scene(Frozen):
    """What a game draws of one view (``Game.picture``): ``groups`` of panels in order, and
    ``private`` panels with the hidden cards of the player the view is for (empty for a public
    view), shown first. ``marks``: how the marks on its tiles are drawn, ``(name, Mark)``; the
    engine puts the game's declared marks there (:func:`koryo_pbm.engine.contract.drawn_scene`),
    so that a picture is drawn from its scene alone; a mark not there is drawn ``plain``."""

    _fields = ("headline", "facts", "turn", "groups", "private", "result", "legend", "marks")
    _defaults: ClassVar[dict[str, Any]] = {"facts": (), "turn": "", "groups": (), "private": (), "result": "",
                                           "legend": (), "marks": ()}
    headline: str
    facts: tuple[str, ...]
    turn: str
    groups: tuple[Group, ...]
    private: tuple[Panel, ...]
    result: str
    legend: tuple[str, ...]
    marks: tuple[tuple[str, Mark], ...]

    def __init__(self, headline: str, facts: tuple[str, ...] = (), turn: str = "", groups: tuple[Group, ...] = (),
                 private: tuple[Panel, ...] = (), result: str = "", legend: tuple[str, ...] = (),
                 marks: tuple[tuple[str, Mark], ...] = ()) -> None:
        for k, value in (("headline", headline), ("facts", facts), ("turn", turn), ("groups", groups),
                         ("private", private), ("result", result), ("legend", legend), ("marks", marks)):
            object.__setattr__(self, k, value)


_CLASSES = (Card, Row, Panel, Group, Scene, Mark)


def to_json(scene: Scene) -> dict[str, Any]:
    """``scene`` as plain JSON values for the player page (carried in a waiting player's menu,
    :mod:`koryo_pbm.choices`): every value a mapping of its fields, a field at its default
    left out (compact); :func:`from_json` reads it back."""
    return _plain(scene)


def _plain(value: Any) -> Any:
    fields = _FIELDS.get(value.__class__)
    if fields is None:
        if isinstance(value, _CLASSES):  # a subclass of one: its own fields and defaults
            fields = _fields_of(value.__class__)
        elif isinstance(value, tuple | list):
            return [_plain(v) if isinstance(v, _NESTED) else v for v in value]
        else:
            return value
    out: dict[str, Any] = {}
    for name, default in fields:
        v = getattr(value, name)
        if default is not _NO_DEFAULT and v == default:
            continue
        out[name] = _plain(v) if isinstance(v, _NESTED) else v
    return out


_NESTED = (*_CLASSES, tuple, list)  # what _plain changes (text, numbers and booleans are as they are)
_NO_DEFAULT = object()


def _fields_of(cls: type) -> tuple[tuple[str, Any], ...]:
    """``(field, its default or _NO_DEFAULT)`` of a scene class, in order."""
    defaults = cls._defaults  # type: ignore[attr-defined]
    return tuple((name, defaults.get(name, _NO_DEFAULT)) for name in cls._fields)  # type: ignore[attr-defined]


_FIELDS = {cls: _fields_of(cls) for cls in _CLASSES}


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
    marks = tuple((str(name), Mark(**m)) for name, m in d.get("marks", ()))
    return Scene(**{**d, "facts": tuple(d.get("facts", ())), "legend": tuple(d.get("legend", ())), "groups": groups,
                    "private": tuple(_panel(p) for p in d.get("private", ())), "marks": marks})
