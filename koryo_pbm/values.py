"""Plain value classes for the modules every command imports.

A ``@dataclass`` costs about a millisecond when its module is imported (its methods are written
out as source text and compiled), and a quick command such as ``status`` imports a handful of
them. The classes it imports are written as plain classes instead: each has its own typed
``__init__`` and lists its fields in ``_fields``; this base gives them what the dataclass gave
(equality and ``repr`` over the fields; :class:`Frozen`: a hash and no assignment after
``__init__``, which sets its fields with ``object.__setattr__``; :meth:`Value.replace` for
``dataclasses.replace``). See docs/speed.md.

For the same reason, the patterns those modules check text against are not compiled when they
are imported (``re``'s parser is Python: some 0.2 ms a pattern, a few milliseconds a command):
:class:`Spelling` checks what a one-class expression such as ``[0-9a-f]{64}`` fully matches with
string methods, and :class:`LazyPattern` compiles any other expression on its first use.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, ClassVar, Generic, Self, TypeVar

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"  # [A-Za-z0-9]
HEX = "0123456789abcdef"  # [0-9a-f]
BASE64 = ALNUM + "+/"  # [A-Za-z0-9+/]


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


class Spelling:
    """Text that one regular expression of a character class fully matches, checked without
    compiling it: ``Spelling(HEX, 64)`` is ``[0-9a-f]{64}``; ``Spelling(ALNUM + "_.:+-", 0, 63,
    first=ALNUM)`` is ``[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}`` (a first character from ``first``,
    then from ``least`` to ``most`` characters from ``chars``; ``most`` ``None``: no bound).
    ``chars`` and ``first`` are ASCII."""

    __slots__ = ("chars", "first", "least", "most")

    def __init__(self, chars: str, least: int, most: int | None = -1, *, first: str = "") -> None:
        self.chars = chars.encode("ascii")
        self.first = first.encode("ascii")
        self.least = least
        self.most = least if most == -1 else most

    def fits(self, text: object) -> bool:
        """True if ``text`` is a string spelled so (the expression's ``fullmatch``)."""
        if not isinstance(text, str) or not text.isascii():
            return False
        raw = text.encode("ascii")
        if self.first:
            if not raw or raw[:1].translate(None, self.first):
                return False
            raw = raw[1:]
        if len(raw) < self.least or (self.most is not None and len(raw) > self.most):
            return False
        return not raw.translate(None, self.chars)  # nothing left once every allowed byte is taken out


# The spellings the file formats share (each checked where it is read: the game file, the pin,
# the envelope, the submissions, the commitments, verify).
HEX64 = Spelling(HEX, 64)  # [0-9a-f]{64}: a SHA-256 digest, a salt, a contribution
ID = Spelling(ALNUM + "_.:+-", 0, 63, first=ALNUM)  # [A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}: a game's name, a game id, a decision id


def is_sha256(value: object) -> bool:
    """``sha256:[0-9a-f]{64}``: a hash as the formats write it."""
    return isinstance(value, str) and value.startswith("sha256:") and HEX64.fits(value[7:])


class LazyPattern(Generic[AnyStr]):
    """A regular expression compiled on its first use (``re.compile(pattern, flags)``).

    ``needle``: a literal that every match contains. Text without it is no match, told without
    compiling the expression (a log line that is not a bot's note, for instance)."""

    __slots__ = ("_args", "_compiled", "_needle")

    def __init__(self, pattern: AnyStr, flags: int = 0, *, needle: AnyStr | None = None) -> None:
        self._args: tuple[AnyStr, int] = (pattern, flags)
        self._compiled: re.Pattern[AnyStr] | None = None
        self._needle: AnyStr | None = needle

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return self._compiled

    def fullmatch(self, string: AnyStr, pos: int = 0) -> re.Match[AnyStr] | None:
        if self._needle is not None and self._needle not in string:
            return None
        return self.compiled.fullmatch(string, pos)

    def match(self, string: AnyStr, pos: int = 0) -> re.Match[AnyStr] | None:
        if self._needle is not None and self._needle not in string:
            return None
        return self.compiled.match(string, pos)

    def search(self, string: AnyStr, pos: int = 0) -> re.Match[AnyStr] | None:
        if self._needle is not None and self._needle not in string:
            return None
        return self.compiled.search(string, pos)


def shaped(text: object, shape: str) -> bool:
    """True if ``text`` is a string of ``shape``'s length with a decimal digit (``\\d``) where
    ``shape`` has ``9`` and ``shape``'s own character elsewhere: ``shaped(t, "9999-99-99")`` is
    the ``fullmatch`` of ``\\d{4}-\\d{2}-\\d{2}``."""
    return (isinstance(text, str) and len(text) == len(shape)
            and all(c.isdecimal() if s == "9" else c == s for c, s in zip(text, shape, strict=True)))


_K = TypeVar("_K")
_V = TypeVar("_V")


def keep(memo: dict[_K, _V], key: _K, value: _V, limit: int) -> _V:
    """``value`` put into ``memo`` under ``key`` and returned: ``memo`` holds what was computed
    last, at most ``limit`` entries, the one put in longest ago leaving first (a caller that
    takes an entry out on each use and puts it back keeps the ones used last)."""
    while len(memo) >= limit:
        del memo[next(iter(memo))]
    memo[key] = value
    return value
