"""The menus resolve seals into the waiting players' parts (``koryo_pbm.choices``): what the
player page renders. Every order in a menu is legal for that player (the rules say so, from the
player's own view), every path ends in one, the suggestion leads somewhere, the part's size
depends on the decision's public kind alone, never on the menu inside, and every menu fits its
room whole but for a Koryo action turn of thousands of step orders (a cut would not be silent:
these tests fail)."""

from __future__ import annotations

import random
import sys

import pytest

from koryo_pbm import choices, match
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.engine import scene
from koryo_pbm.engine.registry import find_game
from koryo_pbm.store import gameparts


def _walk(menu: dict) -> list[int]:
    """Every order reached from the root; checks every option leads to a node or an order."""
    seen, todo, reached = set(), [menu["root"]], []
    while todo:
        option = todo.pop()
        if "t" in option:
            assert 0 <= option["t"] < len(menu["orders"])
            reached.append(option["t"])
            continue
        if option["n"] in seen:
            continue
        seen.add(option["n"])
        node = menu["nodes"][option["n"]]
        assert node["o"], "a question without options"
        if "d" in node:
            assert 0 <= node["d"] < len(node["o"])
        todo.extend(node["o"])
    return reached


@pytest.mark.parametrize(("name", "n", "seed"), [("koryo", 3, "menus-1"), ("koryo", 4, "menus-2"),
                                                  ("korsar", 4, "menus-3"), ("gops", 4, "menus-4")])
def test_every_order_in_a_sealed_menu_is_legal_and_sizes_tell_nothing(name, n, seed):
    game = find_game(name)
    players = [f"p{i}" for i in range(1, n + 1)]
    ids = {p: Identity.generate(p) for p in players}
    mod = Identity.generate("mod")
    options = {"teams": [["p1", "p2"], ["p3", "p4"]]} if name == "korsar" else None
    doc, _ = match.create(game, mod, {p: i.public for p, i in ids.items()}, seed=seed, options=options)
    rng = random.Random(seed)
    state = game.setup(players, seed, options=options)
    checked = 0
    for _step in range(40):
        decision = game.pending(state)
        if decision is None:
            break
        doc.version += 1
        match._fill(doc, game, state, {"orders": {}})
        for p in decision.players:
            menu = match.open_menu(doc, ids[p])
            assert menu is not None and menu["decision"] == decision.id
            assert menu["view"]  # the table as text came along, inside the compressed room
            if (name, decision.kind) != ("koryo", "action"):
                assert menu["complete"], f"a {name} {decision.kind} menu did not fit its room whole"
            reached = _walk(menu)
            assert set(reached) == set(range(len(menu["orders"])))  # no order is unreachable
            private = gameparts.open_part(doc, p, ids[p])
            private.pop(choices.MENU_KEY)
            for text in menu["orders"]:
                match.check_own_order(doc, game, p, private, text)  # the rules accept it
                checked += 1
            blob = len(doc.sealed[p]["data"])
            assert blob == len(gameparts.seal_part(doc, p, ids[p].public, private,
                                                  size=gameparts.padded_size(private) + choices.room(game, decision.kind))["data"])
        orders = {p: game.random_order(state, p, rng) for p in decision.players}
        state, _ = game.apply(state, orders, log=False)
    assert checked > 20


@pytest.mark.parametrize(("name", "n", "games"), [("koryo", 3, 2), ("koryo", 4, 1), ("korsar", 4, 1), ("gops", 4, 1)])
def test_every_menu_of_random_games_fits_its_room_and_only_long_action_turns_are_cut(name, n, games):
    """The rooms (``Game.menu_room``) keep a margin over the largest compressed menus met: every
    menu of every decision of a few random games fits, whole, but a Koryo action turn of many
    step orders; a menu that stops fitting fails here, not silently on a player's page."""
    game = find_game(name)
    players = [f"player-{i}" for i in range(1, n + 1)]
    cut = seen = 0
    for g in range(games):
        options = {"teams": [players[:2], players[2:]]} if name == "korsar" else None
        state = game.setup(players, f"rooms-{g}", options=options)
        rng = random.Random(g)
        while (decision := game.pending(state)) is not None:
            public = game.public(state)
            privates = {p: game.private(state, p) for p in players}
            full = {p: {**game.view(public, privates[p]), "me": p, "id": f"{name}-0123456789", "game": name,
                        "version": 99, "decision": decision.id, "waiting_for": list(decision.players),
                        "received": []} for p in decision.players}
            views = {p: game.render(full[p]) for p in decision.players}
            pictures = {p: {"title": game.title, "scene": scene.to_json(game.picture(full[p]))}
                        for p in decision.players}
            menus = choices.menus_for(game, state, game_id=f"{name}-0123456789", game_public=public,
                                      privates=privates, views=views, pictures=pictures)
            assert set(menus) == set(decision.players)
            for p, encoded in menus.items():
                assert choices.sealed_cost(encoded) <= choices.room(game, decision.kind)
                menu = choices.decode_menu(encoded)
                assert menu is not None and menu["view"] == views[p]
                assert menu["picture"] == pictures[p], "the picture was left out"  # it is carried whole
                seen += 1
                if not menu["complete"]:
                    assert (name, decision.kind) == ("koryo", "action"), f"a {decision.kind} menu was cut"
                    cut += 1
            state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players}, log=False)
    assert seen >= 30 and cut <= seen // 10, (cut, seen)


