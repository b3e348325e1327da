"""The page shows the table as the same picture as ``show --html`` / ``show --svg``: the scene
the page's own rules draw of the player's view (``koryo_pbm/pagecore.py`` in Pyodide), laid out in the browser by ``player-page/src/picture.js`` (a port of
``koryo_pbm/picture/svg.py``), equals the SVG the command line writes for the same game file and
player. Normalisation (documented in picture.js): both are parsed and serialised by the
browser's own XML parser and serialiser (escaping and the XML declaration aside, the text is
then compared exactly), and the one ``style`` attribute of svg.py's root is dropped (the page's
Content-Security-Policy allows no inline style: its style sheet sets that max-width)."""

from __future__ import annotations

from pathlib import Path

import pytest

SAME = """
const py = new DOMParser().parseFromString(arguments[0], "image/svg+xml").documentElement;
py.removeAttribute("style");
const mine = document.querySelector("#picture svg");
const s = new XMLSerializer();
return [s.serializeToString(py), mine ? s.serializeToString(mine) : ""];
"""


def _compare(cli, page, folder: Path, keys: Path, name: str) -> str:
    said = page.open_game(folder / "game.toml", keys / f"{name}.key", "")
    assert said.startswith("opened:"), said
    out = cli.cwd / f"{name}.svg"
    cli.ok("show", folder, "--as", name, "--svg", out)
    python, browser = page.d.execute_script(SAME, out.read_text(encoding="utf-8"))
    assert browser, "the page shows no picture"
    assert browser == python
    if folder.name == "korsar":
        assert "answer by " in browser and "data-deadline" in browser
    box = page.by("#picture")
    assert box.get_attribute("role") == "img" and name in box.get_attribute("aria-label")
    # the player's own hidden cards are in it (a private picture), and the text view is still there
    assert f'data-for="{name}"' in browser and 'data-part="private"' in browser
    assert page.by("#table").get_attribute("textContent").strip()
    return browser


@pytest.mark.parametrize(("game", "names", "rounds"), [("koryo", ("alice", "bob", "carol"), 5),
                                                     ("korsar", ("alice", "bob", "carol", "dave"), 2)])
def test_the_page_draws_the_same_picture_as_show_svg(cli, page, game, names, rounds):
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / game
    # Korsar with a deadline: the frame's "answer by ..." comes from the game file on both sides
    teams = ["--team", "alice,bob", "--team", "carol,dave", "--deadline", "3d"] if game == "korsar" else []
    cli.ok("new", folder, "--game", game, "--as", "mod", "--seed", "picture", *teams,
           *[f"--player={n}={keys / (n + '.pub')}" for n in names])
    # ``rounds`` decisions compared, and for Koryo on until both kinds of its decisions that wait
    # for players (orders, action turns) were drawn: the bots' choices follow the game id, which
    # is random, so which decisions come varies
    want = {"orders", "action"} if game == "koryo" else set()
    kinds: set[str] = set()
    for r in range(40):
        status = cli.ok("status", folder, "--json").json
        waiting = status["missing"]
        if r < rounds or status["kind"] not in kinds:
            _compare(cli, page, folder, keys, waiting[0])
        kinds.add(status["kind"])
        if r + 1 >= rounds and want <= kinds:
            break
        for n in waiting:
            cli.ok("bot", folder, "--as", n)
        cli.ok("resolve", folder, "--as", "mod")
    assert want <= kinds, kinds


def test_the_page_draws_the_marks_in_the_styles_the_game_declares(cli, page):
    """The marks' styles come with the scene from the game's declaration (Koryo's: a star, a
    band "power", a band "power Ω"), none from the page's own code: the page draws them as
    svg.py does. The position: bob holds the banker's scoring majority and power, carol holds
    the guardian's power by the Omniscient's tie."""
    names = ("alice", "bob", "carol")
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "marks"
    position = Path(__file__).resolve().parents[2] / "examples" / "positions" / "koryo-barbarian-guardian.toml"
    cli.ok("new", folder, "--as", "mod", "--seed", "marks", "--position", position,
           *[f"--player={n}={keys / (n + '.pub')}" for n in names])
    drawn = _compare(cli, page, folder, keys, "alice")
    assert 'data-card="guardian" data-count="2" data-zone="table" data-owner="carol" data-marks="omniscient"' in drawn
    assert 'text-anchor="end">★</text>' in drawn and 'text-anchor="middle">power</text>' in drawn
    assert 'text-anchor="middle">power Ω</text>' in drawn


def test_on_a_phone_the_page_draws_the_picture_at_the_phone_s_width_as_svg_py_does(cli, page):
    """On a narrow screen the page lays the scene out for the width it has (cards keep their
    size; panels go one under the other): what svg.py draws at that width."""
    from koryo_pbm.engine.scene import from_json
    from koryo_pbm.picture import frame_of
    from koryo_pbm.picture.svg import svg
    from koryo_pbm.store.gamefile import read_game

    names = ("alice", "bob", "carol")
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "phone"
    cli.ok("new", folder, "--as", "mod", "--seed", "phone", *[f"--player={n}={keys / (n + '.pub')}" for n in names])
    page.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        said = page.open_game(folder / "game.toml", keys / "bob.key", "")
        assert said.startswith("opened:"), said
        width = int(page.d.execute_script(
            "return document.querySelector('#picture svg').getAttribute('viewBox').split(' ')[2]"))
        assert 320 <= width < 390, width
        from koryo_pbm import pagecore
        from koryo_pbm.crypto.keys import load_identity
        from koryo_pbm.store.gameparts import compact_json, open_part

        doc = read_game(folder / "game.toml")
        part = compact_json(open_part(doc, "bob", load_identity(keys / "bob.key", "")))
        sealed = pagecore.open_table((folder / "game.toml").read_text(encoding="utf-8"), part, "bob").summary()["picture"]
        frame = frame_of(read_game(folder / "game.toml"), sealed["title"], "bob")
        expected = svg(from_json(sealed["scene"]), frame, width)
        python, browser = page.d.execute_script(SAME, expected)
        assert browser == python
        assert 'class="panel"' in browser and "data-card" in browser
    finally:
        page.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
