"""Plain value classes for the modules every command imports.

A ``@dataclass`` costs about a millisecond when its module is imported (its methods are written
out as source text and compiled), and a quick command such as ``status`` imports a handful of
them. The classes it imports are written as plain classes instead: each has its own typed
``__init__`` and lists its fields in ``_fields``; this base gives them what the dataclass gave
(equality and ``repr`` over the fields; :class:`Frozen`: a hash and no assignment after
``__init__``, which sets its fields with ``object.__setattr__``; :meth:`Value.replace` for
``dataclasses.replace``). See docs/speed.md.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self


class Value:
    """Equality and ``repr`` over ``_fields``, as a dataclass's (unhashable, like a mutable dataclass)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Value)
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({inner})"

    def replace(self, **changes: Any) -> Self:
        """A new value with ``changes`` (as ``dataclasses.replace``: built through ``__init__``)."""
        values = {name: getattr(self, name) for name in self._fields}
        for name in changes:
            if name not in values:
                raise TypeError(f"{self.__class__.__qualname__} has no field {name!r}")
        values.update(changes)
        return self.__class__(**values)


class Frozen(Value):
    """A :class:`Value` that cannot change after ``__init__`` and hashes its fields (a frozen dataclass)."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")
