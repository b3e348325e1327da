"""Koryo bots: ``heuristic`` (one look ahead, scored by :func:`evaluate`) and ``search``
(determinized Monte-Carlo over the heuristic's best plays).

Pure like the rules: functions of a state and the bot's own seeded generator, no I/O, no
global random. The state they are given is the player's :meth:`~.game.KoryoGame.from_view`
state (other hands, face-down cards, the deck and the discard pile unknown); the heuristic
uses only what is known (the tables, the tokens, the bank, its own hand and face-down cards),
and the search deals the unknown cards anew, consistently with the sizes it knows, for every
sample.

The evaluation of a position for seat ``p`` is its score lead over the best opponent (the
final-scoring formula on the tables as they are) plus what the powers it holds are still
worth in the rounds to come (a token per round from the Banker while the bank lasts, and so
on). The weights are plain estimates, checked by play (``koryo-pbm simulate --bots``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from koryo_pbm.engine.contract import BotRandom, TimeLimit
from koryo_pbm.engine.rng import Rng

from . import rules
from .cards import (
    BANKER,
    BARBARIAN,
    BROADCASTER,
    CARD_IDS,
    CHARS,
    COPIES,
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
    VALUES,
    base_limit,
)
from .state import ACTIONS, END, ORDERS, KoryoState

LEVELS = ("heuristic", "search")
#: The search's work per decision, a count (never a time): the heuristic's best ``WIDTH`` plays,
#: each played out in the same ``SAMPLES`` deals of the unknown cards, no new deal once
#: ``POSITIONS`` positions have been weighed (:func:`evaluate` calls; at most about 0.8 s of
#: one core even under load, where the old search stopped by the clock; a heavy decision of
#: round 4 or 5 would weigh 50,000 with all 40 deals, three times the mean).
WIDTH = 6
SAMPLES = 40
POSITIONS = 28_000


class _Work(threading.local):
    """Positions weighed so far in this thread: the search's measure of its work."""

    n = 0


_WORK = _Work()

# -- evaluation --------------------------------------------------------------------------


#: What :func:`evaluate` reads from one column of the tables (the counts of one character,
#: seat by seat, and the character last) for seat ``p``: ``(q, value, power, power_omniscient,
#: depth)``: ``q`` the seat holding strictly the most (the scoring majority, worth ``value``; -1
#: if none); ``power``: ``p`` has the power majority (:func:`.rules.has_power`) without an
#: Omniscient on its table, ``power_omniscient``: with one (which wins ties); ``depth``: what
#: ``p``'s lead of ``k`` over the second adds, ``0.04 * value * min(k - second, 2)`` (0 without a
#: lead). By ``p``, then by the column.
_Column = tuple[int, int, bool, bool, float]
_COLUMNS: dict[int, dict[tuple[int, ...], _Column]] = {}
#: columns kept per seat, a safety bound only: a character's copies on the tables number at most
#: its copies in the game, so there are fewer than 3,000 columns of 2, 3 and 4 seats in all
_COLUMNS_MAX = 10_000


def _column(col: tuple[int, ...], p: int) -> _Column:
    value = VALUES[col[-1]]
    col = col[:-1]
    best = max(col)
    top = col.index(best) if best and col.count(best) == 1 else -1
    k = col[p]
    second = max(col[:p] + col[p + 1:])
    depth = 0.04 * value * min(k - second, 2) if k > second else 0.0
    return top, value, k > second, k >= second and k > 0, depth


