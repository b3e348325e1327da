"""What the blind table's tests look for in what a key opens or a mail carries: hidden cards
named beside their slots, and card ids named anywhere (shared by the shared-folder, judge and
real-mail tests of Koryo and Korsar)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from typing import Any


def pairs(value: Any, found: list | None = None) -> list:
    """Every (key, value) pair and every {slot, card} table in ``value``, however deep: a hidden
    slot beside its card shows up as one of them."""
    found = [] if found is None else found
    if isinstance(value, dict):
        if "slot" in value and "card" in value:
            found.append((value["slot"], value["card"]))
        for k, v in value.items():
            found.append((k, v))
            pairs(v, found)
    elif isinstance(value, list):
        for v in value:
            pairs(v, found)
    return found


def card_values(value: Any, cards: Collection[str]) -> Counter:
    """How many times each card id of ``cards`` is a text value anywhere in ``value``."""
    found: Counter = Counter()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v in cards:
            found[v] += 1

    walk(value)
    return found


def card_words(text: str, cards: Collection[str]) -> Counter:
    """How many times each card id of ``cards`` is a word of ``text`` (a mail, a log's events)."""
    return Counter(w for w in re.findall(r"[\w-]+", text) if w in cards)


def verified_with_bot_seat(cli, game: str, seat: str, played: int) -> dict[str, str]:
    """``verify --json`` of a blind game whose bot seat ``seat`` played ``played`` orders: the
    verdict is clean, the moderator saw that seat's cards alone, and every bot order is the one
    the bot chooses again. Returns each check's detail by name."""
    report = cli.ok("verify", game, "--json").json
    checks = {c["check"]: c["detail"] for c in report["checks"]}
    assert report["ok"], report
    assert f"the moderator saw the cards of bot seat {seat} (its bot's), and no other hidden card" in checks["deal"]
    assert checks["bots"].startswith(f"every one of the {played} orders the moderator's bots played is the one "
                                     "the bot chooses again")
    return checks
