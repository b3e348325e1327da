"""The menu of a waiting player's legal choices, written into the player's sealed part.

The player page (``koryo-pbm player-page``) carries no rules: it renders what the moderator's
resolve wrote here, from the rules in ``games/`` (:meth:`~koryo_pbm.engine.contract.Game.menu`,
the same menus ``koryo-pbm play`` asks). A menu is a tree of questions; every path through it
ends in a finished order, given as the exact canonical text a submission signs
(:func:`koryo_pbm.match.canonical_orders`), so the page signs bytes the moderator's code wrote
and ``resolve`` checks them against the rules as it checks every order.

Layout: under the key ``menu`` of the player's part, a text: the menu below as compact JSON,
compressed with raw DEFLATE (RFC 1951, :func:`encode_menu`), in base64. The page inflates it
with the browser's own ``DecompressionStream("deflate-raw")``. Menus are very repetitive (every
finished order repeats the game id, the decision and most of a turn), so they shrink ten to
twenty times::

    {"decision": "<decision id>",
     "root": {"n": 0} | {"t": 0},            # the first question, or a finished order at once
     "nodes": [{"q": "<question>", "d": <index of the suggested option; absent: none>,
                "o": [{"l": "<label>", "n": <node index>} | {"l": "<label>", "t": <order index>}]}],
     "orders": ["<canonical orders text>", ...],
     "fresh": "contribution",                 # only for the join, for pages of before: the page of
                                              #   today ignores the join's menu and writes the join
                                              #   itself (its own random bytes, the seed commitment)
     "complete": true | false,                # false: some rare long turns were left out (fit)
     "view": "<the table as the player sees it, as text (game.render)>",
     "picture": {"title": "<the game's title>", "scene": <the scene of game.picture(view)>}}

``picture``: the same picture as ``show --as NAME --html`` of the player's own view (their
hidden cards included, nothing more), as the scene the game draws
(:func:`koryo_pbm.engine.scene.to_json`); the page lays it out with a port of
:mod:`koryo_pbm.picture.svg` and frames it with what the game file says (version, who is
awaited, the deadline, what happened last). It is left out of a menu that cannot fit with it.

Sizes leak nothing: a waiting player's part is padded to its usual size (its shape) plus
:func:`room` bytes, which depend on the decision's public kind alone
(:meth:`~koryo_pbm.engine.contract.Game.menu_room`), whatever the menu holds; compressing before
padding changes nothing to that (the padded size is fixed; only what is inside the seal varies).
A game's rooms keep a margin over the largest menus measured in many random games (the test kit,
:mod:`koryo_pbm.testing`, and ``tests/test_choices.py`` fail if a menu of listed orders does not
fit). A decision whose orders are sequences of steps can have thousands of them (an action turn
with many events and powers once had 4,585, 2.2 MB as JSON, 66 KB compressed): such a menu is cut, questions
expanded breadth-first, the suggested path first, until the room is full; a question whose
answers were not expanded is left out, so every option left still leads to a legal order, and
``complete`` is false (the page says so; the command line offers every turn).
"""

from __future__ import annotations

import binascii
import bisect
import zlib
from collections import deque
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring
from typing import Any

from koryo_pbm.engine.contract import Game, State
from koryo_pbm.engine.menus import Menu, Option

MENU_KEY = "menu"  # the key of the menu in a waiting player's part
VIEW_LIMIT = 4096  # bytes: the player's view of the table as text (game.render), cut beyond
MENU_LIMIT = 4 * 1024 * 1024  # bytes: the most a menu inflates to (the page refuses more too)
RATIO = 16  # a first guess at how many times a menu shrinks: what is built before a cut is tried
MAX_RATIO = 32  # ... and the most built for a menu that is cut
TRIES = 4  # builds of growing size before a menu is cut
FRESH_KEY = "contribution"
FRESH_PLACEHOLDER = "0" * 64


def _cost(value: Any) -> int:
    """The bytes ``value`` takes as compact JSON (:func:`_json`), and one (its separator)."""
    return _written(_json(value))


