"""The actions a player takes from opening the judge's mail to sending the reply (issue 30, item
7), counted by the test kit (:data:`page_kit.ACTIONS`: a click, on the page or in the mail
program, a file picked, a field typed with its Enter, a paste), in headless Chromium:

* with a fresh page (opened anew for this mail; the key remembered in the browser, so the
  passphrase is typed once in that page) and with a page kept open (the key unlocked in it);
* for the join, a typical decision (the suggested choice) and the worst decision met in the
  decisions of a seeded Koryo game (an action turn whose choices need three clicks, from its position).

The reply is the mail the page opens when the choice is made: to the judge's address, the game's
tag in its subject, the envelope as its body (``new --judge``). Goal: at most 7 actions fresh,
at most 6 kept open (before: 9 and 8).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from page_kit import Page

from koryo_pbm.crypto.envelope import parse_one
from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.store import gamefile, gameparts

NAMES = ("alice", "bob", "carol")
SECRET = "alice keeps a long passphrase"
FLAT = 16  # main.js: a question whose answers end within FLAT finished choices shows them whole


def _mail(page: Page, game: Path, *, fresh: bool) -> None:
    """The judge's mail arrives: open it, save its attachment (the game file), and (fresh) open the page."""
    page.act("mail", "open the judge's mail")
    page.act("mail", "save the attached game.toml")
    if fresh:
        page.load()  # the page opened anew: nothing of before in its memory
        page.act("mail", "open the player page")
    page.d.execute_script("document.getElementById('message').textContent = '';"
                          "delete document.body.dataset.replied")
    page.mails += 1
    attachment = page.downloads / f"mail-{page.mails}" / game.name
    attachment.parent.mkdir(parents=True)
    from koryo_pbm.store.playercopy import player_copy

    attachment.write_bytes(player_copy(game.read_bytes()))
    page.set_file("#game-file", attachment)
    page.act("file", "pick the game file (the page opens it)")
    said = page.wait(page.message)
    if fresh:
        assert "type it in the passphrase field" in said, said
        assert page.d.execute_script("return document.activeElement.id") == "passphrase"
        from selenium.webdriver.common.keys import Keys

        page.d.execute_script("document.getElementById('message').textContent = ''")
        page.by("#passphrase").send_keys(SECRET + Keys.ENTER)
        page.act("type", "the passphrase, Enter")
        said = page.wait(page.message)
    assert said.startswith("opened:"), said


def _send(page: Page, folder: Path, seat: str, decision: str) -> str:
    """The mail the page opened (the choice's click): to the judge, tagged, the envelope its body; sent."""
    href = page.wait(lambda: page.d.execute_script("return document.body.dataset.replied"))
    url = urlsplit(href)
    query = parse_qs(url.query)
    assert url.scheme == "mailto" and url.path == "judge@example.org", href
    assert query["subject"] == [f"[koryo-pbm {folder.name}] orders {decision} from {seat}"], query["subject"]
    armored = page.envelope()
    assert query["body"] == [armored]
    page.act("mail", "send the reply")
    env = parse_one(armored)
    assert env.player == seat and env.decision == decision
    (folder / "inbox" / f"{env.decision}--{seat}.envelope").write_text(armored)
    return armored


