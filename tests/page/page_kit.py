"""Driving the player page in Debian's headless Chromium through Selenium (chromium-driver),
with the network off: the page must need nothing but itself."""

from __future__ import annotations

import base64
import os
import shutil
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
         "--allow-file-access-from-files")


def require_browser():
    """Selenium and Debian's chromium with its driver, or a skip naming what installs them
    (a failure under CI=true)."""
    missing = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("pip install selenium")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")) or not (
            os.path.exists(DRIVER) or shutil.which("chromedriver")):
        missing.append("apt-get install chromium chromium-driver")
    if missing:
        why = "the player page tests need a browser: " + "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(why + " (CI=true)")
        pytest.skip(why)


def start(profile: Path, width: int = 1280, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium") or CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER if os.path.exists(DRIVER) else shutil.which("chromedriver")),
                              options=options)
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    return driver


#: What counts as one action of a player's, from opening the mail to sending the reply: a click
#: (on the page, or in the mail program: open the mail, save its attachment, open the page, reply,
#: send), a file picked (or dropped), a field typed (Enter included), a paste.
ACTIONS = ("click", "file", "type", "paste", "mail")


class Page:
    """One player page in one browser; every action a player takes is counted in ``actions``
    (:meth:`act` names each one in ``steps``)."""

    def __init__(self, driver, url: str, downloads: Path):
        self.d = driver
        self.url = url
        self.actions = 0
        self.steps: list[str] = []
        self.downloads = downloads  # where each mail's attachment is saved, one folder per mail
        self.mails = 0

    def act(self, kind: str, what: str) -> None:
        """Count one action of the player's (``kind`` one of :data:`ACTIONS`), named ``what``."""
        assert kind in ACTIONS, kind
        self.actions += 1
        self.steps.append(f"{kind}: {what}")

    def count_from(self, start: int = 0) -> list[str]:
        """The actions counted since ``len(steps)`` was ``start``."""
        return self.steps[start:]

    def by(self, css: str):
        from selenium.webdriver.common.by import By

        return self.d.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str):
        from selenium.webdriver.common.by import By

        return self.d.find_elements(By.CSS_SELECTOR, css)

    def load(self) -> float:
        t = time.perf_counter()
        self.d.get(self.url)
        self.wait(lambda: self.d.execute_script("return document.body.dataset.ready === 'yes'"))
        return time.perf_counter() - t

    def wait(self, cond, timeout: float = 60.0):
        end = time.monotonic() + timeout
        while True:
            try:
                value = cond()
            except Exception:  # the element is being re-rendered
                value = None
            if value:
                return value
            if time.monotonic() > end:
                raise AssertionError(f"the page did not get there; it says: {self.message()!r}")
            time.sleep(0.02)

    def message(self) -> str:
        try:
            return self.by("#message").text
        except Exception:
            return ""

    def set_file(self, css: str, path: Path) -> None:
        self.by(css).send_keys(str(path))

    def open_game(self, game: Path, key: Path | None, passphrase: str) -> str:
        """Choose the key file and type the passphrase (once, for a page kept open), then choose
        the game file: the page opens it at once. Returns the page's message afterwards."""
        self.d.execute_script("document.getElementById('message').textContent = ''")
        if key is not None:
            self.set_file("#key-file", key)
        field = self.by("#passphrase")
        if field.get_attribute("value") != passphrase:
            field.clear()
            if passphrase:
                field.send_keys(passphrase)
        self.mails += 1
        attachment = self.downloads / f"mail-{self.mails}" / game.name
        attachment.parent.mkdir(parents=True)
        # what the judge mails: the game file's player copy (the moderator's part as its digest)
        from koryo_pbm.store.playercopy import player_copy

        attachment.write_bytes(player_copy(game.read_bytes()))
        self.set_file("#game-file", attachment)
        return self.wait(lambda: self.message())

    def choose(self, pick) -> list[str]:
        """Walk the menu: ``pick(labels, suggested)`` gives the index of each step, until a
        finished choice is picked (the page then seals it at once: :meth:`envelope`). Returns
        the labels picked."""
        self.d.execute_script("document.getElementById('envelope').value = ''")
        labels = []
        while True:
            # one round trip per question: the choices' labels, which is suggested, done or not
            state = self.d.execute_script(
                "const b = [...document.querySelectorAll('[data-choice]')];"
                "return [document.body.dataset.leaf === 'yes', b.map(x => x.textContent),"
                " b.findIndex(x => x.hasAttribute('data-suggested'))]")
            done, texts, suggested = state
            if done:
                return labels
            assert texts, f"a question without choices; the page says {self.message()!r}"
            i = pick(texts, None if suggested < 0 else suggested)
            labels.append(texts[i])
            self.all("[data-choice]")[i].click()
            self.act("click", f"choose {texts[i][:40]!r}")

    def envelope(self) -> str:
        """The envelope the page made when the choice was finished (no action of the player's)."""
        return self.wait(lambda: self.by("#envelope").get_attribute("value"))

    def make_key(self, name: str, passphrase: str) -> tuple[str, bytes]:
        field = self.by("#passphrase")
        field.clear()
        field.send_keys(passphrase)
        self.by("#new-name").clear()
        self.by("#new-name").send_keys(name)
        self.d.execute_script("document.getElementById('public-key').value = '';"
                              "document.getElementById('key-download').removeAttribute('href')")
        self.by("#keygen").click()
        line = self.wait(lambda: self.by("#public-key").get_attribute("value"), timeout=120)
        href = self.by("#key-download").get_attribute("href")
        assert href.startswith("data:application/octet-stream;base64,")
        return line.split()[0], base64.b64decode(href.split(",", 1)[1])

    def errors(self) -> list[str]:
        """What the browser's console said at level SEVERE (a CSP violation, an exception)."""
        return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]