def _written(json_text: str) -> int:
    """The bytes a value already written as compact JSON takes, and one (as :func:`_cost`)."""
    return len(json_text.encode("utf-8")) + 1


def _json(value: Any) -> str:
    """``value`` as compact JSON (:func:`~koryo_pbm.store.gameparts.compact_json`): a text (the
    common case, a few thousand times a menu) as that encoder writes one
    (``json.encoder.encode_basestring``, its ``ensure_ascii`` being false), without its calls."""
    if type(value) is str:
        return encode_basestring(value)
    from koryo_pbm.store.gameparts import compact_json

    return compact_json(value)


def room(game: Game, kind: str) -> int:
    """The bytes a waiting player's part grows by for the menu of a decision of ``kind``: the
    key ``"menu"``, its comma and the compressed menu in base64, with the view."""
    return game.menu_room(kind)


def encode_menu(menu: Mapping[str, Any]) -> str:
    """``menu`` as it is sealed: compact JSON, raw DEFLATE (level 9), base64."""
    from koryo_pbm.store.gameparts import compact_json

    return _squeezed(compact_json(menu))


def _squeezed(text: str) -> str:
    """The compact JSON ``text`` of a menu as it is sealed (:func:`encode_menu`)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    raw = text.encode("utf-8")
    return binascii.b2a_base64(squeeze.compress(raw) + squeeze.flush(), newline=False).decode("ascii")


def _completed(menu_json: str, view_text: str, picture: Mapping[str, Any] | None) -> str:
    """The compact JSON of a menu (``menu_json``, what :meth:`_Builder.menu_json` gives) with
    the view and the picture put in after its other keys: the text
    ``compact_json({**menu, "view": view_text, "picture": dict(picture)})`` gives, without
    encoding the menu again."""
    return menu_json[:-1] + _tail(view_text, picture)


def _tail(view_text: str, picture: Mapping[str, Any] | None) -> str:
    """What :func:`_completed` puts in place of a menu's closing brace."""
    from koryo_pbm.store.gameparts import compact_json

    tail = ',"view":' + compact_json(view_text)
    if picture is not None:
        tail += ',"picture":' + compact_json(dict(picture))
    return tail + "}"


def decode_menu(text: Any) -> dict[str, Any] | None:
    """The menu :func:`encode_menu` wrote (or a menu of a game file of an earlier koryo-pbm, a
    table as it is), ``None`` when it is none of these; never inflates beyond
    :data:`MENU_LIMIT`."""
    import json

    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        return None
    try:
        blob = binascii.a2b_base64(text.encode("ascii"), strict_mode=True)
        inflate = zlib.decompressobj(-15)
        raw = inflate.decompress(blob, MENU_LIMIT)
        if inflate.unconsumed_tail or not inflate.eof:
            return None
        menu = json.loads(raw.decode("utf-8"))
    except (UnicodeError, binascii.Error, zlib.error, ValueError, RecursionError):
        return None
    return menu if isinstance(menu, dict) else None


def sealed_cost(encoded: str) -> int:
    """The bytes the encoded menu takes in the part: ``,"menu":"..."``."""
    return len(',"menu":""') + len(encoded)


