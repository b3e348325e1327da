"""GOPS's table: the cards, the state, and what a round does (the open game's rules, :mod:`.game`,
and the blind table's, :mod:`.blind`, play rounds with these)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from koryo_pbm.engine.contract import Event
from koryo_pbm.engine.rng import Rng

ROUNDS = 13
BIDS = tuple(f"b{v}" for v in range(1, ROUNDS + 1))
PRIZES = tuple(f"p{v}" for v in range(1, ROUNDS + 1))
TIES = ("discard", "carry")


def value(card: str) -> int:
    return int(card[1:])


@dataclass
class Table:
    """What a round reads and changes (a blind table's state too: :mod:`.blind`). ``deck``: the
    prize deck face down, top first (nobody sees it); ``table``: the prize cards face up (the one
    turned up, and those carried by ties); ``bids``: the bids of the last round revealed;
    ``round``: the round being played (the last one once over)."""

    players: list[str]
    ties: str
    round: int
    hands: dict[str, list[str]]
    deck: list[str]
    table: list[str]
    won: dict[str, list[str]]
    discarded: list[str]
    bids: dict[str, str]


@dataclass
class GopsState(Table):
    """A match: the table and the generator that shuffled the prize deck."""

    rng: Rng


def points_text(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def scores(won: Mapping[str, Sequence[str]]) -> dict[str, int]:
    return {p: sum(map(value, cards)) for p, cards in won.items()}


def last_round(s: Table, events: list[Event]) -> None:
    """Round 13, whose cards the rules play alone (the only legal move), and the end."""
    if all(len(h) == 1 for h in s.hands.values()):  # the last card: the only legal move
        play_round(s, {p: h[0] for p, h in s.hands.items()}, events, " (the only legal move)")
    if not any(s.hands.values()):
        sc = scores(s.won)
        events.append(Event("end", "game over: " + ", ".join(f"{p} {sc[p]}" for p in s.players)
                            + f"; {' and '.join(winners(s))} win{'s' if len(winners(s)) == 1 else ''}"))


def turn_up(s: Table, card: str, events: list[Event]) -> None:
    """The next round begins: ``card`` is turned up."""
    s.round += 1
    s.table.append(card)
    events.append(Event("turn-up", f"round {s.round}: {card} is turned up", {"card": card}))


def play_round(s: Table, bids: dict[str, str], events: list[Event], note: str) -> None:
    """A round's bids revealed, its prize awarded, carried or discarded."""
    for p, card in bids.items():
        s.hands[p].remove(card)
    s.bids = bids
    prize = ", ".join(s.table)
    events.append(Event("reveal", f"round {s.round}: " + ", ".join(f"{p} bids {c}" for p, c in bids.items()) + note,
                        {"round": s.round, "bids": dict(bids)}))
    top = max(map(value, bids.values()))
    best = [p for p, c in bids.items() if value(c) == top]
    points = sum(map(value, s.table))
    if len(best) == 1:
        s.won[best[0]] += s.table
        events.append(Event("award", f"{best[0]} wins {prize} ({points_text(points)})", {"player": best[0], "points": points}))
        s.table = []
    elif s.ties == "carry" and s.deck:
        events.append(Event("tie", f"{' and '.join(best)} tie: {prize} stays on the table"))
    else:
        s.discarded += s.table
        events.append(Event("tie", f"{' and '.join(best)} tie: {prize} is discarded"))
        s.table = []


def winners(s: Table) -> tuple[str, ...]:
    """The players with the highest score."""
    sc = scores(s.won)
    return tuple(p for p in s.players if sc[p] == max(sc.values()))
