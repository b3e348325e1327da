"""Korsar's state as TOML-safe data, and position documents."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NoReturn

from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import FormatError, KoryoPbmError, PositionError, SetupError

from . import cards as C
from . import rules as R
from .state import Galleon, KorsarState

STATE_FORMAT = "korsar-state/1"


class Reader:
    """Reads untrusted TOML-like data, raising ``error`` with the path of the bad field."""

    def __init__(self, error: type[KoryoPbmError], what: str) -> None:
        self.error = error
        self.what = what

    def fail(self, msg: str) -> NoReturn:
        raise self.error(f"{self.what}: {msg}")

    def table(self, data: object, path: str) -> Mapping[str, Any]:
        if not isinstance(data, Mapping):
            self.fail(f"{path} must be a table")
        return data

    def keys(self, data: Mapping[str, Any], path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
        unknown = sorted(str(k) for k in data if k not in required and k not in optional)
        if unknown:
            self.fail(f"unknown key {', '.join(unknown)} in {path}")
        missing = [k for k in required if k not in data]
        if missing:
            self.fail(f"{path} has no {', '.join(missing)}")

    def str_(self, data: object, path: str) -> str:
        if not isinstance(data, str):
            self.fail(f"{path} must be text, not {data!r}")
        return data

    def int_(self, data: object, path: str, low: int = 0) -> int:
        if not isinstance(data, int) or isinstance(data, bool) or data < low:
            self.fail(f"{path} must be an integer of at least {low}, not {data!r}")
        return data

    def bool_(self, data: object, path: str) -> bool:
        if not isinstance(data, bool):
            self.fail(f"{path} must be true or false, not {data!r}")
        return data

    def strs(self, data: object, path: str) -> list[str]:
        if not isinstance(data, list | tuple):
            self.fail(f"{path} must be a list")
        return [self.str_(x, f"{path}[{i}]") for i, x in enumerate(data)]

    def cards(self, data: object, path: str) -> list[str]:
        out = self.strs(data, path)
        for c in out:
            if not C.is_card(c):
                self.fail(f"unknown card {c!r} in {path}")
        return out

    def player(self, data: object, path: str, players: tuple[str, ...]) -> str:
        p = self.str_(data, path)
        if p not in players:
            self.fail(f"{path} names {p!r}, who does not play")
        return p

    def per_player(self, data: object, path: str, players: tuple[str, ...], *, every: bool) -> dict[str, list[str]]:
        t = self.table(data, path)
        for p in t:
            if p not in players:
                self.fail(f"{path} names {p!r}, who does not play")
        if every:
            missing = [p for p in players if p not in t]
            if missing:
                self.fail(f"{path} has no {', '.join(missing)}")
        return {p: self.cards(t.get(p, []), f"{path}.{p}") for p in players}

    def players_teams(self, data: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
        names = tuple(self.strs(data.get("players"), "players"))
        raw_teams = data.get("teams")
        if raw_teams is not None and not isinstance(raw_teams, list | bool):
            self.fail("teams must be a list of pairs of player names")
        try:
            names = R.check_players(names)
            teams = R.resolve_teams(names, raw_teams or None)
        except SetupError as exc:
            self.fail(str(exc))
        return names, teams

    def galleons(self, data: object, players: tuple[str, ...]) -> list[Galleon]:
        if not isinstance(data, list):
            self.fail("galleons must be a list of tables")
        out = []
        for i, raw in enumerate(data):
            path = f"galleons[{i}]"
            t = self.table(raw, path)
            self.keys(t, path, ("id", "owner", "card"), ("beside",))
            gid = self.str_(t["id"], f"{path}.id")
            if not R.GALLEON_ID.fullmatch(gid):
                self.fail(f"{path}.id {gid!r} is not a galleon id (g1, g2, ...)")
            owner = self.player(t["owner"], f"{path}.owner", players)
            card = self.str_(t["card"], f"{path}.card")
            if not C.is_card(card) or not C.is_galleon(card):
                self.fail(f"{path}.card {card!r} is not a galleon card (galleon-2 ... galleon-8)")
            beside = {p: cs for p, cs in self.per_player(t.get("beside", {}), f"{path}.beside", players, every=False).items() if cs}
            # keep the document's order of players (it is the order they came beside the galleon)
            order = [p for p in self.table(t.get("beside", {}), f"{path}.beside") if p in beside]
            out.append(Galleon(gid, owner, card, {p: beside[p] for p in order}))
        return out


def _invariant_or(error: type[KoryoPbmError], what: str, check: Any, s: KorsarState) -> None:
    try:
        check(s)
    except AssertionError as exc:
        raise error(f"{what}: {exc}") from None


# -- the whole state --------------------------------------------------------------------


def dump_state(s: KorsarState) -> dict[str, Any]:
    return {
        "format": STATE_FORMAT,
        "players": list(s.players),
        "teams": [list(pair) for pair in s.teams],
        "current": s.current_player,
        "turn": s.turn,
        "over": s.over,
        "next_galleon": s.next_galleon,
        "last_beside": s.last_beside,
        "last_launched": s.last_launched,
        "pile": list(s.pile),
        "hands": {p: list(s.hands[p]) for p in s.players},
        "galleons": [_dump_galleon(g) for g in s.galleons],
        "loot": {p: list(s.loot[p]) for p in s.players},
        "removed": list(s.removed),
        "rng": s.rng.state(),
    }


def _dump_galleon(g: Galleon) -> dict[str, Any]:
    return {"id": g.id, "owner": g.owner, "card": g.card, "beside": {p: list(cs) for p, cs in g.beside.items()}}


STATE_KEYS = ("format", "players", "teams", "current", "turn", "over", "next_galleon", "last_beside", "pile", "hands", "galleons", "loot", "removed", "rng")
#: keys added since the format's first version: states written before them load without them
OPTIONAL_STATE_KEYS = ("last_launched",)


def load_state(data: object) -> KorsarState:
    r = Reader(FormatError, "malformed Korsar state")
    t = r.table(data, "the state")
    r.keys(t, "the state", STATE_KEYS, OPTIONAL_STATE_KEYS)
    if t["format"] != STATE_FORMAT:
        r.fail(f"format is {t['format']!r}, expected {STATE_FORMAT!r}")
    names, teams = r.players_teams(t)
    stored = t["teams"]
    if not isinstance(stored, list) or [list(p) if isinstance(p, list | tuple) else p for p in stored] != [list(p) for p in teams]:
        r.fail("teams must list the pairs as [first, second] in seat order")
    current = r.player(t["current"], "current", names)
    rng_raw = r.table(t["rng"], "rng")
    try:
        rng = Rng.from_state(dict(rng_raw))
    except ValueError as exc:
        r.fail(f"rng: {exc}")
    s = KorsarState(
        players=names,
        teams=teams,
        hands=r.per_player(t["hands"], "hands", names, every=True),
        pile=r.cards(t["pile"], "pile"),
        galleons=r.galleons(t["galleons"], names),
        loot=r.per_player(t["loot"], "loot", names, every=True),
        removed=r.cards(t["removed"], "removed"),
        current=names.index(current),
        turn=r.int_(t["turn"], "turn", 1),
        next_galleon=r.int_(t["next_galleon"], "next_galleon", 1),
        last_beside=r.str_(t["last_beside"], "last_beside"),
        over=r.bool_(t["over"], "over"),
        rng=rng,
        last_launched=r.str_(t.get("last_launched", ""), "last_launched"),
    )
    _invariant_or(FormatError, "malformed Korsar state", R.invariants, s)
    return s


# -- positions --------------------------------------------------------------------------

POSITION_KEYS = ("game", "players", "current", "teams", "turn", "over", "next_galleon", "last_beside", "last_launched", "hands", "pile", "removed", "galleons", "loot")


def load_position(doc: object, seed: str) -> KorsarState:
    r = Reader(PositionError, "impossible Korsar position")
    t = r.table(doc, "the position")
    r.keys(t, "the position", ("game", "players", "current"), POSITION_KEYS)
    if t["game"] != "korsar":
        r.fail(f"game is {t['game']!r}, not 'korsar'")
    names, teams = r.players_teams(t)
    current = r.player(t["current"], "current", names)
    hands = r.per_player(t.get("hands", {}), "hands", names, every=False)
    loot = r.per_player(t.get("loot", {}), "loot", names, every=False)
    galleons = r.galleons(t.get("galleons", []), names)
    removed = r.cards(t.get("removed", []), "removed")
    explicit_pile = "pile" in t
    pile = r.cards(t["pile"], "pile") if explicit_pile else []
    placed: Counter[str] = Counter(pile) + Counter(removed)
    for cs in list(hands.values()) + list(loot.values()):
        placed.update(cs)
    for g in galleons:
        placed[g.card] += 1
        for cs in g.beside.values():
            placed.update(cs)
    for card, n in placed.items():
        if n > C.COPIES[card]:
            r.fail(f"too many copies of {card}: {n} placed, the game has {C.COPIES[card]}")
    rest = sorted((C.ALL_CARDS - placed).elements(), key=C.sort_key)
    rng = Rng.from_seed(seed)
    if explicit_pile:
        removed = removed + rest  # with an explicit pile, every card not placed is out of the game
    else:
        rng.shuffle(rest)
        pile = rest
    top = max((int(g.id[1:]) for g in galleons), default=0)
    next_galleon = r.int_(t.get("next_galleon", top + 1), "next_galleon", 1)
    if next_galleon <= top:
        r.fail(f"next_galleon {next_galleon} must be above every galleon id on the table (g{top})")
    last_beside = r.str_(t.get("last_beside", ""), "last_beside")
    if last_beside and last_beside not in [g.id for g in galleons]:
        r.fail(f"last_beside names {last_beside!r}, which is not a galleon on the table")
    last_launched = r.str_(t.get("last_launched", ""), "last_launched")
    if last_launched and last_launched not in [g.id for g in galleons]:
        r.fail(f"last_launched names {last_launched!r}, which is not a galleon on the table")
    s = KorsarState(
        players=names,
        teams=teams,
        hands=hands,
        pile=pile,
        galleons=galleons,
        loot=loot,
        removed=removed,
        current=names.index(current),
        turn=r.int_(t.get("turn", 1), "turn", 1),
        next_galleon=next_galleon,
        last_beside=last_beside,
        over=r.bool_(t.get("over", False), "over"),
        rng=rng,
        last_launched=last_launched,
    )
    _invariant_or(PositionError, "impossible Korsar position", R.table_invariants, s)
    if not s.over:
        # The position is the moment the current player's turn begins: seize, then take any
        # one-outcome turns, exactly as after an order.
        events: list = []
        side = R.empty_side(s)
        if side:
            R.finish(s, side, events)
        else:
            R.begin_turn(s, events)
            R.settle(s, events)
    return s


def dump_position(s: KorsarState) -> dict[str, Any]:
    doc: dict[str, Any] = {"game": "korsar", "players": list(s.players)}
    if s.teams:
        doc["teams"] = [list(pair) for pair in s.teams]
    doc["current"] = s.current_player
    doc["turn"] = s.turn
    if s.over:
        doc["over"] = True
    doc["next_galleon"] = s.next_galleon
    if s.last_beside:
        doc["last_beside"] = s.last_beside
    if s.last_launched:
        doc["last_launched"] = s.last_launched
    doc["pile"] = list(s.pile)
    doc["removed"] = list(s.removed)
    doc["hands"] = {p: list(s.hands[p]) for p in s.players}
    doc["loot"] = {p: list(s.loot[p]) for p in s.players if s.loot[p]}
    doc["galleons"] = [_dump_galleon(g) for g in s.galleons]
    return doc
