"""What ``koryo-pbm play`` offers a seat: every finished choice of its menus (the walk of
``Game.menu`` it makes, with its suggestion as the hint), as canonical orders; what the player
page's choices are compared with (``tests/test_pagecore.py``, ``tests/page/test_page_rules.py``)."""

from __future__ import annotations

from koryo_pbm import match
from koryo_pbm.cli.orders import suggestion
from koryo_pbm.engine.menus import Menu


def play_orders(doc, game, seat, private) -> tuple[list[str], str]:
    """Every finished choice of ``play``'s menus for ``seat``, in menu order, each once, and the
    order ``play`` suggests."""
    state = match.player_state(doc, game, seat, private)
    example, _ = game.describe_choices(state, seat)
    hint, _ = suggestion(doc, game, seat, state, example)
    seen: dict[str, None] = {}

    def walk(picked):
        menu = game.menu(state, seat, picked, dict(hint))
        if not isinstance(menu, Menu):
            seen.setdefault(match.canonical_orders(doc.game_id, doc.decision["id"], dict(menu)), None)
            return
        for option in menu.options:
            walk([*picked, option.value])

    walk([])
    return list(seen), match.canonical_orders(doc.game_id, doc.decision["id"], dict(hint))
