"""Fixtures for pictures: the CLI of ``tests/cli`` and a real headless chromium.

:class:`Browser` loads a picture in Debian's chromium at a given width and returns what the
page's DOM holds: every card tile (its data attributes and where it was laid out), the page's
scroll width, and optionally a screenshot. Chromium's headless window is at least 500 pixels
wide, so a narrower screen (a phone: 390) is an ``iframe`` of that width in a wrapper page; the
wrapper's script reads the picture's DOM (the picture itself has no script) and writes it out
as JSON for ``--dump-dom``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from picture_kit import require_chromium

_CLI = Path(__file__).resolve().parents[1] / "cli"
sys.path.insert(0, str(_CLI))
_spec = importlib.util.spec_from_file_location("cli_conftest_for_pictures", _CLI / "conftest.py")
assert _spec and _spec.loader
_cli_conftest = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _cli_conftest
_spec.loader.exec_module(_cli_conftest)
Cli = _cli_conftest.Cli
cli = _cli_conftest.cli

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--allow-file-access-from-files"]

_WRAPPER = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0;background:#888"><iframe id="f" src="{src}" style="border:0;display:block;width:{w}px;height:{h}px"></iframe>
<pre id="out">not loaded</pre>
<script>
document.getElementById('f').onload = function () {{
  var d = this.contentDocument, out = document.getElementById('out');
  if (!d) {{ out.textContent = 'blocked'; return; }}
  var cards = [];
  d.querySelectorAll('[data-card]').forEach(function (e) {{
    var r = e.getBoundingClientRect();
    var panel = e.closest('[data-panel]');
    cards.push({{panel: panel ? panel.dataset.panel : '', card: e.dataset.card, count: +e.dataset.count, zone: e.dataset.zone, owner: e.dataset.owner,
                 marks: e.dataset.marks || '', left: r.left, right: r.right, width: r.width, height: r.height,
                 visible: r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'}});
  }});
  var text = d.body ? d.body.innerText : d.documentElement.textContent;  // an SVG image has no body
  out.textContent = 'DOM:' + JSON.stringify({{scrollWidth: d.documentElement.scrollWidth,
      clientWidth: d.documentElement.clientWidth, cards: cards, text: text,
      scripts: d.querySelectorAll('script').length, title: d.title,
      parts: Array.prototype.map.call(d.querySelectorAll('[data-part]'), function (e) {{ return e.dataset.part; }})}});
}};
</script></body></html>
"""


@dataclass
class Page:
    scroll_width: int
    client_width: int
    cards: list[dict]
    text: str
    scripts: int
    title: str
    parts: list[str]

    def zone(self, zone: str, owner: str | None = None, panel: str | None = None) -> dict[str, int]:
        """card id -> count of the tiles in ``zone`` (of ``owner``, in ``panel``)."""
        out: dict[str, int] = {}
        for c in self.cards:
            if c["zone"] == zone and (owner is None or c["owner"] == owner) and (panel is None or c["panel"] == panel):
                out[c["card"]] = out.get(c["card"], 0) + c["count"]
        return out


class Browser:
    def __init__(self, exe: str, tmp: Path):
        self.exe, self.tmp = exe, tmp
        self._n = 0

    def _run(self, args: list[str], timeout: float = 60) -> str:
        self._n += 1
        profile = self.tmp / f"profile-{self._n}"
        proc = subprocess.run([self.exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout

    def _wrap(self, page: Path, width: int, height: int) -> Path:
        self._n += 1
        wrapper = self.tmp / f"wrapper-{self._n}.html"
        wrapper.write_text(_WRAPPER.format(src=page.resolve().as_uri(), w=width, h=height), encoding="utf-8")
        return wrapper

    def load(self, page: Path, width: int, height: int = 1200) -> Page:
        """The DOM of ``page`` as laid out in a screen ``width`` pixels wide."""
        wrapper = self._wrap(page, width, height)
        dom = self._run(["--virtual-time-budget=5000", f"--window-size={max(width, 500)},{height}", "--dump-dom",
                         wrapper.as_uri()])
        m = re.search(r'<pre id="out">DOM:(.*?)</pre>', dom, re.S)
        assert m, f"the picture did not load in chromium: {dom[-500:]}"
        import html

        data = json.loads(html.unescape(m.group(1)))
        return Page(data["scrollWidth"], data["clientWidth"], data["cards"], data["text"], data["scripts"],
                    data["title"], data["parts"])

    def screenshot(self, page: Path, png: Path, width: int, height: int) -> bytes:
        """A PNG of ``page`` in a screen ``width`` x ``height``."""
        target = self._wrap(page, width, height) if width < 500 else page
        self._run([f"--window-size={max(width, 500) if width >= 500 else width},{height}",
                   f"--screenshot={png}", target.resolve().as_uri()])
        return png.read_bytes()


@pytest.fixture
def browser(tmp_path) -> Browser:
    exe = require_chromium()
    folder = tmp_path / "chromium"
    folder.mkdir()
    return Browser(exe, folder)
