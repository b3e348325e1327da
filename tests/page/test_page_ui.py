"""The player page as a person meets it: bad input gets one sentence and changes nothing; the
keyboard alone plays a decision; a screen reader finds a name for every control; it fits a
phone and a laptop (screenshots: ``KORYO_PBM_PICTURES=docs/pictures`` writes them there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from page_kit import Page

from koryo_pbm.crypto.envelope import parse_one

NAMES = ("alice", "bob", "carol", "dave")


@pytest.fixture
def korsar(cli):
    """A 4-player Korsar team game dealt from a seed, its keys, and who it waits for (a first
    hand without a galleon draws by itself, and the deal depends on the random game id)."""
    for n in (*NAMES, "mod", "stranger"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "k"
    cli.ok("new", folder, "--game", "korsar", "--as", "mod", "--seed", "page ui", "--first", "alice",
           *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES], "--team", "alice,bob", "--team", "carol,dave")
    first = cli.ok("status", folder, "--json").json["missing"][0]
    return folder, keys, first


def _nothing_made(page: Page) -> None:
    assert page.by("#result").get_attribute("hidden") is not None
    assert page.by("#envelope").get_attribute("value") == ""


def test_bad_input_gets_one_sentence_and_nothing_is_made_or_stored(page, korsar, tmp_path, cli, monkeypatch):
    folder, keys, first = korsar
    game = folder / "game.toml"
    page.by("#open").click()
    assert page.wait(page.message).startswith("choose the game file first")
    junk = tmp_path / "holiday.toml"
    junk.write_text("title = 'not a game'\n")
    assert "not a koryo-pbm game file" in page.open_game(junk, keys / f"{first}.key", "")
    forged = tmp_path / "forged.toml"
    forged.write_bytes(game.read_bytes().replace(b'"alice"', b'"alicf"', 1))
    assert "does not verify" in page.open_game(forged, keys / f"{first}.key", "")
    said = page.open_game(game, keys / "stranger.key", "")
    assert "is not the key of any player of game" in said and "if it is your key for another game" in said, said
    assert "public key" in page.open_game(game, keys / "alice.pub", "")
    _nothing_made(page)
    assert page.d.execute_script("return Object.keys(localStorage).length") == 0  # nothing stored
    # a passphrase-protected key, the wrong passphrase (the interop vector's key: scrypt at the real cost)
    import json

    vectors = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "interop.json").read_text())
    erin = tmp_path / "erin.key"
    erin.write_text(vectors["alice"]["key_v2"])
    assert "wrong passphrase" in page.open_game(game, erin, "not it")
    _nothing_made(page)
    # a key file protected by a weak scrypt cost (2^12, as in-process tests write them): refused before any guess
    monkeypatch.setenv("KORYO_PBM_PASSPHRASE", "the right one")
    cli.ok("keygen", "weak", "--passphrase")
    monkeypatch.delenv("KORYO_PBM_PASSPHRASE")
    said = page.open_game(game, keys / "weak.key", "the right one")
    assert "weak passphrase stretch (scrypt n = 4096" in said and "keygen --upgrade weak" in said, said
    _nothing_made(page)
    # an older file than one seen before: said, and the newer one stays the one remembered
    old = tmp_path / "old.toml"
    old.write_bytes(game.read_bytes())
    said = page.open_game(game, keys / f"{first}.key", "")
    assert said.startswith("opened:"), said
    page.choose(lambda labels, suggested: 0)
    armored = page.envelope()
    env = parse_one(armored)
    (folder / "inbox" / f"{env.decision}--{first}.envelope").write_text(armored)
    cli.ok("resolve", folder, "--as", "mod")
    assert "does not wait for you" in page.open_game(game, keys / f"{first}.key", "")
    # nothing waits for this player: the table is shown all the same, the picture and the text
    assert page.by("#picture").is_displayed() and page.by("#picture svg")
    assert page.by("#table").get_attribute("textContent").strip().startswith("Korsar")
    from koryo_pbm.crypto.keys import load_identity

    fpr = load_identity(keys / f"{first}.key").public.fingerprint()
    pin = f"koryo-pbm/pin/{fpr}/" + game.read_text().split('game_id = "', 1)[1].split('"', 1)[0]
    pinned = page.d.execute_script("return localStorage.getItem(arguments[0])", pin)
    assert pinned and '"version":2' in pinned
    # an older file than one seen before: refused before any choice is shown, in one sentence naming both versions
    said = page.open_game(old, keys / f"{first}.key", "")
    assert said.startswith("this game file is version 1 of game ") and "older than version 2 you opened before" in said, said
    assert "\n" not in said and page.all("[data-choice]") == []
    for section in ("#decide", "#game", "#result"):
        assert page.by(section).get_attribute("hidden") is not None, section
    assert page.d.execute_script("return localStorage.getItem(arguments[0])", pin) == pinned


def test_the_keyboard_alone_plays_a_decision(page, korsar):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    folder, keys, first = korsar
    # files are chosen in the browser's own file dialog (not the page's); the rest is keys only
    page.set_file("#game-file", folder / "game.toml")
    page.set_file("#key-file", keys / f"{first}.key")
    page.by("#passphrase").click()
    keys_only = ActionChains(page.d)
    keys_only.send_keys(Keys.ENTER).perform()  # Enter in the form opens the game
    assert page.wait(page.message).startswith("opened:")
    seen = []
    for _ in range(60):  # Tab through the page until a choice has the focus
        ActionChains(page.d).send_keys(Keys.TAB).perform()
        focused = page.d.execute_script(
            "const a = document.activeElement; return [a.id, a.hasAttribute('data-choice'), a.textContent]")
        seen.append(focused[0] or focused[2][:20])
        if focused[1]:
            break
    else:
        raise AssertionError(f"no choice reachable with Tab: {seen}")
    for _ in range(6):  # Enter picks; the next question's choice takes the focus; a finished choice is sealed
        ActionChains(page.d).send_keys(Keys.ENTER).perform()
        if page.by("#envelope").get_attribute("value"):
            break
        if page.d.execute_script("return !document.activeElement.hasAttribute('data-choice')"):
            ActionChains(page.d).send_keys(Keys.TAB).perform()
    assert page.wait(lambda: page.by("#envelope").get_attribute("value")).startswith("-----BEGIN KORYO-PBM ENVELOPE")
    assert page.wait(lambda: page.d.execute_script("return document.activeElement.id") == "copy")  # ready to copy
    # Back, from the keyboard too: the choice is undone, no envelope is left shown
    page.by("#back").send_keys(Keys.ENTER)
    assert page.wait(lambda: page.by("#result").get_attribute("hidden") is not None)
    assert page.by("#envelope").get_attribute("value") == ""


def test_a_page_opened_afresh_for_each_mail_with_the_key_remembered(page, korsar):
    """Issue 16's steps for a player who opens the page anew from each mail: the key remembered
    in the browser (encrypted under the passphrase) on the first visit; then the passphrase,
    the attachment (the page opens it), one click on the suggested choice (sealed and copied at
    once), the paste: four actions, three once the page is open."""
    folder, keys, first = korsar
    page.by("#remember").click()
    said = page.open_game(folder / "game.toml", keys / f"{first}.key", "a passphrase for this browser")
    assert said.startswith("opened:"), said
    kept = page.d.execute_script("return localStorage.getItem('koryo-pbm/key')")
    assert kept and "secret key v2" in kept and "a passphrase" not in kept  # encrypted, never the passphrase
    page.load()  # the next mail: the page opened afresh, nothing in memory
    assert page.by("#remembered").is_displayed()
    page.actions = 0
    # the attachment first: the page asks for the passphrase, and Enter in it opens the game
    said = page.open_game(folder / "game.toml", None, "")
    assert "type it in the passphrase field" in said, said
    page.actions += 1
    assert page.d.execute_script("return document.activeElement.id") == "passphrase"
    from selenium.webdriver.common.keys import Keys

    page.d.execute_script("document.getElementById('message').textContent = ''")
    page.by("#passphrase").send_keys("a passphrase for this browser" + Keys.ENTER)
    page.actions += 1
    assert page.wait(page.message).startswith("opened:"), page.message()
    page.choose(lambda labels, suggested: suggested)
    armored = page.envelope()
    page.actions += 1  # the paste into the reply
    assert parse_one(armored).player == first
    assert page.actions == 4, page.actions


def test_a_screen_reader_finds_a_name_for_every_control(page, korsar):
    folder, keys, first = korsar
    assert page.open_game(folder / "game.toml", keys / f"{first}.key", "").startswith("opened:")
    tree = page.d.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    unnamed, roles = [], {}
    for node in tree:
        if node.get("ignored"):
            continue
        role = node.get("role", {}).get("value")
        name = node.get("name", {}).get("value", "")
        roles.setdefault(role, []).append(name)
        if role in ("button", "textbox", "checkbox", "link", "group", "list") and not name.strip():
            unnamed.append(role)
    assert unnamed == [], f"controls without an accessible name: {unnamed}"
    assert any("Passphrase" in n for n in roles["textbox"])
    assert any(n.startswith("Turn ") for n in roles["group"])  # the choices, named by their question
    assert "status" in roles and "heading" in roles
    assert len(roles["button"]) >= 4


@pytest.mark.parametrize(("width", "height", "name"), [(390, 844, "phone"), (1280, 900, "laptop")])
def test_it_fits_a_phone_and_a_laptop(page, korsar, width, height, name, tmp_path):
    folder, keys, first = korsar
    page.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})
    try:
        said = page.open_game(folder / "game.toml", keys / f"{first}.key", "")
        assert said.startswith("opened:"), said
        overflow = page.d.execute_script("return document.documentElement.scrollWidth")
        assert overflow <= width, f"the page is {overflow} px wide on a {width} px screen"
        # the picture of the table is drawn and scales to the screen
        drawn = page.d.execute_script("return document.querySelector('#picture svg').getBoundingClientRect().width")
        assert 0 < drawn <= width, drawn
        # the decision first: the page went to it, and its choices are on the first screen
        first, question = page.d.execute_script(
            "const r = (el) => { const b = el.getBoundingClientRect(); return [b.top, b.bottom]; };"
            "return [r(document.querySelector('[data-choice]')), r(document.getElementById('h-decide'))]")
        assert 0 <= question[0] < 80, question
        assert first[0] > 0 and first[1] <= height, (first, height)
        # the table below it
        assert page.d.execute_script("return document.getElementById('decide').compareDocumentPosition("
                                     "document.getElementById('game')) & Node.DOCUMENT_POSITION_FOLLOWING")
        target = Path(os.environ.get("KORYO_PBM_PICTURES", tmp_path))
        shot = target / f"player-page-{name}.png"
        page.d.save_screenshot(str(shot))
        assert shot.stat().st_size > 5000, f"an empty screenshot ({shot.stat().st_size} bytes)"
        # the choice made: the reply first, with Reply, Copy and Save, and nothing else to press
        page.choose(lambda labels, suggested: suggested)
        page.envelope()
        top = page.d.execute_script("return document.getElementById('h-result').getBoundingClientRect().top")
        assert 0 <= top < 80, top
        # (this game file names no judge: no mail without a recipient, Copy and a reply to the judge's mail)
        shown = [b.text for b in page.all("#result .actions > *") if b.is_displayed()]
        assert shown == ["Copy", "Save"], shown
        assert "reply to the judge's mail that brought this game file and paste it" in page.by("#reply-how").text
        assert page.all("#seal") == [] and not page.all("button[disabled]")
        page.d.save_screenshot(str(target / f"player-page-reply-{name}.png"))
    finally:
        page.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
