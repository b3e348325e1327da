"""The one wording of who a decision waits for, used by ``show``, ``log``, ``status`` and the
pictures: who is awaited, then who answered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def waiting_words(waiting_for: Sequence[str], answered: Iterable[str] = ()) -> str:
    """``waiting for carol (alice, bob answered)``; when everybody answered, ``waiting for the
    moderator to resolve (alice, bob, carol answered)``. ``answered``: the players of
    ``waiting_for`` whose orders are in (received by the moderator, or in the inbox)."""
    done = set(answered)
    replied = [p for p in waiting_for if p in done]
    awaited = [p for p in waiting_for if p not in done]
    text = "waiting for " + (", ".join(awaited) if awaited else "the moderator to resolve")
    if replied:
        text += f" ({', '.join(replied)} answered)"
    return text
