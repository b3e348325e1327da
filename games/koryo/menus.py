"""Koryo's menus for ``koryo-pbm play``: the legal choices one question at a time.

The order phase and the end-of-round discard are one menu each (every legal play, every legal
discard). The action turn is built step by step: each menu offers the steps that can still lead
to a legal turn from the steps already picked (checked with the rules themselves), and "end the
turn" once the steps picked make one. A Lobbying swap is asked in two halves (the first card,
then the card it is swapped with), so that no menu lists a hundred swaps.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.menus import Menu, Option
from koryo_pbm.errors import IllegalOrder, OrderError

from . import orders as O
from . import rules
from .cards import BANKER, BARBARIAN, CARD_IDS, CHARS, LOBBYING, NCARDS, PRIEST, SPY, describe_counts
from .state import KoryoState

END = "end"


def _counts(cards: Sequence[int]) -> list[int]:
    counts = [0] * NCARDS
    for c in cards:
        counts[c] += 1
    return counts


def _same_cards(a: Any, b: Any) -> bool:
    return isinstance(a, list) and isinstance(b, list) and sorted(map(str, a)) == sorted(map(str, b))


def _picked(values: Sequence[Any], picked: Sequence[Any]) -> dict[str, Any]:
    """The order picked from a one-question menu whose options pick ``values``."""
    choice = picked[0]
    if len(picked) > 1 or not any(v == choice for v in values):
        raise ValueError("not a legal choice here")
    return dict(choice)


def _single(question: str, options: list[Option], picked: Sequence[Any], hint: Mapping[str, Any] | None,
            key: str) -> Menu | dict[str, Any]:
    if picked:
        return _picked([o.value for o in options], picked)
    default = None
    if hint is not None:
        default = next((i for i, o in enumerate(options) if _same_cards(o.value[key], hint.get(key))), None)
    return Menu(question, tuple(options), default)


class _Values(threading.local):
    """The options' values of the last one-question menu answered: a menu is built by asking the
    question, then every option again as an answer, each answer checked against every value."""

    key: Any = None
    values: list[Any] = []  # noqa: RUF012 (set per thread before use)


_VALUES = _Values()


def _answer_values(s: KoryoState, p: int, kind: str) -> list[Any]:
    """The values the options of ``p``'s ``kind`` menu pick (``play`` or ``discard``), as
    :func:`play_menu` and :func:`discard_menu` write them; found once for what they depend on
    (the round, the seat's hand, the tables)."""
    memo = _VALUES
    key = (kind, p, s.round, s.phase, tuple(s.hands[p]), tuple(map(tuple, s.tables)))
    if memo.key != key:
        if kind == "play":
            values = [{"play": [CARD_IDS[c] for c in play]} for play in rules.legal_plays(s, p)]
        else:
            values = [{"discard": [CARD_IDS[c] for c in range(len(d)) for _ in range(d[c])]}
                      for d in rules.discard_options(s, p)[1]]
        memo.key, memo.values = key, values
    return memo.values


def play_menu(s: KoryoState, p: int, picked: Sequence[Any], hint: Mapping[str, Any] | None) -> Menu | dict[str, Any]:
    if picked:  # an answer: the options' values alone (their labels are for the question)
        return _picked(_answer_values(s, p, "play"), picked)
    plays = rules.legal_plays(s, p)
    options = [Option(describe_counts(_counts(play)), {"play": [CARD_IDS[c] for c in play]}) for play in plays]
    return _single(f"Round {s.round}: which cards do you place face down? (the rest of your hand is discarded)",
                   options, picked, hint, "play")


def discard_menu(s: KoryoState, p: int, picked: Sequence[Any], hint: Mapping[str, Any] | None) -> Menu | dict[str, Any]:
    if picked:  # an answer: the options' values alone (their labels are for the question)
        return _picked(_answer_values(s, p, "discard"), picked)
    k, opts = rules.discard_options(s, p)
    options = [Option(describe_counts(d), {"discard": [CARD_IDS[c] for c in range(len(d)) for _ in range(d[c])]})
               for d in opts]
    return _single(f"End of round {s.round}: discard which {k} character(s)? (your table is over the limit)",
                   options, picked, hint, "discard")


# -- the action turn -------------------------------------------------------------------------


def _legal(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]]) -> bool:
    try:
        game.check(s, player, {"steps": steps})
    except (IllegalOrder, OrderError):
        return False
    return True


