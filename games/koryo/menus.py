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


def single_answers(s: KoryoState, p: int, kind: str, menu: Menu) -> list[dict[str, Any]]:
    """What each option of ``p``'s one-question ``kind`` menu (``play`` or ``discard``: ``menu``,
    as :func:`play_menu` or :func:`discard_menu` wrote it) leads to, as those answer it: its
    value (checked against the values once, in order, the options being written in the same
    order; one by one otherwise)."""
    values = _answer_values(s, p, kind)
    options = menu.options
    if len(options) == len(values) and all(o.value == v for o, v in zip(options, values, strict=True)):
        return [dict(o.value) for o in options]
    return [_picked(values, [o.value]) for o in options]


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


def _owed(s: KoryoState, p: int, steps: list[dict[str, Any]]) -> tuple[bool, int, int]:
    """Whether ``steps`` reveal, and the Barbarians and Lobbyings still owed after them."""
    revealed = False
    fd = s.facedown[p]
    nb, nl = fd[BARBARIAN], fd[LOBBYING]
    for st in steps:  # one pass
        do = st["do"]
        if do == "reveal":
            revealed = True
        elif do == "barbarian":
            nb -= 1
        elif do == "lobbying":
            nl -= 1
    return revealed, nb, nl


class _Finished(threading.local):
    """What the action turn's menus found for one state and player: a menu is built question by
    question, each asking again what its path and its options lead to (four times in five the
    same question). By the steps asked: the shortest legal turn (:func:`_finish`) and the state
    once they are carried out (:func:`_after`); by the values picked: where a path of answers
    already checked stands (:func:`action_menu`). The state is known by its identity (it is
    held here, so no other state can take its place): a state is never changed once made (see
    ``KoryoState.decision``)."""

    state: KoryoState | None = None
    key: Any = None
    turns: dict[str, list[dict[str, Any]] | None] = {}  # noqa: RUF012 (set per thread before use)
    after: dict[str, KoryoState] = {}  # noqa: RUF012 (set per thread before use)
    paths: dict[str, tuple[list[dict[str, Any]], tuple[str, str] | None, str]] = {}  # noqa: RUF012 (likewise)
    halves: dict[str, list[Option]] = {}  # noqa: RUF012 (likewise)
    read: dict[str, list[tuple] | None] = {}  # noqa: RUF012 (likewise)


_FINISHED = _Finished()


def _memo(game: Any, s: KoryoState, player: str) -> _Finished:
    """:data:`_FINISHED`, emptied first unless it holds what was found for ``s`` and ``player``."""
    memo = _FINISHED
    if memo.state is not s or memo.key != (game, player):
        memo.state, memo.key, memo.turns, memo.after = s, (game, player), {}, {}
        memo.paths, memo.halves, memo.read = {}, {}, {}
    return memo


def _key(steps: Sequence[Any]) -> str:
    """What the memo knows ``steps`` (or a path of values picked) by: each one's ``repr`` on a
    line (a ``repr`` has no line break), so that the key of a longer path is the shorter one's
    and the key of what is added."""
    return "".join([f"{st!r}\n" for st in steps])


def _finish(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]],
            key: str | None = None) -> list[dict[str, Any]] | None:
    """The shortest legal turn that begins with ``steps``: nothing added, or the reveal and
    declines of the events still owed; None if none is legal (found once per state, player
    and steps: :class:`_Finished`; ``key``: :func:`_key` of ``steps``, if known)."""
    turn = _found(game, s, player, steps, key)
    return None if turn is None else list(turn)


def _found(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]],
           key: str | None = None) -> list[dict[str, Any]] | None:
    """:func:`_finish`, the memo's own list (not to be changed)."""
    turns = _memo(game, s, player).turns
    asked = _key(steps) if key is None else key
    if asked in turns:
        return turns[asked]
    turn = turns[asked] = _find_finish(game, s, player, steps, asked)
    return turn


#: the steps a tail of declines is made of, as :func:`.orders.parse_action` reads them
_DECLINED = {"barbarian": ("barbarian", None, None), "lobbying": ("lobbying", None)}


