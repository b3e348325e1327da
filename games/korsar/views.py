"""What each player sees: the public part, a player's private part, the JSON view, the text,
and a state rebuilt from one player's information.

Secrets, from the rules: hands are secret (a teammate sees the partner's hand); the draw pile is
face down (only its size is public); loot is taken face down, so the galleons in a player's loot
are in their private part (and their partner's) and the public part shows only how many each
player holds. Everything on the table (galleons, the cards beside them) and the cards removed
from the game is public. When the game is over, every hand and loot is shown with the scores.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import FormatError

from . import cards as C
from . import rules as R
from .state import KorsarState
from .storage import Reader, _dump_galleon


def public(s: KorsarState) -> dict[str, Any]:
    pub: dict[str, Any] = {
        "players": list(s.players),
        "teams": [list(pair) for pair in s.teams],
        "turn": s.turn,
        "current": "" if s.over else s.current_player,
        "over": s.over,
        "pile": len(s.pile),
        "hand_sizes": {p: len(s.hands[p]) for p in s.players},
        "loot_sizes": {p: len(s.loot[p]) for p in s.players},
        "galleons": [_dump_galleon(g) for g in s.galleons],
        "removed": list(s.removed),
        "next_galleon": s.next_galleon,
        "last_beside": s.last_beside,
    }
    if s.last_launched:  # only when set: public parts written before it read alike
        pub["last_launched"] = s.last_launched
    if s.over:
        sc = R.scores(s)
        best = max(sc.values())
        pub["scores"] = sc
        pub["winners"] = [p for p in s.players if sc[p] == best]
        pub["hands"] = {p: C.sorted_cards(s.hands[p]) for p in s.players}
        pub["loot"] = {p: C.sorted_cards(s.loot[p]) for p in s.players}
    return pub


def private(s: KorsarState, player: str) -> dict[str, Any]:
    if player not in s.players:
        raise FormatError(f"{player!r} does not play in this match")
    out: dict[str, Any] = {
        "player": player,
        "hand": C.sorted_cards(s.hands[player]),
        "loot": C.sorted_cards(s.loot[player]),
    }
    partner = s.partner(player)
    if partner is not None:
        out["partner"] = partner
        out["partner_hand"] = C.sorted_cards(s.hands[partner])
        out["partner_loot"] = C.sorted_cards(s.loot[partner])
    return out


# -- reading a public part back ---------------------------------------------------------


def _read_public(pub: object, r: Reader) -> dict[str, Any]:
    t = r.table(pub, "public")
    r.keys(
        t,
        "public",
        ("players", "teams", "turn", "current", "over", "pile", "hand_sizes", "loot_sizes", "galleons", "removed", "next_galleon", "last_beside"),
        ("scores", "winners", "hands", "loot", "last_launched"),
    )
    names, teams = r.players_teams(t)
    over = r.bool_(t["over"], "over")
    current = r.str_(t["current"], "current")
    if not over and current not in names:
        r.fail(f"current names {current!r}, who does not play")

    def sizes(key: str) -> dict[str, int]:
        raw = r.table(t[key], key)
        if set(raw) != set(names):
            r.fail(f"{key} must give every player")
        return {p: r.int_(raw[p], f"{key}.{p}") for p in names}

    return {
        "players": names,
        "teams": teams,
        "turn": r.int_(t["turn"], "turn", 1),
        "current": names.index(current) if current in names else 0,
        "over": over,
        "pile": r.int_(t["pile"], "pile"),
        "hand_sizes": sizes("hand_sizes"),
        "loot_sizes": sizes("loot_sizes"),
        "galleons": r.galleons(t["galleons"], names),
        "removed": r.cards(t["removed"], "removed"),
        "next_galleon": r.int_(t["next_galleon"], "next_galleon", 1),
        "last_beside": r.str_(t["last_beside"], "last_beside"),
        "last_launched": r.str_(t.get("last_launched", ""), "last_launched"),
        "hands": r.per_player(t["hands"], "hands", names, every=True) if "hands" in t else None,
        "loot": r.per_player(t["loot"], "loot", names, every=True) if "loot" in t else None,
        "scores": _scores(r, t.get("scores", {}), names),
        "winners": [r.player(w, "winners", names) for w in r.strs(t.get("winners", []), "winners")],
    }


def _scores(r: Reader, raw: object, names: tuple[str, ...]) -> dict[str, int]:
    t = r.table(raw, "scores")
    out = {}
    for q, n in t.items():
        r.player(q, "scores", names)
        if not isinstance(n, int) or isinstance(n, bool):
            r.fail(f"scores.{q} must be an integer")
        out[q] = n
    return out


def _shell(p: dict[str, Any], rng: Rng) -> KorsarState:
    names = p["players"]
    return KorsarState(
        players=names,
        teams=p["teams"],
        hands={n: [] for n in names},
        pile=[],
        galleons=p["galleons"],
        loot={n: [] for n in names},
        removed=p["removed"],
        current=p["current"],
        turn=p["turn"],
        next_galleon=p["next_galleon"],
        last_beside=p["last_beside"],
        over=p["over"],
        rng=rng,
        last_launched=p["last_launched"],
    )


def from_view(pub: Mapping[str, Any], priv: Mapping[str, Any], player: str) -> KorsarState:
    """A full state consistent with what ``player`` knows: the unknown cards are dealt to the
    other players' hands and loot (galleons) and to the pile, in catalogue order."""
    r = Reader(FormatError, "malformed Korsar view")
    p = _read_public(pub, r)
    names = p["players"]
    if player not in names:
        r.fail(f"{player!r} does not play in this match")
    s = _shell(p, Rng.from_seed(f"korsar from_view {player}"))
    known: set[str] = set()
    if p["hands"] is not None and p["loot"] is not None:  # the game is over: all is shown
        s.hands, s.loot = p["hands"], p["loot"]
        known = set(names)
    else:
        t = r.table(priv, "private")
        partner = s.partner(player)
        required = ("hand", "loot") + (("partner_hand", "partner_loot") if partner else ())
        r.keys(t, "private", required, ("player", "partner"))
        if "player" in t and t["player"] != player:
            r.fail(f"the private part is {t['player']!r}'s, not {player!r}'s")
        s.hands[player] = r.cards(t["hand"], "private.hand")
        s.loot[player] = r.cards(t["loot"], "private.loot")
        known.add(player)
        if partner:
            s.hands[partner] = r.cards(t["partner_hand"], "private.partner_hand")
            s.loot[partner] = r.cards(t["partner_loot"], "private.partner_loot")
            known.add(partner)
        for q in known:
            if len(s.hands[q]) != p["hand_sizes"][q] or len(s.loot[q]) != p["loot_sizes"][q]:
                r.fail(f"{q}'s hand or loot does not match the public sizes")
    pool = C.ALL_CARDS - R.zones(s)
    if R.zones(s) - C.ALL_CARDS:
        r.fail("more copies of some card than the game has")
    galleons = [c for c in sorted(pool.elements(), key=C.sort_key) if C.is_galleon(c)]
    for q in names:
        if q in known:
            continue
        need = p["loot_sizes"][q]
        if need > len(galleons):
            r.fail("the loot sizes need more galleons than are unaccounted for")
        s.loot[q], galleons = galleons[:need], galleons[need:]
        pool -= Counter(s.loot[q])
    rest = sorted(pool.elements(), key=C.sort_key)
    for q in names:
        if q in known:
            continue
        need = p["hand_sizes"][q]
        s.hands[q], rest = rest[:need], rest[need:]
    if len(rest) != p["pile"]:
        r.fail(f"the pile should hold {p['pile']} cards but {len(rest)} are unaccounted for")
    s.pile = rest
    try:
        R.table_invariants(s)
    except AssertionError as exc:
        r.fail(str(exc))
    return s


