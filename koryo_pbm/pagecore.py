"""The player page's Python: the rules run in the page (Pyodide), from the game file and the
player's opened part alone.

The page (``player-page/``) checks the game file's signature and opens the player's sealed
part with its audited JavaScript libraries; it then gives this module the game file's text (as
signed) and the part's JSON, and asks for the table and the legal choices, step by step, as
``koryo-pbm play`` asks the game (:meth:`~koryo_pbm.engine.contract.Game.menu`): every legal
choice, nothing cut, nothing from the moderator but the signed file and the sealed part. Each
finished choice comes as the canonical orders text a submission signs
(:func:`koryo_pbm.match.canonical_orders`); the suggestion is the heuristic bot's choice from
the player's view, seeded as ``play`` and ``orders`` seed it (public values only).

Imports no cryptography, storage, transport or judge (the page carries none of them): the
engine, the games, :mod:`koryo_pbm.match.orders` and :mod:`koryo_pbm.values`. The join's one
choice names the game file's seed commitment and a placeholder of 64 zeros for the
contribution, which the page replaces with 32 fresh random bytes of its own (``fresh``); a blind
table's hand is opened from the dealers' shares, which this module does not do
(:attr:`Table.reason` says so).

Every answer is plain JSON-able data (what the page's JavaScript reads)::

    open(game_text, part_json, seat) -> Table
    Table.summary() -> {game, title, game_id, version, seat, decision, kind, waiting, view,
                        picture: {title, scene} | None, menu: bool, reason: text | None,
                        suggested: {labels: [...], order: text} | None,
                        fresh: "contribution" (the join: the key the page fills) | None}
    Table.step([i, j, ...]) -> {q, d, o: [{l, t?}]}   # the question after picking options i, j...
                                                     #   (t: the canonical order it finishes)
    Table.leaves([i, ...], limit) -> [{labels, order}] | None   # the finished choices below, or
                                                                #   None if more than limit
    Table.orders() -> [text, ...]                    # every legal choice (tests; can be large)
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import Game, State
from koryo_pbm.engine.menus import Menu, Option
from koryo_pbm.errors import FormatError, KoryoPbmError

JOIN = "join"  # koryo_pbm.fair.JOIN (not imported: fair deals with cryptography's hashes)
FRESH_KEY = "contribution"  # the join's key the page fills with fresh random bytes
FRESH_PLACEHOLDER = "0" * 64
MAX_STEPS = 64  # the deepest menu the page walks


class Table:
    """One player's table: the game, their state rebuilt from their own view, the suggestion."""

    def __init__(self, top: Mapping[str, Any], private: Mapping[str, Any], seat: str) -> None:
        from koryo_pbm.engine.registry import find_game

        self.top, self.private, self.seat = top, private, seat
        self.game_id = str(top["game_id"])
        self.decision: Mapping[str, Any] | None = top.get("decision")
        self.reason: str | None = None
        self.game: Game = find_game(str(top["game"]))
        public = top["public"]
        if not isinstance(public, dict):
            raise FormatError("the game file's public state is not a table")
        self.public = public
        self.kind = str(self.decision["kind"]) if self.decision else None
        self.state: State | None = None
        self.hint: dict[str, Any] | None = None
        self.suggested: dict[str, Any] | None = None
        self._menus: dict[tuple[int, ...], tuple[Any, list[Any]]] = {}
        self.join: dict[str, Any] | None = None
        deal = top.get("deal")
        waiting = list(self.decision["waiting_for"]) if self.decision else []
        if deal == "blind":
            self.reason = ("a blind table's hand is opened from the dealers' shares, which this page does not do yet: "
                           "answer with the command line (koryo-pbm play)")
        elif public.get("not_dealt") or self.kind == JOIN:
            if seat in waiting:  # fair.Joining's one order: the contribution, the commitment signed with it
                self.join = {FRESH_KEY: FRESH_PLACEHOLDER, "commitment": str(public.get("commitment", ""))}
                self.suggested = self._suggested_path()
            return
        if self.reason is None and seat in waiting:
            self.state = self.game.from_view(public, private, seat)
            self.hint = self._suggestion()
            self.suggested = self._suggested_path()

    # -- what the player sees ----------------------------------------------------------------

    def engine_view(self) -> dict[str, Any]:
        d = self.decision
        return {"id": self.game_id, "game": self.top["game"], "version": self.top["version"],
                "decision": d["id"] if d else None, "waiting_for": list(d["waiting_for"]) if d else [],
                "received": list(d.get("received", [])) if d else []}

    def summary(self) -> dict[str, Any]:
        from koryo_pbm.engine import scene
        from koryo_pbm.engine.contract import drawn_scene

        view_text, picture, breakdown = "", None, None
        d = self.decision
        if self.top.get("deal") != "blind" and not self.public.get("not_dealt"):
            seen = {**self.game.view(self.public, self.private), **self.engine_view()}
            view_text = self.game.render({**seen, "me": self.seat})
            picture = {"title": self.game.title, "scene": scene.to_json(drawn_scene(self.game, seen))}
            rows = self.game.score_breakdown(seen) if d is None else None
            if rows:  # at the end: the score breakdown, as `koryo-pbm log` and `show` give it
                from koryo_pbm.history import breakdown_lines

                breakdown = breakdown_lines(rows, list(seen.get("players", [])), seen.get("scores") or {})
        return {"game": self.game.name, "title": self.game.title, "game_id": self.game_id,
                "version": self.top["version"], "seat": self.seat, "decision": d["id"] if d else None,
                "kind": self.kind, "waiting": list(d["waiting_for"]) if d else [], "view": view_text,
                "picture": picture, "breakdown": breakdown, "menu": self.state is not None or self.join is not None, "reason": self.reason,
                "suggested": self.suggested, "fresh": FRESH_KEY if self.join is not None else None}

    # -- the choices -------------------------------------------------------------------------

    def _suggestion(self) -> dict[str, Any] | None:
        """The order ``play`` suggests (``koryo_pbm.cli.orders.suggestion``): the heuristic bot's
        choice from this view, seeded by the game, the decision and the seat."""
        from koryo_pbm.engine import bots

        assert self.state is not None and self.decision is not None
        try:
            if "heuristic" not in bots.levels(self.game):
                example, _ = self.game.describe_choices(self.state, self.seat)
                return dict(example)
            choice = bots.choose_in_view(self.game, self.state, self.seat, "heuristic",
                                         seed=f"{self.game_id}/{self.decision['id']}/{self.seat}")
            return dict(choice.order)
        except Exception:  # a suggestion is a courtesy: a bot's failure leaves none
            return None

    def _menu(self, path: Sequence[int]) -> tuple[Any, list[Any]]:
        """What the game asks after the options ``path`` (indices), and the values picked."""
        key = tuple(path)
        kept = self._menus.get(key)
        if kept is not None:
            return kept
        if self.join is not None and not key:
            label = "join the game: your contribution to the deal is fresh random bytes from this browser"
            kept = (Menu("Your answer", (Option(label, _Finished(self.join)),), 0), [])
            self._menus[key] = kept
            return kept
        if self.state is None and self.join is None:
            raise KoryoPbmError(self.reason or "this decision does not wait for you")
        if len(key) > MAX_STEPS:
            raise FormatError("too many steps")
        if key:
            menu, picked = self._menu(key[:-1])
            if not isinstance(menu, Menu) or not 0 <= key[-1] < len(menu.options):
                raise FormatError(f"no option {key[-1]} at this step")
            picked = [*picked, menu.options[key[-1]].value]
        else:
            picked = []
        asked: Any
        if picked and isinstance(picked[-1], _Finished):
            asked = picked[-1].order
        else:
            assert self.state is not None
            asked = self.game.menu(self.state, self.seat, picked, self.hint)
            if not key and not isinstance(asked, Menu):  # a finished order at once: one option
                asked = Menu("Your only legal choice", (Option("the only legal order", _Finished(asked)),), 0)
        self._menus[key] = (asked, picked)
        return asked, picked

    def _order(self, order: Mapping[str, Any]) -> str:
        from koryo_pbm.match.orders import canonical_orders

        assert self.decision is not None
        return canonical_orders(self.game_id, str(self.decision["id"]), dict(order))

    def step(self, path: Sequence[int]) -> dict[str, Any]:
        menu, picked = self._menu(path)
        if not isinstance(menu, Menu):
            raise FormatError("that choice is finished")
        if self.state is not None and not (menu.options and isinstance(menu.options[0].value, _Finished)):
            # what every option leads to, at once where the game says (Game.menu_answers)
            answers = self.game.menu_answers(self.state, self.seat, picked, menu, self.hint)
            if answers is not None and len(answers) == len(menu.options):
                for i, child in enumerate(answers):
                    self._menus.setdefault((*path, i), (child, [*picked, menu.options[i].value]))
        options = []
        for i, option in enumerate(menu.options):
            entry: dict[str, Any] = {"l": option.label}
            after, _ = self._menu([*path, i])
            if not isinstance(after, Menu):
                entry["t"] = self._order(after)
            options.append(entry)
        out: dict[str, Any] = {"q": menu.question, "o": options}
        if menu.default is not None:
            out["d"] = menu.default
        return out

    def _suggested_path(self) -> dict[str, Any] | None:
        labels: list[str] = []
        path: list[int] = []
        for _ in range(MAX_STEPS):
            menu, _ = self._menu(path)
            if not isinstance(menu, Menu):
                return {"labels": labels, "order": self._order(menu), "path": path}
            if menu.default is None:
                return None
            labels.append(menu.options[menu.default].label)
            path.append(menu.default)
        return None

    def leaves(self, path: Sequence[int], limit: int) -> list[dict[str, Any]] | None:
        out: list[dict[str, Any]] = []

        def walk(at: list[int], labels: list[str]) -> bool:
            menu, _ = self._menu(at)
            if not isinstance(menu, Menu):
                out.append({"labels": labels, "order": self._order(menu), "path": at})
                return len(out) <= limit
            return all(walk([*at, i], [*labels, o.label]) for i, o in enumerate(menu.options))

        return out if walk(list(path), []) else None

    def orders(self) -> list[str]:
        """Every finished choice, in menu order, each once (a test's comparison with ``play``)."""
        seen: dict[str, None] = {}

        def walk(at: list[int]) -> None:
            menu, _ = self._menu(at)
            if not isinstance(menu, Menu):
                seen.setdefault(self._order(menu), None)
                return
            self._menus.pop(tuple(at), None)  # a whole walk keeps no menus (an action turn has thousands)
            for i in range(len(menu.options)):
                walk([*at, i])

        walk([])
        self._menus.clear()
        return list(seen)


