"""The player page's Python (``koryo_pbm.pagecore``), from the game file's text and the player's
opened part alone: at every decision of a Koryo game and of a Korsar team game, the legal
choices it gives each waiting seat are ``koryo-pbm play``'s menus for that seat, all of them (as
canonical orders), its suggestion is the order ``play`` suggests, and the table is the one
``show --as`` gives. The same module runs in the browser (``tests/page/test_page_rules.py``)."""

from __future__ import annotations

import random

import pytest
from play_menus import play_orders

from koryo_pbm import match, pagecore
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.engine.registry import find_game
from koryo_pbm.errors import FormatError
from koryo_pbm.store import gamefile, gameparts


@pytest.mark.parametrize(("name", "n", "seed", "steps"), [("koryo", 4, "pagecore-1", 14), ("korsar", 4, "pagecore-2", 12)])
def test_the_page_offers_every_choice_play_offers_and_the_same_suggestion(name, n, seed, steps):
    game = find_game(name)
    players = [f"p{i}" for i in range(1, n + 1)]
    ids = {p: Identity.generate(p) for p in players}
    mod = Identity.generate("mod")
    options = {"teams": [["p1", "p2"], ["p3", "p4"]]} if name == "korsar" else None
    doc, _ = match.create(game, mod, {p: i.public for p, i in ids.items()}, seed=seed, options=options)
    state = game.setup(players, seed, options=options)
    rng = random.Random(seed)
    kinds = set()
    for _step in range(steps):
        decision = game.pending(state)
        if decision is None:
            break
        doc.version += 1
        match._fill(doc, game, state, {"orders": {}})
        text = gamefile.encode(doc, mod).decode("utf-8")
        for p in decision.players:
            private = gameparts.open_part(doc, p, ids[p])
            private.pop("menu", None)
            table = pagecore.open_table(text, gameparts.compact_json(private), p)
            expected, suggested = play_orders(doc, game, p, private)
            assert table.orders() == expected
            summary = table.summary()
            assert summary["menu"] and summary["suggested"]["order"] == suggested
            view = {**match.full_view(doc, game, private), "me": p}
            assert summary["view"] == game.render(view)
            first = table.step([])
            assert first["o"] and all("l" in o for o in first["o"])
            kinds.add(decision.kind)
        orders = {p: game.random_order(state, p, rng) for p in decision.players}
        state, _ = game.apply(state, orders, log=False)
    assert len(kinds) >= (2 if name == "koryo" else 1), kinds


def test_a_seat_not_waited_for_and_bad_input_get_no_choices():
    game = find_game("koryo")
    players = ["a", "b", "c"]
    ids = {p: Identity.generate(p) for p in players}
    mod = Identity.generate("mod")
    doc, _ = match.create(game, mod, {p: i.public for p, i in ids.items()}, seed="pagecore-3")
    text = gamefile.encode(doc, mod).decode("utf-8")
    private = gameparts.open_part(doc, "a", ids["a"])
    table = pagecore.open_table(text, gameparts.compact_json(private), "a")
    assert table.summary()["menu"] == (("a" in doc.decision["waiting_for"]) and doc.decision["kind"] != "join")
    with pytest.raises(FormatError):
        pagecore.open_table("not = [toml", "{}", "a")
    with pytest.raises(FormatError):
        pagecore.open_table(text, "[1]", "a")


def test_the_join_is_one_choice_naming_the_commitment_with_a_contribution_the_page_fills():
    """A joined game's first decision: one choice, the order ``play`` gives but for the
    contribution, 64 zeros the page replaces with fresh random bytes of its own."""
    from koryo_pbm import fair

    game = find_game("koryo")
    players = ["a", "b", "c"]
    ids = {p: Identity.generate(p) for p in players}
    mod = Identity.generate("mod")
    doc, _ = match.create(game, mod, {p: i.public for p, i in ids.items()})
    assert doc.decision["kind"] == fair.JOIN
    text = gamefile.encode(doc, mod).decode("utf-8")
    private = gameparts.open_part(doc, "b", ids["b"])
    table = pagecore.open_table(text, gameparts.compact_json(private), "b")
    summary = table.summary()
    assert summary["menu"] and summary["fresh"] == "contribution"
    joining = match.game_of(doc)
    state = match.player_state(doc, joining, "b", private)
    order = joining.menu(state, "b", [], {"contribution": "0" * 64})
    assert table.orders() == [match.canonical_orders(doc.game_id, doc.decision["id"], order)]
    assert summary["suggested"]["order"] == table.orders()[0]