def determinize(s: KorsarState, player: str, rng: Any) -> KorsarState:
    """A full state ``player`` cannot tell from ``s`` (their :func:`from_view` state), drawn
    from ``rng``: the cards they have not seen (the other sides' hands and loot, the pile) dealt
    anew at random, loot from the unseen galleons, every size kept; a new match generator."""
    w = s.copy()
    w.rng = Rng.from_seed(f"korsar determinize {rng.getrandbits(128):032x}")
    if w.over:
        return w
    partner = w.partner(player)
    others = [q for q in w.players if q != player and q != partner]
    pool = [c for q in others for c in w.hands[q]] + [c for q in others for c in w.loot[q]] + w.pile
    galleons = [i for i, c in enumerate(pool) if C.is_galleon(c)]
    taken: set[int] = set()
    for q in others:
        picks = rng.sample(galleons, len(w.loot[q]))
        galleons = [i for i in galleons if i not in picks]
        w.loot[q] = [pool[i] for i in picks]
        taken.update(picks)
    rest = [c for i, c in enumerate(pool) if i not in taken]
    rng.shuffle(rest)
    for q in others:
        k = len(w.hands[q])
        w.hands[q], rest = rest[:k], rest[k:]
    w.pile = rest
    return w


# -- the JSON view and its text ---------------------------------------------------------