class _Finished:
    """The value of the one option of a decision whose menu is a finished order at once."""

    def __init__(self, order: Mapping[str, Any]) -> None:
        self.order = order


def open_table(game_text: str, part_json: str, seat: str) -> Table:
    """The table of ``seat`` from the game file's text (its signature checked by the page) and
    the seat's opened part (compact JSON, padded with spaces)."""
    try:
        top = tomllib.loads(game_text)
        private = json.loads(part_json)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise FormatError(f"the game file or your part cannot be read: {exc}") from None
    if not isinstance(private, dict) or not isinstance(top, dict):
        raise FormatError("your part is not a table")
    private.pop("menu", None)
    for key in ("game_id", "game", "version", "public"):
        if key not in top:
            raise FormatError(f"the game file has no {key!r}")
    return Table(top, private, seat)


# -- the page's calls: JSON texts in, a JSON text out (what the JavaScript passes through) ----

_TABLE: list[Table] = []  # the table the page has open (one)


def start() -> None:
    """Register the games this page carries (``koryo_pbm_page_games``, written by the page's
    build, and ``koryo_pbm_plugin_games`` of a page built ``--with`` a plug-in)."""
    from importlib import import_module

    from koryo_pbm.engine import registry

    games: dict[str, str] = {}
    for name in ("koryo_pbm_page_games", "koryo_pbm_plugin_games"):
        try:
            games.update(import_module(name).GAMES)
        except ImportError:
            continue
    registry.use_table(games)


