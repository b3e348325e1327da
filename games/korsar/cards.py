"""The 78 Korsar cards: ids, kinds, values, strengths and colours.

A card id names a kind of card, not one physical card: the five ``galleon-2`` are five copies
of one id. Every zone of the game (pile, hands, table, loot, removed) holds ids.
"""

from __future__ import annotations

from collections import Counter

COLOURS: tuple[str, ...] = ("yellow", "red", "green", "blue")

#: galleon value -> copies (25 galleons, total value 100)
GALLEON_COPIES: dict[int, int] = {2: 5, 3: 6, 4: 5, 5: 5, 6: 2, 7: 1, 8: 1}
#: pirate strength -> copies in each colour (12 per colour, 48 in all)
PIRATE_COPIES: dict[int, int] = {1: 2, 2: 4, 3: 4, 4: 2}

ADMIRAL = "admiral"


def galleon_id(value: int) -> str:
    return f"galleon-{value}"


def pirate_id(colour: str, strength: int) -> str:
    return f"{colour}-{strength}"


def captain_id(colour: str) -> str:
    return f"{colour}-captain"


def _catalogue() -> dict[str, int]:
    copies: dict[str, int] = {}
    for value, n in GALLEON_COPIES.items():
        copies[galleon_id(value)] = n
    for colour in COLOURS:
        for strength, n in PIRATE_COPIES.items():
            copies[pirate_id(colour, strength)] = n
    for colour in COLOURS:
        copies[captain_id(colour)] = 1
    copies[ADMIRAL] = 1
    return copies


#: card id -> number of copies in the game, in a fixed order (galleons, pirates, captains, admiral)
COPIES: dict[str, int] = _catalogue()
CARD_IDS: tuple[str, ...] = tuple(COPIES)
TOTAL_CARDS = sum(COPIES.values())
ALL_CARDS: Counter[str] = Counter(COPIES)

_ORDER = {card: i for i, card in enumerate(CARD_IDS)}


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in COPIES


def is_galleon(card: str) -> bool:
    return card.startswith("galleon-")


def is_captain(card: str) -> bool:
    return card.endswith("-captain")


def is_admiral(card: str) -> bool:
    return card == ADMIRAL


def is_personage(card: str) -> bool:
    """A captain or the admiral: at most one beside a galleon at any time."""
    return is_captain(card) or card == ADMIRAL


def is_pirate(card: str) -> bool:
    return card in COPIES and not is_galleon(card) and not is_personage(card)


def value(card: str) -> int:
    """A galleon's value in gold."""
    return int(card.rsplit("-", 1)[1])


def strength(card: str) -> int:
    """A pirate's strength."""
    return int(card.rsplit("-", 1)[1])


def colour(card: str) -> str:
    """The colour of a pirate or captain."""
    return card.split("-", 1)[0]


def kind(card: str) -> str:
    if is_galleon(card):
        return "galleon"
    if is_captain(card):
        return "captain"
    if card == ADMIRAL:
        return "admiral"
    return "pirate"


def sort_key(card: str) -> int:
    return _ORDER[card]


def sorted_cards(cards: list[str] | tuple[str, ...]) -> list[str]:
    """Cards in catalogue order (galleons by value, pirates by colour and strength, ...)."""
    return sorted(cards, key=sort_key)


def full_deck() -> list[str]:
    """All 78 cards, in catalogue order."""
    return [card for card, n in COPIES.items() for _ in range(n)]


assert TOTAL_CARDS == 78
assert sum(value(galleon_id(v)) * n for v, n in GALLEON_COPIES.items()) == 100