def view(pub: Mapping[str, Any], priv: Mapping[str, Any] | None) -> dict[str, Any]:
    r = Reader(FormatError, "malformed Korsar view")
    p = _read_public(pub, r)
    s = _shell(p, Rng.from_seed("korsar view"))
    galleons = []
    for g in s.galleons:
        winner = R.controller(s, g)
        galleons.append(
            {
                "id": g.id,
                "owner": g.owner,
                "card": g.card,
                "value": C.value(g.card),
                "beside": {q: list(cs) for q, cs in g.beside.items()},
                "colours": R.colours(s, g),
                "strengths": R.strengths(s, g),
                "controller": winner or "",
            }
        )
    v: dict[str, Any] = {
        "players": list(s.players),
        "teams": [list(pair) for pair in s.teams],
        "turn": s.turn,
        "current": "" if s.over else s.current_player,
        "over": s.over,
        "pile": p["pile"],
        "hand_sizes": dict(p["hand_sizes"]),
        "loot_sizes": dict(p["loot_sizes"]),
        "galleons": galleons,
        "removed": list(s.removed),
        "last_beside": s.last_beside,
        "scores": dict(p["scores"]),
        "winners": list(p["winners"]),
    }
    if s.over:
        v["hands"] = {q: list(cs) for q, cs in (p["hands"] or {}).items()}
        v["loot"] = {q: list(cs) for q, cs in (p["loot"] or {}).items()}
    if priv:
        t = r.table(priv, "private")
        me = r.player(t.get("player"), "private.player", s.players)
        v["player"] = me
        v["hand"] = r.cards(t.get("hand", []), "private.hand")
        v["my_loot"] = r.cards(t.get("loot", []), "private.loot")
        partner = s.partner(me)
        mine = list(v["hand"]), list(v["my_loot"])
        if partner is not None:
            v["partner"] = partner
            v["partner_hand"] = r.cards(t.get("partner_hand", []), "private.partner_hand")
            v["partner_loot"] = r.cards(t.get("partner_loot", []), "private.partner_loot")
            mine = mine[0] + v["partner_hand"], mine[1] + v["partner_loot"]
        if not s.over:
            known = sum(C.value(c) for c in mine[1]) - sum(C.value(c) for c in mine[0] if C.is_galleon(c))
            v["scores"] = {q: known for q in ((me, partner) if partner else (me,))}
    return v


