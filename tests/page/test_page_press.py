"""Press in the player page (issue 30, item 5), across the command line and the page in headless
Chromium: a press ``koryo-pbm say`` wrote, pasted as the judge relays it (quoted in a reply too),
is read in the page; a press written in the page to chosen players is read by ``koryo-pbm read``
as each of them, and by nobody else; a broken or foreign press gets one sentence. Also the page's
other key and reply helpers: the public line of a key on request, a key of the same name from
another game named as such."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from page_kit import Page

NAMES = ("alice", "bob", "carol")


@pytest.fixture
def game(cli) -> tuple[Path, Path]:
    for n in (*NAMES, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "friday"
    cli.ok("new", folder, "--as", "mod", "--seed", "press", "--judge", "judge@example.org",
           *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES])
    return folder, keys


def _paste(page: Page, css: str, text: str) -> None:
    """A paste into a field (the page reads it on its input event)."""
    page.d.execute_script("const t = document.querySelector(arguments[0]); t.value = arguments[1];"
                          "t.dispatchEvent(new Event('input'))", css, text)
    page.act("paste", css)


def _read_out(page: Page) -> str:
    return page.wait(lambda: page.by("#press-read").text or (page.message() if "press" in page.message() else ""))


def test_a_press_said_on_the_command_line_is_read_in_the_page(cli, page, game):
    folder, keys = game
    text = "Truce until round 3?\nÇa va — 🎲 ok."
    cli.ok("say", folder / "game.toml", text, "--as", "bob", "--to", "alice,carol", "--out", cli.cwd / "press.txt")
    armored = (cli.cwd / "press.txt").read_text()
    assert page.open_game(folder / "game.toml", keys / "alice.key", "").startswith("opened:")
    # as the judge relays it, quoted in a reply with a signature below
    mail = "Bob wrote:\n" + "".join(f"> {line}\n" for line in armored.splitlines()) + "\n-- \nalice\n"
    _paste(page, "#press-in", mail)
    shown = _read_out(page)
    assert "Press from bob to alice, carol" in shown and "signed by bob's key in this game, sealed to you" in shown, shown
    assert page.by("#press-read pre").text == text
    # cut short: one sentence, nothing shown
    _paste(page, "#press-in", armored.replace("-----END KORYO-PBM PRESS-----\n", ""))
    said = page.wait(lambda: page.message() if "END KORYO-PBM PRESS" in page.message() else "")
    assert said.startswith("the press has no '-----END KORYO-PBM PRESS-----' line") and "\n" not in said
    assert page.by("#press-read").text == ""
    # one base64 character changed: the signature does not verify
    lines = armored.splitlines()
    body = len(lines) - 3
    lines[body] = ("B" if lines[body][0] != "B" else "C") + lines[body][1:]
    _paste(page, "#press-in", "\n".join(lines) + "\n")
    said = page.wait(lambda: page.message() if "bob" in page.message() else "")
    assert "does not verify" in said or "does not open" in said, said
    # dave's game is not this one: named
    other = cli.cwd / "other"
    cli.ok("new", other, "--as", "mod", "--seed", "other", *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES])
    cli.ok("say", other / "game.toml", "elsewhere", "--as", "bob", "--to", "alice", "--out", cli.cwd / "other.txt")
    _paste(page, "#press-in", (cli.cwd / "other.txt").read_text())
    said = page.wait(lambda: page.message() if "game" in page.message() else "")
    assert said.startswith("this press is for game ") and "open that game's file first" in said, said


def test_a_press_written_in_the_page_is_read_by_the_command_line(cli, page, game):
    folder, keys = game
    assert page.open_game(folder / "game.toml", keys / "alice.key", "").startswith("opened:")
    assert [x.get_attribute("data-press-to") for x in page.all("[data-press-to]")] == ["bob", "carol"]
    page.by("#press-seal").click()
    assert page.wait(page.message).startswith("choose the players your press is for")
    page.by("#press-to-bob").click()
    text = "Bob: shall we squeeze carol?\n— alice ☕"
    page.by("#press-text").send_keys(text)
    page.by("#press-seal").click()
    armored = page.wait(lambda: page.by("#press-out").get_attribute("value"))
    assert armored.startswith("-----BEGIN KORYO-PBM PRESS-----\nformat: koryo-pbm-press/v1\n")
    # ready to mail: a new mail to the judge, the game's tag in its subject, the press its body
    href = urlsplit(page.by("#press-reply").get_attribute("href"))
    assert href.scheme == "mailto" and href.path == "judge@example.org"
    query = parse_qs(href.query)
    assert query["subject"] == ["[koryo-pbm friday] press from alice to bob"] and query["body"] == [armored]
    (cli.cwd / "mail.txt").write_text("alice wrote:\n" + armored + "\nbye\n")
    read = cli.ok("read", cli.cwd / "mail.txt", "--as", "bob", "--game", folder, "--json").json
    assert read == {"press": [{"from": "alice", "to": "bob", "sent": read["press"][0]["sent"], "text": text}]}
    # carol, not chosen, cannot read it; the relay's checks take it (signed by alice's key in the game)
    refused = cli("read", cli.cwd / "mail.txt", "--as", "carol", "--game", folder)
    assert refused.code != 0 and "is for bob, not for carol" in refused.err
    from koryo_pbm import match, press
    from koryo_pbm.crypto.press import scan_press

    [made] = scan_press(armored)
    press.check(match.load_doc(folder / "game.toml"), made)


def test_the_public_line_of_a_key_on_request_and_a_key_of_another_game(cli, page, game, tmp_path):
    folder, keys = game
    page.set_file("#key-file", keys / "carol.key")
    page.by("#show-public").click()
    line = page.wait(lambda: page.by("#public-key").get_attribute("value"))
    assert line.split()[0] == (keys / "carol.pub").read_text().split()[0] and line.split()[1] == "carol"
    assert "fingerprint" in page.by("#fingerprint").text
    # a key named alice, but not the alice of this game (made for another one)
    other = tmp_path / "elsewhere"
    cli.ok("keygen", "alice", home=other)
    said = page.open_game(folder / "game.toml", other / "keys" / "alice.key", "")
    assert said.startswith("your key alice (fingerprint ") and "is not the key alice has in game" in said, said
    assert "another key of that name (one for another game?)" in said and "\n" not in said
    assert page.all("[data-choice]") == []