def evaluate(tables: list[list[int]], tokens: list[int], bank: int, rnd: int, p: int, final: bool = False) -> float:
    """How good the position is for seat ``p``: score lead over the best opponent, plus what
    ``p``'s powers are still worth (nothing more once the game is over: ``final``)."""
    _WORK.n += 1
    known = _COLUMNS.get(p)
    if known is None or len(known) > _COLUMNS_MAX:
        known = _COLUMNS[p] = {}
    cols = [*zip(*tables, CHARS, strict=False)]  # the characters' columns, each with its character
    info = [*map(known.get, cols)]
    if None in info:
        for c in CHARS:
            if info[c] is None:
                info[c] = known[cols[c]] = _column(cols[c], p)
    columns: list[_Column] = info  # type: ignore[assignment]
    sc = [tokens[q] - t[BARBARIAN] - t[LOBBYING] for q, t in enumerate(tables)]
    for col in columns:  # the scoring majorities (rules.has_scoring) score
        if col[0] >= 0:
            sc[col[0]] += col[1]
    mine = sc.pop(p)
    v = float(mine - max(sc))
    if final:
        return v
    left = ROUNDS - rnd  # rounds still to come after this one
    t = tables[p]
    has = 3 if t[OMNISCIENT] else 2  # p's power majority of a character: columns[c][has]
    if t[BANKER] and bank and columns[BANKER][has]:
        v += 0.8 * min(bank, left + 1)
    if t[SPY] and columns[SPY][has]:
        v += 0.6 * (left + 1) if any(tokens[q] for q in range(len(tables)) if q != p) else 0.3 * (left + 1)
    if t[PRIEST] and (t[BARBARIAN] or t[LOBBYING]) and columns[PRIEST][has]:
        v += 0.9 * min(t[BARBARIAN] + t[LOBBYING], left + 1)
    if t[BROADCASTER] and columns[BROADCASTER][has]:
        v += 0.25 * left
    if t[SHIPOWNER] and columns[SHIPOWNER][has]:
        v += 0.15 * left
    if t[SENATOR] and columns[SENATOR][has]:
        v += 0.3 * (1 + left)
    if t[GUARDIAN] and columns[GUARDIAN][has]:
        v += 0.1 * (1 + left)
    if has == 3:
        v += 0.1 * (1 + left)
    # a majority held by one card is fragile (one Barbarian or Lobbying away): a little for depth
    for col in columns:
        if col[4]:
            v += col[4]
    return v


def _value(s: KoryoState, p: int) -> float:
    return evaluate(s.tables, s.tokens, s.bank, s.round, p)


# -- end phase ---------------------------------------------------------------------------


def best_discard(s: KoryoState, p: int) -> tuple[int, ...] | None:
    """The discard (counts over the characters) that leaves ``p`` the best table; ``None``
    when ``p`` has nothing to discard."""
    return _best_discard(s, p)[0]


def _best_discard(s: KoryoState, p: int) -> tuple[tuple[int, ...] | None, float]:
    """:func:`best_discard`, and the value of the table it leaves (``-inf`` with no discard)."""
    _k, opts = rules.discard_options(s, p)
    if not opts:
        return None, float("-inf")
    t = s.tables[p]
    best, best_v = opts[0], float("-inf")
    for d in opts:
        for c in range(NCHARS):
            t[c] -= d[c]
        v = _value(s, p)
        for c in range(NCHARS):
            t[c] += d[c]
        if v > best_v:
            best, best_v = d, v
    return best, best_v


def discard_order(s: KoryoState, p: int) -> dict[str, Any]:
    d = best_discard(s, p) or ()
    return {"discard": [CARD_IDS[c] for c in range(len(d)) for _ in range(d[c])]}


# -- action turns ------------------------------------------------------------------------


def _chars(t: list[int]) -> list[int]:
    return [c for c in CHARS if t[c]]


def _best_barbarian(s: KoryoState, p: int, known: float | None = None) -> tuple[tuple[int, int] | None, float]:
    """The best target (``None``: declining) and the value of the position it leaves (``known``:
    the value of ``s`` as it is, if weighed already)."""
    tables = s.tables
    best, best_v = None, _value(s, p) if known is None else _again(known)  # declining is a choice
    for q in rules.barbarian_targets(tables, p):
        tq = tables[q]
        for c in _chars(tq):
            tq[c] -= 1
            v = _value(s, p)
            tq[c] += 1
            if v > best_v:
                best, best_v = (q, c), v
    return best, best_v


def _best_lobbying(s: KoryoState, p: int, known: float | None = None
                   ) -> tuple[tuple[int, int, int, int] | None, float]:
    """The best swap (``None``: declining) and the value of the position it leaves (``known``:
    as for :func:`_best_barbarian`)."""
    tables = s.tables
    movable = rules.lobby_targets(tables)
    best, best_v = None, _value(s, p) if known is None else _again(known)
    for i, x in enumerate(movable):
        tx = tables[x]
        for y in movable[i + 1:]:
            if x != p and y != p and len(movable) > 2 and p in movable:
                continue  # a swap between two opponents rarely beats one that involves p
            ty = tables[y]
            for cx in _chars(tx):
                for cy in _chars(ty):
                    if cx == cy:
                        continue
                    tx[cx] -= 1
                    ty[cy] -= 1
                    tx[cy] += 1
                    ty[cx] += 1
                    v = _value(s, p)
                    tx[cx] += 1
                    ty[cy] += 1
                    tx[cy] -= 1
                    ty[cx] -= 1
                    if v > best_v:
                        best, best_v = (x, cx, y, cy), v
    return best, best_v