def _n(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _scores_line(v: Mapping[str, Any]) -> str:
    """``alice 5, bob 3``; in teams one score a side: ``alice + bob 8, carol + dave 6``."""
    parts, told = [], set()
    for q, n in v["scores"].items():
        if q in told:
            continue
        side = next((list(pair) for pair in v.get("teams") or [] if q in pair), [q])
        told.update(side)
        parts.append(f"{' + '.join(side)} {n}")
    return ", ".join(parts)


def render(v: Mapping[str, Any]) -> str:
    lines = []
    if v.get("over"):
        lines.append(f"Korsar — game over after turn {v['turn']}")
    else:
        lines.append(f"Korsar — turn {v['turn']}, {v['current']} to play; draw pile: {_n(v['pile'], 'card')}")
    if v.get("teams"):
        lines.append("Teams: " + ", ".join(" + ".join(pair) for pair in v["teams"]))
    lines.append("Players (seat order):")
    for q in v["players"]:
        mark = "*" if q == v.get("current") else " "
        lines.append(f" {mark} {q}: {_n(v['hand_sizes'][q], 'card')} in hand, {_n(v['loot_sizes'][q], 'galleon')} in loot")
    if v["galleons"]:
        lines.append("Galleons on the table:")
        for g in v["galleons"]:
            lines.append(f"  {g['id']}: {g['owner']}'s {g['card']} (value {g['value']})")
            for q, cs in g["beside"].items():
                col = g["colours"].get(q, "")
                lines.append(f"      {q}{' (' + col + ')' if col else ''}: {' '.join(cs)}")
            ctl = g["controller"]
            lines.append(f"      controlled by {ctl}" if ctl else "      nobody controls it (equal strengths)")
    else:
        lines.append("No galleons on the table.")
    if v.get("removed"):
        lines.append(f"Out of the game ({len(v['removed'])}): {' '.join(C.sorted_cards(v['removed']))}")
    if "hand" in v:
        lines.append(f"{v['player']}'s hand: {' '.join(v['hand']) or '(empty)'}")
        lines.append(f"{v['player']}'s loot: {' '.join(v['my_loot']) or '(none)'}")
        if "partner" in v:
            lines.append(f"partner {v['partner']}'s hand: {' '.join(v['partner_hand']) or '(empty)'}")
            lines.append(f"partner {v['partner']}'s loot: {' '.join(v['partner_loot']) or '(none)'}")
    if v.get("over"):
        for q in v["players"]:
            lines.append(f"  {q}: loot {' '.join(v.get('loot', {}).get(q, [])) or '-'}; hand {' '.join(v.get('hands', {}).get(q, [])) or '-'}")
        lines.append("Scores: " + _scores_line(v))
        lines.append("Winners: " + " and ".join(v["winners"]))
    elif v.get("scores"):
        lines.append("Score so far (loot minus galleons in hand): " + _scores_line(v))
    return "\n".join(lines)


def score_breakdown(v: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The final scores, part by part: the galleons in each side's loot, minus the galleons
    left in its hands (in teams, a side's parts count for both teammates, and each row names
    the ``side``, whose score is told once)."""
    if not v.get("over"):
        return None
    sides: dict[str, list[str]] = {q: [q] for q in v["players"]}
    for pair in v.get("teams", []):
        for q in pair:
            sides[q] = list(pair)
    rows: list[dict[str, Any]] = []
    for q in v["players"]:
        team = {"side": list(sides[q])} if len(sides[q]) > 1 else {}  # one score for the side
        for m in sides[q]:
            whose = "" if m == q else f"{m}'s "
            loot = v.get("loot", {}).get(m, [])
            if loot:
                rows.append({"player": q, "what": f"{whose}loot: {' '.join(loot)}",
                             "points": sum(C.value(c) for c in loot), **team})
            held = [c for c in v.get("hands", {}).get(m, []) if C.is_galleon(c)]
            if held:
                rows.append({"player": q, "what": f"galleons left in {whose}hand: {' '.join(held)}",
                             "points": -sum(C.value(c) for c in held), **team})
    return rows