def _owed(s: KoryoState, p: int, steps: list[dict[str, Any]]) -> tuple[bool, int, int]:
    revealed = any(st["do"] == "reveal" for st in steps)
    fd = s.facedown[p]
    nb = fd[BARBARIAN] - sum(st["do"] == "barbarian" for st in steps)
    nl = fd[LOBBYING] - sum(st["do"] == "lobbying" for st in steps)
    return revealed, nb, nl


class _Finished(threading.local):
    """What :func:`_finish` found for one state and player, by the steps asked: a menu is built
    question by question, each asking again what its path and its options lead to (four times
    in five the same question). The state is known by its identity (it is held here, so no other
    state can take its place): a state is never changed once made (see ``KoryoState.decision``)."""

    state: KoryoState | None = None
    key: Any = None
    turns: dict[str, list[dict[str, Any]] | None] = {}  # noqa: RUF012 (set per thread before use)


_FINISHED = _Finished()


def _finish(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The shortest legal turn that begins with ``steps``: nothing added, or the reveal and
    declines of the events still owed; None if none is legal (found once per state, player
    and steps: :class:`_Finished`)."""
    memo = _FINISHED
    if memo.state is not s or memo.key != (game, player):
        memo.state, memo.key, memo.turns = s, (game, player), {}
    asked = repr(steps)
    if asked not in memo.turns:
        memo.turns[asked] = _find_finish(game, s, player, steps)
    turn = memo.turns[asked]
    return None if turn is None else list(turn)


def _find_finish(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    p = s.players.index(player)
    revealed, nb, nl = _owed(s, p, steps)
    head = steps if revealed else [*steps, {"do": "reveal"}]
    for total in range(nb + nl + 1):
        for b in range(min(nb, total) + 1):
            if total - b > nl:
                continue
            tail = [{"do": "barbarian"}] * b + [{"do": "lobbying"}] * (total - b)
            if _legal(game, s, player, head + tail):
                return head + tail
    return None


def _after(s: KoryoState, p: int, steps: list[dict[str, Any]]) -> KoryoState:
    """The state once ``steps`` (a legal beginning of a turn) are carried out."""
    w = s.copy()
    with contextlib.suppress(IllegalOrder):  # only the end-of-turn checks fail for a legal beginning
        rules.run_steps(w, p, O.parse_action(s, {"steps": steps}), None)
    return w


def _step_options(s: KoryoState, p: int, steps: list[dict[str, Any]]) -> list[Option]:
    names = s.players
    w = _after(s, p, steps)
    tables = w.tables
    revealed, nb, nl = _owed(s, p, steps)
    used = {st["do"] for st in steps}
    out: list[Option] = []
    if not revealed:
        out.append(Option(f"reveal your face-down cards ({describe_counts(s.facedown[p])})", {"do": "reveal"}))
    if revealed and nb > 0:
        for q in rules.barbarian_targets(tables, p):
            for c in CHARS:
                if tables[q][c]:
                    out.append(Option(f"barbarian: destroy {names[q]}'s {CARD_IDS[c]}",
                                      {"do": "barbarian", "player": names[q], "card": CARD_IDS[c]}))
        out.append(Option("barbarian: no target (the barbarian has no effect)", {"do": "barbarian"}))
    if revealed and nl > 0:
        for x in rules.lobby_targets(tables):
            for c in CHARS:
                if tables[x][c]:
                    out.append(Option(f"lobbying: swap {names[x]}'s {CARD_IDS[c]} with another player's card…",
                                      ("swap", names[x], CARD_IDS[c])))
        out.append(Option("lobbying: no swap (the lobbying has no effect)", {"do": "lobbying"}))
    if "banker" not in used and w.bank > 0 and rules.has_power(tables, p, BANKER):
        out.append(Option(f"banker: take a token from the bank ({w.bank} left)", {"do": "banker"}))
    if "priest" not in used and rules.has_power(tables, p, PRIEST):
        for e in (BARBARIAN, LOBBYING):
            if tables[p][e]:
                out.append(Option(f"priest: destroy your own {CARD_IDS[e]}", {"do": "priest", "card": CARD_IDS[e]}))
    if "spy" not in used and rules.has_power(tables, p, SPY):
        for q in range(len(names)):
            if q != p and w.tokens[q] > 0:
                out.append(Option(f"spy: steal a token from {names[q]} (who has {w.tokens[q]})",
                                  {"do": "spy", "player": names[q]}))
    return out


def _other_halves(s: KoryoState, p: int, steps: list[dict[str, Any]], x: str, cx: str) -> list[Option]:
    w = _after(s, p, steps)
    names = s.players
    out = []
    for y in rules.lobby_targets(w.tables):
        if names[y] == x:
            continue
        for c in CHARS:
            if w.tables[y][c]:
                out.append(Option(f"{names[y]}'s {CARD_IDS[c]}",
                                  {"do": "lobbying", "swap": [[x, cx], [names[y], CARD_IDS[c]]]}))
    return out


def action_menu(game: Any, s: KoryoState, player: str, picked: Sequence[Any],
                hint: Mapping[str, Any] | None) -> Menu | dict[str, Any]:
    p = s.players.index(player)
    steps: list[dict[str, Any]] = []
    half: tuple[str, str] | None = None
    for value in picked:
        if half is not None:
            if not isinstance(value, dict) or value.get("swap", [None])[0] != list(half):
                raise ValueError("not a legal choice here")
            steps.append(value)
            half = None
        elif value == END:
            done = _finish(game, s, player, steps)
            if done is None:
                raise ValueError("the turn cannot end here")
            return {"steps": done}
        elif isinstance(value, tuple) and value[0] == "swap":
            half = (value[1], value[2])
        else:
            steps.append(value)
        if half is None and _finish(game, s, player, steps) is None:
            raise ValueError("not a legal choice here")
    hinted = list(hint.get("steps", [])) if hint is not None else []
    follows = hinted[:len(steps)] == steps
    if half is not None:
        options = [o for o in _other_halves(s, p, steps, *half) if _finish(game, s, player, [*steps, o.value])]
        default = next((i for i, o in enumerate(options)
                        if follows and len(hinted) > len(steps) and o.value == hinted[len(steps)]), None)
        return Menu(f"Lobbying: swap {half[0]}'s {half[1]} with which card?", tuple(options), default)
    options = []
    for o in _step_options(s, p, steps):
        if isinstance(o.value, tuple):
            if any(_finish(game, s, player, [*steps, h.value]) for h in _other_halves(s, p, steps, o.value[1], o.value[2])):
                options.append(o)
        elif _finish(game, s, player, [*steps, o.value]) is not None:
            options.append(o)
    revealed, _nb, _nl = _owed(s, p, steps)
    end = _finish(game, s, player, steps) if revealed else None
    if end is not None:
        declined = len(end) - len(steps)
        options.append(Option("end the turn" + (" (the events left have no effect)" if declined else ""), END))
    default = None
    if follows:
        if len(hinted) > len(steps):
            nxt = hinted[len(steps)]
            for i, o in enumerate(options):
                if o.value == nxt or (isinstance(o.value, tuple) and nxt.get("do") == "lobbying"
                                      and nxt.get("swap", [None])[0] == [o.value[1], o.value[2]]):
                    default = i
                    break
        elif end is not None:
            default = len(options) - 1
    so_far = ", ".join(_step_label(st) for st in steps) or "nothing yet"
    return Menu(f"Round {s.round}, your action turn (done: {so_far}). Next step?", tuple(options), default)


def _step_label(st: Mapping[str, Any]) -> str:
    do = st["do"]
    if do == "barbarian" and "player" in st:
        return f"barbarian on {st['player']}'s {st['card']}"
    if do == "lobbying" and "swap" in st:
        (x, cx), (y, cy) = st["swap"]
        return f"lobbying {x}'s {cx} ↔ {y}'s {cy}"
    if do == "priest":
        return f"priest on your {st['card']}"
    if do == "spy":
        return f"spy on {st['player']}"
    if do in ("barbarian", "lobbying"):
        return f"{do} declined"
    return str(do)
