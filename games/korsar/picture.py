"""The picture of a Korsar view (``show --html``): the galleons at sea with the cards beside each,
their colours and strengths and who controls each, hands' sizes and loot counts, the pile and
the cards out of the game; with a private part, the player's hand and loot (and a teammate's).
Pure: a function of the view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from koryo_pbm.engine.scene import Card, Group, Panel, Row, Scene

from . import cards as C

#: (fill, ink) of each colour; galleons are wood, the admiral is black
FILLS = {"yellow": ("#e8b90f", "#2b2000"), "red": ("#c2372b", "#ffffff"), "green": ("#23804a", "#ffffff"),
         "blue": ("#2561b3", "#ffffff")}
GALLEON = ("#8a5a2b", "#ffffff")
ADMIRAL = ("#1f2328", "#ffd43b")


def _s(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def tile(card: str, count: int = 1, marks: tuple[str, ...] = ()) -> Card:
    kind = C.kind(card)
    if kind == "galleon":
        v = C.value(card)
        return Card(id=card, name="Galleon", rank=str(v), count=count, fill=GALLEON[0], ink=GALLEON[1],
                    marks=marks, note=f"galleon worth {v} gold" + (f" ×{count}" if count > 1 else ""))
    if kind == "admiral":
        return Card(id=card, name="Admiral", rank="A", count=count, fill=ADMIRAL[0], ink=ADMIRAL[1],
                    note="the admiral: its galleon's owner controls it")
    colour = C.colour(card)
    fill, ink = FILLS[colour]
    if kind == "captain":
        return Card(id=card, name=f"{colour.title()} captain", rank="C", count=count, fill=fill, ink=ink,
                    note=f"the {colour} captain: stronger than any pirates")
    st = C.strength(card)
    return Card(id=card, name=f"{colour.title()} pirate", rank=str(st), count=count, fill=fill, ink=ink,
                note=f"{colour} pirate of strength {st}" + (f" ×{count}" if count > 1 else ""))


def grouped(cards: Iterable[str]) -> tuple[Card, ...]:
    counts = Counter(cards)
    return tuple(tile(c, counts[c]) for c in C.sorted_cards(list(counts)))


def back(count: int, what: str) -> Card:
    return Card(id="back", name=what, count=count, back=True, note=f"{_s(count, 'card')} {what}")


def _side_of(teams: list[list[str]], player: str) -> str:
    for pair in teams:
        if player in pair:
            return "+".join(pair)
    return player


def _side_name(side: str) -> str:
    return side.replace("+", " + ")


def picture(v: Mapping[str, Any]) -> Scene:
    players: list[str] = list(v["players"])
    teams: list[list[str]] = [list(t) for t in v.get("teams", [])]
    over = bool(v.get("over"))
    current = v.get("current") or ""

    sea = []
    for g in v["galleons"]:
        owner, ctl = g["owner"], g.get("controller") or ""
        strengths: Mapping[str, int] = g.get("strengths", {})
        rows = [Row(f"{owner}'s galleon", (tile(g["card"]),), "galleon", owner)]
        for q, cs in g["beside"].items():
            side = _side_of(teams, q)
            colour = g.get("colours", {}).get(q, "")
            bits = [q]
            if colour:
                bits.append(colour)
            if side in strengths:
                bits.append(f"strength {strengths[side]}" + (f" ({_side_name(side)})" if "+" in side else ""))
            if any(C.is_personage(c) for c in cs):
                bits.append("with " + ("the admiral" if "admiral" in cs else "a captain"))
            rows.append(Row(" · ".join(bits), grouped(cs), "beside", q))
        contested = any(_side_of(teams, q) != _side_of(teams, owner) for q in g["beside"])
        if not ctl:
            badge, tone = "level: nobody controls it", ""
        elif not contested:
            badge, tone = f"unopposed: {_side_name(ctl)} takes it next turn", ""
        else:
            badge, tone = f"controlled by {_side_name(ctl)}", ""
        sea.append(Panel(title=f"{g['id']}: {owner}'s galleon, {g['value']} gold", key=f"galleon-{g['id']}",
                         facts=tuple(f"{_side_name(side)}: strength {n}" for side, n in strengths.items()), rows=tuple(rows), tone=tone, badge=badge))
    if not sea:
        sea.append(Panel(title="No galleon at sea", key="galleons-none"))

    crew = []
    for q in players:
        hs, ls = int(v["hand_sizes"][q]), int(v["loot_sizes"][q])
        said = [f"hand {_s(hs, 'card')}", f"loot {_s(ls, 'galleon')}"]
        partner = next((x for pair in teams if q in pair for x in pair if x != q), "")
        if partner:
            said.append(f"team with {partner}")
        if over:
            said.append(f"score {v.get('scores', {}).get(q, 0)}")
            shown: tuple[Row, ...] = (Row("loot", grouped(v.get("loot", {}).get(q, [])), "loot", q),
                    Row("left in hand", grouped(v.get("hands", {}).get(q, [])), "hand", q))
        else:
            shown = (Row("hand", (back(hs, "in hand"),) if hs else (), "hand-count", q, "empty"),
                    Row("loot", (back(ls, "in loot"),) if ls else (), "loot-count", q, "none"))
        badge = "to play" if q == current and not over else ("winner" if q in v.get("winners", []) else "")
        crew.append(Panel(title=q, key=f"player-{q}", facts=tuple(said), rows=shown,
                          tone="turn" if badge == "to play" else "", badge=badge))

    private = []
    if v.get("player"):
        me = str(v["player"])
        mine = [Row("your hand", grouped(v.get("hand", [])), "hand", me, "empty"),
                Row("your loot", grouped(v.get("my_loot", [])), "loot", me, "none")]
        facts: tuple[str, ...] = ()
        if v.get("partner"):
            mate = str(v["partner"])
            mine += [Row(f"{mate}'s hand (your partner)", grouped(v.get("partner_hand", [])), "hand", mate, "empty"),
                     Row(f"{mate}'s loot", grouped(v.get("partner_loot", [])), "loot", mate, "none")]
        if not over and v.get("scores"):
            facts = (f"your {'team’s ' if v.get('partner') else ''}score so far: "
                     f"{next(iter(v['scores'].values()))} (loot minus galleons in hand)",)
        private.append(Panel(title=f"Your cards, {me}", key=f"private-{me}", tone="secret",
                             badge="only you" + (" and your partner" if v.get("partner") else "") + " can see this",
                             facts=facts, rows=tuple(mine)))

    removed = list(v.get("removed", []))
    extra = (Panel(title=f"Out of the game ({len(removed)})", key="removed",
                   rows=(Row("removed for good", grouped(removed), "removed", "", "nothing yet"),)),)
    facts_top = [f"draw pile: {_s(int(v['pile']), 'card')}", f"{_s(len(v['galleons']), 'galleon')} at sea"]
    if teams:
        facts_top.append("teams: " + " vs ".join(" + ".join(t) for t in teams))
    if int(v["pile"]) == 0 and not over:
        facts_top.append("the pile is empty: a card may be discarded instead (never a galleon)")
    if over:
        headline = f"Korsar — game over after turn {v['turn']}"
        w = list(v.get("winners", []))
        result = ("winner: " if len(w) == 1 else "shared win: ") + ", ".join(w) + " · scores: " + \
            ", ".join(f"{q} {v.get('scores', {}).get(q, 0)}" for q in players)
        turn = ""
    else:
        headline = f"Korsar — turn {v['turn']}, {current} to play"
        result = ""
        turn = f"{current}'s turn: seize, then draw or play one card"
    legend = ("number on a galleon: its gold", "number on a pirate: its strength", "C: captain", "A: admiral",
              "×N: number of cards", "blue back: cards nobody else sees")
    return Scene(headline=headline, facts=tuple(facts_top), turn=turn,
                 groups=(Group("At sea", tuple(sea), "sea"), Group("Players", tuple(crew), "players"),
                         Group("", extra, "removed")),
                 private=tuple(private), result=result, legend=legend)
