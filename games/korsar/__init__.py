"""Korsar: pirates, galleons and gold, for 2 to 8 players (not 7), alone or in teams of two.

The rules are in ``/work/shared/rules/korsar.md``; the readings this package had to choose are
in ``README.md`` beside this file.
"""

from __future__ import annotations

from .game import KorsarGame

__all__ = ["KorsarGame"]
