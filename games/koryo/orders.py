"""Reading orders (``OrderError`` for a malformed one), one turn's order played, random legal
orders, and the choices explained for an orders file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from koryo_pbm.engine.contract import BotRandom, Event
from koryo_pbm.errors import IllegalOrder, OrderError

from . import rules
from .cards import (
    BANKER,
    BARBARIAN,
    CARD_IDS,
    CHARS,
    INDEX,
    LOBBYING,
    NCARDS,
    NCHARS,
    PRIEST,
    SHIPOWNER,
    SPY,
    base_limit,
    describe_counts,
)
from .state import KoryoState

STEP_KEYS = {
    "reveal": ({"do"}, set()),
    "barbarian": ({"do", "player", "card"}, {"do"}),
    "lobbying": ({"do", "swap"}, {"do"}),
    "banker": ({"do"}, set()),
    "priest": ({"do", "card"}, set()),
    "spy": ({"do", "player"}, set()),
}


def _mapping(order: Any, key: str) -> Any:
    if type(order) is dict and len(order) == 1 and key in order:  # the usual case, quickly
        return order[key]
    if not isinstance(order, Mapping):
        raise OrderError(f"an order must be a table with the key {key!r}")
    extra = sorted(str(k) for k in order if k != key)
    if extra:
        raise OrderError(f"unknown key(s) in order: {', '.join(extra)} (expected only {key!r})")
    if key not in order:
        raise OrderError(f"order needs the key {key!r}")
    return order[key]


def _card(x: Any, where: str) -> int:
    if not isinstance(x, str):
        raise OrderError(f"{where}: a card id must be a string, not {type(x).__name__}")
    c = INDEX.get(x)
    if c is None:
        raise OrderError(f"{where}: unknown card id {x!r} (card ids: {', '.join(CARD_IDS)})")
    return c


def _player(s: KoryoState, x: Any, where: str) -> int:
    if not isinstance(x, str):
        raise OrderError(f"{where}: a player must be a name (string), not {type(x).__name__}")
    try:
        return s.players.index(x)
    except ValueError:
        raise OrderError(f"{where}: unknown player {x!r} (players: {', '.join(s.players)})") from None


def _card_list(x: Any, key: str) -> list[int]:
    if not isinstance(x, list):
        raise OrderError(f"{key!r} must be a list of card ids")
    try:
        return [INDEX[c] for c in x]
    except (KeyError, TypeError):
        return [_card(c, key) for c in x]


def parse_play(order: Any) -> list[int]:
    if type(order) is dict and len(order) == 1:  # the usual case, quickly
        x = order.get("play")
        if type(x) is list:
            try:
                return [INDEX[c] for c in x]
            except (KeyError, TypeError):
                pass
    return _card_list(_mapping(order, "play"), "play")


def parse_discard(order: Any) -> list[int]:
    return _card_list(_mapping(order, "discard"), "discard")


def _player_at(s: KoryoState, x: Any, i: int) -> int:
    """``_player`` for step ``i``, quick for a known name."""
    if type(x) is str:
        try:
            return s.players.index(x)
        except ValueError:
            pass
    return _player(s, x, f"step {i}")


def _card_at(x: Any, i: int) -> int:
    """``_card`` for step ``i``, quick for a known card id."""
    c = INDEX.get(x) if type(x) is str else None
    return c if c is not None else _card(x, f"step {i}")


def parse_action(s: KoryoState, order: Any) -> list[tuple]:
    steps = _mapping(order, "steps")
    if not isinstance(steps, list):
        raise OrderError("'steps' must be a list of tables such as {do = \"reveal\"}")
    out: list[tuple] = []
    for i, st in enumerate(steps, 1):
        if type(st) is dict:  # the well-formed steps, quickly (the rest below, with the errors)
            do = st.get("do")
            n = len(st)
            if do == "reveal" or do == "banker":
                if n == 1:
                    out.append((do,))
                    continue
            elif do == "spy":
                if n == 2 and "player" in st:
                    out.append(("spy", _player_at(s, st["player"], i)))
                    continue
            elif do == "priest":
                if n == 2 and "card" in st:
                    out.append(("priest", _card_at(st["card"], i)))
                    continue
            elif do == "barbarian":
                if n == 1:
                    out.append(("barbarian", None, None))
                    continue
                if n == 3 and "player" in st and "card" in st:
                    out.append(("barbarian", _player_at(s, st["player"], i), _card_at(st["card"], i)))
                    continue
            elif do == "lobbying" and n == 1:
                out.append(("lobbying", None))
                continue
        where = f"step {i}"
        if not isinstance(st, Mapping):
            raise OrderError(f"{where}: a step must be a table such as {{do = \"reveal\"}}")
        do = st.get("do")
        if not isinstance(do, str) or do not in STEP_KEYS:
            raise OrderError(f"{where}: 'do' must be one of {', '.join(STEP_KEYS)}")
        allowed, _decline = STEP_KEYS[do]
        extra = sorted(str(k) for k in st if k not in allowed)
        if extra:
            raise OrderError(f"{where}: unknown key(s) for {do}: {', '.join(extra)}")
        keys = set(st)
        if do == "reveal" or do == "banker":
            out.append((do,))
        elif do == "barbarian":
            if keys == {"do"}:
                out.append(("barbarian", None, None))
            elif keys == allowed:
                out.append(("barbarian", _player(s, st["player"], where), _card(st["card"], where)))
            else:
                raise OrderError(f"{where}: barbarian needs both 'player' and 'card' (or neither, to decline)")
        elif do == "lobbying":
            if keys == {"do"}:
                out.append(("lobbying", None))
                continue
            sw = st["swap"]
            if not (isinstance(sw, list) and len(sw) == 2
                    and all(isinstance(x, list) and len(x) == 2 for x in sw)):
                raise OrderError(f"{where}: 'swap' must be [[player, card], [player, card]]")
            (a, ca), (b, cb) = sw
            out.append(("lobbying", (_player(s, a, where), _card(ca, where),
                                     _player(s, b, where), _card(cb, where))))
        elif do == "priest":
            if "card" not in st:
                raise OrderError(f"{where}: priest needs 'card' (the event to destroy)")
            out.append(("priest", _card(st["card"], where)))
        else:  # spy
            if "player" not in st:
                raise OrderError(f"{where}: spy needs 'player' (the opponent to rob)")
            out.append(("spy", _player(s, st["player"], where)))
    return out


def check_discard(s: KoryoState, p: int, cards: list[int]) -> list[int]:
    """The discard as counts over the 9 characters, or IllegalOrder naming the rule."""
    t = s.tables[p]
    need = [0] * NCARDS
    for c in cards:
        need[c] += 1
    if need[BARBARIAN] or need[LOBBYING]:
        raise IllegalOrder("illegal order: events can never be discarded at the end of a round (only characters)")
    for c in CHARS:
        if need[c] > t[c]:
            raise IllegalOrder(f"illegal order: you discard {need[c]} {CARD_IDS[c]} but have {t[c]} in front of you")
    k = rules.discard_need(s, p)
    if k == 0:
        raise IllegalOrder("illegal order: your table complies with the limit; nothing is discarded")
    if len(cards) != k:
        raise IllegalOrder(
            f"illegal order: you must discard exactly {k} character(s), the fewest that make your table comply")
    for c in CHARS:
        t[c] -= need[c]
    limit = base_limit(s.round)
    ok = rules._complies(s.tables, p, limit)
    left = sum(t)
    for c in CHARS:
        t[c] += need[c]
    if not ok:
        raise IllegalOrder(
            f"illegal order: discarding {describe_counts(need)} leaves {left} cards, over the limit {limit}: "
            f"the Senator +2 needs the power majority of senator with the table left")
    return need[:NCHARS]


def play_turn(s: KoryoState, kind: str, order: Any, events: list[Event] | None) -> None:
    """The current player's ``action`` or ``discard`` order read, checked and played on ``s`` in
    place, and the turn passed on: the ordinary game's apply and the blind table's alike."""
    p = s.current()
    if kind == "action":
        rules.run_steps(s, p, parse_action(s, order), events)
    else:
        rules.do_discard(s, p, check_discard(s, p, parse_discard(order)), events, False)
    s.turn += 1


# -- random legal orders ---------------------------------------------------------------------


def random_cards(s: KoryoState, p: int, rnd: BotRandom) -> list[int]:
    """:func:`random_play` as the card indices played (what :func:`parse_play` reads): the
    draw of :func:`random_face_down`, made on a scratch copy of the seat's hand and read off
    its face-down cards (``s`` unchanged)."""
    w = KoryoState.__new__(KoryoState)
    w.tables = s.tables  # read only
    w.hands = s.hands[:]
    w.hands[p] = s.hands[p][:]
    w.facedown = s.facedown[:]
    fd = w.facedown[p] = [0] * NCARDS
    random_face_down(w, p, rnd, sum(w.hands[p]))
    return [c for c in range(NCARDS) for _ in range(fd[c])]


def random_face_down(s: KoryoState, p: int, rnd: BotRandom, size: int) -> None:
    """Seat ``p``'s play drawn uniformly among its legal plays (``size``: the cards in its
    hand) and moved from its hand to its face-down cards, as
    :func:`.rules.resolve_orders` places a play: the random playout's order phase."""
    hand = s.hands[p]
    fd = s.facedown[p]
    # Choose among all legal plays: count them to weigh single-id plays against pairs (one
    # play of k cards of id c for each 1 <= k <= hand[c]: as many as the cards in the hand).
    pairs = 0
    tables = s.tables
    if tables[p][SHIPOWNER] and rules.has_power(tables, p, SHIPOWNER):
        m = NCARDS - hand.count(0)
        pairs = m * (m - 1) // 2
    i = int(rnd.random() * (size + pairs))  # every legal play has a chance
    if i < size:  # the plays of one id, in id order: i + 1 cards of the id holding card i
        for c, k in enumerate(hand):
            if i < k:
                fd[c] += i + 1
                hand[c] -= i + 1
                return
            i -= k
    i -= size  # the pairs of two ids (Ship Owner power), in order
    present = [c for c in range(NCARDS) if hand[c]]
    m = len(present)
    for a in range(m):
        for b in range(a + 1, m):
            if i == 0:
                for c in (present[a], present[b]):
                    fd[c] += 1
                    hand[c] -= 1
                return
            i -= 1
    raise AssertionError("unreachable")  # pragma: no cover


