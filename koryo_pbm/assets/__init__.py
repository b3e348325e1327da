"""Files shipped with koryo-pbm: the player page (built from ``player-page/``, see its README)."""

from __future__ import annotations

import hashlib
from importlib import resources

PLAYER_PAGE = "player-page.html"


def player_page() -> bytes:
    """The bytes of the player page of this release (one self-contained HTML file)."""
    return resources.files(__name__).joinpath(PLAYER_PAGE).read_bytes()


def player_page_sha256() -> str:
    return hashlib.sha256(player_page()).hexdigest()


def code_sha256(page: bytes) -> str | None:
    """The SHA-256 of the page's inline script (what the page shows of itself), or None."""
    start = page.find(b"<script>")
    end = page.find(b"</script>", start)
    if start < 0 or end < 0:
        return None
    return hashlib.sha256(page[start + len(b"<script>"):end]).hexdigest()
