"""The picture of a Koryo view (``show --html``): every table grouped by family with counts,
majorities and powers marked, tokens, the season, face-down counts, whose turn; with a
private part, the player's hand and face-down cards. Pure: a function of the view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from koryo_pbm.engine.scene import Card, Group, Panel, Row, Scene

from . import rules
from .cards import CARD_IDS, CHARS, INDEX, NCARDS, ROUNDS, VALUES
from .state import ACTIONS, END, ORDERS, OVER

NAMES = ("Merchant", "Broadcaster", "Guardian", "Banker", "Ship Owner", "Priest", "Senator", "Spy",
         "Omniscient", "Barbarian", "Lobbying")
#: (fill, ink) of each family
COLOURS = (("#d4a72c", "#2b2000"), ("#e07b39", "#ffffff"), ("#2f7d4f", "#ffffff"), ("#1f5fae", "#ffffff"),
           ("#168a9b", "#ffffff"), ("#7b52ab", "#ffffff"), ("#b03a3a", "#ffffff"), ("#3b3f45", "#ffffff"),
           ("#c8ccd2", "#1f2328"), ("#6b3410", "#ffffff"), ("#8a1f5c", "#ffffff"))
POWERS = ("", "one more card dealt", "safe from Barbarians", "takes a token from the bank",
          "may play 2 different cards", "destroys own event", "keeps 2 more cards", "steals a token",
          "wins ties for powers", "destroys a character", "swaps two characters")


def _s(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# Tiles are frozen values of a few arguments: each is made once and kept (a judge draws every
# waiting player's picture for every version, and the same tiles again and again)
@lru_cache(maxsize=4096)
def tile(cid: str, count: int, marks: tuple[str, ...] = ()) -> Card:
    c = INDEX[cid]
    fill, ink = COLOURS[c]
    rank = str(VALUES[c]) if c in CHARS else "−1"
    note = f"{NAMES[c]} ×{count}" if count > 1 else NAMES[c]
    note += f" ({'worth ' + str(VALUES[c]) if c in CHARS else 'event, −1'}; {POWERS[c]})"
    return Card(id=cid, name=NAMES[c], rank=rank, count=count, fill=fill, ink=ink, marks=marks, note=note)


@lru_cache(maxsize=256)
def back(count: int) -> Card:
    return Card(id="back", name="face down", count=count, back=True, note=f"{_s(count, 'card')} face down")


def _grouped(ids: list[str]) -> tuple[Card, ...]:
    counts = Counter(ids)
    return tuple(tile(cid, counts[cid]) for cid in CARD_IDS if counts[cid])


# A player's panel is a function of these few values: made once for each (every waiting player's
# picture shows the same tables, and a version that holds an order changes at most a badge)
@lru_cache(maxsize=1024)
def _player_panel(name: str, tables: tuple[tuple[int, ...], ...], i: int, fd: int, facts: tuple[str, ...],
                  tone: str, badge: str) -> Panel:
    seats = [list(t) for t in tables]  # (the rules tell seats apart by their lists' identity)
    cards = []
    for c in range(NCARDS):
        k = seats[i][c]
        if not k:
            continue
        marks: list[str] = []
        if c in CHARS:
            if rules.has_scoring(seats, i, c):
                marks.append("majority")
            if POWERS[c] and rules.has_power(seats, i, c):  # (the Merchant has no power)
                marks.append("power" if "majority" in marks else "omniscient")
        cards.append(tile(CARD_IDS[c], k, tuple(marks)))
    rows = [Row("in front of them", tuple(cards), "table", name, "no cards")]
    if fd:
        rows.append(Row("face down", (back(fd),), "facedown-count", name))
    return Panel(title=name, key=f"player-{name}", facts=facts, rows=tuple(rows), tone=tone, badge=badge)


def picture(v: Mapping[str, Any]) -> Scene:
    players: list[str] = list(v["players"])
    tables_in: Mapping[str, Mapping[str, int]] = v["tables"]
    tables = [[int(tables_in.get(p, {}).get(CARD_IDS[c], 0)) for c in range(NCARDS)] for p in players]
    phase, rnd = v.get("phase"), v.get("round")
    turn = v.get("turn") or ""
    waiting = set(v.get("waiting_for", [])) - set(v.get("received", []))
    over = phase == OVER

    panels = []
    every = tuple(map(tuple, tables))
    for i, name in enumerate(players):
        fd = int(v["facedown_sizes"].get(name, 0))
        said = (_s(int(v["tokens"][name]), "token"),
                 f"{'score' if over else 'score now'} {v['scores'][name]}",
                 f"hand {v['hand_sizes'][name]}", f"face down {fd}")
        badges = []
        if name == v.get("first") and not over:
            badges.append("first player")
        to_play = (turn == name and phase in (ACTIONS, END)) or (phase == ORDERS and name in waiting)
        if to_play:
            badges.append("to play")
        if over and name in v.get("winners", []):
            badges.append("winner")
        panels.append(_player_panel(name, every, i, fd, said, "turn" if to_play else "", " · ".join(badges)))

    private = []
    if v.get("player"):
        me = str(v["player"])
        private.append(Panel(
            title=f"Your cards, {me}", key=f"private-{me}", tone="secret", badge="only you can see this",
            rows=(Row("your hand", _grouped(list(v.get("hand", []))), "hand", me, "empty"),
                  Row("your face-down cards", _grouped(list(v.get("facedown", []))), "facedown", me, "none"))))

    facts = []
    if isinstance(rnd, int) and "deal_size" in v and not over:
        facts.append(f"dealt {_s(int(v['deal_size']), 'card')} (+1 with the Broadcaster's power)")
        facts.append(f"keep at most {v['limit']} (+2 with the Senator's power)")
    facts += [f"bank: {_s(int(v['bank']), 'token')}", f"deck: {_s(int(v['deck']), 'card')}",
              f"discard pile: {_s(int(v.get('discard', 0)), 'card')}"]
    if not over:
        facts.append(f"first player: {v.get('first')}")

    holders = []
    for c in CHARS:
        who = (v.get("powers") or {}).get(CARD_IDS[c])
        if who and POWERS[c]:
            holders.append(f"{NAMES[c]}: {who}")
    extra = (Panel(title="Powers", key="powers",
                   facts=tuple(holders) or ("nobody holds a power majority",)),)

    if over:
        headline = f"Koryo — game over after round {ROUNDS}"
        w = list(v.get("winners", []))
        result = ("winner: " if len(w) == 1 else "shared win: ") + ", ".join(w) + " · scores: " + \
            ", ".join(f"{p} {v['scores'][p]}" for p in players)
        turn_text = ""
    else:
        headline = f"Koryo — round {rnd} of {ROUNDS}, {phase} phase"
        result = ""
        turn_text = {ORDERS: "order phase: every player chooses the cards to play face down",
                     ACTIONS: f"{turn}'s action turn", END: f"{turn}'s end-phase discard"}.get(str(phase), "")
    legend = ("★ scoring majority (scores the family's value at the end)",
              "power: holds the family's power majority",
              "power Ω: holds it by a tie the Omniscient wins",
              "×N: number of cards", "blue back: cards face down")
    return Scene(headline=headline, facts=tuple(facts), turn=turn_text,
                 groups=(Group("", tuple(panels), "players"), Group("", extra, "powers")),
                 private=tuple(private), result=result, legend=legend)
