"""Writing pictures of the table for ``show --html FILE`` / ``--svg FILE`` (the edge of the pure
:mod:`koryo_pbm.picture`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from koryo_pbm.errors import StorageError, UsageError


def _check_target(path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise StorageError(f"{path} is a symbolic link; a picture is never written through one (nothing was written)")
    if stat.S_ISDIR(st.st_mode):
        raise StorageError(f"{path} is a folder; name a file for the picture (nothing was written)")
    if not stat.S_ISREG(st.st_mode):
        raise StorageError(f"{path} is not a regular file (nothing was written)")


def write_pictures(doc: Any, game: Any, view: Mapping[str, Any], html: Path | None, svg: Path | None,
                   answered: list[str] | None = None) -> None:
    """Write the picture(s) of ``view`` atomically, replacing an older picture at the same
    place. A picture with a player's hidden cards is written readable by its owner only."""
    from koryo_pbm.picture import picture
    from koryo_pbm.store.atomic import write_atomic

    targets = [(p, fmt) for p, fmt in ((html, "html"), (svg, "svg")) if p is not None]
    if html is not None and svg is not None and os.path.abspath(html) == os.path.abspath(svg):
        raise UsageError("--html and --svg name the same file")
    for path, _fmt in targets:
        _check_target(path)
    me = str(view.get("player", "") or "")
    for path, fmt in targets:
        text = picture(doc, game, view, fmt=fmt, answered=answered)
        write_atomic(path, text.encode("utf-8"), mode=0o600 if me else 0o644)
        if me:
            click.echo(f"wrote {path}: the table as {me} sees it, with {me}'s hidden cards; keep it to yourself")
        else:
            click.echo(f"wrote {path}: the public picture of the table (no hidden cards; fine to share)")