def _events(w: KoryoState, p: int, nb: int, nl: int, steps: list[dict[str, Any]] | None) -> float | None:
    """Answer ``nb`` Barbarians then ``nl`` Lobbyings greedily on ``w`` (changed in place); the
    value of ``w`` then (each answer's weighed it already), ``None`` if there was none to answer."""
    names = w.players
    tables = w.tables
    known = None
    for _ in range(nb):
        hit, known = _best_barbarian(w, p, known)
        if hit is None:
            if steps is not None:
                steps.append({"do": "barbarian"})
            continue
        q, c = hit
        tables[q][c] -= 1
        w.discard[c] += 1
        if steps is not None:
            steps.append({"do": "barbarian", "player": names[q], "card": CARD_IDS[c]})
    for _ in range(nl):
        sw, known = _best_lobbying(w, p, known)
        if sw is None:
            if steps is not None:
                steps.append({"do": "lobbying"})
            continue
        x, cx, y, cy = sw
        tables[x][cx] -= 1
        tables[y][cy] -= 1
        tables[x][cy] += 1
        tables[y][cx] += 1
        if steps is not None:
            steps.append({"do": "lobbying", "swap": [[names[x], CARD_IDS[cx]], [names[y], CARD_IDS[cy]]]})
    return known


def _powers(w: KoryoState, p: int, steps: list[dict[str, Any]] | None, which: tuple[str, ...]) -> None:
    tables = w.tables
    t = tables[p]
    for power in which:
        if power == "banker":
            if w.bank > 0 and t[BANKER] and rules.has_power(tables, p, BANKER):
                w.bank -= 1
                w.tokens[p] += 1
                if steps is not None:
                    steps.append({"do": "banker"})
        elif power == "priest":
            if (t[BARBARIAN] or t[LOBBYING]) and t[PRIEST] and rules.has_power(tables, p, PRIEST):
                c = BARBARIAN if t[BARBARIAN] else LOBBYING
                t[c] -= 1
                w.discard[c] += 1
                if steps is not None:
                    steps.append({"do": "priest", "card": CARD_IDS[c]})
        elif t[SPY] and rules.has_power(tables, p, SPY):
            victims = rules.spy_victims(w, p)
            if victims:
                best, best_v = victims[0], float("-inf")
                for q in victims:
                    w.tokens[q] -= 1
                    w.tokens[p] += 1
                    v = _value(w, p)
                    w.tokens[q] += 1
                    w.tokens[p] -= 1
                    if v > best_v:
                        best, best_v = q, v
                w.tokens[best] -= 1
                w.tokens[p] += 1
                if steps is not None:
                    steps.append({"do": "spy", "player": w.players[best]})


def _scratch(s: KoryoState) -> KoryoState:
    """A copy of ``s`` to play an action turn on: what the turn changes is copied (the tables,
    the tokens, the discard pile, the list of face-down piles: a reveal replaces the seat's
    pile, it never changes one); the hands, the face-down piles and the deck are ``s``'s own."""
    t = KoryoState.__new__(KoryoState)
    t.players = s.players
    t.round = s.round
    t.phase = s.phase
    t.first = s.first
    t.turn = s.turn
    t.bank = s.bank
    t.tokens = s.tokens[:]
    t.tables = [*map(list.copy, s.tables)]
    t.hands = s.hands
    t.facedown = s.facedown[:]
    t.deck = s.deck
    t.discard = s.discard[:]
    t.rng = s.rng
    t.hidden = s.hidden
    t.decision = None
    return t


def play_action(s: KoryoState, p: int, steps: list[dict[str, Any]] | None = None) -> KoryoState:
    """Play ``p``'s action turn on a copy of ``s`` the heuristic's way; return the copy (and
    fill ``steps`` with the order). Two plans are weighed: powers after the reveal and its
    events, or Banker and Spy before the reveal (a power the events may cost). The copy's
    hands, face-down piles (but ``p``'s, turned up) and deck are ``s``'s own (:func:`_scratch`)."""
    return _play_action(s, p, steps)[0]


