"""The player page with a plug-in game: the release's page (:mod:`koryo_pbm.assets`) with one
more data block, ``py-plugins``, holding a pure-Python package installed beside koryo-pbm and
the table of the games it registers (``koryo_pbm_plugin_games``), which the page's Python puts
on its path and registers (:func:`koryo_pbm.pagecore.start`). The page's code (its one script,
the hash in its Content-Security-Policy) is the release's, byte for byte; the page as a whole is
not the release's page, and ``player-page --check`` says so, naming the games it adds.

Deterministic: the same package gives the same bytes (sorted files, fixed dates, gzip without a
time stamp). The plug-in's modules ship as sources (the page compiles them as it imports them);
only the standard library modules the release's page carries are there for them."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import zipfile
from pathlib import Path

from koryo_pbm.errors import UsageError

BLOCK_ID = "py-plugins"
_MARK = "<!-- koryo-pbm player page with plug-in games: "
_BLOCK = re.compile(rb'<script type="application/x-gzip-base64" id="py-plugins">([A-Za-z0-9+/=]*)</script>\n')
_COMMENT = re.compile(rb"<!-- koryo-pbm player page with plug-in games: [^\n]*-->\n")
DATE = (1980, 1, 1, 0, 0, 0)


def plugin_games(package: str) -> dict[str, str]:
    """The games registered (entry points of ``koryo_pbm.games``) whose class is in ``package``."""
    from koryo_pbm.engine import registry

    found = {name: ep.value for name, ep in registry._entry_points().items()
             if ep.value.split(":", 1)[0].strip().split(".")[0] == package}
    if not found:
        raise UsageError(f"{package!r} registers no koryo-pbm game (koryo-pbm games lists the games installed)")
    return found


def _files(package: str) -> list[tuple[str, bytes]]:
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(f"{package!r} is not an installed Python package")
    root = Path(next(iter(spec.submodule_search_locations)))
    out: list[tuple[str, bytes]] = []
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        rel = path.relative_to(root.parent).as_posix()
        if path.suffix in (".so", ".pyd", ".dylib", ".dll"):
            raise UsageError(f"{package} is not pure Python ({rel}): the page runs pure-Python games only")
        if path.suffix in (".py", ".toml", ".json", ".txt", ".md"):
            out.append((rel, path.read_bytes()))
    return out


def with_plugin(page: bytes, package: str) -> tuple[bytes, dict[str, str]]:
    """``page`` (the release's) with ``package`` and its games added; the games added."""
    if _BLOCK.search(page):
        raise UsageError("this page carries plug-in games already: start from the release's page")
    games = plugin_games(package)
    members = _files(package)
    table = "GAMES = " + json.dumps(games, sort_keys=True) + "  # the plug-in games this page carries\n"
    members.append(("koryo_pbm_plugin_games.py", table.encode("utf-8")))
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED) as z:
        for name, data in sorted(members):
            info = zipfile.ZipInfo(name, DATE)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, data)
    packed = base64.b64encode(gzip.compress(raw.getvalue(), 9, mtime=0))
    block = b'<script type="application/x-gzip-base64" id="py-plugins">' + packed + b"</script>\n"
    at = page.index(b'<script type="application/x-gzip-base64" id="py-lock">')
    names = ", ".join(sorted(games))
    comment = f"{_MARK}{names} (package {package}) -->\n".encode()
    out = page[:at] + block + page[at:]
    head = out.index(b"<head>\n") + len(b"<head>\n")
    return out[:head] + comment + out[head:], games


def plugin_of(page: bytes, release: bytes) -> list[str] | None:
    """The plug-in games ``page`` adds to ``release`` when it is exactly ``release`` with a
    plug-in block (:func:`with_plugin`), else ``None``."""
    block = _BLOCK.search(page)
    comment = _COMMENT.search(page)
    if block is None or comment is None:
        return None
    bare = _BLOCK.sub(b"", _COMMENT.sub(b"", page, count=1), count=1)
    if bare != release:
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(gzip.decompress(base64.b64decode(block.group(1))))) as z:
            text = z.read("koryo_pbm_plugin_games.py").decode("utf-8")
        games = json.loads(text.split("=", 1)[1].split("  #", 1)[0])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None
    return sorted(games) if isinstance(games, dict) else None