def random_play(s: KoryoState, p: int, rnd: BotRandom) -> dict[str, Any]:
    return {"play": [CARD_IDS[c] for c in random_cards(s, p, rnd)]}


def _chars_of(t: list[int]) -> list[int]:
    return [c for c in CHARS if t[c]]


_ITEMS = ("reveal", "banker", "priest", "spy")
_REVEAL, _BANKER = ("reveal",), ("banker",)
_DECLINE_B, _DECLINE_L = ("barbarian", None, None), ("lobbying", None)


def random_steps(s: KoryoState, p: int, rnd: BotRandom) -> list[tuple]:
    """:func:`random_action` as the steps :func:`parse_action` reads from it (``s`` unchanged)."""
    # the turn played on a working copy of what it can change: the tables, the bank, the
    # tokens, the face-down cards and the discard pile
    w = KoryoState.__new__(KoryoState)
    w.tables = [t[:] for t in s.tables]
    w.bank = s.bank
    w.tokens = s.tokens[:]
    w.facedown = s.facedown[:]  # reveal replaces seat p's list, never changes it
    w.discard = s.discard[:]
    return random_turn(w, p, rnd)


def random_turn(s: KoryoState, p: int, rnd: BotRandom) -> list[tuple]:
    """Play seat ``p``'s action turn with random legal steps on ``s`` itself, in place, and
    return the steps (what :func:`random_steps` returns). Every step is drawn from the legal
    ones of the moment, so the state ends as :func:`.rules.run_steps` would leave it with
    these steps, without checking them again (the random playout plays this way; reads only
    ``tables``, ``bank``, ``tokens``, ``facedown`` and ``discard``)."""
    tables = s.tables
    tokens = s.tokens
    discard = s.discard
    n = len(tables)
    fd = s.facedown[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    items = list(_ITEMS)
    rnd.shuffle(items)
    if nb or nl:
        # each revealed event takes effect once after the reveal, in any order, before,
        # between or after the powers
        at = items.index("reveal") + 1
        for e in ["barbarian"] * nb + ["lobbying"] * nl:
            items.insert(at + int(rnd.random() * (len(items) - at + 1)), e)
    steps: list[tuple] = []
    left_b = left_l = 0  # events with no legal target left without a step
    for it in items:
        if it == "reveal":
            steps.append(_REVEAL)
            rules.reveal(s, p, None)
        elif it == "barbarian":
            victims = rules.barbarian_targets(tables, p)
            if victims and rnd.random() < 0.85:
                q = rnd.choice(victims)
                c = rnd.choice(_chars_of(tables[q]))
                tables[q][c] -= 1
                discard[c] += 1
                steps.append(("barbarian", q, c))
            elif victims or rnd.random() < 0.5:
                steps.append(_DECLINE_B)
            else:
                left_b += 1
        elif it == "lobbying":
            movable = rules.lobby_targets(tables)
            if len(movable) >= 2 and rnd.random() < 0.85:
                x, y = rnd.sample(movable, 2)
                cx = rnd.choice(_chars_of(tables[x]))
                cy = rnd.choice(_chars_of(tables[y]))
                tables[x][cx] -= 1
                tables[y][cy] -= 1
                tables[x][cy] += 1
                tables[y][cx] += 1
                steps.append(("lobbying", (x, cx, y, cy)))
            elif len(movable) >= 2 or rnd.random() < 0.5:
                steps.append(_DECLINE_L)
            else:
                left_l += 1
        elif it == "banker":
            if s.bank > 0 and tables[p][BANKER] and rules.has_power(tables, p, BANKER) and rnd.random() < 0.9:
                s.bank -= 1
                tokens[p] += 1
                steps.append(_BANKER)
        elif it == "priest":
            t = tables[p]
            if ((t[BARBARIAN] or t[LOBBYING]) and t[PRIEST] and rules.has_power(tables, p, PRIEST)
                    and rnd.random() < 0.9):
                ev = rnd.choice([e for e in (BARBARIAN, LOBBYING) if t[e]])
                t[ev] -= 1
                discard[ev] += 1
                steps.append(("priest", ev))
        elif tables[p][SPY]:
            victims = [q for q in range(n) if q != p and tokens[q] > 0]
            if victims and rules.has_power(tables, p, SPY) and rnd.random() < 0.9:
                q = rnd.choice(victims)
                tokens[q] -= 1
                tokens[p] += 1
                steps.append(("spy", q))
    # an event left without a step has no effect only if it has no legal target at the end of
    # the turn (a later swap may have made one): else it is declined there
    if left_b and rules.barbarian_targets(tables, p):
        steps += [_DECLINE_B] * left_b
    if left_l and len(rules.lobby_targets(tables)) >= 2:
        steps += [_DECLINE_L] * left_l
    return steps


def step_order(s: KoryoState, st: tuple) -> dict[str, Any]:
    """One step as :func:`parse_action` reads it back (``{do = "spy", player = "bob"}``)."""
    do = st[0]
    if len(st) == 1:
        return {"do": do}
    names = s.players
    if do == "barbarian":
        return {"do": do} if st[1] is None else {"do": do, "player": names[st[1]], "card": CARD_IDS[st[2]]}
    if do == "lobbying":
        if st[1] is None:
            return {"do": do}
        x, cx, y, cy = st[1]
        return {"do": do, "swap": [[names[x], CARD_IDS[cx]], [names[y], CARD_IDS[cy]]]}
    if do == "priest":
        return {"do": do, "card": CARD_IDS[st[1]]}
    return {"do": do, "player": names[st[1]]}  # spy


def random_action(s: KoryoState, p: int, rnd: BotRandom) -> dict[str, Any]:
    return {"steps": [step_order(s, st) for st in random_steps(s, p, rnd)]}


def random_discard_counts(s: KoryoState, p: int, rnd: BotRandom) -> tuple[int, ...]:
    """:func:`random_discard` as counts over the characters (what :func:`check_discard` returns)."""
    _k, opts = rules.discard_options(s, p)
    return rnd.choice(opts) if opts else ()


def random_discard(s: KoryoState, p: int, rnd: BotRandom) -> dict[str, Any]:
    d = random_discard_counts(s, p, rnd)
    return {"discard": [CARD_IDS[c] for c in range(len(d)) for _ in range(d[c])]}


# -- describing choices ----------------------------------------------------------------------


def describe_play(s: KoryoState, p: int) -> tuple[dict[str, Any], list[str]]:
    hand = s.hands[p]
    present = [c for c in range(NCARDS) if hand[c]]
    best = max(present, key=lambda c: (hand[c], -c))
    example = {"play": [CARD_IDS[best]] * hand[best]}
    lines = [
        f"Round {s.round}, order phase: choose cards from your hand to place face down.",
        f"Your hand: {describe_counts(hand)}.",
        "Play one or more cards of one id: " + ", ".join(
            f"{CARD_IDS[c]} (1 to {hand[c]})" if hand[c] > 1 else f"{CARD_IDS[c]} (1)" for c in present) + ".",
    ]
    if rules.has_power(s.tables, p, SHIPOWNER):
        if len(present) > 1:
            lines.append("Ship Owner power: you may instead play exactly two cards of different ids, "
                         "e.g. play = [\"" + CARD_IDS[present[0]] + "\", \"" + CARD_IDS[present[1]] + "\"].")
    else:
        lines.append("You do not hold the Ship Owner power: all cards played have the same id.")
    lines.append("Every card left in your hand is discarded.")
    return example, lines


def describe_action(s: KoryoState, p: int) -> tuple[dict[str, Any], list[str]]:
    tables = s.tables
    names = s.players
    fd = s.facedown[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    # Example: reveal, decline every event, then the powers the auto-play would use.
    w = s.copy()
    steps: list[dict[str, Any]] = [{"do": "reveal"}]
    rules.reveal(w, p, None)
    steps += [{"do": "barbarian"}] * nb + [{"do": "lobbying"}] * nl
    if w.bank > 0 and rules.has_power(w.tables, p, BANKER):
        steps.append({"do": "banker"})
    t = w.tables[p]
    if (t[BARBARIAN] or t[LOBBYING]) and rules.has_power(w.tables, p, PRIEST):
        steps.append({"do": "priest", "card": "barbarian" if t[BARBARIAN] else "lobbying"})
    victims = rules.spy_victims(w, p)
    if victims and rules.has_power(w.tables, p, SPY):
        steps.append({"do": "spy", "player": names[victims[0]]})
    lines = [
        f"Round {s.round}, your action turn. Steps run in the order written; each power at most once.",
        f"Your face-down cards: {describe_counts(fd)} (one reveal step, required).",
    ]
    if nb or nl:
        lines.append(f"After the reveal step, each revealed event takes effect with one step: "
                     f"{nb} barbarian and {nl} lobbying, in the order you choose, with powers before, "
                     f"between or after them; a step without a target declines the effect; an event "
                     f"with no legal target has no effect and needs no step.")
    if nb:
        vic = rules.barbarian_victims(w, p)
        if vic:
            lines.append("Barbarian targets after the reveal (player: characters): " + "; ".join(
                f"{names[q]}: {', '.join(CARD_IDS[c] for c in _chars_of(w.tables[q]))}" for q in vic))
        else:
            lines.append("No opponent can be hit by a Barbarian now (Guardian protection or no character).")
        lines.append('  e.g. {do = "barbarian", player = "NAME", card = "CARD"}')
    if nl:
        mov = rules.lobby_players(w)
        lines.append("Lobbying can swap characters between two of: " + (", ".join(names[q] for q in mov) or "nobody")
                     + " (no Spy protection, at least one character).")
        lines.append('  e.g. {do = "lobbying", swap = [["X", "CARD"], ["Y", "CARD"]]}')
    powers = []
    for c, word in ((BANKER, "banker"), (PRIEST, "priest"), (SPY, "spy")):
        now = rules.has_power(tables, p, c)
        after = rules.has_power(w.tables, p, c)
        if now or after:
            powers.append(word + ("" if now else " (after the reveal)"))
    lines.append("Powers you hold now: " + (", ".join(powers) if powers else "none")
                 + " (majorities change as cards arrive, leave or are swapped).")
    lines.append(f"Bank: {s.bank} token(s). Opponents with tokens: "
                 + (", ".join(f"{names[q]} {s.tokens[q]}" for q in range(len(names)) if q != p and s.tokens[q]) or "none") + ".")
    return {"steps": steps}, lines


def describe_discard(s: KoryoState, p: int) -> tuple[dict[str, Any], list[str]]:
    k, opts = rules.discard_options(s, p)
    t = s.tables[p]
    limit = base_limit(s.round)
    example = {"discard": [CARD_IDS[c] for c in range(NCHARS) for _ in range(opts[0][c])]} if opts else {"discard": []}
    lines = [
        f"End of round {s.round}: your table has {sum(t)} cards ({describe_counts(t)}); the limit is {limit}, "
        f"{limit + 2} while you hold the power majority of senator with the table left.",
        f"Discard exactly {k} character(s) (events are never discarded). Your choices:",
    ]
    for d in opts[:30]:
        lines.append("  " + describe_counts([*list(d), 0, 0]))
    if len(opts) > 30:
        lines.append(f"  ... and {len(opts) - 30} more")
    return example, lines