def _read(s: KoryoState, steps: list[dict[str, Any]], key: str) -> list[tuple] | None:
    """``steps`` as :func:`.orders.parse_action` reads them, ``None`` if it refuses them: each
    step read once while :data:`_FINISHED` holds ``s`` (the steps before the last are read as
    a path of their own, ``key`` being :func:`_key` of ``steps``)."""
    memo = _FINISHED
    read = memo.read if memo.state is s else None
    if read is None or not steps:
        try:
            return O.parse_action(s, {"steps": steps})
        except (IllegalOrder, OrderError):
            return None
    if key in read:
        return read[key]
    before = key[:key.rfind("\n", 0, len(key) - 1) + 1]  # each step's repr on a line: the steps but the last
    done = read[before] if before in read else _read(s, steps[:-1], before)
    if done is None:
        out = None
    else:
        try:
            out = [*done, *O.parse_action(s, {"steps": steps[-1:]})]
        except (IllegalOrder, OrderError):
            out = None
    read[key] = out
    return out


def _find_finish(game: Any, s: KoryoState, player: str, steps: list[dict[str, Any]], key: str) -> list[dict[str, Any]] | None:
    """The rules' check (:meth:`.game.KoryoGame.check` of an action turn: the steps read, then
    carried out on a copy of the state) of each turn tried, the steps read once for them all
    (``game.menu`` checked that ``player`` is asked this action turn)."""
    p = s.players.index(player)
    revealed, nb, nl = _owed(s, p, steps)
    head = steps if revealed else [*steps, {"do": "reveal"}]
    read = _read(s, steps, key)
    if read is None:
        return None
    if not revealed:
        read = [*read, ("reveal",)]
    for total in range(nb + nl + 1):
        for b in range(min(nb, total) + 1):
            if total - b > nl:
                continue
            try:
                rules.run_steps(s.copy(), p, read + [_DECLINED["barbarian"]] * b + [_DECLINED["lobbying"]] * (total - b),
                                None)
            except IllegalOrder:
                continue
            return head + [{"do": "barbarian"}] * b + [{"do": "lobbying"}] * (total - b)
    return None


def _after(s: KoryoState, p: int, steps: list[dict[str, Any]], key: str | None = None) -> KoryoState:
    """The state once ``steps`` (a legal beginning of a turn) are carried out (not to be changed:
    found once per steps while :data:`_FINISHED` holds ``s``; ``key``: :func:`_key` of ``steps``)."""
    memo = _FINISHED
    after = memo.after if memo.state is s else None
    asked = f"{p}\n{_key(steps) if key is None else key}" if after is not None else ""
    if after is not None and asked in after:
        return after[asked]
    w = s.copy()
    read = _read(s, steps, _key(steps) if key is None else key)
    if read is None:  # not a legal beginning: what the rules say
        read = O.parse_action(s, {"steps": steps})
    with contextlib.suppress(IllegalOrder):  # only the end-of-turn checks fail for a legal beginning
        rules.run_steps(w, p, read, None)
    if after is not None:
        after[asked] = w
    return w


def _step_options(s: KoryoState, p: int, steps: list[dict[str, Any]], key: str | None = None) -> list[Option]:
    names = s.players
    w = _after(s, p, steps, key)
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


def _other_halves(s: KoryoState, p: int, steps: list[dict[str, Any]], x: str, cx: str,
                  key: str | None = None) -> list[Option]:
    """The second halves of a Lobbying swap of ``x``'s ``cx`` after ``steps`` (found once per
    steps while :data:`_FINISHED` holds ``s``: asked for the menu that offers the swap, then
    for the swap's own; an option is never changed)."""
    memo = _FINISHED
    halves = memo.halves if memo.state is s else None
    asked = f"{p}\n{x}\n{cx}\n{_key(steps) if key is None else key}" if halves is not None else ""
    if halves is not None and asked in halves:
        return halves[asked]
    out = _find_halves(s, p, steps, x, cx, key)
    if halves is not None:
        halves[asked] = out
    return out


