"""The rules of Koryo on a :class:`~.state.KoryoState`, in place (callers copy first).

Everything here follows ``shared/rules/koryo.md``; the section names below are the spec's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from operator import add
from typing import Any

from koryo_pbm.engine.contract import Event
from koryo_pbm.errors import IllegalOrder

from .cards import (
    BANKER,
    BARBARIAN,
    BROADCASTER,
    CARD_IDS,
    CHARS,
    COPIES,
    EVENTS,
    GUARDIAN,
    LOBBYING,
    NCARDS,
    NCHARS,
    OMNISCIENT,
    PRIEST,
    ROUNDS,
    SENATOR,
    SHIPOWNER,
    SPY,
    TOKENS,
    VALUES,
    base_limit,
    deal_size,
    describe_counts,
)
from .state import ACTIONS, END, ORDERS, OVER, KoryoState

# -- Majorities ------------------------------------------------------------------------------


def has_power(tables: list[list[int]], p: int, c: int) -> bool:
    """Power majority of card ``c`` for seat ``p`` (Omniscient wins ties)."""
    tp = tables[p]
    mine = tp[c]
    if not mine:
        return False
    tie = False
    for t in tables:  # the seats' tables are distinct lists
        if t[c] >= mine and t is not tp:
            if t[c] > mine:
                return False
            tie = True
    return not tie or tp[OMNISCIENT] > 0


def has_scoring(tables: list[list[int]], p: int, c: int) -> bool:
    """Scoring majority of card ``c`` for seat ``p`` (strictly more than everybody else)."""
    tp = tables[p]
    mine = tp[c]
    if not mine:
        return False
    return all(not (t[c] >= mine and t is not tp) for t in tables)


def power_holder(tables: list[list[int]], c: int) -> int | None:
    for p in range(len(tables)):
        if has_power(tables, p, c):
            return p
    return None


def spy_protected(tables: list[list[int]], p: int) -> bool:
    """Spy protection: power majority of spy and no guardian at all."""
    return tables[p][GUARDIAN] == 0 and has_power(tables, p, SPY)


def guardian_protected(tables: list[list[int]], p: int) -> bool:
    return has_power(tables, p, GUARDIAN)


def scores(state: KoryoState) -> list[int]:
    """The final-scoring formula on the tables and tokens as they are now."""
    tables = state.tables
    out = list(state.tokens)
    for p, t in enumerate(tables):
        out[p] -= t[BARBARIAN] + t[LOBBYING]
    for c, counts in zip(CHARS, zip(*tables, strict=False), strict=False):  # each character's counts by seat
        most = max(counts)
        if most and counts.count(most) == 1:  # has_scoring: strictly more than everybody else
            out[counts.index(most)] += VALUES[c]
    return out


def winners(state: KoryoState) -> list[int]:
    sc = scores(state)
    top = max(sc)
    return [p for p, s in enumerate(sc) if s == top]


# -- shuffling -------------------------------------------------------------------------------

_WORD = 1 << 64
#: length -> [(m, [(i+1, i), (i, i-1), ..., (k+2, k+1)]), ...]: the draws of :func:`shuffle`
#: for a list that long, each with the sizes it is read in and the positions they swap
_PLANS: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}


def _shuffle_plan(n: int) -> list[tuple[int, list[tuple[int, int]]]]:
    plan = []
    i = n - 1
    while i > 0:
        m = i + 1
        k = i - 1
        while k > 0 and m * (k + 1) < _WORD:
            m *= k + 1
            k -= 1
        plan.append((m, [(size, size - 1) for size in range(i + 1, k + 1, -1)]))
        i = k
    _PLANS[n] = plan
    return plan


def shuffle(rng, items: list) -> None:
    """A uniform Fisher–Yates shuffle drawing from the match's :class:`Rng`, several swaps per
    draw: the choices for positions i, i-1, ..., k+1 are read as the digits of one uniform
    number below (i+1)·i·…·(k+2) < 2**64 (``Rng.below`` is exact, so every permutation stays
    equally likely). A 55-card deck takes 4 draws instead of 54. (The draws for each length
    are worked out once, see :func:`_shuffle_plan`.)"""
    n = len(items)
    plan = _PLANS.get(n) or _shuffle_plan(n)
    below = rng.below
    for m, sizes in plan:
        x = below(m)
        for size, j in sizes:  # position j = size - 1 swaps with a uniform r in 0..j
            r = x % size
            x //= size
            items[j], items[r] = items[r], items[j]


# -- events ----------------------------------------------------------------------------------


#: ``event(kind, text, data)``: an :class:`Event` (events are built by the hundred in every game).
event = Event


def _ev(events: list[Event] | None, kind: str, text: str, **data) -> None:
    if events is not None:
        events.append(event(kind, text, data))


# -- Distribution / round flow ---------------------------------------------------------------


def start_round(s: KoryoState, events: list[Event] | None) -> None:
    """Distribution of round ``s.round``: in turn order, ``11 - r`` cards (+1 Broadcaster)."""
    players = s.players
    n = len(players)
    r = s.round
    first = s.first
    if events is not None:
        events.append(event("round", f"round {r}: {players[first]} is first player",
                            {"round": r, "first": players[first]}))
    deck = s.deck
    base = deal_size(r)
    tables = s.tables
    hands = s.hands
    for k in range(n):
        p = (first + k) % n
        want = base + 1 if tables[p][BROADCASTER] and has_power(tables, p, BROADCASTER) else base
        dealt = deck[-want:]  # the top ``want`` cards, or all that are left
        del deck[-want:]
        hand = hands[p]
        for c in dealt:
            hand[c] += 1
        if events is not None:
            name = players[p]
            take = len(dealt)
            events.append(event("deal", deal_text(name, take, want, base), {"player": name, "cards": take}))
    s.phase = ORDERS
    s.turn = 0


def deal_text(name: str, take: int, want: int, base: int) -> str:
    """What the log says of a player dealt ``take`` cards where ``want`` were due (``base``
    without the broadcaster's one more)."""
    cards = "card" if take == 1 else "cards"
    if want == base and take == want:
        return f"{name} is dealt {take} {cards}"
    extra = " (broadcaster)" if want > base else ""
    short = f", the deck ran out ({want} due)" if take < want else ""
    return f"{name} is dealt {take} {cards}{extra}{short}"


def end_round(s: KoryoState, events: list[Event] | None) -> None:
    """After the end phase: game over after round 8, else reshuffle, pass the token, deal."""
    if s.round >= ROUNDS:
        s.phase = OVER
        s.turn = 0
        if events is not None:
            sc = scores(s)
            top = max(sc)
            win = [p for p, x in enumerate(sc) if x == top]  # as winners(s)
            names = ", ".join(s.players[p] for p in win)
            detail = ", ".join(f"{s.players[p]} {sc[p]}" for p in range(len(s.players)))
            verb = "wins" if len(win) == 1 else "share the win"
            _ev(events, "over", f"game over: {names} {verb} ({detail})",
                scores={s.players[p]: sc[p] for p in range(len(sc))},
                winners=[s.players[p] for p in win])
        return
    deck = s.deck
    discard = s.discard
    for c in range(NCARDS):
        if discard[c]:
            deck += [c] * discard[c]
    s.discard = [0] * NCARDS
    assert s.rng is not None
    s.rng = s.rng.copy()  # the generator may be shared with the state this one was copied from
    arranged = getattr(s.rng, "arranged", None)
    if arranged is None:
        shuffle(s.rng, deck)
    else:  # the replay of a blind game (.blind.replay_open): the order the dealers' audit found
        deck[:] = arranged(s.round + 1, deck)
    s.first = (s.first + 1) % len(s.players)
    s.round += 1
    start_round(s, events)


# -- Orders ----------------------------------------------------------------------------------


def legal_plays(s: KoryoState, p: int) -> list[tuple[int, ...]]:
    """Every legal play of seat ``p`` as a tuple of card indices (sorted), hand non-empty."""
    hand = s.hands[p]
    plays: list[tuple[int, ...]] = []
    present = [c for c in range(NCARDS) if hand[c]]
    for c in present:
        for k in range(1, hand[c] + 1):
            plays.append((c,) * k)
    if has_power(s.tables, p, SHIPOWNER):
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                plays.append((a, b))
    return plays


def check_play(s: KoryoState, p: int, cards: list[int]) -> None:
    """Raise :class:`IllegalOrder` unless ``cards`` is a legal play for seat ``p``."""
    hand = s.hands[p]
    # the legal plays, quickly (anything else goes on to find the rule it breaks)
    k = len(cards)
    if k:
        c = cards[0]
        if k == 1:
            if hand[c]:
                return
        elif k == 2 and cards[1] != c:
            if hand[c] and hand[cards[1]] and has_power(s.tables, p, SHIPOWNER):
                return
        elif hand[c] >= k and cards.count(c) == k:
            return
    if not cards:
        raise IllegalOrder("illegal order: at least one card must be played when the hand is not empty")
    need = [0] * NCARDS
    for c in cards:
        need[c] += 1
    for c in range(NCARDS):
        if need[c] > hand[c]:
            have = hand[c]
            raise IllegalOrder(
                f"illegal order: you play {need[c]} {CARD_IDS[c]} but your hand holds {have}")
    kinds = sum(1 for x in need if x)
    if kinds > 1:
        if len(cards) != 2:
            raise IllegalOrder(
                "illegal order: cards of different ids can only be played as exactly two cards "
                "(Ship Owner power)")
        if not has_power(s.tables, p, SHIPOWNER):
            raise IllegalOrder(
                "illegal order: Ship Owner power needed to play two different cards "
                "(you do not hold the power majority of shipowner)")


ONLY_MOVE = " (the only legal move)"  # said of what the engine played for a player


def resolve_orders(s: KoryoState, plays: dict[int, list[int]], events: list[Event] | None,
                   forced: Collection[int] = ()) -> None:
    """Place every play face down, discard what is left in hands, start the actions. The
    seats in ``forced`` were not asked (their play was the only legal one)."""
    hands = s.hands
    facedown = s.facedown
    if events is None:  # nothing to say of each seat: the plays alone
        for p, cards in plays.items():
            fd = facedown[p]
            hand = hands[p]
            for c in cards:
                fd[c] += 1
                hand[c] -= 1
    else:
        _place_and_say(s, plays, events, forced)
    discard_hands(s)


def discard_hands(s: KoryoState) -> None:
    """The end of the order phase, once the plays are face down: every card left in a hand
    goes to the discard pile, and the actions begin."""
    hands = s.hands
    s.discard = [*map(sum, zip(s.discard, *hands, strict=False))]  # one pass over the card ids
    s.hands = [[0] * NCARDS for _ in hands]
    s.phase = ACTIONS
    s.turn = 0


def _place_and_say(s: KoryoState, plays: dict[int, list[int]], events: list[Event],
                   forced: Collection[int]) -> None:
    """:func:`resolve_orders`' plays placed face down, seat by seat, with what the log says of
    each seat (its play, the cards it discards)."""
    players = s.players
    facedown = s.facedown
    for p, hand in enumerate(s.hands):
        cards = plays.get(p)
        if cards:
            fd = facedown[p]
            for c in cards:
                fd[c] += 1
                hand[c] -= 1
            k = len(cards)
            name = players[p]
            only = ONLY_MOVE if p in forced else ""
            events.append(event("play", f"{name} plays {k} card{'s' if k > 1 else ''} face down{only}",
                                {"player": name, "cards": k}))
        left = sum(hand)
        if left:
            name = players[p]
            events.append(event("discard-hand",
                                f"{name} discards {left} card{'s' if left > 1 else ''} left in hand",
                                {"player": name, "cards": left}))


def orders_automatic(s: KoryoState) -> bool:
    """The order phase has one outcome when no hand holds more than one card."""
    return max(map(sum, s.hands)) <= 1


def forced_plays(s: KoryoState, plays: dict[int, list[int]]) -> list[int]:
    """Add to ``plays`` the play of every seat not in it whose hand holds exactly one card: that
    card must be played (spec, "What a player is asked"); such a seat is never asked. Returns
    those seats."""
    forced = []
    for p, h in enumerate(s.hands):
        if p not in plays and sum(h) == 1:
            plays[p] = [h.index(1)]
            forced.append(p)
    return forced


# -- Actions ---------------------------------------------------------------------------------


def reveal(s: KoryoState, p: int, events: list[Event] | None) -> tuple[int, int]:
    """Turn seat ``p``'s face-down cards up; returns (barbarians, lobbyings) revealed."""
    fd = s.facedown[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    t = s.tables[p]
    k = sum(fd)
    if k in fd:  # cards of one id (the usual case; or none): found without a loop
        t[fd.index(k)] += k
    else:  # two ids (Ship Owner power)
        for c, k in enumerate(fd):
            if k:
                t[c] += k
    if events is not None:
        key = tuple(fd)
        said = _REVEALED.get(key)
        if said is None:
            said = _REVEALED[key] = _revealed(fd)
        name = s.players[p]
        events.append(event("reveal", f"{name} reveals {said[0]}", {"player": name, "cards": said[1][:]}))
    s.facedown[p] = [0] * NCARDS
    return nb, nl


#: face-down counts -> (what the reveal event says, the card ids revealed)
_REVEALED: dict[tuple[int, ...], tuple[str, list[str]]] = {}


def _revealed(fd) -> tuple[str, list[str]]:
    if len(_REVEALED) >= 4096:  # pragma: no cover - some thousands of different plays
        _REVEALED.clear()
    ids: list[str] = []
    parts = []
    for c, k in enumerate(fd):
        if k:
            cid = CARD_IDS[c]
            ids += [cid] * k
            parts.append(cid if k == 1 else f"{cid} ×{k}")
    return (", ".join(parts) if parts else "nothing"), ids


def barbarian_victims(s: KoryoState, p: int) -> list[int]:
    """Opponents a Barbarian of ``p`` can hit now (no Guardian protection, a character)."""
    return barbarian_targets(s.tables, p)


def barbarian_targets(tables: list[list[int]], p: int) -> list[int]:
    """:func:`barbarian_victims` on the tables alone."""
    return [q for q, t in enumerate(tables)
            if q != p and sum(t) > t[BARBARIAN] + t[LOBBYING]  # a character
            and not (t[GUARDIAN] and has_power(tables, q, GUARDIAN))]


def lobby_players(s: KoryoState) -> list[int]:
    """Players whose characters Lobbying can move now (no Spy protection, a character)."""
    return lobby_targets(s.tables)


def lobby_targets(tables: list[list[int]]) -> list[int]:
    """:func:`lobby_players` on the tables alone."""
    return [q for q, t in enumerate(tables)
            if sum(t) > t[BARBARIAN] + t[LOBBYING]  # a character
            and not (t[SPY] and not t[GUARDIAN] and has_power(tables, q, SPY))]


def _barbarian_can_hit(tables: list[list[int]], p: int) -> bool:
    """``barbarian_targets(tables, p)`` is not empty (quickly)."""
    for q, t in enumerate(tables):
        if q != p and sum(t) > t[BARBARIAN] + t[LOBBYING] and not (t[GUARDIAN] and has_power(tables, q, GUARDIAN)):
            return True
    return False


def _lobbying_can_swap(tables: list[list[int]]) -> bool:
    """``lobby_targets(tables)`` has two players or more (quickly)."""
    k = 0
    for q, t in enumerate(tables):
        if sum(t) > t[BARBARIAN] + t[LOBBYING] and not (t[SPY] and not t[GUARDIAN] and has_power(tables, q, SPY)):
            k += 1
            if k == 2:
                return True
    return False


def spy_victims(s: KoryoState, p: int) -> list[int]:
    return [q for q in range(len(s.players)) if q != p and s.tokens[q] > 0]


def _no_target(s: KoryoState, p: int, nb: int, nl: int, events: list[Event] | None) -> None:
    """Log that ``nb`` Barbarians and ``nl`` Lobbyings of seat ``p`` have no effect: no legal target."""
    if events is not None:
        name = s.players[p]
        for word, k in (("barbarian", nb), ("lobbying", nl)):
            for _ in range(k):
                events.append(event(word, f"{name}'s {word} has no effect (no legal target)",
                                    {"player": name, "effect": "no legal target"}))


def auto_action(s: KoryoState, p: int, events: list[Event] | None) -> bool:
    """Play seat ``p``'s action turn by itself when it has one outcome (spec, last section):
    no revealed event with a legal target and no Spy theft with two or more victims. Returns
    whether it did."""
    fd = s.facedown[p]
    tables = s.tables
    t = tables[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    # Revealing only adds cards to p's own table, and the powers move no character: so the
    # targets of the events and p's Spy power are those of the tables right after the reveal,
    # and the victims of a theft do not change in the turn.
    if nb or nl or fd[SPY] or t[SPY]:
        after = tables[:]
        after[p] = [*map(add, t, fd)]
        if nb and _barbarian_can_hit(after, p):
            return False
        if nl and _lobbying_can_swap(after):
            return False
        if after[p][SPY] and has_power(after, p, SPY) and len(spy_victims(s, p)) >= 2:
            return False
    reveal(s, p, events)
    if events is not None:  # the whole turn had one outcome: the engine played it
        events[-1] = events[-1]._replace(text=events[-1].text + ONLY_MOVE)
        if nb or nl:
            _no_target(s, p, nb, nl, events)
        name = s.players[p]
    if t[BANKER] and s.bank > 0 and has_power(tables, p, BANKER):
        s.bank -= 1
        s.tokens[p] += 1
        if events is not None:
            events.append(event("banker", f"{name} takes a token from the bank (banker)", {"player": name}))
    if (t[BARBARIAN] or t[LOBBYING]) and t[PRIEST] and has_power(tables, p, PRIEST):
        c = BARBARIAN if t[BARBARIAN] else LOBBYING
        t[c] -= 1
        s.discard[c] += 1
        if events is not None:
            cid = CARD_IDS[c]
            events.append(event("priest", f"{name} destroys their own {cid} (priest)",
                                {"player": name, "card": cid}))
    if t[SPY] and has_power(tables, p, SPY):
        victims = spy_victims(s, p)
        if victims:
            q = victims[0]
            s.tokens[q] -= 1
            s.tokens[p] += 1
            if events is not None:
                victim = s.players[q]
                events.append(event("spy", f"{name} steals a token from {victim} (spy)",
                                    {"player": name, "victim": victim}))
    return True


def run_steps(s: KoryoState, p: int, steps: list[tuple], events: list[Event] | None) -> None:
    """Carry out a parsed action turn of seat ``p`` step by step, refusing (IllegalOrder) the
    first step the rules forbid. ``steps`` come from :func:`.orders.parse_action`. With
    ``events`` None (the menus checking steps, with no log kept) no event text is made."""
    tables = s.tables
    players = s.players
    name = players[p]
    revealed = False
    used: set[str] = set()
    owe_b = owe_l = 0  # revealed events whose effect is still to come
    for st in steps:
        kind = st[0]
        if kind == "reveal":
            if revealed:
                raise IllegalOrder("illegal order: the face-down cards are revealed exactly once (one reveal step)")
            revealed = True
            owe_b, owe_l = reveal(s, p, events)
        elif kind == "barbarian":
            if not owe_b:
                raise IllegalOrder(
                    "illegal order: a barbarian step is the effect of a Barbarian revealed in this turn "
                    "(after the reveal step, one step per Barbarian)")
            owe_b -= 1
            q, c = st[1], st[2]
            if q is None:
                if events is not None:
                    why = "declined" if barbarian_targets(tables, p) else "no legal target"
                    _ev(events, "barbarian", f"{name}'s barbarian has no effect ({why})", player=name, effect=why)
                continue
            if q == p:
                raise IllegalOrder("illegal order: Barbarian destroys a card of an opponent, not your own")
            if c >= NCHARS:
                raise IllegalOrder("illegal order: Barbarian destroys a character card, never an event")
            if tables[q][c] < 1:
                raise IllegalOrder(f"illegal order: Barbarian: {players[q]} has no {CARD_IDS[c]} in front of them")
            if guardian_protected(tables, q):
                raise IllegalOrder(
                    f"illegal order: Barbarian cannot target {players[q]}, who has Guardian protection "
                    f"(power majority of guardian)")
            tables[q][c] -= 1
            s.discard[c] += 1
            if events is not None:
                _ev(events, "barbarian", f"{name}'s barbarian destroys {players[q]}'s {CARD_IDS[c]}",
                    player=name, victim=players[q], card=CARD_IDS[c])
        elif kind == "lobbying":
            if not owe_l:
                raise IllegalOrder(
                    "illegal order: a lobbying step is the effect of a Lobbying revealed in this turn "
                    "(after the reveal step, one step per Lobbying)")
            owe_l -= 1
            if st[1] is None:
                if events is not None:
                    why = "declined" if len(lobby_targets(tables)) >= 2 else "no legal target"
                    _ev(events, "lobbying", f"{name}'s lobbying has no effect ({why})", player=name, effect=why)
                continue
            x, cx, y, cy = st[1]
            if x == y:
                raise IllegalOrder("illegal order: Lobbying swaps cards of two different players (X ≠ Y)")
            for who, c in ((x, cx), (y, cy)):
                if c >= NCHARS:
                    raise IllegalOrder("illegal order: Lobbying swaps character cards, never events")
                if tables[who][c] < 1:
                    raise IllegalOrder(
                        f"illegal order: Lobbying: {players[who]} has no {CARD_IDS[c]} in front of them")
                if spy_protected(tables, who):
                    raise IllegalOrder(
                        f"illegal order: Lobbying cannot target {players[who]}, who has Spy protection "
                        f"(power majority of spy and no guardian)")
            tables[x][cx] -= 1
            tables[y][cy] -= 1
            tables[x][cy] += 1
            tables[y][cx] += 1
            if events is not None:
                _ev(events, "lobbying",
                    f"{name}'s lobbying swaps {players[x]}'s {CARD_IDS[cx]} with {players[y]}'s {CARD_IDS[cy]}",
                    player=name, swap=[[players[x], CARD_IDS[cx]], [players[y], CARD_IDS[cy]]])
        else:  # a power
            if kind in used:
                raise IllegalOrder(f"illegal order: each power is used at most once per action turn ({kind} twice)")
            used.add(kind)
            if kind == "banker":
                if not has_power(tables, p, BANKER):
                    raise IllegalOrder("illegal order: Banker power needed (you do not hold the power majority of banker)")
                if s.bank < 1:
                    raise IllegalOrder("illegal order: Banker power: the bank has no token left")
                s.bank -= 1
                s.tokens[p] += 1
                if events is not None:
                    _ev(events, "banker", f"{name} takes a token from the bank (banker)", player=name)
            elif kind == "priest":
                c = st[1]
                if not has_power(tables, p, PRIEST):
                    raise IllegalOrder("illegal order: Priest power needed (you do not hold the power majority of priest)")
                if c < NCHARS:
                    raise IllegalOrder("illegal order: Priest destroys one of your own event cards, not a character")
                if tables[p][c] < 1:
                    raise IllegalOrder(f"illegal order: Priest: you have no {CARD_IDS[c]} in front of you")
                tables[p][c] -= 1
                s.discard[c] += 1
                if events is not None:
                    _ev(events, "priest", f"{name} destroys their own {CARD_IDS[c]} (priest)", player=name,
                        card=CARD_IDS[c])
            elif kind == "spy":
                q = st[1]
                if not has_power(tables, p, SPY):
                    raise IllegalOrder("illegal order: Spy power needed (you do not hold the power majority of spy)")
                if q == p:
                    raise IllegalOrder("illegal order: Spy steals a token from an opponent, not from yourself")
                if s.tokens[q] < 1:
                    raise IllegalOrder(f"illegal order: Spy: {players[q]} has no token to steal")
                s.tokens[q] -= 1
                s.tokens[p] += 1
                if events is not None:
                    _ev(events, "spy", f"{name} steals a token from {players[q]} (spy)", player=name,
                        victim=players[q])
    if not revealed:
        raise IllegalOrder("illegal order: the face-down cards must be revealed during the action turn (one reveal step)")
    # A revealed event left without a step has no effect if it has no legal target once the
    # other steps are done; one that has a target needs the player's step (a target or decline).
    if owe_b and _barbarian_can_hit(tables, p):
        raise IllegalOrder(
            f"illegal order: every revealed event takes effect once: {owe_b} barbarian step(s) missing "
            f"(a target, or {{do = \"barbarian\"}} to decline)")
    if owe_l and _lobbying_can_swap(tables):
        raise IllegalOrder(
            f"illegal order: every revealed event takes effect once: {owe_l} lobbying step(s) missing "
            f"(a swap, or {{do = \"lobbying\"}} to decline)")
    if owe_b or owe_l:
        _no_target(s, p, owe_b, owe_l, events)


# -- End -------------------------------------------------------------------------------------


def _complies(tables: list[list[int]], p: int, limit: int) -> bool:
    t = tables[p]
    size = sum(t)
    if size <= limit:
        return True
    if not any(t[c] for c in CHARS):
        return True
    return size <= limit + 2 and has_power(tables, p, SENATOR)


def discard_need(s: KoryoState, p: int) -> int:
    """How many characters seat ``p`` must discard now (0: complies already)."""
    tables = s.tables
    t = tables[p]
    limit = base_limit(s.round)
    size = sum(t)
    if size <= limit:
        return 0
    chars = size - t[BARBARIAN] - t[LOBBYING]
    if chars == 0:
        return 0
    bonus = has_power(tables, p, SENATOR)
    if bonus and size <= limit + 2:
        return 0
    best = min(chars, size - limit)  # without the bonus, or everything
    if bonus:
        k = size - limit - 2
        if k < best and _keeps_senator(tables, p, k):
            best = k
    return best


def _keeps_senator(tables: list[list[int]], p: int, k: int) -> bool:
    """Can seat ``p`` discard exactly ``k`` characters and keep the Senator power majority?"""
    t = tables[p]
    other = max(tables[q][SENATOR] for q in range(len(tables)) if q != p)
    # Keep every senator and the omniscient if possible: discard other characters first.
    free = sum(t[c] for c in CHARS) - t[SENATOR] - t[OMNISCIENT]
    rest = k - free
    if rest <= 0:
        return True
    # must also drop some of senator/omniscient: drop the omniscient only if senators stay > other
    sen, omni = t[SENATOR], t[OMNISCIENT]
    for d_omni in range(0, omni + 1):
        d_sen = rest - d_omni
        if d_sen < 0 or d_sen > sen:
            continue
        left = sen - d_sen
        if left >= 1 and (left > other or (left == other and omni - d_omni >= 1)):
            return True
    return False


def discard_options(s: KoryoState, p: int, stop_at: int = 0) -> tuple[int, list[tuple[int, ...]]]:
    """``(k, choices)``: the fewest characters ``k`` seat ``p`` must discard and every distinct
    discard of that size that makes the table comply (count tuples over the 9 characters).
    ``k == 0`` means nothing to discard. With ``stop_at`` > 0, stops after that many choices."""
    k = discard_need(s, p)
    if k == 0:
        return 0, []
    tables = s.tables
    t = tables[p]
    limit = base_limit(s.round)
    size = sum(t)
    chars = size - t[BARBARIAN] - t[LOBBYING]
    counts = [t[c] for c in CHARS]
    if k == chars:
        return k, [tuple(counts)]
    no_check = size - k <= limit  # every discard of size k complies without the bonus
    # Every way to take k cards from the ids present, in increasing (lexicographic) order:
    # extend the partial choices one id at a time, never leaving more to take than remains.
    present = [c for c in CHARS if counts[c]]
    m = len(present)
    caps = [counts[c] for c in present]
    remain = [0] * (m + 1)
    for i in range(m - 1, -1, -1):
        remain[i] = remain[i + 1] + caps[i]
    choices: Iterable[tuple[int, ...]]
    if stop_at:  # one at a time, in the same order, so that the first few cost no more than they are
        choices = _discards(caps, remain, k)
    else:
        partial: list[tuple[tuple[int, ...], int]] = [((), k)]
        for i in range(m):
            cap, rest = caps[i], remain[i + 1]
            grown = []
            for pre, left in partial:
                for x in range(left - rest if left > rest else 0, (cap if cap < left else left) + 1):
                    grown.append(((*pre, x), left - x))
            partial = grown
        choices = [choice for choice, _ in partial]
    out: list[tuple[int, ...]] = []
    d = [0] * NCHARS
    for choice in choices:
        for i in range(m):
            d[present[i]] = choice[i]
        if not no_check:
            for i in range(NCHARS):
                t[i] -= d[i]
            ok = _complies(tables, p, limit)
            for i in range(NCHARS):
                t[i] += d[i]
            if not ok:
                continue
        out.append(tuple(d))
        if stop_at and len(out) >= stop_at:
            break
    return k, out


def _discards(caps: list[int], remain: list[int], k: int) -> Iterator[tuple[int, ...]]:
    """Every way to take ``k`` cards from piles of ``caps`` cards (``remain[i]``: the cards in
    piles ``i`` onwards), as counts per pile, in increasing (lexicographic) order, one at a time:
    what :func:`discard_options` lists in full, depth first."""
    m = len(caps)
    if m == 0:
        if k == 0:
            yield ()
        return
    counts = [0] * m
    lefts = [0] * (m + 1)  # cards still to take before pile i
    highs = [0] * m
    lefts[0] = k
    i = 0
    low = k - remain[1] if k > remain[1] else 0
    counts[0] = low
    highs[0] = caps[0] if caps[0] < k else k
    while True:
        if counts[i] > highs[i]:  # pile i exhausted: back to the pile before it
            if i == 0:
                return
            i -= 1
            counts[i] += 1
            continue
        left = lefts[i] - counts[i]
        if i == m - 1:
            if left == 0:
                yield tuple(counts)
            counts[i] += 1
            continue
        i += 1
        lefts[i] = left
        rest = remain[i + 1]
        counts[i] = left - rest if left > rest else 0
        highs[i] = caps[i] if caps[i] < left else left


def do_discard(s: KoryoState, p: int, d, events: list[Event] | None, auto: bool) -> None:
    t = s.tables[p]
    for c in range(NCHARS):
        if d[c]:
            t[c] -= d[c]
            s.discard[c] += d[c]
    if events is not None:
        what = describe_counts([*list(d), 0, 0])
        only = "; the only legal move" if auto else ""
        _ev(events, "discard", f"{s.players[p]} discards {what} (end of round {s.round}{only})",
            player=s.players[p], cards=[CARD_IDS[c] for c in range(NCHARS) for _ in range(d[c])],
            round=s.round)


# -- the engine's own moves ------------------------------------------------------------------


def advance(s: KoryoState, events: list[Event] | None,
            choose_discard: Callable[[list[tuple[int, ...]]], tuple[int, ...]] | None = None) -> None:
    """Take every decision that has only one possible outcome, until somebody must choose or
    the game is over. With ``choose_discard`` (the random playout's), a discard with several
    choices is not left pending: ``choose_discard(choices)`` picks it (every choice listed
    once, not first probed for a second one and then listed again) and the game goes on."""
    n = len(s.players)
    while True:
        ph = s.phase
        if ph == ACTIONS:  # the turns in order while each has one outcome
            first = s.first
            for turn in range(s.turn, n):
                if not auto_action(s, (first + turn) % n, events):
                    s.turn = turn
                    return
            s.phase = END
            s.turn = 0
        elif ph == END:  # the discards in turn order while each has one outcome (or is chosen)
            first = s.first
            within = s.round + 2  # a table this small complies whatever it holds
            for turn in range(s.turn, n):
                p = (first + turn) % n
                if sum(s.tables[p]) <= within:
                    continue
                k, opts = discard_options(s, p, stop_at=0 if choose_discard else 2)
                if k == 0:
                    continue
                if len(opts) == 1:
                    do_discard(s, p, opts[0], events, True)
                elif choose_discard is None:
                    s.turn = turn
                    return
                else:
                    do_discard(s, p, choose_discard(opts), events, False)
            s.turn = n
            end_round(s, events)
        elif ph == ORDERS:
            if not orders_automatic(s):
                return
            plays: dict[int, list[int]] = {}
            resolve_orders(s, plays, events, forced_plays(s, plays))
        else:
            return


def card_census(s: KoryoState) -> list[int]:
    """How many of each card the state holds in all places (for the invariants)."""
    total = list(s.discard)
    for c in s.deck:
        total[c] += 1
    for piles in (s.tables, s.hands, s.facedown):
        for pile in piles:
            for c in range(NCARDS):
                total[c] += pile[c]
    return total


def before_the_deal(names: tuple[str, ...], first: int, deck: list[int], rng: Any) -> KoryoState:
    """Koryo at round 1 before its first distribution, for an ordinary game and a blind table
    alike: nothing dealt, ``first`` the first player's seat, ``deck`` to deal from (empty at the
    blind table, whose decks are the dealers'), ``rng`` for the reshuffles."""
    n = len(names)
    k = KoryoState.__new__(KoryoState)
    k.players = names
    k.round = 1
    k.phase = ORDERS
    k.first = first
    k.turn = 0
    k.bank = TOKENS
    k.tokens = [0] * n
    k.tables = [[0] * NCARDS for _ in range(n)]
    k.hands = [[0] * NCARDS for _ in range(n)]
    k.facedown = [[0] * NCARDS for _ in range(n)]
    k.deck = deck
    k.discard = [0] * NCARDS
    k.rng = rng
    k.hidden = None
    k.decision = None
    return k


__all__ = ["COPIES", "EVENTS", "has_power", "has_scoring", "scores", "winners"]