def _play_action(s: KoryoState, p: int, steps: list[dict[str, Any]] | None = None) -> tuple[KoryoState, float]:
    """:func:`play_action`, and the value of the copy it returns (:func:`_value`). When the
    second plan uses no power before the reveal, its reveal and events are the first plan's
    (the same greedy answers to the same position): they are taken from the first plan, and
    the positions they weighed are counted again (the search's measure of its work,
    :data:`_WORK`, stays what it was)."""
    best_w: KoryoState | None = None
    best_steps: list[dict[str, Any]] = []
    best_v = float("-inf")
    fd = s.facedown[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    plans: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ((("banker", "priest", "spy"), ()),)
    if nb or nl:
        plans += (((("priest",)), ("banker", "spy")),)
    # the first plan's, before its powers: the state, the steps, the positions weighed, the value
    revealed: tuple[KoryoState, list[dict[str, Any]], int, float | None] | None = None
    for after, before in plans:
        w = _scratch(s)
        st: list[dict[str, Any]] = []
        _powers(w, p, st, before)
        if not st and revealed is not None:  # nothing done before the reveal: as in the first plan
            w, st, known = revealed[0], list(revealed[1]), revealed[3]
            _WORK.n += revealed[2]
        else:
            st.append({"do": "reveal"})
            rules.reveal(w, p, None)
            weighed = _WORK.n
            known = _events(w, p, nb, nl, st)
            if not before and len(plans) > 1:
                revealed = (_scratch(w), list(st), _WORK.n - weighed, known)
        done = len(st)
        _powers(w, p, st, after)
        # no power used after the events: the position the last event's answer weighed
        v = _again(known) if known is not None and len(st) == done else _value(w, p)
        if v > best_v:
            best_w, best_steps, best_v = w, st, v
    assert best_w is not None
    if steps is not None:
        steps.extend(best_steps)
    return best_w, best_v


def action_order(s: KoryoState, p: int) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    play_action(s, p, steps)
    return {"steps": steps}


# -- order phase -------------------------------------------------------------------------


def _limit_value(w: KoryoState, p: int, known: float | None = None) -> float:
    """The value of ``w`` for ``p`` once ``p`` has discarded down to the limit (``known``: the
    value of ``w`` as it is, weighed already; counted again as a position weighed)."""
    t = w.tables[p]
    if sum(t) <= base_limit(w.round):
        return _value(w, p) if known is None else _again(known)
    d, v = _best_discard(w, p)
    if d is None:
        return _value(w, p) if known is None else _again(known)
    return _again(v)  # the table left by the best discard, as best_discard weighed it


def _again(value: float) -> float:
    """A position's ``value`` weighed before, counted as weighed again (:data:`_WORK`)."""
    _WORK.n += 1
    return value


def rank_plays(s: KoryoState, p: int) -> list[tuple[float, tuple[int, ...]]]:
    """Every legal play of ``p`` with the heuristic's value, best first: the cards join
    ``p``'s table, their events strike at once as well as they can, powers are used, and the
    table is cut to the round's limit."""
    out = []
    w = s.copy()  # one copy: each play's own face-down cards and hand in it (the rest is only read)
    for play in rules.legal_plays(s, p):
        fd = w.facedown[p] = s.facedown[p][:]
        hand = w.hands[p] = s.hands[p][:]
        for c in play:
            fd[c] += 1
            hand[c] -= 1
        out.append((_after_play(w, p), play))
    out.sort(key=lambda x: -x[0])  # stable: ties keep the order of legal_plays
    return out


def _after_play(w: KoryoState, p: int) -> float:
    w2, v = _play_action(w, p)
    return _limit_value(w2, p, v)


def play_order(s: KoryoState, p: int) -> dict[str, Any]:
    return {"play": [CARD_IDS[c] for c in rank_plays(s, p)[0][1]]}


# -- the heuristic as a whole ------------------------------------------------------------


def heuristic(s: KoryoState, p: int) -> dict[str, Any]:
    """The heuristic's order for seat ``p`` at the pending decision."""
    if s.phase == ORDERS:
        return play_order(s, p)
    if s.phase == ACTIONS:
        return action_order(s, p)
    return discard_order(s, p)


# -- search: determinized Monte-Carlo --------------------------------------------------------


def determinize(s: KoryoState, p: int, rng: BotRandom) -> KoryoState:
    """A full state consistent with what seat ``p`` knows in ``s`` (a ``from_view`` state):
    the unknown cards (every copy not on a table nor in ``p``'s hand or face-down cards) are
    shuffled and dealt to the other hands and face-down piles, the discard pile and the deck,
    in the sizes ``p`` sees. The match generator is a new one seeded from ``rng``."""
    w = s.copy()
    hid = s.hidden
    pool = list(COPIES)
    for piles in (w.tables, w.hands, w.facedown):
        for pile in piles:
            for c in range(NCARDS):
                pool[c] -= pile[c]
    for c in range(NCARDS):
        pool[c] -= w.discard[c]
    for c in w.deck:
        pool[c] -= 1
    cards = [c for c in range(NCARDS) for _ in range(max(pool[c], 0))]
    rng.shuffle(cards)
    if hid is not None:
        i = 0
        for q in range(len(w.players)):
            for pile, k in ((w.hands[q], hid.hands[q]), (w.facedown[q], hid.facedown[q])):
                for c in cards[i:i + k]:
                    pile[c] += 1
                i += k
        for c in cards[i:i + hid.discard]:
            w.discard[c] += 1
        i += hid.discard
        w.deck = w.deck + cards[i:i + hid.deck]
    w.hidden = None
    w.rng = Rng.from_seed(f"search {rng.getrandbits(128):032x}")
    w.decision = None
    return w


def _rest_of_round(w: KoryoState) -> None:
    """Play the actions and the end phase of ``w``'s round with the heuristic for every seat
    (in place), stopping before the next deal."""
    n = len(w.players)
    while True:
        if w.phase == ACTIONS:
            if w.turn >= n:
                w.phase, w.turn = END, 0
                continue
            q = w.current()
            if not rules.auto_action(w, q, None):
                w2 = play_action(w, q)
                w.tables, w.tokens, w.bank, w.facedown, w.discard = w2.tables, w2.tokens, w2.bank, w2.facedown, w2.discard
            w.turn += 1
        elif w.phase == END:
            if w.turn >= n:
                return
            q = w.current()
            d = best_discard(w, q)
            if d is not None:
                rules.do_discard(w, q, d, None, True)
            w.turn += 1
        else:
            return


def _playout(w: KoryoState, me: int, own: tuple[int, ...], others: dict[int, tuple[int, ...]], rounds: int) -> float:
    """Apply the plays (``me`` plays ``own``), then play on with the heuristic for every seat
    to the end of this round and ``rounds - 1`` more; the value for ``me`` then (the final
    lead after round 8)."""
    plays = {me: list(own), **{q: list(c) for q, c in others.items()}}
    while True:
        rules.forced_plays(w, plays)
        rules.resolve_orders(w, plays, None)
        _rest_of_round(w)
        rounds -= 1
        if w.round >= ROUNDS or rounds <= 0:
            break
        rules.end_round(w, None)  # shuffles with the sample's own generator, deals the next round
        plays = {q: list(rank_plays(w, q)[0][1]) for q in range(len(w.players)) if sum(w.hands[q]) > 1}
    return evaluate(w.tables, w.tokens, w.bank, w.round, me, final=w.round >= ROUNDS)


def search(s: KoryoState, p: int, rng: BotRandom, limit: float = math.inf,
           clock: Callable[[], float] = time.process_time, *, width: int = WIDTH, samples: int = SAMPLES,
           positions: int = POSITIONS, horizon: int = 1) -> dict[str, Any]:
    """In the order phase: the heuristic's ``width`` best plays, each played out to the end of
    the round (and ``horizon - 1`` more rounds) in ``samples`` deals of the unknown cards (the
    same deals for every play, every seat playing as the heuristic would with the cards dealt
    it), no new deal once ``positions`` positions have been weighed; the play with the best
    mean value wins. The work is counted, so it is the same on any machine: ``clock`` is read
    between deals for the safety ``limit`` only (:class:`TimeLimit` past it). Other decisions
    are the heuristic's."""
    if s.phase != ORDERS:
        return heuristic(s, p)
    start = clock()
    work = _WORK.n
    ranked = rank_plays(s, p)
    cands = [play for _v, play in ranked[:width]]
    if len(cands) == 1:
        return {"play": [CARD_IDS[c] for c in cands[0]]}
    totals = [0.0] * len(cands)
    done = 0
    for _ in range(samples):
        if _WORK.n - work >= positions:
            break
        if clock() - start > limit:
            raise TimeLimit(f"the search passed its safety limit of {limit:g} s after {done} of {samples} deals")
        d = determinize(s, p, rng)
        others = {}
        for q in range(len(d.players)):
            if q != p and sum(d.hands[q]) > 1:
                others[q] = rank_plays(d, q)[0][1]
        for i, play in enumerate(cands):
            totals[i] += _playout(d.copy(), p, play, others, horizon)
        done += 1
    if not done:
        return {"play": [CARD_IDS[c] for c in cands[0]]}
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    return {"play": [CARD_IDS[c] for c in cands[best]]}


def bot_order(s: KoryoState, player: str, level: str, rng: BotRandom, limit: float,
              clock: Callable[[], float]) -> dict[str, Any]:
    p = s.players.index(player)
    if level == "search":
        return search(s, p, rng, limit, clock)
    return heuristic(s, p)