class _Builder:
    """A menu expanded question by question, breadth-first, the suggested path first; a menu
    of any prefix of the expansions can be taken (:meth:`menu_json`), and expanding resumes where
    it stopped (no question is asked of the game twice)."""

    def __init__(self, game: Game, view: State, player: str, first: Menu, *, game_id: str, decision_id: str,
                 hint: Mapping[str, Any] | None, fresh: bool) -> None:
        from koryo_pbm.match.orders import canonical_orders

        self.canonical = canonical_orders  # imported once, not for each order
        self.answers = game.menu_answers
        self.game, self.view, self.player, self.hint = game, view, player, hint
        self.game_id, self.decision_id, self.fresh = game_id, decision_id, fresh
        self.spent = len(',"menu":') + 200  # the fixed keys, the root, the flags
        self.orders: list[str] = []
        self.order_at: dict[str, int] = {}
        self.order_json: list[str] = []  # each order as compact JSON
        self.nodes: list[dict[str, Any]] = []
        self.picks: list[list[Any]] = []  # the values picked to reach each node
        self.expanded: list[int] = []  # the nodes expanded, in order
        self.before: list[int] = []  # the bytes spent before each expansion (increasing)
        self.made: list[int] = []  # the nodes made after each expansion
        self._node(first, [])
        self.queue: deque[int] = deque([0])

    @classmethod
    def start(cls, game: Game, view: State, player: str, *, game_id: str, decision_id: str, kind: str,
              hint: Mapping[str, Any] | None) -> _Builder | None:
        from koryo_pbm.errors import KoryoPbmError
        from koryo_pbm.fair import JOIN

        fresh = kind == JOIN
        if fresh:
            hint = {FRESH_KEY: FRESH_PLACEHOLDER}
        try:
            first = game.menu(view, player, [], hint)
        except (KoryoPbmError, ValueError):
            return None
        if not isinstance(first, Menu):
            label = ("join the game: your contribution to the deal is fresh random bytes from this browser"
                     if fresh else "the only legal order")
            first = Menu("Your answer" if fresh else "Your only legal choice", (Option(label, _Finished(first)),), 0)
        return cls(game, view, player, first, game_id=game_id, decision_id=decision_id, hint=hint, fresh=fresh)

    @property
    def whole(self) -> bool:
        return not self.queue

    def _leaf(self, order: Mapping[str, Any]) -> int:
        text = self.canonical(self.game_id, self.decision_id, dict(order))
        if text not in self.order_at:
            self.order_at[text] = len(self.orders)
            self.orders.append(text)
            written = _json(text)
            self.order_json.append(written)
            self.spent += _written(written)
        return self.order_at[text]

    def _node(self, menu: Menu, picked: list[Any]) -> int:
        # "_q": the question as compact JSON, "_l": each option's label likewise (once expanded)
        question = _json(menu.question)
        self.nodes.append({"q": menu.question, "d": menu.default, "o": [], "_menu": menu, "_q": question, "_l": []})
        self.picks.append(picked)
        self.spent += _written(question) + 16
        return len(self.nodes) - 1

    def expand(self, budget: int) -> None:
        """Expand questions until the menu takes ``budget`` bytes as compact JSON, or is whole."""
        while self.queue and self.spent < budget:
            self.before.append(self.spent)
            at = self.queue.popleft()
            menu: Menu = self.nodes[at]["_menu"]
            options: list[dict[str, Any]] = []
            labels: list[str] = self.nodes[at]["_l"]
            answers = None
            if not (menu.options and isinstance(menu.options[0].value, _Finished)):
                # what each option leads to, at once if the game says (Game.menu_answers)
                answers = self.answers(self.view, self.player, self.picks[at], menu, self.hint)
                if answers is not None and len(answers) != len(menu.options):
                    raise ValueError(f"{self.game.name}: menu_answers gave {len(answers)} answers "
                                     f"for {len(menu.options)} options")
            for i, option in enumerate(menu.options):
                if isinstance(option.value, _Finished):
                    child: Any = option.value.order
                elif answers is not None:
                    child = answers[i]
                else:
                    child = self.game.menu(self.view, self.player, [*self.picks[at], option.value], self.hint)
                if isinstance(child, Menu):
                    ref = self._node(child, [*self.picks[at], option.value])
                    entry = {"l": option.label, "n": ref}
                    if i == menu.default:
                        self.queue.appendleft(ref)  # the suggested path first
                    else:
                        self.queue.append(ref)
                else:
                    entry = {"l": option.label, "t": self._leaf(child)}
                options.append(entry)
                label = _json(option.label)
                labels.append(label)
                self.spent += _written(label) + 8
            self.nodes[at]["o"] = options
            self.expanded.append(at)
            self.made.append(len(self.nodes))

    def upto(self, budget: int) -> int:
        """How many questions a new builder expands for ``budget`` (:meth:`expand`), expanding
        on if need be: the same count whatever this builder expanded before (it may be kept
        from an earlier version of the game file: :func:`menus_for`)."""
        self.expand(budget)
        return bisect.bisect_left(self.before, budget)

    def whole_at(self, count: int) -> bool:
        """Whether the first ``count`` expansions leave no question unexpanded."""
        return count > 0 and self.made[count - 1] == count

    def _alive(self, count: int) -> list[int] | None:
        """The nodes the menu of the first ``count`` expansions keeps, in order (:meth:`menu_json`);
        ``None`` if the first question itself is left without options."""
        nodes = self.nodes
        alive = set(self.expanded[:count])
        # a node's options lead to nodes made after it (a larger index): going from the last
        # node to the first, each node's options are settled before the node itself, so one
        # pass leaves out what leaving out until nothing changes would
        for at in sorted(alive, reverse=True):
            if not any("t" in o or o["n"] in alive for o in nodes[at]["o"]):
                alive.discard(at)
        if 0 not in alive:
            return None
        return sorted(alive)

    def menu_json(self, count: int) -> str | None:
        """The compact JSON of the menu of the first ``count`` expansions (the layout in this
        module's docstring): an option leading to a question not expanded is left out, then a
        question left without options, until every option leads somewhere (``complete`` false if
        anything was left out); ``None`` if the first question itself is left without options.
        Written from the texts encoded once as the menu was expanded (each question, label and
        order as compact JSON), without building the tables."""
        nodes = self.nodes
        order = self._alive(count)
        if order is None:
            return None
        complete = len(order) == len(nodes)
        index = {old: new for new, old in enumerate(order)}
        used_orders: dict[int, int] = {}
        out_orders: list[str] = []
        out_nodes = []
        for old in order:
            n = nodes[old]
            labels = n["_l"]
            options: list[str] = []
            default = None
            for i, o in enumerate(n["o"]):
                if "n" in o:
                    to = index.get(o["n"])
                    if to is None:
                        continue
                    options.append(f'{{"l":{labels[i]},"n":{to}}}')
                else:
                    t = used_orders.get(o["t"])
                    if t is None:
                        t = used_orders[o["t"]] = len(out_orders)
                        out_orders.append(self.order_json[o["t"]])
                    options.append(f'{{"l":{labels[i]},"t":{t}}}')
                if i == n["d"]:
                    default = len(options) - 1
            if default is None:
                out_nodes.append(f'{{"q":{n["_q"]},"o":[{",".join(options)}]}}')
            else:
                out_nodes.append(f'{{"q":{n["_q"]},"d":{default},"o":[{",".join(options)}]}}')
        fresh = f',"fresh":{_json(FRESH_KEY)}' if self.fresh else ""
        return (f'{{"decision":{_json(self.decision_id)},"root":{{"n":0}},"nodes":[{",".join(out_nodes)}],'
                f'"orders":[{",".join(out_orders)}],"complete":{"true" if complete else "false"}{fresh}}}')


