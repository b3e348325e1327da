"""A state made of plain values: the contract's default storage (:class:`~koryo_pbm.engine.contract.Game`
with ``state_type``).

A *plain state* is a dataclass whose fields are typed with ``int``, ``str``, ``bool``,
``list[X]``, ``tuple[X, ...]``, ``dict[str, X]`` (of those again), another plain dataclass, or
:class:`~koryo_pbm.engine.rng.Rng`. :func:`dump` writes it as TOML-safe data; :func:`load` reads
it back and checks every value against its field's type, naming the first that is wrong.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any

from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import FormatError


def dump(value: Any) -> Any:
    """``value`` (a plain state, or any value of one) as TOML-safe data."""
    if isinstance(value, Rng):
        return value.state()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {str(k): dump(v) for k, v in value.items()}
    return value


@cache
def hints(cls: type) -> dict[str, Any]:
    """The resolved field types of the dataclass ``cls``."""
    return typing.get_type_hints(cls)


def rng_fields(cls: type) -> tuple[str, ...]:
    """The fields of ``cls`` that hold a generator (never shown to anybody)."""
    return tuple(name for name, t in hints(cls).items() if t is Rng)


def load(cls: type, data: Any, where: str = "state") -> Any:
    """The value of type ``cls`` that :func:`dump` wrote as ``data``; :class:`FormatError`
    names the first value that does not fit."""
    origin, args = typing.get_origin(cls), typing.get_args(cls)
    if cls is Rng:
        if not isinstance(data, Mapping):
            raise FormatError(f"{where}: not a generator's state")
        try:
            return Rng.from_state(dict(data))
        except ValueError as exc:
            raise FormatError(f"{where}: {exc}") from None
    if dataclasses.is_dataclass(cls):
        if not isinstance(data, Mapping):
            raise FormatError(f"{where}: not a table")
        types = hints(cls)
        missing = [n for n in types if n not in data and not _has_default(cls, n)]
        extra = [str(k) for k in data if k not in types]
        if missing or extra:
            raise FormatError(f"{where}: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(extra)}"] if extra else [])))
        return cls(**{n: load(t, data[n], f"{where}.{n}") for n, t in types.items() if n in data})
    if origin in (list, tuple):
        if not isinstance(data, list | tuple):
            raise FormatError(f"{where}: not a list")
        items = [load(args[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
        return items if origin is list else tuple(items)
    if origin is dict:
        if not isinstance(data, Mapping):
            raise FormatError(f"{where}: not a table")
        return {str(k): load(args[1], v, f"{where}.{k}") for k, v in data.items()}
    if cls is int and (not isinstance(data, int) or isinstance(data, bool)):
        raise FormatError(f"{where}: not a whole number")
    if cls in (str, bool) and not isinstance(data, cls):
        raise FormatError(f"{where}: not a {'text' if cls is str else 'true or false'}")
    if cls not in (int, str, bool):
        raise TypeError(f"a plain state cannot hold {cls!r} ({where})")
    return data


def _has_default(cls: type, name: str) -> bool:
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def copy(state: Any) -> Any:
    """A deep copy of a plain state (its generator copied too)."""
    if isinstance(state, Rng):
        return state.copy()
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return type(state)(**{f.name: copy(getattr(state, f.name)) for f in dataclasses.fields(state)})
    if isinstance(state, list):
        return [copy(v) for v in state]
    if isinstance(state, dict):
        return {k: copy(v) for k, v in state.items()}
    if isinstance(state, tuple):
        return tuple(copy(v) for v in state)
    return state