def test_a_menu_made_from_a_kept_builder_is_the_menu_made_anew():
    """A judge writes a new version of the file for every order it receives, and keeps the menus'
    builders of a decision between them (``choices._KEPT``): what it seals must be what a fresh
    resolve would, though the kept builder was expanded further for a longer view before (the
    cut of a long action turn depends on the room the view leaves)."""
    game = find_game("koryo")
    players = ["p1", "p2", "p3"]
    state = game.setup(players, "kept-1")
    rng = random.Random(7)
    kinds = set()
    while (decision := game.pending(state)) is not None:
        public = game.public(state)
        privates = {p: game.private(state, p) for p in players}
        args = {"game_id": "koryo-0123456789", "game_public": public, "privates": privates}
        long_views = {p: "x" * 3000 for p in decision.players}
        for first, then in ((long_views, None), (None, long_views)):
            choices._KEPT.builders.clear()
            choices._WHOLE.menus.clear()
            fresh = {p: choices.decode_menu(m) for p, m in choices.menus_for(game, state, views=then, **args).items()}
            choices._KEPT.builders.clear()
            choices._WHOLE.menus.clear()
            choices.menus_for(game, state, views=first, **args)
            assert len(choices._KEPT.builders) == len(decision.players)
            choices._WHOLE.menus.clear()  # the builders alone (a whole menu kept is the next test's)
            kept = {p: choices.decode_menu(m) for p, m in choices.menus_for(game, state, views=then, **args).items()}
            assert kept == fresh, decision
        kinds.add((decision.kind, all(m["complete"] for m in fresh.values() if m)))
        state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players}, log=False)
    assert {("orders", True), ("action", True), ("action", False)} <= kinds, kinds  # one cut at least


def test_a_menu_kept_whole_and_given_again_is_the_menu_made_anew(monkeypatch):
    """A judge serving many games sees a game again after its menus' builders are long gone:
    a menu that fitted whole is kept (``choices._WHOLE``) and put together again with the next
    version's view and picture. It must be, byte for byte, what a fresh resolve seals, also when
    the new view no longer lets it fit whole (then it is made again, and cut as a fresh one is)."""
    game = find_game("koryo")
    players = ["p1", "p2", "p3"]
    state = game.setup(players, "whole-1")
    rng = random.Random(11)
    started = []
    start = choices._start
    monkeypatch.setattr(choices, "_start", lambda *a, **k: started.append(1) or start(*a, **k))
    reused = made = kinds = 0
    while (decision := game.pending(state)) is not None:
        public = game.public(state)
        privates = {p: game.private(state, p) for p in players}
        args = {"game_id": "koryo-0123456789", "game_public": public, "privates": privates}
        short = {p: f"version 7 of the table of {p}" for p in decision.players}
        longer = {p: "".join(random.Random(p).choices("abcdefghijklmnopqrstuvwxyz", k=3500))  # compresses little
                  for p in decision.players}
        pictures = {p: {"title": "Koryo", "scene": {"version": 8, "who": p}} for p in decision.players}
        for first, then in ((short, longer), (longer, short), (short, short)):
            choices._KEPT.builders.clear()
            choices._WHOLE.menus.clear()
            fresh = choices.menus_for(game, state, views=then, pictures=pictures, **args)
            choices._KEPT.builders.clear()
            choices._WHOLE.menus.clear()
            choices.menus_for(game, state, views=first, **args)
            choices._KEPT.builders.clear()  # gone, as in a judge serving many games
            started.clear()
            again = choices.menus_for(game, state, views=then, pictures=pictures, **args)
            assert again == fresh, decision  # the encoded menus, byte for byte
            reused += len(decision.players) - len(started)
            made += len(started)
        kinds += 1
        state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players}, log=False)
    # most were given again, not made; some no longer fitted whole with the longer view, and were made
    assert kinds >= 10 and reused >= 2 * kinds and made > 0, (kinds, reused, made)


