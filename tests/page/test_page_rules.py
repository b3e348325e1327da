"""The page runs the rules (koryo_pbm/pagecore.py in Pyodide, carried in the page): at every
decision of a 4-player Koryo game and of a 4-player Korsar team game, the choices the page
offers a seat are exactly ``koryo-pbm play``'s menus for that seat (all of them, compared as
canonical orders), from the game file and the part alone, in headless Chromium with the
network off; the player picks on the page, the envelope it seals is counted by ``resolve``."""

from __future__ import annotations

from page_kit import Page
from play_menus import play_orders

from koryo_pbm import match
from koryo_pbm.crypto.envelope import parse_one
from koryo_pbm.crypto.keys import load_identity

NAMES = ("alice", "bob", "carol", "dave")


def _compare_and_play(cli, page: Page, folder, keys, decisions: int) -> set[str]:
    kinds = set()
    for _ in range(decisions):
        status = cli.ok("status", folder, "--json").json
        if status.get("decision") is None:
            break
        for player in status["missing"]:
            said = page.open_game(folder / "game.toml", keys / f"{player}.key", "")
            assert said.startswith("opened:"), said
            offered = page.d.execute_script("return window.koryoPbmChoices()")
            doc = match.load_doc(folder / "game.toml")
            identity = load_identity(keys / f"{player}.key", "")
            game = match.game_of(doc)
            name, private = match.open_private(doc, identity)
            expected, suggested = play_orders(doc, game, name, private)
            assert offered["all"] == expected, (
                f"{doc.decision['kind']}: the page offers {len(offered['all'])} choices, play {len(expected)}")
            assert offered["suggested"] == suggested
            kinds.add(doc.decision["kind"])
            page.choose(lambda labels, s: 0 if s is None else s)  # the suggestion, on the page
            env = parse_one(page.envelope())
            assert env.player == player
            (folder / "inbox" / f"{env.decision}--{player}.envelope").write_text(page.by("#envelope").get_attribute("value"))
        assert cli.ok("resolve", folder, "--as", "mod", "--json").json["applied"]
    return kinds


def test_the_page_offers_plays_choices_in_a_koryo_game(cli, page):
    for n in (*NAMES, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--as", "mod", "--seed", "page rules", *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES])
    kinds = _compare_and_play(cli, page, folder, keys, 4)
    assert {"orders", "action"} <= kinds, kinds
    assert page.errors() == []


def test_the_page_offers_plays_choices_in_a_korsar_team_game(cli, page):
    for n in (*NAMES, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "k"
    cli.ok("new", folder, "--game", "korsar", "--as", "mod", "--seed", "page rules", "--first", "alice",
           *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES], "--team", "alice,bob", "--team", "carol,dave")
    kinds = _compare_and_play(cli, page, folder, keys, 6)
    assert kinds == {"turn"}, kinds
    assert page.errors() == []