class _Finished:
    """The value of the one option of a decision whose menu is a finished order at once (the join)."""

    def __init__(self, order: Mapping[str, Any]) -> None:
        self.order = order


def menus_for(game: Game, state: State, *, game_id: str, game_public: Mapping[str, Any],
              privates: Mapping[str, Mapping[str, Any]], views: Mapping[str, str] | None = None,
              suggest: bool = True, only: Sequence[str] | None = None,
              pictures: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, str]:
    """The menu of every player the pending decision of ``state`` waits for, each built from
    that player's own view (public part and their private part only), with the heuristic
    bot's choice from that view suggested (as ``koryo-pbm play`` suggests it), each encoded
    (:func:`encode_menu`) to fit :func:`room`. ``views``: each player's table as text, put into
    their menu (cut to :data:`VIEW_LIMIT`). ``pictures``: each player's picture (``{"title",
    "scene"}``), put into their menu while it fits. ``only``: these players alone (default: all the
    decision waits for)."""
    from koryo_pbm.store.gameparts import compact_json

    decision = game.pending(state)
    if decision is None:
        return {}
    out = {}
    public_json = None
    space = room(game, decision.kind)
    for name in decision.players:
        if only is not None and name not in only:
            continue
        private = privates[name]
        if public_json is None:
            public_json = compact_json(game_public)
        # what the menu is made of: the player's own view of the decision, nothing else
        key = (type(game).__module__, type(game).__qualname__, game.name, game_id, decision.id, decision.kind, name,
               suggest, public_json, compact_json(private))
        text = (views or {}).get(name, "")
        while _cost(text) > VIEW_LIMIT:
            text = text[:len(text) * 3 // 4]
        picture = (pictures or {}).get(name)
        digest = _WHOLE.digest(key)
        made = _WHOLE.get(digest)
        if made is not None:  # made before from the same view of the same decision
            if made == _WHOLE.NONE:
                continue
            again = _squeezed(_completed(made, text, picture))
            if sealed_cost(again) <= space:  # what _fitted returns first for a menu that fitted whole
                out[name] = again
                continue
        builder = _KEPT.get(key)
        if builder is None:
            builder = _start(game, game_public, private, name, game_id=game_id, decision_id=decision.id,
                             kind=decision.kind, suggest=suggest)
        if builder is None:
            _WHOLE.keep(digest, _WHOLE.NONE)
            continue
        encoded, whole = _fitted(game, builder, kind=decision.kind, view_text=text, picture=picture)
        _KEPT.keep(key, builder)
        if whole is not None:
            _WHOLE.keep(digest, whole)
        if encoded is not None:
            out[name] = encoded
    return out


def _start(game: Game, game_public: Mapping[str, Any], private: Mapping[str, Any], name: str, *, game_id: str,
           decision_id: str, kind: str, suggest: bool) -> _Builder | None:
    """A menu builder for ``name`` from their own view, with the heuristic bot's choice suggested."""
    from koryo_pbm.engine import bots
    from koryo_pbm.fair import JOIN

    view = game.from_view(game_public, private, name)
    hint = None
    if suggest and kind != JOIN and "heuristic" in bots.levels(game):
        try:
            hint = bots.choose_in_view(game, view, name, "heuristic", seed=f"{game_id}/{decision_id}/{name}").order
        except Exception:  # a suggestion is a courtesy: a bot's failure leaves none
            hint = None
    return _Builder.start(game, view, name, game_id=game_id, decision_id=decision_id, kind=kind, hint=hint)


class _Kept:
    """The menu builders of the last few menus made in this process, by what they were made
    of (:func:`menus_for`'s key: the game, the decision and the player's own view): a judge
    writes a new version of a game file for every order it receives, and until the decision
    is resolved every waiting player's menu is the same but for the view and the picture,
    which are put in as the menu is encoded. Bounded by count and by the bytes the builders
    spent (a cut menu's builder holds up to :data:`MAX_RATIO` times its room)."""

    COUNT = 64
    BYTES = 8 * 1024 * 1024

    def __init__(self) -> None:
        self.builders: dict[tuple[Any, ...], _Builder] = {}

    def get(self, key: tuple[Any, ...]) -> _Builder | None:
        builder = self.builders.pop(key, None)
        if builder is not None:
            self.builders[key] = builder  # the most recent last
        return builder

    def keep(self, key: tuple[Any, ...], builder: _Builder) -> None:
        self.builders.pop(key, None)
        self.builders[key] = builder
        spent = sum(b.spent for b in self.builders.values())
        while len(self.builders) > self.COUNT or (spent > self.BYTES and len(self.builders) > 1):
            oldest = next(iter(self.builders))
            spent -= self.builders.pop(oldest).spent


_KEPT = _Kept()


class _Whole:
    """The menus that fitted whole at once, in the last few thousand menus made in this process,
    by a digest (SHA-256) of what each was made of (:func:`menus_for`'s key): the compact JSON of
    the menu without its view and picture, kept compressed. A judge serving many games writes a
    new version of a file for every order it holds, and every waiting player's menu is then the
    one made for the version before but for its view and picture: this gives it again without
    a builder (the suggestion, the questions), put together with the new view and picture
    exactly as :func:`_fitted` would (:func:`_completed`). A menu that no longer fits with them
    is made by :func:`_fitted`, as before. Bounded by count and by the bytes kept."""

    COUNT = 8192
    BYTES = 8 * 1024 * 1024
    NONE = ""  # no menu (the game has none for this decision)

    def __init__(self) -> None:
        self.menus: dict[str, bytes | str] = {}
        self.size = 0

    @staticmethod
    def digest(key: tuple[Any, ...]) -> str:
        from koryo_pbm.crypto.keys import sha256_hex

        texts = [str(part) for part in key]
        return sha256_hex("".join(f"{len(t)}:{t}" for t in texts).encode("utf-8"))  # each part's length first

    def get(self, digest: str) -> str | None:
        kept = self.menus.pop(digest, None)
        if kept is None:
            return None
        self.menus[digest] = kept  # the most recent last
        return kept if isinstance(kept, str) else zlib.decompress(kept).decode("utf-8")

    def keep(self, digest: str, menu_json: str) -> None:
        old = self.menus.pop(digest, None)
        if old is not None:
            self.size -= len(old) + len(digest)
        kept = zlib.compress(menu_json.encode("utf-8"), 1) if menu_json else menu_json
        self.menus[digest] = kept
        self.size += len(kept) + len(digest)
        while len(self.menus) > self.COUNT or (self.size > self.BYTES and len(self.menus) > 1):
            oldest = next(iter(self.menus))
            self.size -= len(self.menus.pop(oldest)) + len(oldest)


_WHOLE = _Whole()


def _fitted(game: Game, builder: _Builder, *, kind: str, view_text: str,
            picture: Mapping[str, Any] | None = None) -> tuple[str | None, str | None]:
    """The menu encoded (:func:`encode_menu`) to fit :func:`room`: whole when it fits; else cut
    to the most expansions that fit (the questions are asked of the game once, at most
    :data:`MAX_RATIO` times the room before compression: the time a resolve takes stays
    bounded); ``None`` when not even the first question fits. The picture and the view are
    courtesies: a menu that does not fit even cut to its first question is tried without the
    picture, then without the view too. Second: the compact JSON of the menu without view and
    picture when it was whole and fitted at the first try (what :class:`_Whole` keeps), else
    ``None``."""
    space = room(game, kind)
    menu_json = builder.menu_json
    tail = _tail(view_text, picture)  # the view and the picture as compact JSON, written once

    def completed(made: str) -> str:
        return made[:-1] + tail  # _completed(made, view_text, picture)

    def encoded(count: int) -> str | None:
        made = menu_json(count)
        return None if made is None else _squeezed(completed(made))

    budget = RATIO * space
    for attempt in range(TRIES):
        count = builder.upto(budget)
        made = menu_json(count)
        if made is None:
            return None, None
        whole = _squeezed(completed(made))
        cost = sealed_cost(whole)
        if cost > space:
            break
        if builder.whole_at(count) or budget >= MAX_RATIO * space:
            # kept only for a menu a fresh builder gives at once, whole (its count depends on
            # the menu alone): the one case :func:`menus_for` can take again without a builder
            return whole, made if attempt == 0 and builder.whole_at(count) else None
        budget = min(max(budget * space * 9 // (cost * 10), budget * 5 // 4), MAX_RATIO * space)
    # too large whole: the most expansions that fit (a binary search; compressing is cheap)
    fits, low, high = None, 1, count - 1
    while low <= high:
        mid = (low + high) // 2
        text = encoded(mid)
        if text is not None and sealed_cost(text) <= space:
            fits, low = text, mid + 1
        else:
            high = mid - 1
    if fits is None and picture is not None:
        picture = None  # the picture is a courtesy (``show --html`` has it): the choices come first
        tail = _tail(view_text, picture)
        text = encoded(1)
        fits = text if text is not None and sealed_cost(text) <= space else None
    if fits is None and view_text:
        view_text = ""  # so is the view (``show`` has it)
        tail = _tail(view_text, picture)
        text = encoded(1)
        fits = text if text is not None and sealed_cost(text) <= space else None
    return fits, None