def _seeded_menus(name: str, n: int, seed: str, decisions: int) -> list[tuple[str, str, str]]:
    """Every waiting player's encoded menu (what resolve seals) at the first ``decisions``
    decisions of a seeded random game: with a short view and a picture, then with a long view
    that compresses little (long action turns are cut elsewhere; the picture may be left out)."""
    game = find_game(name)
    players = [f"p{i}" for i in range(1, n + 1)]
    options = {"teams": [players[:2], players[2:]]} if name == "korsar" else None
    state = game.setup(players, seed, options=options)
    rng = random.Random(seed)
    out = []
    for step in range(decisions):
        decision = game.pending(state)
        if decision is None:
            break
        public = game.public(state)
        privates = {p: game.private(state, p) for p in players}
        pictures = {p: {"title": game.title, "scene": {"version": step, "who": p}} for p in decision.players}
        short = {p: f"version {step} of the table of {p}" for p in decision.players}
        noisy = {p: "".join(random.Random(f"{seed}/{step}/{p}").choices("abcdefghijklmnopqrstuvwxyz", k=3000))
                 for p in decision.players}
        for label, views in (("short", short), ("noisy", noisy)):
            choices._KEPT.builders.clear()
            choices._WHOLE.menus.clear()
            menus = choices.menus_for(game, state, game_id=f"{name}-0123456789", game_public=public,
                                      privates=privates, views=views, pictures=pictures)
            out.extend((f"{decision.id}/{label}", p, menus[p]) for p in sorted(menus))
        state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players}, log=False)
    return out


#: SHA-256 of the menus :func:`_seeded_menus` gives for these games (made with ca8e445's code)
SEEDED_MENUS = {
    ("koryo", 3, "golden-menus-1", 16): "99c187964339cdfd27c7731bd6a764dce88a1f3751cc3858066c4b09c2333acd",
    ("koryo", 4, "golden-menus-2", 16): "b4ccf627df7a72cf220f01dafaae2dd0b66c11460c1820264acf66a5f41331d0",
    ("korsar", 4, "golden-menus-3", 8): "b937efa96fccccd3a0531e6726b75b3d9fa0f89f37f4adc20ea16378891a4cea",
}


@pytest.mark.parametrize(("name", "n", "seed", "decisions"), list(SEEDED_MENUS))
def test_the_menus_of_seeded_games_are_byte_for_byte_the_ones_made_before(name, n, seed, decisions):
    """The menus a resolve seals (the questions, options, their order, the suggestion, where a
    long turn is cut, the compressed text) change only when meant to: making them faster must
    not change one byte. A deliberate change updates :data:`SEEDED_MENUS` (the digests of
    ``_seeded_menus``) and says so; ``benchmarks/check_menus.py`` compares two installations over
    many more positions."""
    import hashlib
    import json

    menus = _seeded_menus(name, n, seed, decisions)
    assert len(menus) >= 2 * decisions
    assert hashlib.sha256(json.dumps(menus).encode()).hexdigest() == SEEDED_MENUS[(name, n, seed, decisions)]


def test_koryo_action_menus_asked_afresh_are_the_menus_made_with_what_the_rules_kept(monkeypatch):
    """Koryo's action-turn menus keep what they found for one state between the questions of a
    menu (each path's checked steps, the shortest turn from each path, the state after it, the
    swaps' second halves: ``games/koryo/menus.py``, ``_Finished``), and answer every option of a
    question at once from where its path stands (``menu_answers``): a menu made so must be the
    menu made option by option with nothing kept from one question to the next."""
    game = find_game("koryo")
    menus_module = sys.modules[type(game).__module__.rsplit(".", 1)[0] + ".menus"]
    warm = [m for m in _seeded_menus("koryo", 4, "afresh-1", 14) if "-action-" in m[0]]
    asked = game.menu

    calls = []

    def afresh(*args, **kwargs):
        menus_module._FINISHED.state = None  # nothing kept from the question before
        calls.append(1)
        return asked(*args, **kwargs)

    monkeypatch.setattr(game, "menu", afresh)
    monkeypatch.setattr(game, "menu_answers", lambda *args, **kwargs: None)  # each option asked afresh
    cold = [m for m in _seeded_menus("koryo", 4, "afresh-1", 14) if "-action-" in m[0]]
    assert len(warm) >= 6 and len(calls) > 100 and cold == warm
