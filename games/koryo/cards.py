"""The cards of Koryo (spec section "Components") as small integers.

Every card id is an index ``0..10``; characters are ``0..8`` (Merchant #9 … Omniscient #1), the
two events are ``9`` and ``10``. Piles of cards are stored as count arrays indexed by these ids.
"""

from __future__ import annotations

CARD_IDS: tuple[str, ...] = (
    "merchant",
    "broadcaster",
    "guardian",
    "banker",
    "shipowner",
    "priest",
    "senator",
    "spy",
    "omniscient",
    "barbarian",
    "lobbying",
)
INDEX: dict[str, int] = {c: i for i, c in enumerate(CARD_IDS)}

(MERCHANT, BROADCASTER, GUARDIAN, BANKER, SHIPOWNER, PRIEST, SENATOR, SPY, OMNISCIENT,
 BARBARIAN, LOBBYING) = range(11)

NCARDS = 11
NCHARS = 9
CHARS = tuple(range(NCHARS))
EVENTS = (BARBARIAN, LOBBYING)
COPIES: tuple[int, ...] = (9, 8, 7, 6, 5, 4, 3, 2, 1, 6, 4)
VALUES: tuple[int, ...] = (9, 8, 7, 6, 5, 4, 3, 2, 1, -1, -1)
TOTAL_CARDS = 55
TOKENS = 8
ROUNDS = 8
MIN_PLAYERS, MAX_PLAYERS = 2, 4

assert sum(COPIES) == TOTAL_CARDS


def deal_size(rnd: int) -> int:
    """Cards dealt to each player in round ``rnd`` (before the Broadcaster's extra card)."""
    return 11 - rnd


def base_limit(rnd: int) -> int:
    """Cards a player may keep at the end of round ``rnd`` (before the Senator's +2)."""
    return rnd + 2


_FULL_DECK: tuple[int, ...] = tuple(c for c in range(NCARDS) for _ in range(COPIES[c]))


def full_deck() -> list[int]:
    """The 55 cards, in id order (not shuffled)."""
    return list(_FULL_DECK)


def counts_to_ids(counts) -> list[str]:
    """A count array as a sorted list of card ids (``["merchant", "merchant", "spy"]``)."""
    out: list[str] = []
    for c, n in enumerate(counts):
        if n:
            out.extend([CARD_IDS[c]] * n)
    return out


def describe_counts(counts) -> str:
    """``"merchant ×2, spy"`` for people; ``"nothing"`` for an empty pile."""
    parts = []
    for c, n in enumerate(counts):
        if n == 1:
            parts.append(CARD_IDS[c])
        elif n > 1:
            parts.append(f"{CARD_IDS[c]} ×{n}")
    return ", ".join(parts) if parts else "nothing"
