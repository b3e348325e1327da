"""Public and private parts, the JSON view, its text, and a state rebuilt from a view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from koryo_pbm.errors import FormatError

from . import rules
from .cards import (
    CARD_IDS,
    CHARS,
    INDEX,
    MERCHANT,
    NCARDS,
    ROUNDS,
    TOKENS,
    VALUES,
    base_limit,
    counts_to_ids,
    deal_size,
)
from .positions import check_players
from .state import ACTIONS, END, OVER, PHASES, Hidden, KoryoState


def public(s: KoryoState) -> dict[str, Any]:
    players = s.players
    n = len(players)
    turn = players[s.current()] if s.phase in (ACTIONS, END) else ""
    return {
        "round": s.round,
        "phase": s.phase,
        "players": list(players),
        "first": players[s.first],
        "turn": turn,
        "bank": s.bank,
        "tokens": {players[p]: s.tokens[p] for p in range(n)},
        "tables": {players[p]: {CARD_IDS[c]: s.tables[p][c] for c in range(NCARDS) if s.tables[p][c]}
                   for p in range(n)},
        "facedown_sizes": {players[p]: s.facedown_size(p) for p in range(n)},
        "hand_sizes": {players[p]: s.hand_size(p) for p in range(n)},
        "deck": s.deck_size(),
        "discard": s.discard_size(),
    }


def private(s: KoryoState, player: str) -> dict[str, Any]:
    p = s.players.index(player)
    return {"player": player, "hand": counts_to_ids(s.hands[p]), "facedown": counts_to_ids(s.facedown[p])}


def _need(m: Mapping, key: str) -> Any:
    if key not in m:
        raise FormatError(f"public part: missing {key!r}")
    return m[key]


def _tables_from(public: Mapping, players: tuple[str, ...]) -> list[list[int]]:
    tables_in = _need(public, "tables")
    if not isinstance(tables_in, Mapping):
        raise FormatError("public part: tables must be a table")
    tables = []
    for name in players:
        row = tables_in.get(name, {})
        if not isinstance(row, Mapping):
            raise FormatError(f"public part: tables.{name} must be a table of card = count")
        counts = [0] * NCARDS
        for cid, k in row.items():
            if cid not in INDEX or not isinstance(k, int) or isinstance(k, bool) or k < 0:
                raise FormatError(f"public part: tables.{name}.{cid} is not a card count")
            counts[INDEX[cid]] = k
        tables.append(counts)
    return tables


def _sizes(public: Mapping, key: str, players: tuple[str, ...]) -> list[int]:
    m = _need(public, key)
    if not isinstance(m, Mapping):
        raise FormatError(f"public part: {key} must be a table")
    out = []
    for name in players:
        v = m.get(name, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise FormatError(f"public part: {key}.{name} must be a non-negative integer")
        out.append(v)
    return out


def view(public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
    players = check_players(_need(public, "players"), FormatError)
    tables = _tables_from(public, players)
    tokens = _sizes(public, "tokens", players)
    phase = _need(public, "phase")
    out: dict[str, Any] = {
        "round": _need(public, "round"),
        "phase": phase,
        "players": list(players),
        "first": _need(public, "first"),
        "turn": public.get("turn", "") or None,
        "bank": _need(public, "bank"),
        "tokens": dict(zip(players, tokens, strict=False)),
        "tables": {name: {CARD_IDS[c]: tables[p][c] for c in range(NCARDS) if tables[p][c]}
                   for p, name in enumerate(players)},
        "facedown_sizes": dict(zip(players, _sizes(public, "facedown_sizes", players), strict=False)),
        "hand_sizes": dict(zip(players, _sizes(public, "hand_sizes", players), strict=False)),
        "deck": _need(public, "deck"),
        "discard": public.get("discard", 0),
    }
    powers = {}
    for c in CHARS:
        holder = rules.power_holder(tables, c)
        powers[CARD_IDS[c]] = players[holder] if holder is not None else None
    out["powers"] = powers
    sc = list(tokens)
    for p, t in enumerate(tables):
        sc[p] -= t[9] + t[10]
    for c in CHARS:
        for p in range(len(players)):
            if rules.has_scoring(tables, p, c):
                sc[p] += VALUES[c]
    out["scores"] = dict(zip(players, sc, strict=False))
    top = max(sc)
    out["winners"] = [players[p] for p in range(len(players)) if sc[p] == top] if phase == OVER else []
    rnd = out["round"]
    if isinstance(rnd, int) and 1 <= rnd <= ROUNDS:
        out["deal_size"] = deal_size(rnd)
        out["limit"] = base_limit(rnd)
    if private is not None:
        if not isinstance(private, Mapping):
            raise FormatError("private part must be a table")
        out["player"] = private.get("player", "")
        out["hand"] = list(private.get("hand", []))
        out["facedown"] = list(private.get("facedown", []))
    return out


def _card(cid: str) -> str:
    """A card with its value: ``merchant (9)``; an event: ``barbarian (event, -1)``."""
    c = INDEX.get(cid)
    if c is None:
        return cid
    return f"{cid} ({VALUES[c]})" if c in CHARS else f"{cid} (event, -1)"


def _counts_line(counts: Mapping[str, int], *, values: bool = True) -> str:
    """``merchant (9) ×2, spy (2)`` (``values=False``: ``merchant ×2, spy``)."""
    name = _card if values else str
    parts = [f"{name(cid)} ×{k}" if k > 1 else name(cid) for cid, k in counts.items() if k]
    return ", ".join(parts) if parts else "(nothing)"


def render(v: Mapping[str, Any]) -> str:
    phase = v.get("phase")
    head = f"Koryo — round {v.get('round')} of {ROUNDS}, phase {phase}"
    if v.get("turn"):
        head += f" ({v['turn']}'s {'action turn' if phase == ACTIONS else 'discard'})"
    lines = [head]
    lines.append(f"first player: {v.get('first')} · bank: {v.get('bank')} token(s) · deck: {v.get('deck')} "
                 f"card(s) · discard pile: {v.get('discard', 0)}"
                 + (f" · limit this round: {v['limit']} (+2 with senator)" if "limit" in v else ""))
    for name in v.get("players", []):
        mark = "*" if name == v.get("first") else " "
        lines.append(f"{mark}{name}: score {v['scores'][name]}, tokens {v['tokens'][name]}, "
                     f"hand {v['hand_sizes'][name]}, face down {v['facedown_sizes'][name]}")
        lines.append(f"    table: {_counts_line(v['tables'][name])}")
    pw = [f"{cid} {who}" for cid, who in v.get("powers", {}).items()
          if who and cid != CARD_IDS[MERCHANT]]  # the Merchant has no power
    lines.append("powers: " + (", ".join(pw) if pw else "nobody holds a power majority"))
    if "hand" in v:
        lines.append(f"your hand ({v.get('player')}): " + (_counts_line(Counter(v["hand"])) if v["hand"] else "(empty)"))
        lines.append("your face-down cards: " + (_counts_line(Counter(v["facedown"])) if v["facedown"] else "(none)"))
    if v.get("winners"):
        w = v["winners"]
        lines.append(("winner: " if len(w) == 1 else "winners (shared): ") + ", ".join(w))
    return "\n".join(lines)


def from_view(public: Mapping[str, Any], private: Mapping[str, Any], player: str) -> KoryoState:
    """What ``player`` knows: tables, tokens, bank, their own hand and face-down cards. Other
    hands, face-down cards, the deck and the discard pile are known only by size (kept in
    :class:`Hidden`); their contents are left empty. Enough for ``check``, ``random_order``
    and ``describe_choices`` for that player, not for ``apply``."""
    if not isinstance(public, Mapping) or not isinstance(private, Mapping):
        raise FormatError("from_view needs a public and a private table")
    players = check_players(_need(public, "players"), FormatError)
    if player not in players:
        raise FormatError(f"unknown player {player!r}")
    p = players.index(player)
    s = KoryoState.__new__(KoryoState)
    s.players = players
    rnd = _need(public, "round")
    phase = _need(public, "phase")
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= ROUNDS or phase not in PHASES:
        raise FormatError("public part: bad round or phase")
    s.round = rnd
    s.phase = phase
    first = _need(public, "first")
    if first not in players:
        raise FormatError("public part: first is not a player")
    s.first = players.index(first)
    s.turn = 0
    turn = public.get("turn", "")
    if phase in (ACTIONS, END):
        if turn not in players:
            raise FormatError("public part: turn is not a player")
        s.turn = (players.index(turn) - s.first) % len(players)
    bank = _need(public, "bank")
    if not isinstance(bank, int) or isinstance(bank, bool) or not 0 <= bank <= TOKENS:
        raise FormatError("public part: bad bank")
    s.bank = bank
    s.tokens = _sizes(public, "tokens", players)
    s.tables = _tables_from(public, players)
    hand_sizes = _sizes(public, "hand_sizes", players)
    fd_sizes = _sizes(public, "facedown_sizes", players)
    n = len(players)
    s.hands = [[0] * NCARDS for _ in range(n)]
    s.facedown = [[0] * NCARDS for _ in range(n)]
    for key, piles in (("hand", s.hands), ("facedown", s.facedown)):
        ids = private.get(key, [])
        if not isinstance(ids, list):
            raise FormatError(f"private part: {key} must be a list of card ids")
        for cid in ids:
            if cid not in INDEX:
                raise FormatError(f"private part: unknown card id {cid!r}")
            piles[p][INDEX[cid]] += 1
    hid_h = [0 if q == p else hand_sizes[q] for q in range(n)]
    hid_f = [0 if q == p else fd_sizes[q] for q in range(n)]
    deck = _need(public, "deck")
    disc = public.get("discard", 0)
    if not isinstance(deck, int) or not isinstance(disc, int):
        raise FormatError("public part: deck and discard are counts")
    s.deck = []
    s.discard = [0] * NCARDS
    s.hidden = Hidden(hid_h, hid_f, deck, disc)
    s.decision = None
    s.rng = None
    return s


def score_breakdown(v: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The final scores of a finished game, part by part (spec, "End of the game"): each
    character family's scoring majority, the events left on the tables, the tokens."""
    if v.get("phase") != OVER:
        return None
    players = list(v["players"])
    tables = v["tables"]
    rows: list[dict[str, Any]] = []
    for c in CHARS:
        cid = CARD_IDS[c]
        held = sorted(((tables[q].get(cid, 0), q) for q in players if tables[q].get(cid, 0)), key=lambda x: -x[0])
        if not held:
            continue
        top = held[0][0]
        leaders = [q for k, q in held if k == top]
        others = ", ".join(f"{q} {k}" for k, q in held[1:])
        if len(leaders) == 1:
            against = f" (against {others})" if others else " (nobody else)"
            rows.append({"player": leaders[0], "what": f"{cid} majority with {top}{against}", "points": VALUES[c]})
        else:
            rows.append({"player": "", "what": f"{cid}: {' and '.join(leaders)} tie with {top} each, nobody scores "
                                                f"its {VALUES[c]}", "points": 0})
    for q in players:
        events = {cid: tables[q].get(cid, 0) for cid in ("barbarian", "lobbying") if tables[q].get(cid, 0)}
        if events:
            rows.append({"player": q, "what": f"events on the table: {_counts_line(events, values=False)}",
                         "points": -sum(events.values())})
        tokens = v["tokens"][q]
        if tokens:
            rows.append({"player": q, "what": f"{tokens} token{'s' if tokens != 1 else ''}", "points": tokens})
    return rows
