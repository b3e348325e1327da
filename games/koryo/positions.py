"""Positions — "the FEN of Koryo" — and the whole-state format.

A position document (TOML)::

    game = "koryo"
    round = 3                 # 1..8
    phase = "orders"          # "orders" | "actions" | "end" | "over"
    players = ["alice", "bob", "carol"]
    first = "alice"
    turn = "bob"              # optional, phases "actions"/"end": whose turn is next
                              # (default: the first player, i.e. nobody has played yet)
    bank = 6                  # optional; default 8 minus the tokens held
    deck = ["spy", "merchant"]   # optional: the top of the deck, top first
    discard = ["senator"]        # optional: the discard pile (default empty)
    [tokens]                  # optional, missing players hold 0
    [tables]                  # cards in front of each player (missing: none)
    [hands]                   # phase "orders" only (required there)
    [facedown]                # phase "actions" only (required there)

Cards placed nowhere (not on a table, in a hand, face down, in ``deck`` or ``discard``) go
*under* the given ``deck``, shuffled by the seed. A dumped position lists the whole deck, so it
loads back to the same state (all but the generator, which comes from the new seed).

Checks (``PositionError`` naming the problem): key types, player count and names, round
1..8, phase, at most the copies that exist of each card, bank + tokens = 8, each phase has
its cards and only those, hands no bigger than the deal (11 − r, +1 with the Broadcaster
power majority; smaller hands are allowed: a puzzle need not be dealt in full), each face-down
group a legal play (one id, or two different ids with the Ship Owner power — the power is
checked only before the first action turn, as later turns may have moved it), nobody before
``turn`` still holding face-down cards in the actions phase, and every table the rules have
already held to a limit complying with it: from round 2 on, at the start of a round (phase
"orders", or "actions" before any turn), every table with the previous round's limit; in phase
"end", the tables of the players before ``turn`` (their discard is done) with this round's; in
phase "over", every table with round 8's. Phase "over" needs round 8.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from koryo_pbm.engine.rng import Rng

from . import rules
from .cards import (
    BROADCASTER,
    CARD_IDS,
    COPIES,
    INDEX,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NCARDS,
    ROUNDS,
    SHIPOWNER,
    TOKENS,
    base_limit,
    counts_to_ids,
    deal_size,
)
from .state import ACTIONS, END, ORDERS, OVER, PHASES, KoryoState

POSITION_KEYS = {"game", "round", "phase", "players", "first", "turn", "bank", "tokens", "tables",
                 "hands", "facedown", "deck", "discard"}
STATE_KEYS = POSITION_KEYS | {"version", "rng"}
STATE_VERSION = 1


def _int(doc: Mapping, key: str, err: type[Exception], lo: int, hi: int) -> int:
    v = doc[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise err(f"{key} must be an integer")
    if not lo <= v <= hi:
        raise err(f"{key} must be between {lo} and {hi}, not {v}")
    return v


def check_players(players: Any, err: type[Exception]) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
        raise err("players must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise err(f"Koryo is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    if any(not p or p != p.strip() for p in players):
        raise err("player names must be non-empty, without leading or trailing spaces")
    if len(set(players)) != len(players):
        raise err("player names must be different")
    return tuple(players)


def _cards(x: Any, what: str, err: type[Exception]) -> list[int]:
    if not isinstance(x, list):
        raise err(f"{what} must be a list of card ids")
    out = []
    for c in x:
        if not isinstance(c, str) or c not in INDEX:
            raise err(f"{what}: unknown card id {c!r} (card ids: {', '.join(CARD_IDS)})")
        out.append(INDEX[c])
    return out


def _per_player(doc: Mapping, key: str, players: tuple[str, ...], err: type[Exception]) -> list[list[int]]:
    table = doc.get(key, {})
    if not isinstance(table, Mapping):
        raise err(f"[{key}] must be a table of player = [card ids]")
    for name in table:
        if name not in players:
            raise err(f"[{key}]: unknown player {name!r}")
    out = []
    for name in players:
        counts = [0] * NCARDS
        for c in _cards(table.get(name, []), f"{key}.{name}", err):
            counts[c] += 1
        out.append(counts)
    return out


def parse(doc: Any, err: type[Exception], *, complete: bool) -> tuple[KoryoState, list[int]]:
    """A state (without generator) from a position or state document, and the cards it does
    not place (to shuffle under the deck). ``complete``: every card must be placed."""
    if not isinstance(doc, Mapping):
        raise err("a position must be a table")
    allowed = STATE_KEYS if complete else POSITION_KEYS
    extra = sorted(str(k) for k in doc if k not in allowed)
    if extra:
        raise err(f"unknown key(s): {', '.join(extra)}")
    for key in ("game", "round", "phase", "players", "first"):
        if key not in doc:
            raise err(f"missing key {key!r}")
    if doc["game"] != "koryo":
        raise err(f"game must be \"koryo\", not {doc['game']!r}")
    players = check_players(doc["players"], err)
    n = len(players)
    rnd = _int(doc, "round", err, 1, ROUNDS)
    phase = doc["phase"]
    if phase not in PHASES:
        raise err(f"phase must be one of {', '.join(PHASES)}, not {phase!r}")
    if phase == OVER and rnd != ROUNDS:
        raise err("phase \"over\" needs round 8")
    first = doc["first"]
    if first not in players:
        raise err(f"first: unknown player {first!r}")
    s = KoryoState.__new__(KoryoState)
    s.players = players
    s.round = rnd
    s.phase = phase
    s.first = players.index(first)
    s.turn = 0
    s.rng = None
    s.hidden = None
    s.decision = None
    if "turn" in doc:
        if phase not in (ACTIONS, END):
            raise err("turn is only for phases \"actions\" and \"end\"")
        if doc["turn"] not in players:
            raise err(f"turn: unknown player {doc['turn']!r}")
        s.turn = (players.index(doc["turn"]) - s.first) % n
    # tokens
    tok = doc.get("tokens", {})
    if not isinstance(tok, Mapping):
        raise err("[tokens] must be a table of player = number")
    for name, v in tok.items():
        if name not in players:
            raise err(f"[tokens]: unknown player {name!r}")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise err(f"tokens.{name} must be a non-negative integer")
    s.tokens = [tok.get(name, 0) for name in players]
    held = sum(s.tokens)
    if "bank" in doc:
        s.bank = _int(doc, "bank", err, 0, TOKENS)
    else:
        s.bank = TOKENS - held
    if s.bank < 0 or s.bank + held != TOKENS:
        raise err(f"tokens held ({held}) plus bank ({s.bank}) must be {TOKENS}")
    # cards
    s.tables = _per_player(doc, "tables", players, err)
    if phase == ORDERS and "hands" not in doc:
        raise err("phase \"orders\" needs [hands]")
    if phase == ACTIONS and "facedown" not in doc and s.turn == 0:
        raise err("phase \"actions\" needs [facedown]")
    s.hands = _per_player(doc, "hands", players, err)
    s.facedown = _per_player(doc, "facedown", players, err)
    if phase != ORDERS and any(map(any, s.hands)):
        raise err("hands hold cards only in phase \"orders\" (what is not played is discarded)")
    if phase != ACTIONS and any(map(any, s.facedown)):
        raise err("face-down cards exist only in phase \"actions\"")
    deck_top = _cards(doc.get("deck", []), "deck", err)
    disc = _cards(doc.get("discard", []), "discard", err)
    s.discard = [0] * NCARDS
    for c in disc:
        s.discard[c] += 1
    census = list(s.discard)
    for c in deck_top:
        census[c] += 1
    for piles in (s.tables, s.hands, s.facedown):
        for pile in piles:
            for c in range(NCARDS):
                census[c] += pile[c]
    rest: list[int] = []
    for c in range(NCARDS):
        if census[c] > COPIES[c]:
            raise err(f"{census[c]} {CARD_IDS[c]} placed, but only {COPIES[c]} exist")
        rest.extend([c] * (COPIES[c] - census[c]))
    if complete and rest:
        raise err(f"{len(rest)} card(s) are nowhere: a state must place all 55 cards")
    s.deck = deck_top[::-1]  # top of the deck last
    _plausible(s, err)
    return s, rest


def _plausible(s: KoryoState, err: type[Exception]) -> None:
    players = s.players
    n = len(players)
    r = s.round
    if s.phase == ORDERS:
        for p in range(n):
            most = deal_size(r) + (1 if rules.has_power(s.tables, p, BROADCASTER) else 0)
            size = sum(s.hands[p])
            if size > most:
                raise err(f"{players[p]} holds {size} cards, more than the {most} dealt in round {r}")
    if s.phase == ACTIONS:
        for k in range(n):
            p = (s.first + k) % n
            fd = s.facedown[p]
            if k < s.turn and any(fd):
                raise err(f"{players[p]} has already taken their action turn but still has face-down cards")
            ids = [c for c in range(NCARDS) if fd[c]]
            # the Ship Owner majority is judged on the tables of the order phase, which are
            # those of the position only before the first action turn
            if len(ids) > 1 and (sum(fd) != 2 or (s.turn == 0 and not rules.has_power(s.tables, p, SHIPOWNER))):
                raise err(f"{players[p]}'s face-down cards are not a legal play "
                          f"(different ids need exactly two cards and the Ship Owner power)")
    at_start = s.phase == ORDERS or (s.phase == ACTIONS and s.turn == 0)
    if r >= 2 and at_start:
        limit = base_limit(r - 1)
        for p in range(n):
            if not rules._complies(s.tables, p, limit):
                raise err(f"{players[p]}'s table has {sum(s.tables[p])} cards, over the limit {limit} "
                          f"(+2 with the senator majority) the end of round {r - 1} leaves")
    if s.phase == END:  # the players whose end-phase turn is past have complied
        limit = base_limit(r)
        for k in range(s.turn):
            p = (s.first + k) % n
            if not rules._complies(s.tables, p, limit):
                raise err(f"{players[p]}'s table has {sum(s.tables[p])} cards, over the limit {limit} "
                          f"(+2 with the senator majority) of round {r}, but their end-phase turn is past")
    if s.phase == OVER:  # the last end phase is over: every table complies
        limit = base_limit(r)
        for p in range(n):
            if not rules._complies(s.tables, p, limit):
                raise err(f"{players[p]}'s table has {sum(s.tables[p])} cards, over the limit {limit} "
                          f"(+2 with the senator majority) the end of round {r} leaves")


def dump(s: KoryoState) -> dict[str, Any]:
    players = s.players
    doc: dict[str, Any] = {
        "game": "koryo",
        "round": s.round,
        "phase": s.phase,
        "players": list(players),
        "first": players[s.first],
    }
    if s.phase in (ACTIONS, END):
        doc["turn"] = players[s.current()]
    doc["bank"] = s.bank
    doc["tokens"] = {players[p]: s.tokens[p] for p in range(len(players))}
    doc["tables"] = {players[p]: counts_to_ids(s.tables[p]) for p in range(len(players))}
    if s.phase == ORDERS:
        doc["hands"] = {players[p]: counts_to_ids(s.hands[p]) for p in range(len(players))}
    if s.phase == ACTIONS:
        doc["facedown"] = {players[p]: counts_to_ids(s.facedown[p]) for p in range(len(players))}
    doc["deck"] = [CARD_IDS[c] for c in reversed(s.deck)]
    doc["discard"] = counts_to_ids(s.discard)
    return doc


def load_position(doc: Any, seed: str, err: type[Exception]) -> KoryoState:
    s, rest = parse(doc, err, complete=False)
    s.rng = Rng.from_seed(seed)
    rules.shuffle(s.rng, rest)
    s.deck = rest + s.deck  # the given top stays on top (the end of the list)
    return s


def dump_state(s: KoryoState) -> dict[str, Any]:
    doc = dump(s)
    doc["version"] = STATE_VERSION
    assert s.rng is not None
    doc["rng"] = s.rng.state()
    return doc


def load_state(doc: Any, err: type[Exception]) -> KoryoState:
    s, _ = parse(doc, err, complete=True)
    if doc.get("version") != STATE_VERSION:
        raise err(f"state version must be {STATE_VERSION}")
    rng = doc.get("rng")
    if not isinstance(rng, Mapping):
        raise err("state needs an [rng] table")
    try:
        s.rng = Rng.from_state(dict(rng))
    except ValueError as exc:
        raise err(f"rng: {exc}") from None
    return s