def _find_halves(s: KoryoState, p: int, steps: list[dict[str, Any]], x: str, cx: str,
                 key: str | None) -> list[Option]:
    w = _after(s, p, steps, key)
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
    paths = _memo(game, s, player).paths
    # the path's answers checked one by one; a menu is asked for every option of a menu asked
    # before, so the path but its last answer is usually checked already (and led to a menu)
    path_key = _key(picked[:-1])
    known = paths.get(path_key) if picked else None
    if known is not None:
        return _follow(game, s, player, p, paths, known, f"{path_key}{picked[-1]!r}\n", picked[-1:], hint)
    return _follow(game, s, player, p, paths, _START, _key(picked), picked, hint)


def action_answers(game: Any, s: KoryoState, player: str, picked: Sequence[Any], menu: Menu,
                   hint: Mapping[str, Any] | None) -> list[Menu | dict[str, Any]]:
    """``[action_menu(game, s, player, [*picked, o.value], hint) for o in menu.options]``, the
    path ``picked`` (which led to ``menu``) followed once for them all."""
    p = s.players.index(player)
    paths = _memo(game, s, player).paths
    path_key = _key(picked)
    known = paths.get(path_key)
    if known is None:  # not asked before (while the memo holds s): as action_menu would find it
        return [action_menu(game, s, player, [*picked, o.value], hint) for o in menu.options]
    return [_follow(game, s, player, p, paths, known, f"{path_key}{o.value!r}\n", [o.value], hint)
            for o in menu.options]


#: where a path of no answers stands: no steps, no half of a swap picked, the key of no steps
_START: tuple[list[dict[str, Any]], tuple[str, str] | None, str] = ([], None, "")


def _follow(game: Any, s: KoryoState, player: str, p: int,
            paths: dict[str, tuple[list[dict[str, Any]], tuple[str, str] | None, str]],
            start: tuple[list[dict[str, Any]], tuple[str, str] | None, str], path_key: str, picked: Sequence[Any],
            hint: Mapping[str, Any] | None) -> Menu | dict[str, Any]:
    """:func:`action_menu` of a path: from where its first answers stand (``start``, what ``paths``
    holds for them), the answers ``picked`` after them checked; ``path_key``: :func:`_key` of the
    whole path."""
    steps, half, key = list(start[0]), start[1], start[2]
    for value in picked:
        if half is not None:
            if not isinstance(value, dict) or value.get("swap", [None])[0] != list(half):
                raise ValueError("not a legal choice here")
            steps.append(value)
            key += f"{value!r}\n"
            half = None
        elif value == END:
            done = _finish(game, s, player, steps, key)
            if done is None:
                raise ValueError("the turn cannot end here")
            return {"steps": done}
        elif isinstance(value, tuple) and value[0] == "swap":
            half = (value[1], value[2])
        else:
            steps.append(value)
            key += f"{value!r}\n"
        if half is None and _found(game, s, player, steps, key) is None:
            raise ValueError("not a legal choice here")
    paths[path_key] = (list(steps), half, key)
    hinted = list(hint.get("steps", [])) if hint is not None else []
    follows = hinted[:len(steps)] == steps
    if half is not None:
        options = [o for o in _other_halves(s, p, steps, *half, key)
                   if _found(game, s, player, [*steps, o.value], f"{key}{o.value!r}\n")]
        default = next((i for i, o in enumerate(options)
                        if follows and len(hinted) > len(steps) and o.value == hinted[len(steps)]), None)
        return Menu(f"Lobbying: swap {half[0]}'s {half[1]} with which card?", tuple(options), default)
    options = []
    for o in _step_options(s, p, steps, key):
        if isinstance(o.value, tuple):
            if any(_found(game, s, player, [*steps, h.value], f"{key}{h.value!r}\n")
                   for h in _other_halves(s, p, steps, o.value[1], o.value[2], key)):
                options.append(o)
        elif _found(game, s, player, [*steps, o.value], f"{key}{o.value!r}\n") is not None:
            options.append(o)
    revealed, _nb, _nl = _owed(s, p, steps)
    end = _found(game, s, player, steps, key) if revealed else None
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