def _answer(call: Any) -> str:
    try:
        return json.dumps(call(), separators=(",", ":"))
    except KoryoPbmError as exc:
        return json.dumps({"error": str(exc)})
    except RecursionError:
        return json.dumps({"error": "the rules could not answer (too deep)"})
    except Exception as exc:  # the page shows one line, never a traceback
        return json.dumps({"error": f"the rules failed: {type(exc).__name__}: {exc}"})


def _not_carried(name: str) -> KoryoPbmError:
    from koryo_pbm.engine import registry

    carried = ", ".join(registry.names()) or "none"
    return KoryoPbmError(f"this page does not carry the game {name!r} (it carries {carried}): play it with the command "
                         f"line (koryo-pbm play), or make a page that carries it: koryo-pbm player-page --with PACKAGE -o FILE")


def page_open(game_text: str, part_json: str, seat: str) -> str:
    def call() -> dict[str, Any]:
        from koryo_pbm.errors import UnknownGame

        text, part, who = json.loads(game_text), json.loads(part_json), json.loads(seat)
        try:
            table = open_table(text, part, who)
        except UnknownGame:
            raise _not_carried(str(tomllib.loads(text).get("game"))) from None
        _TABLE[:] = [table]
        return table.summary()

    return _answer(call)


def _open() -> Table:
    if not _TABLE:
        raise KoryoPbmError("open the game first")
    return _TABLE[0]


def page_step(path: str) -> str:
    return _answer(lambda: _open().step(_path(path)))


def page_leaves(path: str, limit: str) -> str:
    return _answer(lambda: {"leaves": _open().leaves(_path(path), int(json.loads(limit)))})


def page_orders() -> str:
    return _answer(lambda: {"orders": _open().orders()})


def _path(text: str) -> list[int]:
    path = json.loads(text)
    if not isinstance(path, list) or not all(type(i) is int for i in path):
        raise FormatError("a path of choices is a list of numbers")
    return path
