"""Menus: the legal choices of a decision, one question at a time (``koryo-pbm play``).

A game answers :meth:`~koryo_pbm.engine.contract.Game.menu` with the next :class:`Menu`, given
the values picked so far, or with the finished order once the picks make one. Pure: no I/O, no
clock; the terminal dialogue lives in :mod:`koryo_pbm.cli.play`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from koryo_pbm.values import Frozen


class Option(Frozen):
    """One numbered line of a menu: what the player reads, and the value it picks."""

    _fields = ("label", "value")
    label: str
    value: Any

    def __init__(self, label: str, value: Any) -> None:
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "value", value)


class Menu(Frozen):
    """A question, its legal answers (never empty) and the suggested one (an index), if any."""

    _fields = ("question", "options", "default")
    question: str
    options: tuple[Option, ...]
    default: int | None

    def __init__(self, question: str, options: tuple[Option, ...], default: int | None = None) -> None:
        object.__setattr__(self, "question", question)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "default", default)


def tree_menu(
    orders: Sequence[Mapping[str, Any]],
    picked: Sequence[Any],
    keys: Sequence[tuple[str, str]],
    label: Callable[[str, Any], str] = lambda key, value: str(value),
    hint: Mapping[str, Any] | None = None,
) -> Menu | dict[str, Any]:
    """Menus over a finite list of legal ``orders`` (tables of strings), one key at a time.

    ``keys`` gives, in order, each key and its question. A key absent from every order still
    matching is skipped; the order is finished when one matching order remains and every key
    asked so far is in ``picked``. ``label(key, value)`` is what a player reads for a value;
    the option leading to ``hint`` (a suggested order) is the menu's default.
    """
    matching = list(orders)
    level = 0
    asked: list[str] = []
    for key, question in keys:
        values: list[Any] = []
        for order in matching:
            v = order.get(key)
            if v is not None and v not in values:
                values.append(v)
        if not values:
            continue
        if level < len(picked):
            choice = picked[level]
            level += 1
            asked.append(key)
            matching = [o for o in matching if o.get(key) == choice]
            if not matching:
                raise ValueError(f"{choice!r} is not a legal {key} here")
            continue
        default = None
        if hint is not None and all(hint.get(k) == v for k, v in zip(asked, picked, strict=True)):
            default = next((i for i, v in enumerate(values) if hint.get(key) == v), None)
        return Menu(question, tuple(Option(label(key, v), v) for v in values), default)
    if level < len(picked):
        raise ValueError("more picks than questions")
    # every key asked: the shortest matching order (one without the later keys) is the answer
    shortest: Mapping[str, Any] = min(matching, key=len)
    return dict(shortest)
