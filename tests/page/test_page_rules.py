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


def test_a_plugin_game_is_named_by_the_release_page_and_played_on_a_page_built_with_it(cli, page, tmp_path, monkeypatch):
    """A game installed beside koryo-pbm that the page does not carry: the release's page names
    it and the command to use, in one sentence; ``player-page --with PACKAGE`` makes a page that
    carries it (``--check`` says it is not the release's page and names the game), on which the
    game's choices are ``play``'s."""
    import os
    import subprocess
    import sys

    from koryo_pbm.engine import registry

    site = tmp_path / "site"
    (site / "kopy_game").mkdir(parents=True)
    (site / "kopy_game" / "__init__.py").write_text(
        "from koryo_pbm_games.koryo import KoryoGame\n\n\nclass CopyGame(KoryoGame):\n"
        "    name = \"kopy\"\n    title = \"Koryo, a copy\"\n")
    info = site / "kopy_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kopy-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[koryo_pbm.games]\nkopy = kopy_game:CopyGame\n")
    env = {**os.environ, "PYTHONPATH": str(site), "KORYO_PBM_HOME": str(cli.home)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "koryo_pbm", *map(str, args)], env=env, cwd=cli.cwd,
                              capture_output=True, text=True, timeout=300)

    for n in ("alice", "bob", "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "kopy"
    made = run("new", folder, "--game", "kopy", "--as", "mod", "--seed", "plug-in",
               *[f"--player={n}={keys / (n + '.pub')}" for n in ("alice", "bob")])
    assert made.returncode == 0, made.stderr
    first = run("status", folder, "--json")
    player = __import__("json").loads(first.stdout)["missing"][0]
    said = page.open_game(folder / "game.toml", keys / f"{player}.key", "")
    assert "does not carry the game 'kopy'" in said and "koryo-pbm player-page --with PACKAGE -o FILE" in said, said
    built = run("player-page", "--with", "kopy_game", "-o", tmp_path / "plug.html")
    assert built.returncode == 0, built.stderr
    assert "NOT the release's page" in built.stderr and "kopy" in built.stderr
    digest = __import__("hashlib").sha256((tmp_path / "plug.html").read_bytes()).hexdigest()
    assert f"sha256 {digest}" in built.stdout + built.stderr
    checked = run("player-page", "--check", tmp_path / "plug.html")
    assert checked.returncode == 1 and "plug-in games kopy" in checked.stderr, checked.stderr
    plugged = Page(page.d, (tmp_path / "plug.html").as_uri(), tmp_path / "downloads-plug")
    plugged.load()
    said = plugged.open_game(folder / "game.toml", keys / f"{player}.key", "")
    assert said.startswith("opened:"), said
    monkeypatch.syspath_prepend(str(site))
    registry._entry_points.cache_clear()
    registry.find_game.cache_clear()
    try:
        doc = match.load_doc(folder / "game.toml")
        name, private = match.open_private(doc, load_identity(keys / f"{player}.key", ""))
        expected, suggested = play_orders(doc, match.game_of(doc), name, private)
    finally:
        registry._entry_points.cache_clear()
        registry.find_game.cache_clear()
    offered = plugged.d.execute_script("return window.koryoPbmChoices()")
    assert offered["all"] == expected and offered["suggested"] == suggested
    plugged.choose(lambda labels, s: 0 if s is None else s)
    assert parse_one(plugged.envelope()).player == player