class _Choices:
    """A player's choices as the page's rules give them (koryo_pbm/pagecore.py, the code the page
    runs in Pyodide), asked question by question as the page asks them."""

    def __init__(self, folder: Path, keys: Path, seat: str) -> None:
        from koryo_pbm import pagecore
        from koryo_pbm.store.playercopy import player_copy

        data = (folder / "game.toml").read_bytes()
        doc = gamefile.decode(data)
        part = gameparts.open_part(doc, seat, load_identity(keys / f"{seat}.key"))
        self.table = pagecore.open_table(player_copy(data).decode("utf-8"), gameparts.compact_json(part), seat)

    def clicks(self, path: tuple[int, ...] = ()) -> int:
        """The most clicks a finished choice after ``path`` takes on the page (main.js showNode:
        a question whose answers end within FLAT finished choices shows them whole)."""
        if self.table.leaves(list(path), FLAT) is not None:
            return 1
        options = self.table.step(list(path))["o"]
        return max(1 if "t" in o else 1 + self.clicks((*path, i)) for i, o in enumerate(options))

    def worst(self):
        """A ``pick`` for :meth:`Page.choose` that walks to a finished choice taking the most clicks."""
        at: list[tuple[int, ...]] = [()]

        def pick(labels: list[str], suggested: int | None) -> int:
            if self.clicks(at[0]) == 1:
                return len(labels) - 1  # every button here is a finished choice
            options = self.table.step(list(at[0]))["o"]
            best = max(range(len(options)),
                       key=lambda i: 1 if "t" in options[i] else 1 + self.clicks((*at[0], i)))
            at[0] = (*at[0], best)
            return labels.index(options[best]["l"])

        return pick


def test_actions_from_the_mail_to_the_reply(cli, page, tmp_path):
    for n in (*NAMES, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "friday"
    cli.ok("new", folder, "--as", "mod", "--judge", "judge@example.org",
           *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES])
    game = folder / "game.toml"
    # before: alice made her key on the page with "remember my key" (here: her key file, remembered)
    page.by("#remember").click()
    page.set_file("#key-file", keys / "alice.key")
    page.by("#passphrase").send_keys(SECRET)
    page.by("#show-public").click()
    page.wait(lambda: page.by("#public-key").get_attribute("value"))
    assert page.d.execute_script("return JSON.parse(localStorage.getItem('koryo-pbm/key'))").startswith("# koryo-pbm secret key v2")
    counts: dict[str, int] = {}

    def count(name: str, fresh: bool, pick) -> None:
        start = len(page.steps)
        status = cli.ok("status", folder, "--json").json
        assert "alice" in status["missing"], status
        _mail(page, game, fresh=fresh)
        page.choose(pick)
        _send(page, folder, "alice", status["decision"])
        counts[f"{name}, {'fresh page' if fresh else 'page kept open'}"] = len(page.steps) - start
        print(name, "fresh" if fresh else "kept open", page.count_from(start))

    def others() -> None:
        """bob and carol answer with the command line's bot; the moderator resolves."""
        for n in cli.ok("status", folder, "--json").json["missing"]:
            if n != "alice":
                cli.ok("bot", folder, "--as", n, "--level", "random")
        assert cli.ok("resolve", folder, "--as", "mod", "--json").json["applied"]

    # the join, with a fresh page
    count("join", True, lambda labels, suggested: suggested)
    cli.join(folder)  # bob and carol join with the command line; the moderator deals
    # a typical decision (the suggested choice): with the page kept open, then with a fresh page
    for fresh in (False, True):
        while "alice" not in cli.ok("status", folder, "--json").json["missing"]:
            others()
        count("typical", fresh, lambda labels, suggested: suggested)
        others()
    # the worst: an action turn whose choices take three clicks (reveal, then which barbarian
    # target, then which step next), from a position of a seeded game where it came
    position = Path(__file__).resolve().parent / "positions" / "koryo-action-3-clicks.toml"
    for fresh in (True, False):
        folder = cli.cwd / f"worst-{'fresh' if fresh else 'kept'}"
        cli.ok("new", folder, "--as", "mod", "--judge", "judge@example.org", "--position", position,
               *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES])
        game = folder / "game.toml"
        menu = _Choices(folder, keys, "alice")
        assert menu.clicks() == 3
        count("worst", fresh, menu.worst())
    print("actions:", counts)
    assert counts == {"join, fresh page": 7, "typical, page kept open": 5, "typical, fresh page": 7,
                      "worst, fresh page": 9, "worst, page kept open": 7}
